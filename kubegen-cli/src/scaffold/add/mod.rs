//! `kubegen add`: grows a crate made by `kubegen new` — another kind with
//! its controller ([`kind`]), another version of a kind with its
//! conversion ([`version`]) and admission webhooks for a kind
//! ([`webhook`]).
//!
//! Each command plans every new file and every edit of an existing one
//! (a [`Plan`]) and refuses, naming the file and line, whatever it cannot
//! place with certainty. Nothing is written unless the whole plan holds:
//! it is applied to a staged copy of the crate, which is generated and
//! checked in-process; only then are the files written.

pub mod kind;
pub mod version;
pub mod webhook;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::edit::{self, Refusal};
use super::names::Names;
use super::templates;
use crate::files;
use crate::generate::{self, Analyzed, Api};
use crate::source::{CrateSource, Diagnostic};
use kubegen_core::model::ResourceModel;

/// The crate `kubegen add` grows, as the generator reads it.
pub struct Crate {
    /// Its root directory.
    pub root: PathBuf,
    /// Its API.
    pub api: Api,
}

impl Crate {
    /// Loads the crate in `dir` (its `Cargo.toml`), refusing one the
    /// generator cannot read.
    pub fn load(dir: &Path) -> Result<Crate, Vec<Diagnostic>> {
        let manifest = dir.join("Cargo.toml");
        if !manifest.is_file() {
            return Err(vec![Diagnostic::file(
                &manifest,
                "no Cargo.toml here: run `kubegen add` in a crate made by `kubegen new` (or pass --manifest-path)",
            )]);
        }
        let source = CrateSource::load(&manifest)?;
        let api = Api::load(&source, source.manifest.settings.clone())?;
        Ok(Crate {
            root: dir.to_path_buf(),
            api,
        })
    }

    /// Every resource (kind at a version) with where it is declared.
    pub fn resources(&self) -> impl Iterator<Item = (&Analyzed, &ResourceModel)> {
        self.api.resources()
    }

    /// The kind named `kind`, or the crate's only kind when `None`; its
    /// versions. Refused with the kinds there are (and the closest one).
    pub fn kind(&self, kind: Option<&str>) -> Result<Vec<(&Analyzed, &ResourceModel)>, String> {
        let mut kinds: Vec<&str> = self.resources().map(|(_, m)| m.kind.as_str()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        let name = match (kind, kinds.as_slice()) {
            (Some(k), _) => k,
            (None, [one]) => one,
            (None, []) => return Err("the crate declares no kind".into()),
            (None, _) => {
                return Err(format!(
                    "the crate declares several kinds ({}): name one with --kind",
                    kinds.join(", ")
                ));
            }
        };
        let versions: Vec<_> = self.resources().filter(|(_, m)| m.kind == name).collect();
        if versions.is_empty() {
            let hint = kubegen_core::suggest::suggest(name, kinds.iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(format!(
                "the crate declares no kind `{name}` (it has {}){hint}",
                kinds.join(", ")
            ));
        }
        Ok(versions)
    }

    /// The names the templates are rendered with, for `model`.
    pub fn names(&self, model: &ResourceModel) -> Names {
        Names::new(&self.api.package, &model.group, &model.version, &model.kind)
    }
}

/// The 1-based line of `item`'s first attribute (or its name).
pub fn line_of(item: &Analyzed) -> usize {
    let input = &item.input.derive_input;
    input
        .attrs
        .first()
        .map(|a| a.pound_token.span.start().line)
        .unwrap_or_else(|| input.ident.span().start().line)
}

/// What `kubegen add` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// What was added, e.g. `version v2 of MyApplication`.
    pub what: String,
    /// The crate's directory.
    pub dir: PathBuf,
    /// Files created, relative to `dir`, sorted.
    pub created: Vec<PathBuf>,
    /// Existing files edited, relative to `dir`, sorted.
    pub edited: Vec<PathBuf>,
}

impl Added {
    /// What to tell the user.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "kubegen: added {} to {} (generated code up to date)\n",
            self.what,
            self.dir.display()
        );
        for file in &self.created {
            let _ = writeln!(text, "  created {}", file.display());
        }
        for file in &self.edited {
            let _ = writeln!(text, "  edited  {}", file.display());
        }
        text.push_str("\nNext: fill in the stubs (search for TODO), then `make test`.\n");
        text
    }
}

/// One file's change: its text before (`None` for a new file) and after.
struct Change {
    before: Option<String>,
    after: String,
}

/// Every file `kubegen add` will create or edit, and every refusal met
/// while planning them.
pub struct Plan {
    root: PathBuf,
    changes: BTreeMap<PathBuf, Change>,
    errors: Vec<Diagnostic>,
}

impl Plan {
    /// An empty plan for the crate at `root`.
    pub fn new(root: &Path) -> Plan {
        Plan {
            root: root.to_path_buf(),
            changes: BTreeMap::new(),
            errors: Vec::new(),
        }
    }

    /// Records a refusal about `file` (relative) at `line` (0: no line).
    pub fn refuse(&mut self, file: &Path, line: usize, message: impl Into<String>) {
        let mut d = Diagnostic::file(&self.root.join(file), message);
        d.line = line;
        self.errors.push(d);
    }

    /// Whether `file` (relative) exists, in the plan or on disk (a
    /// symbolic link counts, and is never followed).
    pub fn exists(&self, file: &Path) -> bool {
        self.changes.contains_key(file) || self.root.join(file).symlink_metadata().is_ok()
    }

    /// The current text of `file` (relative): as planned, else on disk.
    /// `None` (and a refusal) when it is missing, a link or unreadable.
    pub fn read(&mut self, file: &Path) -> Option<String> {
        if let Some(change) = self.changes.get(file) {
            return Some(change.after.clone());
        }
        let path = self.root.join(file);
        match path.symlink_metadata() {
            Ok(meta) if meta.file_type().is_file() => match std::fs::read_to_string(&path) {
                Ok(text) => Some(text),
                Err(e) => {
                    self.refuse(file, 0, e.to_string());
                    None
                }
            },
            Ok(_) => {
                self.refuse(file, 0, "not a regular file (kubegen edits no links)");
                None
            }
            Err(_) => {
                self.refuse(
                    file,
                    0,
                    "missing: kubegen add edits the files `kubegen new` creates; restore it or make the change by hand",
                );
                None
            }
        }
    }

    /// Whether the crate is a sharded operator (`kubegen new --sharded`):
    /// its `src/main.rs` (as planned, else on disk) passes the manager's
    /// shards to its controllers. A missing or unreadable `main.rs` is
    /// not sharded here; editing it is refused on its own.
    pub fn sharded(&self) -> bool {
        let main = Path::new("src/main.rs");
        let text = match self.changes.get(main) {
            Some(change) => Some(change.after.clone()),
            None => std::fs::read_to_string(self.root.join(main)).ok(),
        };
        text.is_some_and(|text| text.contains(templates::SHARDED_MARKER))
    }

    /// Plans a new file; refused when `file` exists.
    pub fn create(&mut self, file: &Path, text: String) {
        if self.exists(file) {
            self.refuse(
                file,
                0,
                "exists already: kubegen add never overwrites a file (remove it, or choose another name)",
            );
            return;
        }
        self.changes.insert(
            file.to_path_buf(),
            Change {
                before: None,
                after: text,
            },
        );
    }

    /// Plans an edit of `file` by `edit`; its refusal is recorded with
    /// the file.
    pub fn edit(&mut self, file: &Path, edit: impl FnOnce(&str) -> Result<String, Refusal>) {
        let Some(text) = self.read(file) else { return };
        match edit(&text) {
            Ok(after) => {
                let before = match self.changes.remove(file) {
                    Some(change) => change.before,
                    None => Some(text),
                };
                self.changes
                    .insert(file.to_path_buf(), Change { before, after });
            }
            Err(refusal) => self.refuse(file, refusal.line, refusal.message),
        }
    }

    /// Applies the plan: staged on a copy of the crate, generated and
    /// checked there, then written. On any error nothing is written.
    pub fn commit(self, what: String) -> Result<Added, Vec<Diagnostic>> {
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        let root = &self.root;
        let parent = root
            .canonicalize()
            .ok()
            .and_then(|r| r.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("."));
        let staging = parent.join(format!(".kubegen-add-{}", std::process::id()));
        let staged = self.stage(&staging);
        let _ = std::fs::remove_dir_all(&staging);
        let set = staged?;
        self.write()?;
        let file_error = |e: files::FileError| vec![Diagnostic::file(&e.path, e.message)];
        files::write(root, &set).map_err(file_error)?;
        let (created, edited) = self
            .changes
            .iter()
            .partition::<Vec<_>, _>(|(_, c)| c.before.is_none());
        Ok(Added {
            what,
            dir: root.clone(),
            created: created.into_iter().map(|(p, _)| p.clone()).collect(),
            edited: edited.into_iter().map(|(p, _)| p.clone()).collect(),
        })
    }

    /// Copies the crate to `staging`, applies the changes there and
    /// generates; the generated files, verified.
    fn stage(&self, staging: &Path) -> Result<files::FileSet, Vec<Diagnostic>> {
        let io_error = |path: &Path, e: std::io::Error| vec![Diagnostic::file(path, e.to_string())];
        copy_tree(&self.root, staging).map_err(|e| io_error(&self.root, e))?;
        for (file, change) in &self.changes {
            let path = staging.join(file);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
            }
            std::fs::write(&path, &change.after).map_err(|e| io_error(&path, e))?;
        }
        let relocate = |errors: Vec<Diagnostic>| {
            errors
                .into_iter()
                .map(|mut d| {
                    if let Ok(rel) = d.file.strip_prefix(staging) {
                        d.file = self.root.join(rel);
                    }
                    d
                })
                .collect::<Vec<_>>()
        };
        let source = CrateSource::load(&staging.join("Cargo.toml")).map_err(relocate)?;
        let api = Api::load(&source, source.manifest.settings.clone()).map_err(relocate)?;
        let set = generate::generate(&api).map_err(relocate)?;
        let file_error = |e: files::FileError| vec![Diagnostic::file(&e.path, e.message)];
        files::write(&api.root, &set)
            .map_err(file_error)
            .map_err(relocate)?;
        let drift = files::check(&api.root, &set)
            .map_err(file_error)
            .map_err(relocate)?;
        if !drift.is_empty() {
            return Err(relocate(
                drift
                    .iter()
                    .map(|d| Diagnostic::file(d.path(), "generated file does not verify"))
                    .collect(),
            ));
        }
        Ok(set)
    }

    /// Writes every change: each new text to a temporary sibling first,
    /// then renamed over the file, so that a failed write changes nothing.
    fn write(&self) -> Result<(), Vec<Diagnostic>> {
        let io_error = |path: &Path, e: std::io::Error| vec![Diagnostic::file(path, e.to_string())];
        let mut temporaries = Vec::new();
        let mut result = Ok(());
        for (file, change) in &self.changes {
            let path = self.root.join(file);
            let temporary = path.with_file_name(format!(
                ".{}.kubegen-add-{}",
                path.file_name().unwrap_or_default().to_string_lossy(),
                std::process::id()
            ));
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&temporary, &change.after));
            temporaries.push((temporary, path.clone()));
            if let Err(e) = written {
                result = Err(io_error(&path, e));
                break;
            }
        }
        if result.is_ok() {
            for (temporary, path) in &temporaries {
                std::fs::rename(temporary, path).map_err(|e| io_error(path, e))?;
            }
            return Ok(());
        }
        for (temporary, _) in &temporaries {
            let _ = std::fs::remove_file(temporary);
        }
        result
    }
}

/// Copies `from` to `to` (which must not exist), leaving out `target/`
/// and hidden entries; links are copied as links, never followed.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        let (source, dest) = (entry.path(), to.join(&name));
        if kind.is_dir() {
            copy_tree(&source, &dest)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &dest)?;
        } else {
            std::fs::copy(&source, &dest)?;
        }
    }
    Ok(())
}

/// Plans the webhook server's wiring (`src/webhook.rs`, its module, the
/// webhook blocks of `main.rs` and `deploy/`, the Service) unless the
/// crate has it.
pub fn wire_webhook_server(plan: &mut Plan, names: &Names) {
    if plan.exists(Path::new("src/webhook.rs")) {
        return;
    }
    let variables = names.variables();
    let sharded = plan.sharded();
    for (path, text) in templates::WEBHOOK_TEMPLATES {
        plan.create(Path::new(path), templates::render(text, &variables));
    }
    plan.edit(Path::new("src/lib.rs"), |text| {
        edit::add_mod(text, "webhook")
    });
    for (path, text) in templates::TEMPLATES {
        for (anchor, block) in templates::blocks(text, sharded) {
            let anchor = templates::render(&anchor, &variables);
            let block = templates::render(&block, &variables);
            plan.edit(Path::new(path), |text| {
                edit::insert_after(text, &anchor, &block).map_err(|mut r| {
                    r.message.push_str(
                        " (wiring the webhook server: compare with `kubegen new --webhook`)",
                    );
                    r
                })
            });
        }
    }
}

/// Plans `line` into the webhook server's chain in `src/webhook.rs`.
pub fn register_webhook(plan: &mut Plan, line: &str) {
    plan.edit(Path::new("src/webhook.rs"), |text| {
        edit::add_to_chain(text, "    WebhookServer::builder(cert)", line)
    });
}

#[cfg(test)]
mod tests;

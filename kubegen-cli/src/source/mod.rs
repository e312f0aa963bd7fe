//! Reading a crate's sources without compiling it: the Cargo.toml settings,
//! then every file of the module tree parsed with syn, each item tagged with
//! its module path and file so errors can point at `file:line:col`, and what
//! each module brings into scope (`use`s, type aliases: [`Scopes`]).

mod cfg;
mod config;
mod diagnostic;
mod scope;

use std::path::{Path, PathBuf};

pub use cfg::{Cfg, CfgError};
pub use config::{FeatureSelection, HelmSettings, Manifest, Settings};
pub use diagnostic::Diagnostic;
pub use scope::{ModuleScope, Scopes, UsePath};

/// One parsed source file of the crate.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the crate root (the manifest's directory).
    pub path: PathBuf,
    /// Module path of the file's top level, e.g. `["api", "v1"]` (empty for
    /// the crate root).
    pub module: Vec<String>,
    /// The parsed file, with `cfg` and `cfg_attr` applied.
    pub ast: syn::File,
}

/// A module kubegen had to read without knowing whether it is compiled in.
#[derive(Debug, Clone)]
pub struct UncertainModule {
    /// Its module path.
    pub module: Vec<String>,
    /// The undecidable predicate, located.
    pub reason: Diagnostic,
}

/// A crate's manifest and parsed module tree.
#[derive(Debug, Clone)]
pub struct CrateSource {
    /// Directory of the crate's Cargo.toml.
    pub root: PathBuf,
    /// The manifest and kubegen settings.
    pub manifest: Manifest,
    /// The configuration the crate was read with.
    pub cfg: Cfg,
    /// Every file of the module tree, in module order.
    pub files: Vec<SourceFile>,
    /// Modules behind a `cfg` kubegen cannot decide: kubegen input found in
    /// them is an error.
    pub uncertain: Vec<UncertainModule>,
}

impl CrateSource {
    /// Reads the crate with its default features; see [`CrateSource::load_with`].
    pub fn load(manifest_path: &Path) -> Result<CrateSource, Vec<Diagnostic>> {
        Self::load_with(manifest_path, &FeatureSelection::default())
    }

    /// Reads the crate at `manifest_path` as rustc would compile it with
    /// `features`: the manifest, then every module file reachable from the
    /// crate root through `mod name;` (rustc's `#[path]` rules for mod-rs
    /// and non-mod-rs files and inline modules), line endings normalised,
    /// `cfg`/`cfg_attr` applied, skipping the directory the generator
    /// writes to. Every unreadable or unparsable file, module cycle and
    /// undecidable `cfg` on kubegen input is reported.
    pub fn load_with(
        manifest_path: &Path,
        features: &FeatureSelection,
    ) -> Result<CrateSource, Vec<Diagnostic>> {
        let manifest = Manifest::read(manifest_path).map_err(|d| vec![d])?;
        let cfg = Cfg::new(
            manifest
                .enabled_features(features, Path::new("Cargo.toml"))
                .map_err(|d| vec![d])?,
        );
        let root = manifest_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut loader = Loader {
            root: &root,
            skip_dir: manifest.settings.rust_out.clone(),
            cfg: &cfg,
            stack: Vec::new(),
            files: Vec::new(),
            uncertain: Vec::new(),
            errors: Vec::new(),
        };
        let root_file = manifest.root_file.clone();
        loader.load_file(&root_file, Vec::new(), FileKind::ModRs);
        let Loader {
            files,
            uncertain,
            errors,
            ..
        } = loader;
        if errors.is_empty() {
            Ok(CrateSource {
                root,
                manifest,
                cfg,
                files,
                uncertain,
            })
        } else {
            Err(errors)
        }
    }

    /// Files whose module lies inside one of the configured `modules` (all
    /// files when none are configured).
    pub fn scanned_files(&self) -> impl Iterator<Item = &SourceFile> {
        let wanted: Vec<Vec<String>> = self
            .manifest
            .settings
            .modules
            .iter()
            .map(|m| {
                m.trim_start_matches("crate::")
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .collect();
        self.files
            .iter()
            .filter(move |f| wanted.is_empty() || wanted.iter().any(|w| f.module.starts_with(w)))
    }

    /// Why input in `module` cannot be trusted, if it lies in a module
    /// behind an undecidable `cfg`.
    pub fn uncertainty(&self, module: &[String]) -> Option<&Diagnostic> {
        self.uncertain
            .iter()
            .find(|u| module.starts_with(&u.module))
            .map(|u| &u.reason)
    }
}

/// rustc's two kinds of module file: where a file's `mod name;` children
/// live depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    /// The crate root, a `mod.rs`, or a file loaded through `#[path]`:
    /// children live beside it.
    ModRs,
    /// Any other module file `a.rs`: children live in `a/`.
    NonModRs,
}

struct Loader<'a> {
    root: &'a Path,
    skip_dir: PathBuf,
    cfg: &'a Cfg,
    /// Files being loaded, outermost first, to detect `mod` cycles.
    stack: Vec<PathBuf>,
    files: Vec<SourceFile>,
    uncertain: Vec<UncertainModule>,
    errors: Vec<Diagnostic>,
}

impl Loader<'_> {
    /// Parses `path` (relative to the crate root) as module `module`.
    fn load_file(&mut self, path: &Path, module: Vec<String>, kind: FileKind) {
        let text = match std::fs::read_to_string(self.root.join(path)) {
            // rustc normalises line endings before lexing.
            Ok(text) => text.replace("\r\n", "\n"),
            Err(e) => {
                self.errors
                    .push(Diagnostic::file(path, format!("cannot read: {e}")));
                return;
            }
        };
        let mut ast = match syn::parse_file(&text) {
            Ok(ast) => ast,
            Err(e) => {
                self.errors.extend(Diagnostic::from_syn(path, &e));
                return;
            }
        };
        let applied = self.cfg.apply(&mut ast.items);
        for e in applied.errors {
            self.errors.extend(Diagnostic::from_syn(path, &e));
        }
        for (inner, e) in applied.uncertain_mods {
            let mut full = module.clone();
            full.extend(inner.split("::").map(str::to_string));
            let reason = Diagnostic::from_syn(path, &e)
                .into_iter()
                .next()
                .unwrap_or_else(|| Diagnostic::file(path, e.to_string()));
            self.uncertain.push(UncertainModule {
                module: full,
                reason,
            });
        }
        let file_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let child_dir = match kind {
            FileKind::ModRs => file_dir.clone(),
            FileKind::NonModRs => file_dir.join(path.file_stem().unwrap_or_default()),
        };
        let canonical = self
            .root
            .join(path)
            .canonicalize()
            .unwrap_or_else(|_| self.root.join(path));
        self.stack.push(canonical);
        let items = ast.items.clone();
        self.walk_items(path, &items, &module, &child_dir, &file_dir);
        self.stack.pop();
        self.files.push(SourceFile {
            path: path.to_path_buf(),
            module,
            ast,
        });
    }

    /// Loads the `mod` items of `items` (module `module` of `file`):
    /// `mod name;` children live in `dir`; `#[path]` is relative to
    /// `path_base` (the file's directory at its top level, `dir` inside
    /// inline modules).
    fn walk_items(
        &mut self,
        file: &Path,
        items: &[syn::Item],
        module: &[String],
        dir: &Path,
        path_base: &Path,
    ) {
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            let mut child = module.to_vec();
            child.push(m.ident.to_string());
            // `mod r#match;` lives in `match.rs`.
            let name = syn::ext::IdentExt::unraw(&m.ident).to_string();
            if let Some((_, inner)) = &m.content {
                // Inline module: its items were parsed with this file; its
                // children (and its `#[path]`s) live in `dir/name/`.
                let inner_dir = dir.join(&name);
                self.walk_items(file, inner, &child, &inner_dir, &inner_dir);
                continue;
            }
            let (path, kind) = match path_attr(&m.attrs) {
                Some(p) => (path_base.join(p), FileKind::ModRs),
                None => {
                    let flat = dir.join(format!("{name}.rs"));
                    if self.root.join(&flat).exists() {
                        (flat, FileKind::NonModRs)
                    } else {
                        (dir.join(&name).join("mod.rs"), FileKind::ModRs)
                    }
                }
            };
            let path = normalise(&path);
            if path.starts_with(&self.skip_dir) || dir.join(&name).starts_with(&self.skip_dir) {
                continue;
            }
            let span = m.ident.span().start();
            let at = |message: String| Diagnostic {
                file: file.to_path_buf(),
                line: span.line,
                column: span.column + 1,
                message,
            };
            if !self.root.join(&path).exists() {
                self.errors.push(at(format!(
                    "module `{name}` has no file (looked for {})",
                    path.display()
                )));
                continue;
            }
            let canonical = self
                .root
                .join(&path)
                .canonicalize()
                .unwrap_or_else(|_| self.root.join(&path));
            if self.stack.contains(&canonical) {
                self.errors.push(at(format!(
                    "circular modules: `{}` is already being loaded by an enclosing module \
                     (rustc rejects this crate too)",
                    path.display()
                )));
                continue;
            }
            self.load_file(&path, child, kind);
        }
    }
}

/// `path` without `.` components and with `a/..` folded, as rustc joins
/// module paths textually.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    fn crate_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
        );
        for (path, text) in files {
            write(dir.path(), path, text);
        }
        dir
    }

    #[test]
    fn walks_the_module_tree() {
        let dir = crate_with(&[
            (
                "src/lib.rs",
                "pub mod api;\nmod inline { pub mod deep; }\n#[cfg(test)] mod tests;\nmod generated;\n",
            ),
            (
                "src/api/mod.rs",
                "pub mod v1;\n#[path = \"odd_name.rs\"] mod odd;\n",
            ),
            ("src/api/v1.rs", "pub struct A;\n"),
            ("src/api/odd_name.rs", "pub struct O;\n"),
            ("src/inline/deep.rs", "pub struct D;\n"),
        ]);
        let source = CrateSource::load(&dir.path().join("Cargo.toml")).unwrap();
        let mut modules: Vec<(String, String)> = source
            .files
            .iter()
            .map(|f| (f.module.join("::"), f.path.display().to_string()))
            .collect();
        modules.sort();
        assert_eq!(
            modules,
            vec![
                ("".to_string(), "src/lib.rs".to_string()),
                ("api".to_string(), "src/api/mod.rs".to_string()),
                ("api::odd".to_string(), "src/api/odd_name.rs".to_string()),
                ("api::v1".to_string(), "src/api/v1.rs".to_string()),
                ("inline::deep".to_string(), "src/inline/deep.rs".to_string()),
            ]
        );
    }

    #[test]
    fn reports_every_broken_file_with_position() {
        let dir = crate_with(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod missing;\n"),
            ("src/a.rs", "struct A {\n  x: ,\n}\n"),
            ("src/b.rs", "fn f( {}\n"),
        ]);
        let errors = CrateSource::load(&dir.path().join("Cargo.toml")).unwrap_err();
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 3, "{text:#?}");
        assert!(text[0].starts_with("src/a.rs:2:6: error:"), "{text:#?}");
        assert!(text[1].starts_with("src/b.rs:1:"), "{text:#?}");
        assert!(
            text[2].starts_with("src/lib.rs:3:5: error: module `missing` has no file"),
            "{text:#?}"
        );
    }

    #[test]
    fn scans_only_configured_modules() {
        let dir = crate_with(&[
            ("src/lib.rs", "pub mod api;\npub mod controller;\n"),
            ("src/api.rs", ""),
            ("src/controller.rs", ""),
        ]);
        write(
            dir.path(),
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n[package.metadata.kubegen]\nmodules = [\"crate::api\"]\n",
        );
        let source = CrateSource::load(&dir.path().join("Cargo.toml")).unwrap();
        let scanned: Vec<String> = source
            .scanned_files()
            .map(|f| f.module.join("::"))
            .collect();
        assert_eq!(scanned, vec!["api".to_string()]);
    }

    #[test]
    fn path_attributes_follow_rustc() {
        // In a non-mod-rs file `src/a.rs`, `#[path]` is relative to `src/`;
        // inside an inline module it is relative to `src/a/<inline>/`; a
        // file loaded through `#[path]` keeps its children beside it.
        let dir = crate_with(&[
            ("src/lib.rs", "mod a;\n"),
            (
                "src/a.rs",
                "#[path = \"b.rs\"] mod b;\nmod inner { #[path = \"c.rs\"] mod c; }\nmod d;\n",
            ),
            ("src/b.rs", "mod e;\n"),
            ("src/e.rs", ""),
            ("src/a/inner/c.rs", ""),
            ("src/a/d.rs", ""),
        ]);
        let source =
            CrateSource::load(&dir.path().join("Cargo.toml")).unwrap_or_else(|e| panic!("{e:#?}"));
        let mut modules: Vec<(String, String)> = source
            .files
            .iter()
            .map(|f| (f.module.join("::"), f.path.display().to_string()))
            .collect();
        modules.sort();
        assert_eq!(
            modules,
            [
                ("", "src/lib.rs"),
                ("a", "src/a.rs"),
                ("a::b", "src/b.rs"),
                ("a::b::e", "src/e.rs"),
                ("a::d", "src/a/d.rs"),
                ("a::inner::c", "src/a/inner/c.rs"),
            ]
            .map(|(m, p)| (m.to_string(), p.to_string()))
        );
    }

    #[test]
    fn module_cycles_are_errors_not_stack_overflows() {
        let dir = crate_with(&[
            ("src/lib.rs", "mod a;\n#[path = \"lib.rs\"] mod again;\n"),
            ("src/a.rs", "#[path = \"a.rs\"] mod me;\n"),
        ]);
        let errors = CrateSource::load(&dir.path().join("Cargo.toml")).unwrap_err();
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2, "{text:#?}");
        assert!(
            text.iter()
                .any(|t| t.starts_with("src/lib.rs:2:") && t.contains("circular modules")),
            "{text:#?}"
        );
        assert!(
            text.iter()
                .any(|t| t.starts_with("src/a.rs:1:") && t.contains("circular modules")),
            "{text:#?}"
        );
    }

    #[test]
    fn crlf_sources_read_like_lf_sources() {
        let dir = crate_with(&[("src/lib.rs", "/** One\r\n two */\r\npub struct A;\r\n")]);
        let source = CrateSource::load(&dir.path().join("Cargo.toml")).unwrap();
        let syn::Item::Struct(s) = &source.files[0].ast.items[0] else {
            panic!("not a struct")
        };
        let syn::Meta::NameValue(doc) = &s.attrs[0].meta else {
            panic!("no doc")
        };
        let text = quote::ToTokens::to_token_stream(&doc.value).to_string();
        assert!(!text.contains("\\r"), "{text}");
    }

    #[test]
    fn features_and_undecidable_modules() {
        let dir = crate_with(&[
            (
                "src/lib.rs",
                "#[cfg(feature = \"extra\")] mod extra;\n#[cfg(debug_assertions)] mod dev;\n#[cfg(debug_assertions)] mod quiet;\n",
            ),
            (
                "src/extra.rs",
                "#[derive(KubeSchema)] pub struct X { a: u8 }\n",
            ),
            (
                "src/dev.rs",
                "#[derive(KubeSchema)] pub struct D { a: u8 }\n",
            ),
            ("src/quiet.rs", "pub struct NotInput;\n"),
        ]);
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n[features]\nextra = []\n",
        )
        .unwrap();
        let source = CrateSource::load(&manifest).unwrap();
        assert!(
            !source.files.iter().any(|f| f.module == ["extra"]),
            "feature off"
        );
        let on = FeatureSelection {
            features: vec!["extra".into()],
            ..Default::default()
        };
        let source = CrateSource::load_with(&manifest, &on).unwrap();
        assert!(
            source.files.iter().any(|f| f.module == ["extra"]),
            "feature on"
        );
        // `dev` holds kubegen input behind a cfg kubegen cannot decide.
        let reason = source.uncertainty(&["dev".to_string()]).unwrap();
        assert_eq!((reason.line, reason.column), (2, 7));
        assert!(reason.message.contains("cfg(debug_assertions)"), "{reason}");
    }
}

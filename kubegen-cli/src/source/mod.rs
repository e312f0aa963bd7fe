//! Reading a crate's sources without compiling it: the Cargo.toml settings,
//! then every file of the module tree parsed with syn, each item tagged with
//! its module path and file so errors can point at `file:line:col`.

mod config;
mod diagnostic;

use std::path::{Path, PathBuf};

pub use config::{Manifest, Settings};
pub use diagnostic::Diagnostic;

/// One parsed source file of the crate.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the crate root (the manifest's directory).
    pub path: PathBuf,
    /// Module path of the file's top level, e.g. `["api", "v1"]` (empty for
    /// the crate root).
    pub module: Vec<String>,
    /// The parsed file.
    pub ast: syn::File,
}

/// A crate's manifest and parsed module tree.
#[derive(Debug, Clone)]
pub struct CrateSource {
    /// Directory of the crate's Cargo.toml.
    pub root: PathBuf,
    /// The manifest and kubegen settings.
    pub manifest: Manifest,
    /// Every file of the module tree, in module order.
    pub files: Vec<SourceFile>,
}

impl CrateSource {
    /// Reads the crate at `manifest_path`: the manifest, then every module
    /// file reachable from the crate root through `mod name;` (honouring
    /// `#[path]`), skipping `#[cfg(test)]` modules and the directory the
    /// generator writes to. Every unreadable or unparsable file is reported.
    pub fn load(manifest_path: &Path) -> Result<CrateSource, Vec<Diagnostic>> {
        let manifest = Manifest::read(manifest_path).map_err(|d| vec![d])?;
        let root = manifest_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut loader = Loader {
            root: &root,
            skip_dir: manifest.settings.rust_out.clone(),
            files: Vec::new(),
            errors: Vec::new(),
        };
        let root_file = manifest.root_file.clone();
        let module_dir = root_file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        loader.load_file(&root_file, Vec::new(), &module_dir);
        let Loader { files, errors, .. } = loader;
        if errors.is_empty() {
            Ok(CrateSource {
                root,
                manifest,
                files,
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
}

struct Loader<'a> {
    root: &'a Path,
    skip_dir: PathBuf,
    files: Vec<SourceFile>,
    errors: Vec<Diagnostic>,
}

impl Loader<'_> {
    /// Parses `path` (relative to the crate root) as module `module`, whose
    /// child modules live in `child_dir`.
    fn load_file(&mut self, path: &Path, module: Vec<String>, child_dir: &Path) {
        let text = match std::fs::read_to_string(self.root.join(path)) {
            Ok(text) => text,
            Err(e) => {
                self.errors
                    .push(Diagnostic::file(path, format!("cannot read: {e}")));
                return;
            }
        };
        let ast = match syn::parse_file(&text) {
            Ok(ast) => ast,
            Err(e) => {
                self.errors.extend(Diagnostic::from_syn(path, &e));
                return;
            }
        };
        self.walk_items(path, &ast.items, &module, child_dir);
        self.files.push(SourceFile {
            path: path.to_path_buf(),
            module,
            ast,
        });
    }

    fn walk_items(&mut self, file: &Path, items: &[syn::Item], module: &[String], dir: &Path) {
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            if is_cfg_test(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            let mut child = module.to_vec();
            child.push(name.clone());
            match &m.content {
                // Inline module: its items were parsed with this file; its
                // own `mod x;` children live in `dir/name/`.
                Some((_, inner)) => self.walk_items(file, inner, &child, &dir.join(&name)),
                None => {
                    let (path, child_dir) = match path_attr(&m.attrs) {
                        Some(p) => {
                            let path = dir.join(p);
                            let child_dir =
                                path.parent().map(Path::to_path_buf).unwrap_or_default();
                            (path, child_dir)
                        }
                        None => {
                            let flat = dir.join(format!("{name}.rs"));
                            if self.root.join(&flat).exists() {
                                (flat, dir.join(&name))
                            } else {
                                (dir.join(&name).join("mod.rs"), dir.join(&name))
                            }
                        }
                    };
                    if path.starts_with(&self.skip_dir)
                        || dir.join(&name).starts_with(&self.skip_dir)
                    {
                        continue;
                    }
                    if !self.root.join(&path).exists() {
                        let span = m.ident.span().start();
                        self.errors.push(Diagnostic {
                            file: file.to_path_buf(),
                            line: span.line,
                            column: span.column + 1,
                            message: format!(
                                "module `{name}` has no file (looked for {})",
                                path.display()
                            ),
                        });
                        continue;
                    }
                    self.load_file(&path, child, &child_dir);
                }
            }
        }
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
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
}

//! Where imported modules go: `src/<module>/<group>/<version>/<kind>.rs`,
//! the `mod.rs` files that declare them (keeping kinds imported earlier),
//! and — when the directory holds no crate — a minimal crate around them.
//! An existing crate's own files (`Cargo.toml`, `lib.rs`) are never
//! touched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::Options;
use super::resource::VersionModule;
use crate::files::FileSet;
use crate::scaffold::toml_string;
use crate::source::Diagnostic;
use kubegen_core::output::RUST_HEADER;

/// A module tree: directory → child modules, with the kinds a version
/// module re-exports.
#[derive(Default)]
struct Tree {
    children: BTreeMap<PathBuf, BTreeSet<String>>,
    exports: BTreeMap<PathBuf, BTreeMap<String, String>>,
}

fn package_name(dir: &Path) -> String {
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "imported-apis".into());
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("api-{name}")
    }
}

/// The manifest of a created crate.
fn manifest(package: &str, kubegen_path: Option<&Path>) -> String {
    let runtime = match kubegen_path {
        Some(p) => format!(
            "{{ path = {} }}",
            toml_string(&p.join("kubegen-runtime").display().to_string())
        ),
        None => toml_string(&format!("={}", env!("CARGO_PKG_VERSION"))),
    };
    format!(
        "[package]\n\
         name = {}\n\
         description = \"Rust types for imported CustomResourceDefinitions, written by `kubegen import`.\"\n\
         version = \"0.1.0\"\n\
         edition = \"2024\"\n\
         publish = false\n\n\
         # Its own workspace, wherever it lives.\n\
         [workspace]\n\n\
         [dependencies]\n\
         # The library of `kubegen-runtime` is `kubegen`.\n\
         kubegen-runtime = {runtime}\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\n\
         serde_json = \"1\"\n",
        toml_string(package)
    )
}

/// Rust files already in `dir` (module names), for `mod.rs` files that
/// keep earlier imports.
fn existing_modules(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if kind.is_file() && name.ends_with(".rs") && name != "mod.rs" {
            out.insert(name.trim_end_matches(".rs").to_owned());
        } else if kind.is_dir() && path.join("mod.rs").is_file() {
            out.insert(name);
        }
    }
    out
}

fn module_decl(name: &str) -> String {
    if syn::parse_str::<syn::Ident>(name).is_ok() {
        name.to_owned()
    } else {
        format!("r#{name}")
    }
}

/// The files of an import into `options.crate_dir`.
pub fn files(options: &Options, crds: Vec<Vec<VersionModule>>) -> Result<FileSet, Vec<Diagnostic>> {
    let dir = &options.crate_dir;
    let manifest_path = dir.join("Cargo.toml");
    let created = !manifest_path.exists();
    let package = if created {
        package_name(dir)
    } else {
        crate::source::Manifest::read(&manifest_path)
            .map_err(|d| vec![d])?
            .package
    };
    if syn::parse_str::<syn::Ident>(&options.module).is_err() {
        return Err(vec![Diagnostic::file(
            Path::new("--module"),
            format!("`{}` is not a Rust module name", options.module),
        )]);
    }
    let mut set = FileSet::new(&package);
    let base = PathBuf::from("src").join(&options.module);
    let mut tree = Tree::default();
    for modules in crds {
        for m in modules {
            let group_dir = base.join(&m.group_module);
            let version_dir = group_dir.join(&m.version);
            let file_stem = m.kind_module.trim_start_matches("r#").to_owned();
            tree.children
                .entry(base.clone())
                .or_default()
                .insert(m.group_module.clone());
            tree.children
                .entry(group_dir)
                .or_default()
                .insert(m.version.clone());
            tree.children
                .entry(version_dir.clone())
                .or_default()
                .insert(file_stem.clone());
            tree.exports
                .entry(version_dir.clone())
                .or_default()
                .insert(file_stem.clone(), m.kind.clone());
            set.insert(
                version_dir.join(format!("{file_stem}.rs")),
                format!(
                    "{RUST_HEADER}\n// Written by `kubegen import`; re-import to change it.\n{}",
                    m.source
                ),
            );
        }
    }
    for (d, children) in &tree.children {
        let mut all = existing_modules(&dir.join(d));
        all.extend(children.iter().cloned());
        let exports = tree.exports.get(d);
        let mut text = format!("{RUST_HEADER}\n//! Imported APIs (`kubegen import`).\n\n");
        for c in &all {
            text.push_str(&format!("pub mod {};\n", module_decl(c)));
        }
        if let Some(exports) = exports {
            text.push('\n');
            for (module, kind) in exports {
                text.push_str(&format!("pub use {}::{kind};\n", module_decl(module)));
            }
        }
        set.insert(d.join("mod.rs"), text);
    }
    if created {
        set.insert(
            "Cargo.toml",
            manifest(&package, options.kubegen_path.as_deref()),
        );
        set.insert(
            "src/lib.rs",
            format!(
                "//! Rust types, typed clients, listers and informers for imported\n\
                 //! CustomResourceDefinitions (`kubegen import`, then `kubegen generate`).\n\n\
                 pub mod {};\n\n\
                 #[rustfmt::skip] // generated code is formatted by kubegen\n\
                 pub mod generated;\n",
                options.module
            ),
        );
    }
    Ok(set)
}

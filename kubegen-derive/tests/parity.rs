//! Parity: the CLI (which reads the corpus's source text without compiling
//! it) and the derive (compiled into this test) produce byte-identical CRD
//! YAML for every corpus kind.

#![allow(missing_docs)]

#[path = "support/corpus_types.rs"]
mod corpus_types;

use corpus_types::*;
use kubegen::CustomResourceExt;
use kubegen_cli::generate::Api;
use kubegen_cli::source::CrateSource;

/// The corpus source as a one-file crate the CLI can scan.
fn corpus_crate() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/corpus_types.rs"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), src).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"corpus\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    dir
}

#[test]
fn cli_and_derive_emit_identical_crds() {
    let dir = corpus_crate();
    let source = CrateSource::load(&dir.path().join("Cargo.toml")).unwrap();
    let api =
        Api::load(&source, source.manifest.settings.clone()).unwrap_or_else(|e| panic!("{e:#?}"));
    let cli = api.crds().unwrap_or_else(|e| panic!("{e:#?}"));
    let derived = [
        MyApplication::crd_json().unwrap(),
        Everything::crd_json().unwrap(),
        Shape::crd_json().unwrap(),
    ];
    assert_eq!(
        cli.len(),
        derived.len(),
        "kinds: {:?}",
        cli.keys().collect::<Vec<_>>()
    );
    for crd in derived {
        let name = format!(
            "{}_{}.yaml",
            crd["spec"]["group"].as_str().unwrap(),
            crd["spec"]["names"]["plural"].as_str().unwrap()
        );
        let from_cli = kubegen_cli::generate::crd_yaml(&cli[&name]);
        let from_derive = kubegen_core::output::to_yaml(&crd);
        assert!(
            from_cli == from_derive,
            "{name}: CLI and derive differ:\n{}",
            kubegen_cli::files::unified_diff(&from_derive, &from_cli, &name)
        );
    }
}

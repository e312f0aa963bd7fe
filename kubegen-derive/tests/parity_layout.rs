//! Parity on crate layout and configuration: the CLI reads the
//! `support/layout` tree as a crate — rustc's `#[path]` rules, CRLF
//! sources, `cfg` and `cfg_attr` evaluated for the host — and must emit
//! the CRD the derive (compiled here from the same files) computes.

#![allow(missing_docs)]

#[path = "support/layout/lib.rs"]
mod layout;

use kubegen::CustomResourceExt;
use kubegen_cli::generate::Api;
use kubegen_cli::source::CrateSource;

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn cli_reads_layout_and_configuration_like_rustc() {
    let dir = tempfile::tempdir().unwrap();
    let layout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/layout");
    copy_dir(&layout, &dir.path().join("src"));
    assert!(
        std::fs::read_to_string(dir.path().join("src/api/nested.rs"))
            .unwrap()
            .contains("\r\n"),
        "the CRLF file lost its line endings"
    );
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"layout\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let source =
        CrateSource::load(&dir.path().join("Cargo.toml")).unwrap_or_else(|e| panic!("{e:#?}"));
    let api =
        Api::load(&source, source.manifest.settings.clone()).unwrap_or_else(|e| panic!("{e:#?}"));
    let cli = api.crds().unwrap_or_else(|e| panic!("{e:#?}"));
    let crd = layout::api::types::Gadget::crd_json().unwrap();
    let from_cli = kubegen_cli::generate::crd_yaml(&cli["layout.kubegen.dev_gadgets.yaml"]);
    let from_derive = kubegen_core::output::to_yaml(&crd);
    assert!(
        from_cli == from_derive,
        "CLI and derive differ:\n{}",
        kubegen_cli::files::unified_diff(&from_derive, &from_cli, "gadgets")
    );
    // The configuration really was applied (not just equally ignored).
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    let props = spec["properties"].as_object().unwrap();
    assert!(props.contains_key("always") && !props.contains_key("never"));
    assert_eq!(props.contains_key("onUnix"), cfg!(unix));
    assert_eq!(spec["properties"]["code"]["minLength"], 2);
    assert!(spec["properties"]["code"].get("maxLength").is_none());
    assert_eq!(
        props.contains_key("wide"),
        cfg!(target_pointer_width = "64")
    );
    assert_eq!(
        spec["properties"]["deep"]["properties"]["mode"]["enum"],
        serde_json::json!(["Fast", "Slow"])
    );
    let deep = &spec["properties"]["deep"]["properties"];
    assert_eq!(deep["fallback"]["default"], "Fast");
    assert!(
        !crd.to_string().contains("x-kubegen"),
        "private marker leaked"
    );
    let part = spec["properties"]["part"]["description"].as_str().unwrap();
    assert!(!part.contains('\r'), "{part:?}");
}

//! Whole-CRD snapshot tests over a corpus exercising every attribute, type
//! form and enum representation. Refresh with `KUBEGEN_BLESS=1 cargo test`.

#![allow(missing_docs)]

#[path = "support/corpus_types.rs"]
mod corpus_types;

use corpus_types::*;
use kubegen::CustomResourceExt;

fn check_snapshot(name: &str, crd: serde_json::Value) {
    let yaml = kubegen_codegen_output(&crd);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.yaml"));
    if std::env::var_os("KUBEGEN_BLESS").is_some() {
        std::fs::write(&path, &yaml).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing snapshot {}; run with KUBEGEN_BLESS=1",
            path.display()
        )
    });
    assert!(
        want == yaml,
        "snapshot {name} differs; review and run with KUBEGEN_BLESS=1\n--- got ---\n{yaml}"
    );
}

fn kubegen_codegen_output(crd: &serde_json::Value) -> String {
    // The same emitter the CLI uses; it must read back as the same JSON.
    let yaml = kubegen_core::output::to_yaml(crd);
    let back: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(&back, crd, "YAML does not round-trip");
    yaml
}

#[test]
fn my_application() {
    let crd = MyApplication::crd_json().unwrap();
    MyApplication::crd().unwrap();
    check_snapshot("stable.example.com_myapplications", crd);
    let app = MyApplication::new(
        "web",
        MyApplicationSpec {
            image: "nginx".into(),
            replicas: 2,
        },
    );
    let json = serde_json::to_value(&app).unwrap();
    assert_eq!(json["apiVersion"], "stable.example.com/v1");
    assert!(json.get("status").is_none());
    let back: MyApplication = serde_json::from_value(json).unwrap();
    assert_eq!(back, app);
    use kubegen::Resource;
    assert_eq!(MyApplication::plural(&()), "myapplications");
    assert_eq!(
        MyApplication::url_path(&(), Some("ns")),
        "/apis/stable.example.com/v1/namespaces/ns/myapplications"
    );
}

#[test]
fn everything() {
    let crd = Everything::crd_json().unwrap();
    Everything::crd().unwrap();
    check_snapshot("corpus.kubegen.dev_everythings", crd);
    let model = Everything::resource_model();
    assert_eq!(model.short_names, ["ev", "evr"]);
    assert!(!model.namespaced);
    assert!(
        !model
            .verbs
            .effective(false)
            .contains(&kubegen_core::model::Verb::DeleteCollection)
    );
}

#[test]
fn shapes() {
    let crd = Shape::crd_json().unwrap();
    Shape::crd().unwrap();
    check_snapshot("corpus.kubegen.dev_shapes", crd);
}

#[test]
fn merge_versions() {
    let v1 = Shape::crd_json().unwrap();
    let err = kubegen::merge_crds(&[v1.clone(), v1]).unwrap_err();
    assert!(err.to_string().contains("given twice"), "{err}");
}

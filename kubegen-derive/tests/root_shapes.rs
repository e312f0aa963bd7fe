//! The root types `#[derive(CustomResource)]` writes for the root-shape
//! keys `kubegen import` uses: `optional_spec` (objects may omit `spec`)
//! and `flatten_spec` (the struct's fields are the top-level fields).

#![allow(missing_docs)]

use kubegen::{CustomResource, CustomResourceExt, KubeSchema};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A Gadget.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "shapes.kubegen.dev",
    version = "v1",
    kind = "Gadget",
    namespaced,
    optional_spec
)]
pub struct GadgetSpec {
    pub size: i32,
}

/// A report with no spec: its results are top-level fields.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "shapes.kubegen.dev",
    version = "v1",
    kind = "Report",
    namespaced,
    flatten_spec,
    status_subresource,
    kind_description = "A report."
)]
pub struct ReportSpec {
    pub results: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ReportStatus>,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ReportStatus {
    pub done: bool,
}

#[test]
fn optional_spec_objects_may_omit_it() {
    let g: Gadget = serde_json::from_value(json!({
        "apiVersion": "shapes.kubegen.dev/v1", "kind": "Gadget", "metadata": {"name": "g"}
    }))
    .unwrap();
    assert_eq!(g.spec, None);
    let v = serde_json::to_value(&g).unwrap();
    assert!(v.get("spec").is_none(), "{v}");
    let g = Gadget::new("g", GadgetSpec { size: 2 });
    assert_eq!(serde_json::to_value(&g).unwrap()["spec"]["size"], 2);
    let crd = Gadget::crd_json().unwrap();
    let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert!(root.get("required").is_none(), "{root}");
}

#[test]
fn flattened_fields_are_top_level_both_ways() {
    let wire = json!({
        "apiVersion": "shapes.kubegen.dev/v1", "kind": "Report",
        "metadata": {"name": "r"}, "results": ["ok"], "status": {"done": true}
    });
    let r: Report = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(r.spec.results, vec!["ok".to_owned()]);
    assert_eq!(r.spec.status, Some(ReportStatus { done: true }));
    assert_eq!(serde_json::to_value(&r).unwrap(), wire);

    let crd = Report::crd_json().unwrap();
    let version = &crd["spec"]["versions"][0];
    let root = &version["schema"]["openAPIV3Schema"];
    assert_eq!(root["description"], "A report.");
    assert_eq!(root["required"], json!(["results"]));
    assert_eq!(root["properties"]["results"]["type"], "array");
    assert_eq!(
        root["properties"]["status"]["properties"]["done"]["type"],
        "boolean"
    );
    assert!(root["properties"].get("spec").is_none());
    assert_eq!(version["subresources"]["status"], json!({}));
}

//! Rust's spelling of Go's `omitempty` — `#[serde(default,
//! skip_serializing_if = "...")]` — gives an optional field with no schema
//! default, as controller-gen writes none for an `omitempty` Go field: the
//! value the predicate skips is never serialized, so a schema default
//! (`[]`, `""`, `{}`) would make the apiserver store what the type never
//! writes. It needs no annotation next to `min_items`/`min_length` (before,
//! the implied `default: []` violated them: a compile error). A plain
//! `#[serde(default)]` (a Go value field without `omitempty`) keeps the
//! type's default.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Inner {
    pub x: i32,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Spec {
    #[kubegen(min_items = 1)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    #[kubegen(min_length = 1)]
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub owner: String,
    #[kubegen(min_properties = 1)]
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner: Option<Inner>,
    /// A value field without `omitempty`: the schema says what serde reads.
    #[serde(default)]
    pub replicas: i32,
    /// A default set on purpose still is one.
    #[kubegen(default = ["a"])]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

#[test]
fn skipped_fields_are_optional_without_a_default() {
    let s = Spec::kube_schema().unwrap();
    let props = &s["properties"];
    for f in ["names", "owner", "labels", "paused", "inner"] {
        assert!(props[f].get("default").is_none(), "{f}: {}", props[f]);
    }
    assert_eq!(props["names"]["minItems"], 1);
    assert_eq!(props["owner"]["minLength"], 1);
    assert_eq!(props["replicas"]["default"], 0);
    assert_eq!(props["tags"]["default"], json!(["a"]));
    assert!(s.get("required").is_none(), "{s}");
    // What serde writes for an empty spec: none of the skipped fields.
    let empty = Spec {
        names: vec![],
        owner: String::new(),
        labels: BTreeMap::new(),
        paused: false,
        inner: None,
        replicas: 0,
        tags: vec![],
    };
    assert_eq!(
        serde_json::to_value(&empty).unwrap(),
        json!({"replicas": 0})
    );
    assert_eq!(serde_json::from_value::<Spec>(json!({})).unwrap(), empty);
}

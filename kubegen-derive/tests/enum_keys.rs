//! `list_map_keys` may name a required field whose type is a unit-only enum
//! deriving `KubeSchema` (it serializes as a string): the nested type vouches
//! for being scalar through `KubeSchema::SCALAR`.

#![allow(missing_docs)]

use kubegen::{CustomResource, CustomResourceExt, KubeSchema};
use serde::{Deserialize, Serialize};

/// What a condition is about.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Kind {
    /// Ready.
    Ready,
    /// Failed.
    Failed,
}

/// One entry keyed by `kind`.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key.
    pub kind: Kind,
    /// A value.
    pub note: Option<String>,
}

/// A spec with a list map keyed by an enum.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(group = "keys.kubegen.dev", version = "v1", kind = "Keyed")]
pub struct KeyedSpec {
    /// Entries, one per kind.
    #[kubegen(list_type = "map", list_map_keys = ["kind"])]
    pub entries: Vec<Entry>,
}

#[test]
fn enum_typed_keys_are_accepted_and_emitted() {
    const { assert!(<Kind as KubeSchema>::SCALAR) };
    const { assert!(!<Entry as KubeSchema>::SCALAR) };
    assert_eq!(<Entry as KubeSchema>::NESTED_KEY_FIELDS, &[("kind", true)]);
    let crd = Keyed::crd_json().unwrap();
    let entries = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["entries"];
    assert_eq!(entries["x-kubernetes-list-type"], "map");
    assert_eq!(
        entries["x-kubernetes-list-map-keys"],
        serde_json::json!(["kind"])
    );
    assert_eq!(entries["items"]["properties"]["kind"]["type"], "string");
    assert_eq!(
        entries["items"]["properties"]["kind"]["enum"],
        serde_json::json!(["Ready", "Failed"])
    );
}

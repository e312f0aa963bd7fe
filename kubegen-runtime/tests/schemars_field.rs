//! `#[kubegen(schemars)]` with the `schemars` feature on: the field's
//! schema is the type's `schemars::JsonSchema` schema made structural
//! (inlined, OpenAPI v3), inside the derived type's own schema. Without
//! the feature the mark is a compile error naming the feature
//! (`kubegen-derive/tests/ui/schemars/feature_off.rs`).

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A type of another crate that implements only `JsonSchema`.
#[derive(schemars::JsonSchema, Serialize, Deserialize)]
struct Window {
    /// The first minute.
    start: u32,
    label: Option<String>,
    days: Vec<Day>,
}

#[derive(schemars::JsonSchema, Serialize, Deserialize)]
enum Day {
    Monday,
    Sunday,
}

#[derive(KubeSchema, Serialize, Deserialize)]
struct Schedule {
    name: String,
    #[kubegen(schemars)]
    window: Window,
    #[kubegen(schemars)]
    spare: Option<Window>,
    note: Option<String>,
}

#[test]
fn a_schemars_field_gets_the_types_structural_schema() {
    let schema = Schedule::kube_schema().unwrap();
    let window = &schema["properties"]["window"];
    assert_eq!(window["type"], "object", "{schema:#}");
    assert_eq!(window["properties"]["start"]["type"], "integer");
    assert_eq!(
        window["properties"]["start"]["description"],
        "The first minute."
    );
    assert_eq!(window["properties"]["label"]["type"], "string");
    // The enum reached through `$ref` is inlined: a structural schema has
    // no references.
    assert_eq!(
        window["properties"]["days"]["items"],
        json!({"type": "string", "enum": ["Monday", "Sunday"]})
    );
    assert!(!schema.to_string().contains("$ref"), "{schema:#}");
    let required = window["required"].as_array().unwrap();
    assert!(required.contains(&json!("start")) && required.contains(&json!("days")));
    assert!(!required.contains(&json!("label")));
    // The derived type's own rules still apply around it.
    let outer = schema["required"].as_array().unwrap();
    assert!(
        outer.contains(&json!("window"))
            && !outer.contains(&json!("spare"))
            && !outer.contains(&json!("note")),
        "{schema:#}"
    );
    let spare = &schema["properties"]["spare"];
    assert_eq!(spare["properties"], window["properties"]);
    // Described as any other `Option` field is (`note`): not required, and
    // no `nullable` from schemars's `Option` schema.
    assert_eq!(
        spare.get("nullable"),
        schema["properties"]["note"].get("nullable")
    );
}

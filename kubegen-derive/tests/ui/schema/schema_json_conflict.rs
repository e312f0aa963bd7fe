#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // Schema keywords beside the JSON that is the whole schema.
    #[kubegen(schema_json = r#"{"type": "string"}"#, min_length = 1, enum_values = ["a"])]
    pub a: String,
    #[kubegen(schema_json = r#"{"type": "array", "items": {"type": "string"}}"#, list_type = "set")]
    pub b: Vec<String>,
    #[kubegen(default = "x", schema_json = r#"{"type": "string"}"#)]
    pub c: String,
    #[kubegen(items(schema_json = r#"{"type": "string"}"#, min_length = 1))]
    pub d: Vec<String>,
    // `#[serde(default)]` needs the default in the JSON.
    #[serde(default)]
    #[kubegen(schema_json = r#"{"type": "integer"}"#)]
    pub e: i32,
    // Fine: the description, requiredness and a default inside the JSON.
    /// The doc comment, used as the JSON has no description.
    #[serde(default)]
    #[kubegen(schema_json = r#"{"type": "integer", "default": 0}"#, optional)]
    pub f: i32,
}

#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(schema_json = r#"{"type": "string"}"#, max_length = 3, validation = "self != ''")]
pub struct T(pub String);

fn main() {}

#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // Not an OpenAPI type.
    #[kubegen(schema_type = "str")]
    pub a: String,
    // Two answers to what the schema is.
    #[kubegen(schema_type = "string", int_or_string)]
    pub b: String,
    #[kubegen(schema_type = "string", schema_json = r#"{"type": "string"}"#)]
    pub c: String,
    // Keywords and formats are checked against the given type.
    #[kubegen(schema_type = "integer", format = "date-time")]
    pub d: String,
    #[kubegen(schema_type = "string", min_items = 1)]
    pub e: Vec<String>,
    #[kubegen(schema_type = "integer", default = "x")]
    pub f: String,
    // `items(schema_type)` needs a list.
    #[kubegen(items(schema_type = "string"))]
    pub g: std::collections::BTreeMap<String, String>,
    #[kubegen(items(schema_type = "integer", format = "ipv4"))]
    pub h: Vec<std::net::IpAddr>,
}

fn main() {}

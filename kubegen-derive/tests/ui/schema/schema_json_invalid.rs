#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // Not JSON.
    #[kubegen(schema_json = r#"{"type": "string",}"#)]
    pub a: String,
    // Not an object.
    #[kubegen(schema_json = r#"["string"]"#)]
    pub b: String,
    // Not structural: no type, and a property without one.
    #[kubegen(schema_json = r#"{"properties": {"x": {"description": "x"}}}"#)]
    pub c: String,
    // A look-around the apiserver's RE2 cannot run, and a rule that is not CEL.
    #[kubegen(schema_json = r#"{"type": "string", "pattern": "(?=a)", "x-kubernetes-validations": [{"rule": "self ==="}]}"#)]
    pub d: String,
    // Not a string literal.
    #[kubegen(schema_json = 1)]
    pub e: String,
    // An unknown keyword.
    #[kubegen(schema_json = r##"{"type": "string", "$ref": "#/x"}"##)]
    pub f: String,
}

fn main() {}

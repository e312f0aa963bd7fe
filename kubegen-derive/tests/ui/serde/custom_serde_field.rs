#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

mod as_string {
    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // Refused: the schema of `u32` (an integer) would be wrong.
    #[serde(with = "as_string")]
    pub a: u32,
    #[serde(serialize_with = "as_string::serialize")]
    pub b: u32,
    #[serde(deserialize_with = "as_string::deserialize")]
    pub c: u32,
    // Refused: keeping the Rust type's schema with `preserve_unknown_fields`
    // does not describe the JSON either.
    #[serde(with = "as_string")]
    #[kubegen(preserve_unknown_fields)]
    pub d: u32,
    // Refused: the type's `Default` goes through `with`, so the default the
    // schema would need is unknown.
    #[serde(default, with = "as_string")]
    #[kubegen(schema_type = "string")]
    pub e: u32,
    // Fine: the JSON described by hand.
    #[serde(with = "as_string")]
    #[kubegen(schema_type = "string", pattern = "^[0-9]+$")]
    pub f: u32,
    #[serde(with = "as_string")]
    #[kubegen(schema_json = r#"{"type": "string", "pattern": "^[0-9]+$"}"#)]
    pub g: u32,
    #[serde(with = "as_string")]
    #[kubegen(schemaless)]
    pub h: u32,
    #[serde(default, with = "as_string")]
    #[kubegen(schema_type = "string", default = "0")]
    pub i: u32,
}

fn main() {}

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

fn one() -> i32 {
    1
}

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // serde fills 1, the apiserver would store nothing: refused.
    #[serde(default = "one")]
    pub replicas: i32,
    // The same value in the schema: fine.
    #[kubegen(default = 1)]
    #[serde(default = "one")]
    pub also: i32,
    // No schema default, on purpose: fine.
    #[kubegen(no_schema_default)]
    #[serde(default = "one")]
    pub chosen: i32,
}

fn main() {}

#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[kubegen(default_json = "{not json")]
    pub v: serde_json::Value,
}

fn main() {}

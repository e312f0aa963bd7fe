#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[kubegen(default = 1)]
    #[serde(default)]
    pub name: String,
}

fn main() {}

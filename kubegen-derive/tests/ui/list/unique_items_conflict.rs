#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // The apiserver forbids `uniqueItems`; kubegen emits `list_type = "set"`.
    #[kubegen(unique_items, list_type = "atomic")]
    pub words: Vec<String>,
    #[kubegen(unique_items)]
    pub lists: Vec<Vec<String>>,
}

fn main() {}

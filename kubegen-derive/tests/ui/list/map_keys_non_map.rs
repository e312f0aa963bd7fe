#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct Item {
    pub name: String,
}
#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[kubegen(list_type = "atomic", list_map_keys = ["name"])]
    pub items: Vec<Item>,
}

fn main() {}

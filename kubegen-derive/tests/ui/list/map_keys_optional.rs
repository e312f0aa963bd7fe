#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct Item {
    pub name: Option<String>,
}
#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    pub items: Vec<Item>,
}

fn main() {}

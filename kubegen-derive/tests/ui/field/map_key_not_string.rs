#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    pub by_id: std::collections::BTreeMap<u32, String>,
}

fn main() {}

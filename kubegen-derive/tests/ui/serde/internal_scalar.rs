#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum E {
    Text(String),
}

fn main() {}

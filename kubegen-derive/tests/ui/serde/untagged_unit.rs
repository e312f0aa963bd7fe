#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
#[serde(untagged)]
pub enum E {
    Nothing,
    Some(String),
}

fn main() {}

#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(exactly_one_of = ["a", "bb"])]
pub struct S {
    pub a: Option<String>,
    pub b: Option<String>,
}

fn main() {}

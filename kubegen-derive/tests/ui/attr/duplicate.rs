#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[kubegen(maximum = 1, maximum = 2)]
    pub n: i32,
}

fn main() {}

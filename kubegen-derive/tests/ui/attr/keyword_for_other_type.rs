#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[kubegen(min_length = 1)]
    pub n: i32,
}

fn main() {}

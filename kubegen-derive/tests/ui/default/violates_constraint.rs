#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[kubegen(minimum = 1, default = 0)]
    pub replicas: i32,
}

fn main() {}

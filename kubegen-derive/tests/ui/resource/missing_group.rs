#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(version = "v1", kind = "Foo")]
pub struct FooSpec {
    pub size: i32,
}

fn main() {}

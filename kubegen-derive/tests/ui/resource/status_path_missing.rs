#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "example.com", version = "v1", kind = "Foo", status = "FooStatus",
          printcolumn(name = "Ready", type = "integer", json_path = ".status.redy"))]
pub struct FooSpec {
    pub size: i32,
}
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct FooStatus {
    pub ready: i32,
}

fn main() {}

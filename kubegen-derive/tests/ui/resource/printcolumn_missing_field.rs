#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "example.com", version = "v1", kind = "Foo",
          printcolumn(name = "Size", type = "integer", json_path = ".spec.sise"))]
pub struct FooSpec {
    pub size: i32,
}

fn main() {}

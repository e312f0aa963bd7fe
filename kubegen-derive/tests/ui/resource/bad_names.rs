#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "nodot", version = "V1", kind = "foo_bar", list_kind = "Bad_List", shortname = "Bad")]
pub struct FooSpec {
    pub size: i32,
}

fn main() {}

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Inner {
    pub name: String,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(apply)]
pub struct Outer {
    pub inner: Inner,
}

fn main() {}

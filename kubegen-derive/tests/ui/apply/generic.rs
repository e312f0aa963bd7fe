use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(apply)]
pub struct Wrapper<T> {
    pub value: T,
}

fn main() {}

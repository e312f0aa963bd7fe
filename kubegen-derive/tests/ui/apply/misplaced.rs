use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Outer {
    #[kubegen(apply)]
    pub name: String,
    #[kubegen(aply)]
    pub other: String,
}

fn main() {}

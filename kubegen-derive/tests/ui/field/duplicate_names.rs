use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    #[serde(rename = "name")]
    pub first: String,
    #[serde(rename = "name")]
    pub second: String,
}

fn main() {}

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // A default that violates the field's own constraint.
    #[kubegen(minimum = 1)]
    #[serde(default)]
    pub count: i32,
}

#[derive(KubeSchema, Serialize, Deserialize)]
#[serde(default)]
pub struct HandWritten {
    pub n: i32,
}

impl Default for HandWritten {
    fn default() -> Self {
        HandWritten { n: 7 }
    }
}

fn main() {}

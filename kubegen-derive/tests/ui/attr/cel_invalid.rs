use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(validation(rule = "self.min <=", message = "min\nmax"))]
#[kubegen(validation(rule = "self.min <= self.max", message_expression = "'bad' +", field_path = ""))]
#[kubegen(validation(rule = "self.min <= self.max", field_path = ".a[0]"))]
pub struct S {
    pub min: i32,
    pub max: i32,
}

fn main() {}

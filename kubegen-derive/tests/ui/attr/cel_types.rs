use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

/// Another type: the derive cannot see its fields, so rules reaching into
/// it are checked by `kubegen generate`, not here.
#[derive(KubeSchema, Serialize, Deserialize)]
pub struct Other {
    pub replicas: i32,
}

#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(validation(rule = "self.min <= self.maximum"))]
#[kubegen(validation(rule = "self.min <= self.max", message_expression = "self.max"))]
#[kubegen(validation(rule = "self.other.anything > 0 && self.min <= self.max"))]
pub struct S {
    pub min: i32,
    pub max: i32,
    #[kubegen(validation(rule = "self.startsWith(1)"))]
    pub name: String,
    #[kubegen(validation(rule = "self.all(x, x)"))]
    pub items: Vec<String>,
    #[kubegen(validation(rule = "self.matches('(unclosed')"))]
    pub pattern: String,
    pub other: Other,
}

fn main() {}

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
struct Route {
    // `neq` compares scalars: a list is refused.
    #[kubegen(neq = "x")]
    hosts: Vec<String>,
    // The forbidden value must be one the field could hold.
    #[kubegen(neq = "zero")]
    weight: u8,
    #[kubegen(neq = 300)]
    small: u8,
}

fn main() {}

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // i64::MIN written out is fine.
    #[kubegen(minimum = -9223372036854775808)]
    pub ok: i64,
    // A constant is not evaluated: a clear error.
    #[kubegen(minimum = i64::MIN)]
    pub constant: i64,
    // Below i64::MIN.
    #[kubegen(minimum = -9223372036854775809)]
    pub below: i64,
}

fn main() {}

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

/// Stands for a type of another crate that implements only
/// `schemars::JsonSchema`: without kubegen's `schemars` feature the mark
/// is refused at the field whatever the type implements.
#[derive(Serialize, Deserialize)]
pub struct Window {
    pub start: u32,
}

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct Schedule {
    #[kubegen(schemars)]
    pub window: Window,
}

fn main() {}

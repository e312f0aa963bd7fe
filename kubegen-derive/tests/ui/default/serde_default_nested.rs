use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize, Default)]
pub struct Inner {
    pub a: i32,
}

#[derive(KubeSchema, Serialize, Deserialize, Default)]
pub enum Mode {
    #[default]
    Fast,
    Slow,
}

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // `Inner::default()` is not known to kubegen: refused at compile time.
    #[serde(default)]
    pub inner: Inner,
    // A unit enum with a `#[default]` variant is known: schema default "Fast".
    #[serde(default)]
    pub mode: Mode,
}

fn main() {}

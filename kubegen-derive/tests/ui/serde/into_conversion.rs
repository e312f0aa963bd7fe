#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize, Clone)]
#[serde(into = "String", try_from = "String")]
pub struct S {
    pub a: i32,
}
impl From<S> for String {
    fn from(s: S) -> String { s.a.to_string() }
}
impl TryFrom<String> for S {
    type Error = std::num::ParseIntError;
    fn try_from(s: String) -> Result<S, Self::Error> { Ok(S { a: s.parse()? }) }
}

fn main() {}

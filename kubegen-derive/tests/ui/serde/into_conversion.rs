#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

// The JSON is a string written by `From<S> for String`: kubegen cannot see
// it, so the type needs its schema given by hand.
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

// Fine: the same type with `schema_type` (its fields are not read).
#[derive(KubeSchema, Serialize, Deserialize, Clone)]
#[serde(into = "String", try_from = "String")]
#[kubegen(schema_type = "string", pattern = "^[0-9]+$")]
pub struct T {
    pub a: i32,
}
impl From<T> for String {
    fn from(t: T) -> String { t.a.to_string() }
}
impl TryFrom<String> for T {
    type Error = std::num::ParseIntError;
    fn try_from(s: String) -> Result<T, Self::Error> { Ok(T { a: s.parse()? }) }
}

fn main() {}

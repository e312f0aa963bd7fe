#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Id(pub String);

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct S {
    // Refused: a newtype key (its constraints could not be enforced on keys).
    pub by_id: std::collections::BTreeMap<Id, String>,
    // Fine: integer keys (serde_json writes them as decimal strings).
    pub by_port: std::collections::BTreeMap<u16, String>,
    pub by_offset: std::collections::HashMap<i64, String>,
}

fn main() {}

#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

// A numeric format on a string, a string format on an integer, an integer
// format on a date-time, and any format on a boolean.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "a.example.com", version = "v1", kind = "A")]
pub struct ASpec {
    #[kubegen(format = "int64")]
    pub name: String,
    #[kubegen(format = "email")]
    pub size: i32,
    #[kubegen(format = "int64")]
    pub at: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
    #[kubegen(format = "byte")]
    pub on: bool,
    // Fine: the right formats, and one the apiserver knows better than us.
    #[kubegen(format = "ipv4")]
    pub address: String,
    #[kubegen(format = "int64")]
    pub big: i64,
    #[kubegen(format = "k8s-short-name")]
    pub short: String,
}

fn main() {}

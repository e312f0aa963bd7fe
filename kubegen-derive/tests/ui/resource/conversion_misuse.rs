#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

// A misspelled key, a plain-HTTP URL, and a Service without a namespace.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "a.example.com", version = "v1", kind = "A",
          conversion(servce = "hooks", namespace = "system"))]
pub struct ASpec {
    pub size: i32,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "b.example.com", version = "v1", kind = "B",
          conversion(url = "http://127.0.0.1:9443/convert"))]
pub struct BSpec {
    pub size: i32,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "c.example.com", version = "v1", kind = "C",
          conversion(service = "Hooks", port = 70000, path = "convert"))]
pub struct CSpec {
    pub size: i32,
}

fn main() {}

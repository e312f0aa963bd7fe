#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

// No webhook chosen, an unknown policy, a timeout over the limit, an
// unknown operation and a misspelled key.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "a.example.com", version = "v1", kind = "A",
          admission(service = "hooks", namespace = "system"))]
pub struct ASpec {
    pub size: i32,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "b.example.com", version = "v1", kind = "B",
          admission(validate, service = "hooks", namespace = "system",
                    failure_policy = "Retry", timeout_seconds = 60,
                    operations = ["CREATE", "PATCH"], validat))]
pub struct BSpec {
    pub size: i32,
}

fn main() {}

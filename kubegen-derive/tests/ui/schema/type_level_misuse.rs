#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

// String keywords on an object.
#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(min_length = 1, pattern = "^a")]
pub struct S {
    pub a: String,
}

// A numeric format on a string newtype, list keys on an integer.
#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(format = "int32")]
pub struct N(pub String);

#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(max_items = 3, minimum = 1)]
pub struct Count(pub i32);

// An `enum_values` entry that is not one of the type's values.
#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(enum_values = ["a", 1])]
pub struct Mode(pub String);

// Fine: what controller-gen's type-level markers do on a named string.
#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(min_length = 1, max_length = 63, pattern = "^[a-z]+$", enum_values = ["web", "db"])]
pub struct Role(pub String);

fn main() {}

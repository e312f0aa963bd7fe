use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// Not a scalar: its variants carry data (it serializes as an object).
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub enum Kind {
    /// Sized.
    Sized(Size),
    /// Reserved.
    Reserved(Size),
}

/// Data.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Size {
    /// Bytes.
    pub bytes: i64,
}

/// One entry.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Entry {
    /// The would-be key.
    pub kind: Kind,
}

/// Spec.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "keys.kubegen.dev", version = "v1", kind = "Bad")]
pub struct BadSpec {
    /// Entries.
    #[kubegen(list_type = "map", list_map_keys = ["kind"])]
    pub entries: Vec<Entry>,
}

fn main() {}

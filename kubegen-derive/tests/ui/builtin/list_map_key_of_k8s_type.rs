use k8s_openapi::api::core::v1::Container;
use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

/// `Container`'s key fields come from upstream's definition: `name` is
/// one, the optional `image` is not.
#[derive(KubeSchema, Serialize, Deserialize)]
pub struct Pod {
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    pub ok: Vec<Container>,
    #[kubegen(list_type = "map", list_map_keys = ["image"])]
    pub bad: Vec<Container>,
}

fn main() {}

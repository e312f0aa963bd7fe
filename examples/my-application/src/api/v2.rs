//! `stable.example.com/v2`: the application may listen on several named
//! ports. Served next to v1, which stays the storage version (and the hub)
//! until every client has moved; the conversion webhook translates, and
//! keeps v2's extra ports on the stored object, so nothing written at v2 is
//! lost when it is stored or read at v1.

use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

use super::MyApplicationStatus;

/// MyApplication describes an application deployment: a container image run
/// with a number of replicas behind a ClusterIP Service on its ports.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "stable.example.com",
    version = "v2",
    kind = "MyApplication",
    namespaced,
    shortname = "ma",
    status = "MyApplicationStatus",
    storage = false,
    max_name_length = 55,
    name_pattern = "^[a-z]([-a-z0-9]*[a-z0-9])?$"
)]
#[kubegen(printcolumn(name = "Image", json_path = ".spec.image"))]
#[kubegen(printcolumn(name = "Replicas", json_path = ".spec.replicas"))]
#[kubegen(printcolumn(name = "Age", json_path = ".metadata.creationTimestamp"))]
#[serde(rename_all = "camelCase")]
pub struct MyApplicationSpec {
    /// The container image to use for the application.
    #[kubegen(min_length = 1)]
    pub image: String,
    /// The desired number of application replicas.
    #[kubegen(minimum = 1, default = 1)]
    #[serde(default = "super::default_replicas")]
    pub replicas: i32,
    /// The ports the application listens on; the first is the one v1
    /// shows as `port`.
    #[kubegen(min_items = 1, max_items = 16, list_type = "map", list_map_keys = ["name"])]
    pub ports: Vec<ApplicationPort>,
}

/// One port the application listens on.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ApplicationPort {
    /// The port's name, also the Service port's name.
    #[kubegen(
        min_length = 1,
        max_length = 15,
        pattern = "^[a-z]([-a-z0-9]*[a-z0-9])?$"
    )]
    pub name: String,
    /// The port number.
    #[kubegen(minimum = 80, maximum = 65535)]
    pub port: i32,
}

/// The name v1's single port has at v2.
pub const DEFAULT_PORT_NAME: &str = "http";

impl From<super::MyApplication> for MyApplication {
    fn from(v1: super::MyApplication) -> Self {
        MyApplication {
            metadata: v1.metadata,
            spec: MyApplicationSpec {
                image: v1.spec.image,
                replicas: v1.spec.replicas,
                ports: vec![ApplicationPort {
                    name: DEFAULT_PORT_NAME.to_owned(),
                    port: v1.spec.port,
                }],
            },
            status: v1.status,
        }
    }
}

/// v2 → v1 keeps the first port; the others (and a first port's name other
/// than `http`) ride on the stored object in the conversion stash.
impl TryFrom<MyApplication> for super::MyApplication {
    type Error = String;

    fn try_from(v2: MyApplication) -> Result<Self, String> {
        let first = v2
            .spec
            .ports
            .first()
            .ok_or("spec.ports must name at least one port")?;
        Ok(super::MyApplication {
            metadata: v2.metadata,
            spec: super::MyApplicationSpec {
                image: v2.spec.image,
                replicas: v2.spec.replicas,
                port: first.port,
            },
            status: v2.status,
        })
    }
}

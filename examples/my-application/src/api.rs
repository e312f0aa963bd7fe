//! The `MyApplication` API: an application that the operator runs as a
//! Deployment and exposes through a Service. `stable.example.com/v1` (here)
//! is the storage version and the hub the controller works with; [`v2`]
//! adds named ports and converts through the webhook.

pub mod v2;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// MyApplication describes an application deployment: a container image run
/// with a number of replicas behind a ClusterIP Service on one port.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "stable.example.com",
    version = "v1",
    kind = "MyApplication",
    namespaced,
    shortname = "ma",
    status = "MyApplicationStatus",
    // Children are named `<name>-deployment` and `<name>-service`, and the
    // name is a label value: a Service name is a DNS-1035 label of at most
    // 63 characters, so names that could never work are refused at
    // admission.
    max_name_length = 55,
    name_pattern = "^[a-z]([-a-z0-9]*[a-z0-9])?$",
    // v1 and v2 convert through the operator's webhook (v1, the storage
    // version, is the hub); `deploy/` creates the Service.
    conversion(service = "my-application-webhook", namespace = "my-application-system"),
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.availableReplicas",
        label_selector_path = ".status.selector"
    )
)]
// Column types are inferred from the schema (`type` may be given to override).
#[kubegen(printcolumn(name = "Image", json_path = ".spec.image"))]
#[kubegen(printcolumn(name = "Replicas", json_path = ".spec.replicas"))]
#[kubegen(printcolumn(name = "Available", json_path = ".status.availableReplicas"))]
#[kubegen(printcolumn(
    name = "Ready",
    json_path = ".status.conditions[?(@.type==\"Ready\")].status"
))]
#[kubegen(printcolumn(name = "Age", json_path = ".metadata.creationTimestamp"))]
#[serde(rename_all = "camelCase")]
pub struct MyApplicationSpec {
    /// The container image to use for the application.
    #[kubegen(min_length = 1)]
    pub image: String,
    /// The desired number of application replicas.
    #[kubegen(minimum = 1, default = 1)]
    #[serde(default = "default_replicas")]
    pub replicas: i32,
    /// The port the application listens on.
    #[kubegen(minimum = 80, maximum = 65535, default = 80)]
    #[serde(default = "default_port")]
    pub port: i32,
}

fn default_replicas() -> i32 {
    1
}

fn default_port() -> i32 {
    80
}

/// The observed state of a MyApplication.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MyApplicationStatus {
    /// Replicas of the application's Deployment that are available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_replicas: Option<i32>,
    /// The generation of the MyApplication this status describes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The label selector of the application's pods, for the scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The latest observations of the application's state.
    #[kubegen(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<ApplicationCondition>,
}

/// One observation of a MyApplication's state.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationCondition {
    /// The aspect observed: `Ready`, `Progressing` or `Failed`.
    #[serde(rename = "type")]
    #[kubegen(enum_values = ["Ready", "Progressing", "Failed"])]
    pub type_: String,
    /// Whether the condition holds: `True`, `False` or `Unknown`.
    #[kubegen(enum_values = ["True", "False", "Unknown"])]
    pub status: String,
    /// A CamelCase reason for the last transition.
    #[serde(default)]
    pub reason: String,
    /// A human-readable explanation.
    #[serde(default)]
    pub message: String,
    /// When the status last changed.
    pub last_transition_time: Time,
}

impl kubegen::conditions::StatusCondition for ApplicationCondition {
    fn condition_type(&self) -> &str {
        &self.type_
    }

    fn status(&self) -> &str {
        &self.status
    }

    fn last_transition_time(&self) -> Option<k8s_openapi::jiff::Timestamp> {
        Some(self.last_transition_time.0).filter(|t| *t != k8s_openapi::jiff::Timestamp::UNIX_EPOCH)
    }

    fn set_last_transition_time(&mut self, time: k8s_openapi::jiff::Timestamp) {
        self.last_transition_time = Time(time);
    }

    fn update_from(&mut self, other: &Self) {
        self.status.clone_from(&other.status);
        self.reason.clone_from(&other.reason);
        self.message.clone_from(&other.message);
    }
}

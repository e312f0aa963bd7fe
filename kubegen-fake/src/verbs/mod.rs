//! The verbs of resource requests, each as the apiserver's generic
//! registry store (and the custom resource handler) runs it.

pub mod apply;
pub mod delete;
pub mod managed;
pub mod patch;
pub mod read;
pub mod scale;
pub mod watch;
pub mod write;

use serde_json::Value;

use crate::resources::Resource;
use crate::store::Key;

/// The store key of object `name` of `r` in `namespace`.
pub fn key(r: &Resource, namespace: Option<&str>, name: &str) -> Key {
    Key {
        resource: r.id(),
        namespace: if r.namespaced {
            namespace.unwrap_or_default().to_string()
        } else {
            String::new()
        },
        name: name.to_string(),
    }
}

/// `metadata.<field>` of `object` as text (empty when absent).
pub fn meta_str(object: &Value, field: &str) -> String {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

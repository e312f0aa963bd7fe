//! Fake nodes managed by kwok: created with the annotation kwok selects on,
//! then awaited until Ready and free of the not-ready taint.

use anyhow::Result;
use k8s_openapi::api::core::v1::Node;
use kubegen_client::api::{Api, PostParams};

/// The annotation kwok is told to manage nodes by.
pub const FAKE_NODE_ANNOTATION: (&str, &str) = ("kwok.x-k8s.io/node", "fake");

/// Name of the `i`-th fake node.
pub(crate) fn node_name(i: usize) -> String {
    format!("kwok-node-{i}")
}

/// Creates the fake node `name` (idempotent: an existing node is left alone).
pub(crate) async fn create(client: &kubegen_client::Client, name: &str) -> Result<()> {
    let node: Node = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": { FAKE_NODE_ANNOTATION.0: FAKE_NODE_ANNOTATION.1 },
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
            },
        },
        "status": {
            "allocatable": { "cpu": "32", "memory": "256Gi", "pods": "110" },
            "capacity": { "cpu": "32", "memory": "256Gi", "pods": "110" },
        },
    }))?;
    match Api::<Node>::all(client.clone())
        .create(&PostParams::default(), &node)
        .await
    {
        Ok(_) => Ok(()),
        Err(kubegen_client::Error::Api(status)) if status.code == 409 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Whether the node can take pods: condition Ready=True and no taint from
/// the node lifecycle controller left on it.
pub(crate) fn is_schedulable(node: &Node) -> bool {
    let ready = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|conds| {
            conds
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
        });
    let tainted = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .is_some_and(|taints| {
            taints
                .iter()
                .any(|t| t.key.starts_with("node.kubernetes.io/"))
        });
    ready && !tainted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(ready: &str, taint: Option<&str>) -> Node {
        serde_json::from_value(serde_json::json!({
            "metadata": { "name": "n" },
            "spec": { "taints": taint.map(|k| vec![serde_json::json!({"key": k, "effect": "NoSchedule"})]) },
            "status": { "conditions": [{ "type": "Ready", "status": ready }] },
        }))
        .unwrap()
    }

    #[test]
    fn schedulable_needs_ready_and_no_lifecycle_taint() {
        assert!(is_schedulable(&node("True", None)));
        assert!(!is_schedulable(&node("False", None)));
        assert!(!is_schedulable(&node(
            "True",
            Some("node.kubernetes.io/not-ready")
        )));
        assert!(is_schedulable(&node("True", Some("example.com/other"))));
        assert!(!is_schedulable(&Node::default()));
    }
}

//! What a MyApplication's children should look like, as apply
//! configurations: exactly the fields the operator owns, nothing the
//! apiserver defaults or other managers set (pure functions, unit tested).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::apply::ObjectMetaApply;

use crate::api::MyApplication;
use crate::generated::applyconfigurations::apps_v1::{DeploymentApply, DeploymentSpecApply};
use crate::generated::applyconfigurations::core_v1::{
    ContainerApply, ContainerPortApply, PodSpecApply, PodTemplateSpecApply, ServiceApply,
    ServicePortApply, ServiceSpecApply,
};
use crate::generated::applyconfigurations::meta_v1::LabelSelectorApply;

/// The value of `app.kubernetes.io/managed-by` on every child.
pub const MANAGER: &str = "my-application-controller";
/// The container's name in the Deployment's pod template.
pub const CONTAINER: &str = "my-application";

/// Whether `child` is controlled by an earlier MyApplication of the same
/// name — one that was deleted (and maybe re-created) while the garbage
/// collector has not yet removed its children. The reconcile replaces
/// such a child instead of reporting a conflict; the garbage collector
/// would delete it anyway, its owner being gone.
pub fn from_earlier_incarnation<C: kubegen::Resource>(child: &C, app: &MyApplication) -> bool {
    let Some(reference) = kubegen::ownership::controller_of(child) else {
        return false;
    };
    let group = reference.api_version.split('/').next().unwrap_or_default();
    reference.kind == "MyApplication"
        && group == "stable.example.com"
        && app.metadata.name.as_deref() == Some(reference.name.as_str())
        && app.metadata.uid.as_deref() != Some(reference.uid.as_str())
}

/// `<name>-deployment`.
pub fn deployment_name(app_name: &str) -> String {
    format!("{app_name}-deployment")
}

/// `<name>-service`.
pub fn service_name(app_name: &str) -> String {
    format!("{app_name}-service")
}

/// The labels every child carries.
pub fn labels(app_name: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("app".to_string(), "my-application".to_string()),
        ("myapplication_cr".to_string(), app_name.to_string()),
        (
            "app.kubernetes.io/managed-by".to_string(),
            MANAGER.to_string(),
        ),
    ])
}

/// The labels of a child object (not its pods): [`labels`], and with a
/// sharded operator the owner's partition
/// ([`Shards::owner_partition_label`](kubegen::sharding::Shards::owner_partition_label)),
/// by which each replica's informers select only its share of the children.
fn child_labels(app_name: &str, partition: Option<&PartitionLabel>) -> BTreeMap<String, String> {
    let mut labels = labels(app_name);
    if let Some((key, value)) = partition {
        labels.insert((*key).to_string(), value.clone());
    }
    labels
}

/// A sharded operator's owner partition label: key and value.
pub type PartitionLabel = (&'static str, String);

/// The labels that select the application's pods.
pub fn selector_labels(app_name: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("app".to_string(), "my-application".to_string()),
        ("myapplication_cr".to_string(), app_name.to_string()),
    ])
}

/// The pod selector as a string, for the scale subresource's `status.selector`.
pub fn selector_string(app_name: &str) -> String {
    selector_labels(app_name)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The Deployment a MyApplication wants: labels, owner, replicas, the
/// selector, the template's labels and one container with its image and
/// port. Key fields are set in full (the port's `protocol`), so that what
/// the apiserver stores reads back equal through `extract`. `partition`:
/// the owner partition label, when sharded (on the Deployment only: a
/// label of the pod template would roll the pods).
pub fn deployment(
    app: &MyApplication,
    owner: &OwnerReference,
    partition: Option<&PartitionLabel>,
) -> DeploymentApply {
    let name = app.metadata.name.as_deref().unwrap_or_default();
    let namespace = app.metadata.namespace.as_deref().unwrap_or_default();
    let container = ContainerApply::default()
        .with_name(CONTAINER)
        .with_image(app.spec.image.as_str())
        .with_ports([ContainerPortApply::default()
            .with_container_port(app.spec.port)
            .with_protocol("TCP")]);
    let template = PodTemplateSpecApply::default()
        .with_metadata(ObjectMetaApply::default().with_labels(labels(name)))
        .with_spec(PodSpecApply::default().with_containers([container]));
    DeploymentApply::new(deployment_name(name), namespace)
        .with_labels(child_labels(name, partition))
        .with_owner_references([owner.clone().into()])
        .with_spec(
            DeploymentSpecApply::default()
                .with_replicas(app.spec.replicas)
                .with_selector(
                    LabelSelectorApply::default().with_match_labels(selector_labels(name)),
                )
                .with_template(template),
        )
}

/// The Service a MyApplication wants: a ClusterIP Service selecting the
/// application's pods on its port; `partition` as for [`deployment`].
pub fn service(
    app: &MyApplication,
    owner: &OwnerReference,
    partition: Option<&PartitionLabel>,
) -> ServiceApply {
    let name = app.metadata.name.as_deref().unwrap_or_default();
    let namespace = app.metadata.namespace.as_deref().unwrap_or_default();
    ServiceApply::new(service_name(name), namespace)
        .with_labels(child_labels(name, partition))
        .with_owner_references([owner.clone().into()])
        .with_spec(
            ServiceSpecApply::default()
                .with_type("ClusterIP")
                .with_selector(selector_labels(name))
                .with_ports([ServicePortApply::default()
                    .with_name("http")
                    .with_port(app.spec.port)
                    .with_target_port(IntOrString::Int(app.spec.port))
                    .with_protocol("TCP")]),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::MyApplicationSpec;
    use k8s_openapi::api::apps::v1::Deployment;

    fn app(image: &str, replicas: i32, port: i32) -> MyApplication {
        let mut app = MyApplication::new(
            "web",
            MyApplicationSpec {
                image: image.into(),
                replicas,
                port,
            },
        );
        app.metadata.namespace = Some("ns".into());
        app.metadata.uid = Some("uid-1".into());
        app
    }

    fn owner() -> OwnerReference {
        OwnerReference {
            name: "web".into(),
            uid: "uid-1".into(),
            controller: Some(true),
            ..OwnerReference::default()
        }
    }

    #[test]
    fn children_of_an_earlier_incarnation_are_recognised() {
        let current = app("nginx", 1, 80);
        let controlled_by = |api_version: &str, kind: &str, name: &str, uid: &str| {
            let mut child = Deployment::default();
            child.metadata.owner_references = Some(vec![OwnerReference {
                api_version: api_version.into(),
                kind: kind.into(),
                name: name.into(),
                uid: uid.into(),
                controller: Some(true),
                ..OwnerReference::default()
            }]);
            child
        };
        let earlier = controlled_by("stable.example.com/v1", "MyApplication", "web", "uid-0");
        assert!(from_earlier_incarnation(&earlier, &current));
        for other in [
            controlled_by("stable.example.com/v1", "MyApplication", "web", "uid-1"),
            controlled_by("stable.example.com/v1", "MyApplication", "api", "uid-0"),
            controlled_by("other.example.com/v1", "MyApplication", "web", "uid-0"),
            controlled_by("apps/v1", "ReplicaSet", "web", "uid-0"),
            Deployment::default(),
        ] {
            assert!(!from_earlier_incarnation(&other, &current), "{other:?}");
        }
    }

    /// The children say exactly what the operator owns: nothing the
    /// apiserver defaults (strategy, revision history, pull policy,
    /// cluster IP …) is in them, so nothing of it is owned.
    #[test]
    fn desired_children_hold_exactly_the_owned_fields() {
        let d = serde_json::to_value(deployment(&app("nginx:latest", 3, 8080), &owner(), None))
            .unwrap();
        assert_eq!(
            d,
            serde_json::json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {
                    "name": "web-deployment", "namespace": "ns", "labels": labels("web"),
                    "ownerReferences": [{"apiVersion": "", "kind": "", "name": "web", "uid": "uid-1", "controller": true}],
                },
                "spec": {
                    "replicas": 3,
                    "selector": {"matchLabels": selector_labels("web")},
                    "template": {
                        "metadata": {"labels": labels("web")},
                        "spec": {"containers": [{
                            "name": "my-application", "image": "nginx:latest",
                            "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                        }]},
                    },
                },
            })
        );
        let s = serde_json::to_value(service(&app("nginx", 1, 8080), &owner(), None)).unwrap();
        assert_eq!(
            s["spec"],
            serde_json::json!({
                "type": "ClusterIP", "selector": selector_labels("web"),
                "ports": [{"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"}],
            })
        );
        assert_eq!(
            s["metadata"]["labels"]["app.kubernetes.io/managed-by"],
            MANAGER
        );
        assert_eq!(
            selector_string("web"),
            "app=my-application,myapplication_cr=web"
        );
    }

    /// A sharded operator labels its children (not their pods) with the
    /// owner's partition, by which the replicas' informers select them.
    #[test]
    fn sharded_children_carry_their_owners_partition_label() {
        let partition = ("kubegen.io/owner-partition", "7".to_string());
        let app = app("nginx", 1, 8080);
        let d = serde_json::to_value(deployment(&app, &owner(), Some(&partition))).unwrap();
        let s = serde_json::to_value(service(&app, &owner(), Some(&partition))).unwrap();
        for child in [&d, &s] {
            assert_eq!(
                child["metadata"]["labels"]["kubegen.io/owner-partition"],
                "7"
            );
            assert_eq!(child["metadata"]["labels"]["app"], "my-application");
        }
        assert_eq!(
            d["spec"]["template"]["metadata"]["labels"],
            serde_json::json!(labels("web"))
        );
        assert_eq!(
            d["spec"]["selector"]["matchLabels"],
            serde_json::json!(selector_labels("web"))
        );
        assert_eq!(
            s["spec"]["selector"],
            serde_json::json!(selector_labels("web"))
        );
    }
}

//! The generated apply configurations: serialized with exactly the fields
//! set, read back as they were written, linked to their resources.

use std::collections::BTreeMap;

use kubegen::apply::{ApplyConfiguration, OwnerReferenceApply};
use my_application::generated::applyconfigurations::apps_v1::{
    DeploymentApply, DeploymentSpecApply,
};
use my_application::generated::applyconfigurations::core_v1::{
    ContainerApply, ContainerPortApply, PodSpecApply, PodTemplateSpecApply, ServiceApply,
};
use my_application::generated::applyconfigurations::meta_v1::LabelSelectorApply;
use my_application::generated::applyconfigurations::stable_v1::{
    MyApplicationApply, MyApplicationSpecApply,
};
use serde_json::json;

fn deployment() -> DeploymentApply {
    DeploymentApply::new("web", "shop")
        .with_labels([("app", "web")])
        .with_spec(
            DeploymentSpecApply::default()
                .with_replicas(2)
                .with_selector(
                    LabelSelectorApply::default().with_match_labels([("app", "web".to_string())]),
                )
                .with_template(
                    PodTemplateSpecApply::default().with_spec(
                        PodSpecApply::default().with_containers([ContainerApply::default()
                            .with_name("web")
                            .with_image("nginx:1.27")
                            .with_ports([ContainerPortApply::default().with_container_port(80)])]),
                    ),
                ),
        )
}

#[test]
fn a_deployment_serializes_exactly_the_fields_set() {
    let value = serde_json::to_value(deployment()).unwrap();
    assert_eq!(
        value,
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"spec": {"containers": [{
                    "name": "web",
                    "image": "nginx:1.27",
                    "ports": [{"containerPort": 80}],
                }]}},
            },
        })
    );
    let back: DeploymentApply = serde_json::from_value(value).unwrap();
    assert_eq!(back, deployment());
}

#[test]
fn list_builders_append_and_map_builders_insert() {
    let pod = PodSpecApply::default()
        .with_containers([ContainerApply::default().with_name("a")])
        .with_containers([ContainerApply::default().with_name("b")])
        .with_node_selector([("zone", "a".to_string())])
        .with_node_selector([("zone", "b".to_string()), ("disk", "ssd".to_string())]);
    let names: Vec<_> = pod
        .containers
        .iter()
        .flatten()
        .map(|c| c.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(
        pod.node_selector.unwrap(),
        BTreeMap::from([
            ("disk".to_string(), "ssd".to_string()),
            ("zone".to_string(), "b".to_string())
        ])
    );
}

#[test]
fn top_level_configurations_know_their_resource_and_schema() {
    let service = ServiceApply::new("web", "shop")
        .with_owner_references([OwnerReferenceApply::default().with_uid("1234")])
        .with_finalizers(["example.com/cleanup"]);
    let meta = service.metadata().unwrap();
    assert_eq!(
        meta.owner_references.as_ref().unwrap()[0].uid.as_deref(),
        Some("1234")
    );
    assert_eq!(
        meta.finalizers.as_deref(),
        Some(&["example.com/cleanup".to_string()][..])
    );
    let schema = <DeploymentApply as ApplyConfiguration>::schema()
        .unwrap()
        .to_value();
    assert!(schema["properties"]["spec"]["properties"]["template"].is_object());
    let schema = <MyApplicationApply as ApplyConfiguration>::schema()
        .unwrap()
        .to_value();
    assert!(schema["properties"]["spec"]["properties"]["image"].is_object());
    let app = MyApplicationApply::new("shop", "default").with_spec(
        MyApplicationSpecApply::default()
            .with_image("nginx")
            .with_replicas(3),
    );
    assert_eq!(
        serde_json::to_value(app).unwrap(),
        json!({
            "apiVersion": "stable.example.com/v1",
            "kind": "MyApplication",
            "metadata": {"name": "shop", "namespace": "default"},
            "spec": {"image": "nginx", "replicas": 3},
        })
    );
}

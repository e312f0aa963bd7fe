//! What a MyApplication's children should look like, and the smallest
//! change that brings an existing child there (pure functions, unit tested).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Container, ContainerPort, PodSpec, PodTemplateSpec, Service, ServicePort, ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::api::MyApplication;

/// The value of `app.kubernetes.io/managed-by` on every child.
pub const MANAGER: &str = "my-application-controller";
/// The container's name in the Deployment's pod template.
pub const CONTAINER: &str = "my-application";

/// Whether `child` is controlled by an earlier MyApplication of the same
/// name — one that was deleted (and maybe re-created) while the garbage
/// collector has not yet removed its children. The reconcile replaces
/// such a child instead of reporting a conflict; the garbage collector
/// would delete it anyway, its owner being gone.
pub fn from_earlier_incarnation<C: kubegen::kube::Resource>(
    child: &C,
    app: &MyApplication,
) -> bool {
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

fn child_meta(name: String, app: &MyApplication, owner: &OwnerReference) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        namespace: app.metadata.namespace.clone(),
        labels: Some(labels(app.metadata.name.as_deref().unwrap_or_default())),
        owner_references: Some(vec![owner.clone()]),
        ..ObjectMeta::default()
    }
}

/// The Deployment a MyApplication wants.
pub fn deployment(app: &MyApplication, owner: &OwnerReference) -> Deployment {
    let name = app.metadata.name.as_deref().unwrap_or_default();
    Deployment {
        metadata: child_meta(deployment_name(name), app, owner),
        spec: Some(DeploymentSpec {
            replicas: Some(app.spec.replicas),
            selector: LabelSelector {
                match_labels: Some(selector_labels(name)),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels(name)),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: CONTAINER.to_string(),
                        image: Some(app.spec.image.clone()),
                        ports: Some(vec![ContainerPort {
                            container_port: app.spec.port,
                            protocol: Some("TCP".to_string()),
                            ..ContainerPort::default()
                        }]),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        }),
        status: None,
    }
}

/// The Service a MyApplication wants.
pub fn service(app: &MyApplication, owner: &OwnerReference) -> Service {
    let name = app.metadata.name.as_deref().unwrap_or_default();
    Service {
        metadata: child_meta(service_name(name), app, owner),
        spec: Some(ServiceSpec {
            type_: Some("ClusterIP".to_string()),
            selector: Some(selector_labels(name)),
            ports: Some(vec![service_port(app.spec.port)]),
            ..ServiceSpec::default()
        }),
        status: None,
    }
}

fn service_port(port: i32) -> ServicePort {
    ServicePort {
        name: Some("http".to_string()),
        port,
        target_port: Some(IntOrString::Int(port)),
        protocol: Some("TCP".to_string()),
        ..ServicePort::default()
    }
}

/// Adds `want` to `have` (labels others set are kept); true if anything changed.
fn merge_labels(
    have: &mut Option<BTreeMap<String, String>>,
    want: &BTreeMap<String, String>,
) -> bool {
    let have = have.get_or_insert_with(BTreeMap::new);
    let mut changed = false;
    for (k, v) in want {
        if have.get(k) != Some(v) {
            have.insert(k.clone(), v.clone());
            changed = true;
        }
    }
    changed
}

/// The existing Deployment corrected towards `app` — replicas, image,
/// container port and labels, nothing else — or `None` when no field
/// drifted (so nothing is written).
pub fn corrected_deployment(existing: &Deployment, app: &MyApplication) -> Option<Deployment> {
    let name = app.metadata.name.as_deref().unwrap_or_default();
    let mut fixed = existing.clone();
    let mut changed = merge_labels(&mut fixed.metadata.labels, &labels(name));
    let spec = fixed.spec.get_or_insert_with(DeploymentSpec::default);
    if spec.replicas != Some(app.spec.replicas) {
        spec.replicas = Some(app.spec.replicas);
        changed = true;
    }
    let template_meta = spec
        .template
        .metadata
        .get_or_insert_with(ObjectMeta::default);
    changed |= merge_labels(&mut template_meta.labels, &labels(name));
    let pod = spec.template.spec.get_or_insert_with(PodSpec::default);
    match pod.containers.iter_mut().find(|c| c.name == CONTAINER) {
        Some(container) => {
            if container.image.as_deref() != Some(app.spec.image.as_str()) {
                container.image = Some(app.spec.image.clone());
                changed = true;
            }
            let ports = container.ports.get_or_insert_with(Vec::new);
            let has_port = ports.len() == 1 && ports[0].container_port == app.spec.port;
            if !has_port {
                *ports = vec![ContainerPort {
                    container_port: app.spec.port,
                    protocol: Some("TCP".to_string()),
                    ..ContainerPort::default()
                }];
                changed = true;
            }
        }
        None => {
            let owner = existing
                .metadata
                .owner_references
                .as_ref()
                .and_then(|o| o.first().cloned())
                .unwrap_or_default();
            let want = deployment(app, &owner);
            pod.containers = want
                .spec
                .and_then(|s| s.template.spec)
                .map(|p| p.containers)
                .unwrap_or_default();
            changed = true;
        }
    }
    changed.then_some(fixed)
}

/// The existing Service corrected towards `app` — selector, port, target
/// port and labels — or `None` when nothing drifted.
pub fn corrected_service(existing: &Service, app: &MyApplication) -> Option<Service> {
    let name = app.metadata.name.as_deref().unwrap_or_default();
    let mut fixed = existing.clone();
    let mut changed = merge_labels(&mut fixed.metadata.labels, &labels(name));
    let spec = fixed.spec.get_or_insert_with(ServiceSpec::default);
    if spec.selector.as_ref() != Some(&selector_labels(name)) {
        spec.selector = Some(selector_labels(name));
        changed = true;
    }
    let ports = spec.ports.get_or_insert_with(Vec::new);
    let matches = ports.len() == 1
        && ports[0].port == app.spec.port
        && ports[0].target_port == Some(IntOrString::Int(app.spec.port));
    if !matches {
        // Keep the allocated fields (nodePort etc.) of an existing port.
        let mut port = ports
            .first()
            .cloned()
            .unwrap_or_else(|| service_port(app.spec.port));
        port.port = app.spec.port;
        port.target_port = Some(IntOrString::Int(app.spec.port));
        *ports = vec![port];
        changed = true;
    }
    changed.then_some(fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::MyApplicationSpec;

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

    #[test]
    fn desired_children_follow_the_spec() {
        let d = deployment(&app("nginx:latest", 3, 8080), &owner());
        assert_eq!(d.metadata.name.as_deref(), Some("web-deployment"));
        assert_eq!(d.metadata.namespace.as_deref(), Some("ns"));
        let spec = d.spec.unwrap();
        assert_eq!(spec.replicas, Some(3));
        let c = &spec.template.spec.unwrap().containers[0];
        assert_eq!(
            (c.name.as_str(), c.image.as_deref()),
            ("my-application", Some("nginx:latest"))
        );
        assert_eq!(c.ports.as_ref().unwrap()[0].container_port, 8080);
        assert_eq!(spec.selector.match_labels, Some(selector_labels("web")));

        let s = service(&app("nginx", 1, 8080), &owner());
        assert_eq!(s.metadata.name.as_deref(), Some("web-service"));
        let port = &s.spec.as_ref().unwrap().ports.as_ref().unwrap()[0];
        assert_eq!(
            (port.port, port.target_port.clone()),
            (8080, Some(IntOrString::Int(8080)))
        );
        assert_eq!(
            s.metadata.labels.unwrap()["app.kubernetes.io/managed-by"],
            MANAGER
        );
        assert_eq!(
            selector_string("web"),
            "app=my-application,myapplication_cr=web"
        );
    }

    #[test]
    fn no_drift_means_no_write() {
        let a = app("nginx", 2, 80);
        let mut d = deployment(&a, &owner());
        // Fields the apiserver fills in and labels others add are not drift.
        d.metadata
            .labels
            .as_mut()
            .unwrap()
            .insert("team".into(), "x".into());
        d.spec.as_mut().unwrap().revision_history_limit = Some(10);
        assert!(corrected_deployment(&d, &a).is_none());
        let mut s = service(&a, &owner());
        s.spec.as_mut().unwrap().cluster_ip = Some("10.96.0.10".into());
        assert!(corrected_service(&s, &a).is_none());
    }

    #[test]
    fn drift_is_corrected_field_by_field() {
        let a = app("nginx:2", 5, 9090);
        let mut d = deployment(&app("nginx:1", 1, 80), &owner());
        d.metadata
            .labels
            .as_mut()
            .unwrap()
            .remove("myapplication_cr");
        let fixed = corrected_deployment(&d, &a).expect("drift");
        let spec = fixed.spec.unwrap();
        assert_eq!(spec.replicas, Some(5));
        let c = &spec.template.spec.unwrap().containers[0];
        assert_eq!(c.image.as_deref(), Some("nginx:2"));
        assert_eq!(c.ports.as_ref().unwrap()[0].container_port, 9090);
        assert_eq!(fixed.metadata.labels.unwrap()["myapplication_cr"], "web");

        let mut s = service(&app("nginx", 1, 80), &owner());
        s.spec.as_mut().unwrap().ports.as_mut().unwrap()[0].node_port = Some(30080);
        let fixed = corrected_service(&s, &a).expect("drift");
        let port = &fixed.spec.unwrap().ports.unwrap()[0];
        assert_eq!((port.port, port.node_port), (9090, Some(30080)));
        assert_eq!(port.target_port, Some(IntOrString::Int(9090)));
    }
}

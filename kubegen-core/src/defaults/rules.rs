//! The defaulting functions (`SetDefaults_*`) of the API groups in scope,
//! by the definition name of the type each takes: core/v1 here, the
//! others in `groups`. Each works on a decoded Go value (`codec`): every
//! struct field present, nil as `null`.

use serde_json::{Map, Value, json};

use super::codec::zero;
use super::fields::{default_if_empty, default_if_nil, field, is_nil, len, set, text, with};
use super::{groups, image, quantity};

/// Runs the defaulting function of the struct type `name`, if it has one.
pub(super) fn set_defaults(name: &str, v: &mut Value) {
    let Some(short) = name.strip_prefix("io.k8s.api.") else {
        return;
    };
    match short {
        "core.v1.Pod" => pod(v),
        "core.v1.PodSpec" => pod_spec(v),
        "core.v1.Volume" => volume(v),
        "core.v1.Container" | "core.v1.EphemeralContainer" => container(v),
        "core.v1.Service" => service(v),
        "core.v1.Probe" => probe(v),
        "core.v1.SecretVolumeSource"
        | "core.v1.ConfigMapVolumeSource"
        | "core.v1.DownwardAPIVolumeSource"
        | "core.v1.ProjectedVolumeSource" => default_if_nil(v, "defaultMode", json!(420)),
        "core.v1.Secret" => default_if_empty(v, "type", "Opaque"),
        "core.v1.ServiceAccountTokenProjection" => {
            default_if_nil(v, "expirationSeconds", json!(3600));
        }
        "core.v1.PersistentVolumeClaim" => {
            if let Some(status) = field(v, "status") {
                default_if_empty(status, "phase", "Pending");
            }
        }
        "core.v1.PersistentVolumeClaimSpec" => default_if_nil(v, "volumeMode", json!("Filesystem")),
        "core.v1.HTTPGetAction" => {
            default_if_empty(v, "path", "/");
            default_if_empty(v, "scheme", "HTTP");
        }
        "core.v1.Namespace" => namespace(v),
        "core.v1.NamespaceStatus" => default_if_empty(v, "phase", "Active"),
        "core.v1.ObjectFieldSelector" => default_if_empty(v, "apiVersion", "v1"),
        "core.v1.ConfigMap" => default_if_nil(v, "data", json!({})),
        "core.v1.HostPathVolumeSource" => default_if_nil(v, "type", json!("")),
        _ => groups::set_defaults(short, v),
    }
}

/// `SetDefaults_ResourceList`: every quantity rounded up to milli-units.
pub(super) fn resource_list(v: &mut Value) {
    let Value::Object(m) = v else {
        return;
    };
    for q in m.values_mut() {
        let Some(text) = q.as_str() else {
            continue;
        };
        if let Some(mut parsed) = quantity::parse(text)
            && let Some(out) = parsed.round_up(-3).and_then(|()| parsed.marshal())
        {
            *q = Value::String(out);
        }
    }
}

fn pod(v: &mut Value) {
    let Some(spec) = field(v, "spec") else {
        return;
    };
    for list in ["containers", "initContainers"] {
        let Some(Value::Array(containers)) = field(spec, list) else {
            continue;
        };
        for c in containers {
            let Some(resources) = field(c, "resources") else {
                continue;
            };
            let Some(Value::Object(limits)) = resources.get("limits").cloned() else {
                continue;
            };
            if is_nil(resources, "requests") {
                set(resources, "requests", Value::Object(Map::new()));
            }
            if let Some(Value::Object(requests)) = field(resources, "requests") {
                for (k, q) in limits {
                    requests.entry(k).or_insert(q);
                }
            }
        }
    }
    default_if_nil(spec, "enableServiceLinks", json!(true));
    if spec.get("hostNetwork") == Some(&Value::Bool(true)) {
        for list in ["containers", "initContainers"] {
            let Some(Value::Array(containers)) = field(spec, list) else {
                continue;
            };
            for c in containers {
                let Some(Value::Array(ports)) = field(c, "ports") else {
                    continue;
                };
                for p in ports {
                    if p.get("hostPort").and_then(Value::as_i64) == Some(0) {
                        let port = p.get("containerPort").cloned().unwrap_or(json!(0));
                        set(p, "hostPort", port);
                    }
                }
            }
        }
    }
}

fn pod_spec(v: &mut Value) {
    default_if_empty(v, "dnsPolicy", "ClusterFirst");
    default_if_empty(v, "restartPolicy", "Always");
    default_if_nil(
        v,
        "securityContext",
        zero("io.k8s.api.core.v1.PodSecurityContext"),
    );
    default_if_nil(v, "terminationGracePeriodSeconds", json!(30));
    default_if_empty(v, "schedulerName", "default-scheduler");
}

/// The pull policy an image's tag gives.
fn pull_policy(image: &str) -> &'static str {
    if image::tag(image) == "latest" {
        "Always"
    } else {
        "IfNotPresent"
    }
}

fn volume(v: &mut Value) {
    let Value::Object(m) = &*v else {
        return;
    };
    // Every field but the name is one of VolumeSource's pointers.
    if m.iter().all(|(k, x)| k == "name" || x.is_null()) {
        set(
            v,
            "emptyDir",
            zero("io.k8s.api.core.v1.EmptyDirVolumeSource"),
        );
    }
    if let Some(image) = field(v, "image").filter(|i| !i.is_null())
        && text(image, "pullPolicy").is_empty()
    {
        let policy = pull_policy(text(image, "reference"));
        set(image, "pullPolicy", json!(policy));
    }
}

fn container(v: &mut Value) {
    if text(v, "imagePullPolicy").is_empty() {
        let policy = pull_policy(text(v, "image"));
        set(v, "imagePullPolicy", json!(policy));
    }
    default_if_empty(v, "terminationMessagePath", "/dev/termination-log");
    default_if_empty(v, "terminationMessagePolicy", "File");
}

fn probe(v: &mut Value) {
    for (k, d) in [
        ("timeoutSeconds", 1),
        ("periodSeconds", 10),
        ("successThreshold", 1),
        ("failureThreshold", 3),
    ] {
        if v.get(k).and_then(Value::as_i64) == Some(0) {
            set(v, k, json!(d));
        }
    }
}

fn service(v: &mut Value) {
    let Some(spec) = field(v, "spec") else {
        return;
    };
    default_if_empty(spec, "sessionAffinity", "None");
    match text(spec, "sessionAffinity") {
        "None" => set(spec, "sessionAffinityConfig", Value::Null),
        "ClientIP" => {
            let config = &spec["sessionAffinityConfig"];
            if config.is_null()
                || is_nil(config, "clientIP")
                || is_nil(&config["clientIP"], "timeoutSeconds")
            {
                let client_ip = with(
                    "io.k8s.api.core.v1.ClientIPConfig",
                    json!({"timeoutSeconds": 10800}),
                );
                let config = with(
                    "io.k8s.api.core.v1.SessionAffinityConfig",
                    json!({"clientIP": client_ip}),
                );
                set(spec, "sessionAffinityConfig", config);
            }
        }
        _ => {}
    }
    default_if_empty(spec, "type", "ClusterIP");
    if let Some(Value::Array(ports)) = field(spec, "ports") {
        for p in ports {
            default_if_empty(p, "protocol", "TCP");
            let target = p.get("targetPort");
            if target == Some(&json!(0)) || target == Some(&json!("")) {
                let port = p.get("port").cloned().unwrap_or(json!(0));
                set(p, "targetPort", port);
            }
        }
    }
    let kind = text(spec, "type").to_string();
    let external = kind == "LoadBalancer"
        || kind == "NodePort"
        || (kind == "ClusterIP" && len(spec, "externalIPs") > 0);
    if external {
        default_if_empty(spec, "externalTrafficPolicy", "Cluster");
    }
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        default_if_nil(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if kind != "LoadBalancer" {
        return;
    }
    default_if_nil(spec, "allocateLoadBalancerNodePorts", json!(true));
    let ingress = field(v, "status")
        .and_then(|s| field(s, "loadBalancer"))
        .and_then(|lb| field(lb, "ingress"));
    if let Some(Value::Array(ingress)) = ingress {
        for i in ingress {
            if !text(i, "ip").is_empty() && is_nil(i, "ipMode") {
                set(i, "ipMode", json!("VIP"));
            }
        }
    }
}

fn namespace(v: &mut Value) {
    let Some(meta) = field(v, "metadata") else {
        return;
    };
    let name = text(meta, "name").to_string();
    if name.is_empty() {
        return;
    }
    default_if_nil(meta, "labels", json!({}));
    if let Some(Value::Object(labels)) = field(meta, "labels") {
        labels.insert(
            "kubernetes.io/metadata.name".to_string(),
            Value::String(name),
        );
    }
}

//! The core rules, by example (the differential test holds them all
//! against Go).

use serde_json::{Value, json};

use super::{default_builtin, image, quantity, zero_object};

fn defaulted(api_version: &str, kind: &str, mut v: Value) -> Value {
    default_builtin(api_version, kind, &mut v).unwrap();
    v
}

#[test]
fn image_tags_as_parse_image_name() {
    for (image, tag) in [
        ("nginx", "latest"),
        ("nginx:latest", "latest"),
        ("nginx:1.25", "1.25"),
        ("registry.example.com:5000/team/app:v1", "v1"),
        ("localhost/app", "latest"),
        (
            "nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "",
        ),
        ("Nginx", ""),
        ("", ""),
        ("nginx@sha256:short", ""),
    ] {
        assert_eq!(image::tag(image), tag, "{image}");
    }
}

#[test]
fn quantities_as_go_writes_them() {
    for (text, out, milli) in [
        ("1000", "1k", "1k"),
        ("1.500", "1.500", "1.500"),
        ("0.1", "100m", "100m"),
        ("1.5Ki", "1536", "1536"),
        ("8Ki", "8Ki", "8Ki"),
        ("+5", "+5", "+5"),
        ("1n", "1n", "1m"),
        ("0.5Gi", "512Mi", "512Mi"),
        ("1e3", "1e3", "1e3"),
        ("0", "0", "0"),
    ] {
        let q = quantity::parse(text).unwrap();
        assert_eq!(q.marshal().as_deref(), Some(out), "{text}");
        let mut r = q.clone();
        r.round_up(-3).unwrap();
        assert_eq!(r.marshal().as_deref(), Some(milli), "{text} rounded");
    }
    assert!(quantity::parse("1.2.3").is_none());
}

#[test]
fn a_deployment_gets_its_defaults() {
    let v = defaulted(
        "apps/v1",
        "Deployment",
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x", "Name": "dropped"},
               "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "nginx:1.25",
                 "ports": [{"containerPort": 80}], "unknown": 1}]}}}}),
    );
    assert_eq!(
        v,
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
               "spec": {"replicas": 1, "selector": null, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                 "template": {"metadata": {}, "spec": {
                   "containers": [{"name": "a", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                     "resources": {}, "terminationMessagePath": "/dev/termination-log",
                     "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
                   "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                   "securityContext": {}, "schedulerName": "default-scheduler"}}},
               "status": {}})
    );
}

#[test]
fn a_service_port_targets_its_port() {
    let v = defaulted(
        "v1",
        "Service",
        json!({"spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 81, "targetPort": "web"}]}}),
    );
    assert_eq!(v["spec"]["ports"][0]["targetPort"], json!(80));
    assert_eq!(v["spec"]["ports"][1]["targetPort"], json!("web"));
    assert_eq!(v["spec"]["externalTrafficPolicy"], json!("Cluster"));
    assert_eq!(v["spec"]["internalTrafficPolicy"], json!("Cluster"));
    assert_eq!(v["spec"]["sessionAffinity"], json!("None"));
}

#[test]
fn pod_requests_come_from_limits_rounded() {
    let v = defaulted(
        "v1",
        "Pod",
        json!({"spec": {"containers": [{"name": "a", "image": "x", "resources": {"limits": {"cpu": "1n"}}}]}}),
    );
    let r = &v["spec"]["containers"][0]["resources"];
    assert_eq!(
        r,
        &json!({"limits": {"cpu": "1m"}, "requests": {"cpu": "1m"}})
    );
    assert_eq!(v["spec"]["enableServiceLinks"], json!(true));
}

#[test]
fn a_job_and_an_hpa() {
    let v = defaulted(
        "batch/v1",
        "Job",
        json!({"spec": {"podFailurePolicy": {"rules": []}}}),
    );
    assert_eq!(v["spec"]["podReplacementPolicy"], json!("Failed"));
    assert_eq!(v["spec"]["backoffLimit"], json!(6));
    let v = defaulted(
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        json!({"spec": {"behavior": {"scaleDown": {"policies": []}}}}),
    );
    assert_eq!(v["spec"]["minReplicas"], json!(1));
    assert_eq!(
        v["spec"]["behavior"]["scaleDown"],
        json!({"selectPolicy": "Max"})
    );
    assert_eq!(
        v["spec"]["behavior"]["scaleUp"]["policies"][0]["value"],
        json!(4)
    );
}

#[test]
fn zero_objects_and_unknown_kinds() {
    assert_eq!(
        zero_object("apps/v1", "Deployment"),
        Some(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {},
                    "spec": {"selector": null, "template": {"metadata": {}, "spec": {"containers": null}}, "strategy": {}},
                    "status": {}})
        )
    );
    let mut v = json!({"a": 1});
    assert!(default_builtin("example.com/v1", "Widget", &mut v).is_none());
    assert_eq!(v, json!({"a": 1}));
}

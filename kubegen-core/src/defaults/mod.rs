//! What kube-apiserver v1.36 does to a built-in object between decoding a
//! request and storing it, as far as the scheme goes: the versioned
//! defaulting (`SetObjectDefaults_*` of k8s.io/kubernetes v1.36.3's
//! `pkg/apis/*/v1`, with every feature gate at its v1.36 default), then
//! Go's typed JSON encoding (zero values of fields without `omitempty`
//! written, empty `omitempty` values dropped, unknown fields dropped,
//! quantities in their canonical form, times in RFC 3339).
//!
//! Kinds: core/v1 Pod, Service, ConfigMap, Secret, ServiceAccount,
//! PersistentVolumeClaim, Namespace, Event; apps/v1 Deployment,
//! StatefulSet, DaemonSet, ReplicaSet; batch/v1 Job, CronJob;
//! networking.k8s.io/v1 Ingress, NetworkPolicy; policy/v1
//! PodDisruptionBudget; coordination.k8s.io/v1 Lease; events.k8s.io/v1
//! Event; rbac.authorization.k8s.io/v1 Role, RoleBinding, ClusterRole,
//! ClusterRoleBinding; autoscaling/v2 HorizontalPodAutoscaler.
//!
//! The Go shapes are data (`types.json`, written by `hack/builtin-defaults`
//! from the Go types and their `+default=` markers); the `SetDefaults_*`
//! functions are ported in `rules` (core/v1) and `groups` (the others);
//! `walk` visits every struct as the generated defaulters do.
//! `tests/defaults_differential.rs` holds it against the real Go code.
//!
//! Out of scope — done by the REST storage or by the conversion to the
//! internal version, not by the scheme's defaulting: a Service's cluster
//! IP allocation, `clusterIPs`, `ipFamilies` and `ipFamilyPolicy`, node
//! ports; a Secret's `stringData` folded into `data`; a Pod's deprecated
//! `serviceAccount` copied from `serviceAccountName`; metadata the
//! registry sets (uid, creationTimestamp, generation, resourceVersion).
//!
//! Known differences from Go:
//! - the Pod-level resources defaulting of the `PodLevelResources` gate
//!   (pod `spec.resources` requests and hugepage limits aggregated from
//!   the containers) is not ported: a Pod with `spec.resources` set gets
//!   only the container-level defaults;
//! - a value of the wrong JSON type, which Go refuses, decodes as its zero
//!   value; a quantity Go cannot parse, or one beyond 38 digits, keeps its
//!   text; a `MicroTime` is read with any fraction (Go wants six digits);
//! - a quantity given as a JSON number is read from serde_json's text of
//!   the number, which may differ from the request's (`1e3` reads as
//!   `1000.0`).

mod codec;
mod fields;
mod groups;
mod image;
mod quantity;
mod rules;
mod table;
mod walk;

use serde_json::Value;

/// The definition name of a kind in scope.
fn definition(api_version: &str, kind: &str) -> Option<&'static str> {
    table::table()
        .kinds
        .get(api_version)?
        .get(kind)
        .map(String::as_str)
}

/// What kube-apiserver v1.36 does to a built-in object of
/// `api_version`/`kind` between decoding a request and storing it: the
/// scheme's defaulting functions (`SetObjectDefaults_*`), then Go's typed
/// JSON encoding (zero values of non-`omitempty` fields written,
/// `omitempty` empty values dropped, unknown fields dropped). `None`, with
/// `object` untouched, for a kind this module does not know.
pub fn default_builtin(api_version: &str, kind: &str, object: &mut Value) -> Option<()> {
    let def = definition(api_version, kind)?;
    let mut v = codec::decode(def, object);
    walk::walk(def, &mut v, "");
    *object = codec::encode(def, &v);
    Some(())
}

/// The Go zero value of the kind as the apiserver encodes it, with its
/// `apiVersion` and `kind` (what the field manager compares a create
/// against): a Deployment's is `{"apiVersion": "apps/v1", "kind":
/// "Deployment", "metadata": {}, "spec": {"selector": null, "template":
/// {"metadata": {}, "spec": {"containers": null}}, "strategy": {}},
/// "status": {}}`. `None` for a kind this module does not know.
pub fn zero_object(api_version: &str, kind: &str) -> Option<Value> {
    let def = definition(api_version, kind)?;
    let mut v = codec::zero(def);
    fields::set(&mut v, "apiVersion", Value::String(api_version.to_string()));
    fields::set(&mut v, "kind", Value::String(kind.to_string()));
    Some(codec::encode(def, &v))
}

/// The kinds this module knows, as `(apiVersion, kind)`.
pub fn kinds() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<_> = table::table()
        .kinds
        .iter()
        .flat_map(|(gv, by_kind)| by_kind.keys().map(move |k| (gv.as_str(), k.as_str())))
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
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
}

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
mod groups;
mod image;
mod quantity;
mod rules;
mod table;
#[cfg(test)]
mod tests;
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
    rules::set(&mut v, "apiVersion", Value::String(api_version.to_string()));
    rules::set(&mut v, "kind", Value::String(kind.to_string()));
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

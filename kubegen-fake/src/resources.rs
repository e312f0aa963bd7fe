//! The resources the server serves: the built-in kinds an operator
//! touches (a fixed table, the same names, scopes and subresources as
//! kube-apiserver v1.36 serves) and the custom resources of every
//! established CustomResourceDefinition.

use serde_json::Value;

/// How a resource's `metadata.generation` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// The kind has none.
    None,
    /// 1 on create, +1 when anything but `metadata` and `status` changes
    /// (custom resources, and built-in kinds whose strategy compares the
    /// whole spec).
    Spec,
    /// As [`Generation::Spec`], and also when the annotations change
    /// (Deployments: a rollback annotation is a change of intent).
    SpecOrAnnotations,
}

/// The `scale` subresource's paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// JSON path of the desired replicas (`.spec.replicas`).
    pub spec_replicas: String,
    /// JSON path of the observed replicas (`.status.replicas`).
    pub status_replicas: String,
    /// JSON path of the label selector in status, if any.
    pub label_selector: Option<String>,
}

/// One served resource of one version.
#[derive(Clone, Debug)]
pub struct Resource {
    /// API group, empty for the core group.
    pub group: String,
    /// Version (`v1`).
    pub version: String,
    /// Kind (`Deployment`).
    pub kind: String,
    /// Plural, the URL segment (`deployments`).
    pub plural: String,
    /// Singular (`deployment`).
    pub singular: String,
    /// Short names (`deploy`).
    pub short_names: Vec<String>,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Whether `/status` is a subresource (and the main resource keeps
    /// the stored status on update).
    pub status: bool,
    /// The `scale` subresource, if any.
    pub scale: Option<Scale>,
    /// How `metadata.generation` moves.
    pub generation: Generation,
    /// Field selectors the kind supports beyond `metadata.name` and
    /// `metadata.namespace`, as (label, JSON pointer to the value).
    pub selectable_fields: Vec<(String, String)>,
    /// The CustomResourceDefinition (JSON) of a custom resource.
    pub crd: Option<Value>,
    /// Whether this is the version objects are stored in.
    pub storage: bool,
    /// Categories (`all`).
    pub categories: Vec<String>,
}

impl Resource {
    /// `apps/v1`, or `v1` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `<group>/<plural>`, the store's resource key (the same for every
    /// version of a resource).
    pub fn id(&self) -> String {
        format!("{}/{}", self.group, self.plural)
    }

    /// The name errors use: `deployments.apps`, `pods`.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The list kind (`DeploymentList`).
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }
}

/// One row of the built-in table: group, version, kind, plural,
/// namespaced, status subresource, scale subresource, generation,
/// short names, extra field selectors.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    bool,
    bool,
    Generation,
    &'static [&'static str],
    &'static [&'static str],
);

const POD_FIELDS: &[&str] = &[
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
];
const EVENT_FIELDS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
];
const NEW_EVENT_FIELDS: &[&str] = &[
    "regarding.kind",
    "regarding.namespace",
    "regarding.name",
    "regarding.uid",
    "regarding.apiVersion",
    "regarding.resourceVersion",
    "regarding.fieldPath",
    "reason",
    "reportingController",
    "type",
];

use Generation::{None as NoGen, Spec, SpecOrAnnotations};

#[rustfmt::skip]
const BUILTINS: &[Row] = &[
    ("", "v1", "Namespace", "namespaces", false, true, false, NoGen, &["ns"], &["status.phase"]),
    ("", "v1", "Pod", "pods", true, true, false, Spec, &["po"], POD_FIELDS),
    ("", "v1", "Service", "services", true, true, false, NoGen, &["svc"], &[]),
    ("", "v1", "ConfigMap", "configmaps", true, false, false, NoGen, &["cm"], &[]),
    ("", "v1", "Secret", "secrets", true, false, false, NoGen, &[], &["type"]),
    ("", "v1", "ServiceAccount", "serviceaccounts", true, false, false, NoGen, &["sa"], &[]),
    ("", "v1", "Endpoints", "endpoints", true, false, false, NoGen, &["ep"], &[]),
    ("", "v1", "Event", "events", true, false, false, NoGen, &["ev"], EVENT_FIELDS),
    ("", "v1", "Node", "nodes", false, true, false, NoGen, &["no"], &["spec.unschedulable"]),
    ("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true, true, false, NoGen, &["pvc"], &[]),
    ("", "v1", "PersistentVolume", "persistentvolumes", false, true, false, NoGen, &["pv"], &[]),
    ("", "v1", "ReplicationController", "replicationcontrollers", true, true, true, Spec, &["rc"], &["status.replicas"]),
    ("", "v1", "ResourceQuota", "resourcequotas", true, true, false, NoGen, &["quota"], &[]),
    ("", "v1", "LimitRange", "limitranges", true, false, false, NoGen, &["limits"], &[]),
    ("apps", "v1", "Deployment", "deployments", true, true, true, SpecOrAnnotations, &["deploy"], &[]),
    ("apps", "v1", "ReplicaSet", "replicasets", true, true, true, Spec, &["rs"], &["status.replicas"]),
    ("apps", "v1", "StatefulSet", "statefulsets", true, true, true, Spec, &["sts"], &[]),
    ("apps", "v1", "DaemonSet", "daemonsets", true, true, false, Spec, &["ds"], &[]),
    ("apps", "v1", "ControllerRevision", "controllerrevisions", true, false, false, NoGen, &[], &[]),
    ("batch", "v1", "Job", "jobs", true, true, false, Spec, &[], &["status.successful"]),
    ("batch", "v1", "CronJob", "cronjobs", true, true, false, Spec, &["cj"], &[]),
    ("coordination.k8s.io", "v1", "Lease", "leases", true, false, false, NoGen, &[], &[]),
    ("events.k8s.io", "v1", "Event", "events", true, false, false, NoGen, &["ev"], NEW_EVENT_FIELDS),
    ("rbac.authorization.k8s.io", "v1", "Role", "roles", true, false, false, NoGen, &[], &[]),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, false, false, NoGen, &[], &[]),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, false, false, NoGen, &[], &[]),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false, false, false, NoGen, &[], &[]),
    ("networking.k8s.io", "v1", "Ingress", "ingresses", true, true, false, Spec, &["ing"], &[]),
    ("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true, false, false, Spec, &["netpol"], &[]),
    ("networking.k8s.io", "v1", "IngressClass", "ingressclasses", false, false, false, NoGen, &[], &[]),
    ("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, true, false, Spec, &["pdb"], &[]),
    ("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true, true, false, NoGen, &["hpa"], &[]),
    ("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true, false, false, NoGen, &[], &[]),
    ("storage.k8s.io", "v1", "StorageClass", "storageclasses", false, false, false, NoGen, &["sc"], &[]),
    ("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false, false, false, NoGen, &["pc"], &[]),
    ("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false, true, false, Spec, &["crd", "crds"], &[]),
    ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false, false, false, Spec, &[], &[]),
    ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false, false, false, Spec, &[], &[]),
];

/// JSON pointer of a field selector label (`spec.nodeName` →
/// `/spec/nodeName`).
fn pointer(label: &str) -> String {
    format!("/{}", label.replace('.', "/"))
}

/// The built-in resources.
pub fn builtins() -> Vec<Resource> {
    BUILTINS
        .iter()
        .map(
            |&(
                group,
                version,
                kind,
                plural,
                namespaced,
                status,
                scale,
                generation,
                short,
                fields,
            )| {
                Resource {
                    group: group.into(),
                    version: version.into(),
                    kind: kind.into(),
                    plural: plural.into(),
                    singular: kind.to_ascii_lowercase(),
                    short_names: short.iter().map(|s| s.to_string()).collect(),
                    namespaced,
                    status,
                    scale: scale.then(|| Scale {
                        spec_replicas: ".spec.replicas".into(),
                        status_replicas: ".status.replicas".into(),
                        label_selector: (group == "apps").then(|| ".status.selector".into()),
                    }),
                    generation,
                    selectable_fields: fields.iter().map(|f| (f.to_string(), pointer(f))).collect(),
                    crd: None,
                    storage: true,
                    categories: if matches!(
                        kind,
                        "Pod"
                            | "Service"
                            | "Deployment"
                            | "ReplicaSet"
                            | "StatefulSet"
                            | "DaemonSet"
                            | "Job"
                            | "CronJob"
                            | "ReplicationController"
                    ) {
                        vec!["all".into()]
                    } else {
                        Vec::new()
                    },
                }
            },
        )
        .collect()
}

/// The served versions of a CustomResourceDefinition (JSON), as
/// resources.
pub fn from_crd(crd: &Value) -> Vec<Resource> {
    let spec = &crd["spec"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let names = &spec["names"];
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let versions = spec["versions"].as_array().cloned().unwrap_or_default();
    versions
        .iter()
        .filter(|v| v["served"].as_bool().unwrap_or(false))
        .map(|v| {
            let sub = &v["subresources"];
            let kind = text(&names["kind"]);
            Resource {
                group: text(&spec["group"]),
                version: text(&v["name"]),
                singular: match names["singular"].as_str() {
                    Some(s) if !s.is_empty() => s.to_string(),
                    _ => kind.to_ascii_lowercase(),
                },
                kind,
                plural: text(&names["plural"]),
                short_names: strings(&names["shortNames"]),
                namespaced: spec["scope"] == "Namespaced",
                status: sub.get("status").is_some(),
                scale: sub.get("scale").map(|s| Scale {
                    spec_replicas: text(&s["specReplicasPath"]),
                    status_replicas: text(&s["statusReplicasPath"]),
                    label_selector: s["labelSelectorPath"].as_str().map(String::from),
                }),
                generation: Generation::Spec,
                selectable_fields: v["selectableFields"]
                    .as_array()
                    .map(|fs| {
                        fs.iter()
                            .filter_map(|f| f["jsonPath"].as_str())
                            .map(|p| {
                                let label = p.trim_start_matches('.').to_string();
                                let ptr = pointer(&label);
                                (label, ptr)
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                crd: Some(crd.clone()),
                storage: v["storage"].as_bool().unwrap_or(false),
                categories: strings(&names["categories"]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_table_names_resources_as_the_apiserver_does() {
        let all = builtins();
        let deploy = all.iter().find(|r| r.kind == "Deployment").unwrap();
        assert_eq!(deploy.api_version(), "apps/v1");
        assert_eq!(deploy.qualified(), "deployments.apps");
        assert_eq!(deploy.id(), "apps/deployments");
        assert!(deploy.scale.is_some());
        let pods = all.iter().find(|r| r.kind == "Pod").unwrap();
        assert_eq!(pods.qualified(), "pods");
        assert_eq!(pods.api_version(), "v1");
        // One entry per (group, plural).
        let mut ids: Vec<_> = all.iter().map(Resource::id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all.len());
    }

    #[test]
    fn a_crd_gives_one_resource_per_served_version() {
        let crd = json!({"spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"kind": "Web", "plural": "webs", "shortNames": ["w"]},
        "versions": [
            {"name": "v1", "served": true, "storage": true,
             "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
             "selectableFields": [{"jsonPath": ".spec.color"}]},
            {"name": "v0", "served": false, "storage": false}
        ]}});
        let rs = from_crd(&crd);
        assert_eq!(rs.len(), 1);
        assert_eq!(rs[0].singular, "web");
        assert!(rs[0].status && rs[0].namespaced && rs[0].storage);
        assert_eq!(
            rs[0].selectable_fields,
            vec![("spec.color".to_string(), "/spec/color".to_string())]
        );
        assert_eq!(
            rs[0].scale.as_ref().unwrap().spec_replicas,
            ".spec.replicas"
        );
    }
}

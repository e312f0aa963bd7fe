//! The apply configuration of `metadata` (client-go's
//! `applyconfigurations/meta/v1.ObjectMetaApplyConfiguration`), shared by
//! every generated apply configuration: the object's own `metadata` and a
//! template's. Only what a manager may own: name, namespace, generate
//! name, labels, annotations, owner references (a list-map keyed by
//! `uid`) and finalizers (a set).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `metadata`, every field optional; serialized with exactly the fields
/// set.
///
/// ```
/// use kubegen::apply::{ObjectMetaApply, OwnerReferenceApply};
///
/// let meta = ObjectMetaApply::default()
///     .with_name("web")
///     .with_labels([("app", "web")])
///     .with_owner_references([OwnerReferenceApply::default().with_uid("1234")]);
/// assert_eq!(
///     serde_json::to_value(&meta).unwrap(),
///     serde_json::json!({
///         "name": "web",
///         "labels": {"app": "web"},
///         "ownerReferences": [{"uid": "1234"}],
///     }),
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ObjectMetaApply {
    /// `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `generateName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generate_name: Option<String>,
    /// `namespace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `labels`: each key owned on its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    /// `annotations`: each key owned on its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
    /// `ownerReferences`: items keyed by `uid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<OwnerReferenceApply>>,
    /// `finalizers`: a set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalizers: Option<Vec<String>>,
}

impl ObjectMetaApply {
    /// Sets `name`.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets `generateName`.
    pub fn with_generate_name(mut self, prefix: impl Into<String>) -> Self {
        self.generate_name = Some(prefix.into());
        self
    }

    /// Sets `namespace`.
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Adds labels (a key given again replaces the value).
    pub fn with_labels<K: Into<String>, V: Into<String>>(
        mut self,
        labels: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let map = self.labels.get_or_insert_with(BTreeMap::new);
        map.extend(labels.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// Adds annotations (a key given again replaces the value).
    pub fn with_annotations<K: Into<String>, V: Into<String>>(
        mut self,
        annotations: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let map = self.annotations.get_or_insert_with(BTreeMap::new);
        map.extend(annotations.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// Appends owner references.
    pub fn with_owner_references(
        mut self,
        references: impl IntoIterator<Item = OwnerReferenceApply>,
    ) -> Self {
        self.owner_references
            .get_or_insert_with(Vec::new)
            .extend(references);
        self
    }

    /// Appends finalizers.
    pub fn with_finalizers<S: Into<String>>(
        mut self,
        finalizers: impl IntoIterator<Item = S>,
    ) -> Self {
        self.finalizers
            .get_or_insert_with(Vec::new)
            .extend(finalizers.into_iter().map(Into::into));
        self
    }
}

/// One owner reference, every field optional (`uid` is its key).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OwnerReferenceApply {
    /// `apiVersion` of the owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `kind` of the owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `name` of the owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `uid` of the owner: the list's key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Whether the owner is the managing controller.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// Whether the owner cannot be deleted in the foreground before this
    /// object is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

impl OwnerReferenceApply {
    /// Sets `apiVersion`.
    pub fn with_api_version(mut self, api_version: impl Into<String>) -> Self {
        self.api_version = Some(api_version.into());
        self
    }

    /// Sets `kind`.
    pub fn with_kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// Sets `name`.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets `uid`.
    pub fn with_uid(mut self, uid: impl Into<String>) -> Self {
        self.uid = Some(uid.into());
        self
    }

    /// Sets `controller`.
    pub fn with_controller(mut self, controller: bool) -> Self {
        self.controller = Some(controller);
        self
    }

    /// Sets `blockOwnerDeletion`.
    pub fn with_block_owner_deletion(mut self, block: bool) -> Self {
        self.block_owner_deletion = Some(block);
        self
    }
}

impl From<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> for OwnerReferenceApply {
    /// Every field of the reference, as
    /// `kubegen::ownership::owner_reference` makes it.
    fn from(r: k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference) -> Self {
        OwnerReferenceApply {
            api_version: Some(r.api_version),
            kind: Some(r.kind),
            name: Some(r.name),
            uid: Some(r.uid),
            controller: r.controller,
            block_owner_deletion: r.block_owner_deletion,
        }
    }
}

/// The schema server-side apply merges `metadata` by (the apiserver's
/// `ObjectMeta`: `ownerReferences` a list-map keyed by `uid`, `finalizers`
/// a set, labels and annotations granular maps), in place of the
/// embedded-metadata stub CRD schemas carry.
pub(crate) fn object_meta_schema() -> serde_json::Value {
    serde_json::from_str(OBJECT_META_SCHEMA).expect("the ObjectMeta schema is JSON")
}

/// [`object_meta_schema`] as text: read at run time rather than built by
/// `json!`, whose expansion is a function of thousands of lines that every
/// build of this crate compiles.
const OBJECT_META_SCHEMA: &str = r#"{
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "generateName": {"type": "string"},
        "namespace": {"type": "string"},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer"},
        "creationTimestamp": {"type": "string"},
        "deletionTimestamp": {"type": "string"},
        "deletionGracePeriodSeconds": {"type": "integer"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "ownerReferences": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["uid"],
            "items": {
                "type": "object",
                "x-kubernetes-map-type": "atomic",
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "name": {"type": "string"},
                    "uid": {"type": "string"},
                    "controller": {"type": "boolean"},
                    "blockOwnerDeletion": {"type": "boolean"}
                }
            }
        },
        "finalizers": {
            "type": "array",
            "x-kubernetes-list-type": "set",
            "items": {"type": "string"}
        },
        "managedFields": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "object"}}
    }
}"#;

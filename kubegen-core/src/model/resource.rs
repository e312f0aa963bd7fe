//! The resource model: everything `#[derive(CustomResource)]` records about a
//! Kubernetes kind, shared by the CRD emitter and the CLI's client generator.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One kind at one version.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct ResourceModel {
    /// API group (`stable.example.com`).
    pub group: String,
    /// API version (`v1`).
    pub version: String,
    /// Kind (`MyApplication`).
    pub kind: String,
    /// Lower-case plural (`myapplications`).
    pub plural: String,
    /// Lower-case singular (`myapplication`).
    pub singular: String,
    /// `listKind` when it is not the kind with `List` appended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_kind: Option<String>,
    /// Short names for kubectl.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    /// Categories (`all`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// Breaking changes `kubegen check` accepts: `<change id>: <why>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_breaking: Vec<String>,
    /// Namespaced (true) or cluster-scoped.
    pub namespaced: bool,
    /// Whether the status subresource exists.
    pub has_status: bool,
    /// The scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
    /// `additionalPrinterColumns`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printer_columns: Vec<PrinterColumn>,
    /// `selectableFields` JSON paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selectable_fields: Vec<String>,
    /// Whether this version is the storage version.
    pub storage: bool,
    /// Whether this version is served.
    pub served: bool,
    /// Whether this version is deprecated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// The deprecation warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_warning: Option<String>,
    /// The kind's description (the schema root's); the spec's when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind_description: Option<String>,
    /// Objects may omit `spec` (the root type holds `Option<Spec>`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional_spec: bool,
    /// The schema root lists `metadata` as required.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required_metadata: bool,
    /// Served versions may hold different fields without a conversion
    /// webhook (the apiserver then drops what a version lacks): for CRDs
    /// published that way, imported as they are.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_lossy_versions: bool,
    /// The spec struct's fields are the object's top-level fields (next to
    /// `apiVersion`, `kind` and `metadata`), for kinds without a `spec`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flatten_spec: bool,
    /// The root's `apiVersion`, `kind` and `metadata` property schemas,
    /// verbatim (those missing are left out); kubegen's own when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_meta_schema: Option<serde_json::Map<String, serde_json::Value>>,
    /// Labels on the CRD object.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub crd_labels: BTreeMap<String, String>,
    /// Annotations on the CRD object.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub crd_annotations: BTreeMap<String, String>,
    /// Client verbs for the generated typed client.
    #[serde(default)]
    pub verbs: Verbs,
    /// Descriptions longer than this are cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_description_len: Option<usize>,
    /// Objects with longer names are refused at admission (a CEL rule at
    /// the schema's root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_name_length: Option<u64>,
    /// Objects whose names do not match this RE2 pattern are refused at
    /// admission (a CEL rule at the schema's root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_pattern: Option<String>,
    /// `conversion(...)`: the kind's versions convert through a webhook.
    /// Written on one version of a kind; the merged CRD carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversion: Option<Conversion>,
    /// `admission(...)`: validating and/or defaulting webhooks for this
    /// version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
}

/// Admission webhooks for one version of a kind.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    /// A validating webhook (`/validate-…`).
    pub validate: bool,
    /// A defaulting (mutating) webhook (`/mutate-…`).
    pub default: bool,
    /// Where the apiserver reaches the webhook server (the `path` of a
    /// Service target, or the path of a URL, is per webhook and ignored).
    pub webhook: WebhookTarget,
    /// `Fail` (the default) or `Ignore` when the webhook cannot be reached.
    pub failure_policy: String,
    /// Seconds the apiserver waits for an answer (1–30; default 10).
    pub timeout_seconds: u8,
    /// The operations intercepted (default CREATE and UPDATE).
    pub operations: Vec<String>,
}

/// How the apiserver converts objects between the versions of a kind.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// The version every other version converts through; `None` means the
    /// storage version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub: Option<String>,
    /// Where the apiserver sends `ConversionReview`s.
    pub webhook: WebhookTarget,
    /// The webhook is served by someone else (an imported CRD): kubegen
    /// writes the CRD's `conversion` but no converter for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub external: bool,
    /// `conversionReviewVersions`; `["v1"]` when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub review_versions: Vec<String>,
}

/// Where the apiserver reaches a webhook (`clientConfig`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum WebhookTarget {
    /// An in-cluster Service.
    Service {
        /// The Service's name.
        name: String,
        /// The Service's namespace.
        namespace: String,
        /// The URL path on the Service; absent, the apiserver calls `/`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// The Service port; absent, the apiserver calls 443.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        port: Option<u16>,
    },
    /// A fixed `https://` URL (a webhook outside the cluster).
    Url(String),
}

impl WebhookTarget {
    /// The `clientConfig` object of a CRD conversion or an admission
    /// webhook configuration (without `caBundle`, which is injected).
    pub fn client_config(&self) -> serde_json::Value {
        match self {
            WebhookTarget::Service {
                name,
                namespace,
                path,
                port,
            } => {
                // Only what was given: a default written out would be a
                // field the webhook's own manifests never had.
                let mut service = serde_json::json!({"name": name, "namespace": namespace});
                if let Some(path) = path {
                    service["path"] = path.clone().into();
                }
                if let Some(port) = port {
                    service["port"] = (*port).into();
                }
                serde_json::json!({ "service": service })
            }
            WebhookTarget::Url(url) => serde_json::json!({ "url": url }),
        }
    }
}

/// The scale subresource paths.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Scale {
    /// `specReplicasPath`.
    pub spec_replicas_path: String,
    /// `statusReplicasPath`.
    pub status_replicas_path: String,
    /// `labelSelectorPath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector_path: Option<String>,
    /// `unchecked`: the paths may name fields the schema does not declare
    /// (the apiserver accepts them); without it such a path is refused as a
    /// likely typo.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchecked: bool,
}

/// One `additionalPrinterColumns` entry.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    /// Column header.
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The JSON path of the value.
    pub json_path: String,
    /// Column description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Column format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// 0 shows the column by default; higher only in wide output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// `unchecked`: the path may name a field the schema does not declare
    /// (the apiserver accepts it and kubectl shows the column empty);
    /// without it such a path is refused as a likely typo.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchecked: bool,
}

/// A typed-client verb (client-gen's vocabulary).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum Verb {
    /// `create`
    Create,
    /// `update`
    Update,
    /// `updateStatus`
    UpdateStatus,
    /// `delete`
    Delete,
    /// `deleteCollection`
    DeleteCollection,
    /// `get`
    Get,
    /// `list`
    List,
    /// `watch`
    Watch,
    /// `patch`
    Patch,
    /// `apply`
    Apply,
    /// `applyStatus`
    ApplyStatus,
}

impl Verb {
    /// Every verb with its attribute spelling.
    pub const ALL: &[(&'static str, Verb)] = &[
        ("create", Verb::Create),
        ("update", Verb::Update),
        ("update_status", Verb::UpdateStatus),
        ("delete", Verb::Delete),
        ("delete_collection", Verb::DeleteCollection),
        ("get", Verb::Get),
        ("list", Verb::List),
        ("watch", Verb::Watch),
        ("patch", Verb::Patch),
        ("apply", Verb::Apply),
        ("apply_status", Verb::ApplyStatus),
    ];

    /// Parses the attribute spelling (`update_status`, also `updateStatus`).
    pub fn parse(s: &str) -> Option<Verb> {
        let snake: String = s
            .chars()
            .flat_map(|c| {
                if c.is_ascii_uppercase() {
                    vec!['_', c.to_ascii_lowercase()]
                } else {
                    vec![c]
                }
            })
            .collect();
        Verb::ALL.iter().find(|(n, _)| *n == snake).map(|(_, v)| *v)
    }
}

/// The typed-client verb selection.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
pub struct Verbs {
    /// `verbs(only = [...])`: exactly these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<Verb>>,
    /// `verbs(skip = [...])`: all but these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<Verb>,
    /// `no_status`: no status verbs even with a status.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_status: bool,
}

impl Verbs {
    /// The verbs the typed client offers for a resource with or without status.
    pub fn effective(&self, has_status: bool) -> Vec<Verb> {
        let base: Vec<Verb> = match &self.only {
            Some(only) => only.clone(),
            None => Verb::ALL.iter().map(|(_, v)| *v).collect(),
        };
        let status_ok = has_status && !self.no_status;
        let mut out: Vec<Verb> = base
            .into_iter()
            .filter(|v| !self.skip.contains(v))
            .filter(|v| status_ok || !matches!(v, Verb::UpdateStatus | Verb::ApplyStatus))
            .collect();
        crate::sorting::sort(&mut out);
        out.dedup();
        out
    }
}

impl ResourceModel {
    /// The kind of this resource's lists: `list_kind`, else `<Kind>List`.
    pub fn list_kind(&self) -> String {
        self.list_kind
            .clone()
            .unwrap_or_else(|| format!("{}List", self.kind))
    }

    /// `<plural>.<group>`, the CRD's name.
    pub fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    /// `<group>/<version>` (or `<version>` for the core group).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// Serializes the model for embedding in generated code.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs() {
        assert_eq!(Verb::parse("updateStatus"), Some(Verb::UpdateStatus));
        assert_eq!(
            Verb::parse("delete_collection"),
            Some(Verb::DeleteCollection)
        );
        assert_eq!(Verb::parse("nope"), None);
        let v = Verbs {
            skip: vec![Verb::Delete],
            ..Verbs::default()
        };
        let eff = v.effective(false);
        assert!(!eff.contains(&Verb::Delete));
        assert!(!eff.contains(&Verb::UpdateStatus));
        let only = Verbs {
            only: Some(vec![Verb::Get, Verb::List]),
            ..Verbs::default()
        };
        assert_eq!(only.effective(true), vec![Verb::Get, Verb::List]);
    }
}

//! CustomResourceDefinition assembly: the CRD of one resource version
//! from its model and schemas, put together from the parts this module's
//! children hold: the root schema (`root`), the version entry (`version`)
//! with its JSON paths checked (`json_path`), the size budget (`budget`);
//! and the merge of a kind's versions into one CRD (`merge`, refusing
//! lossy versions: `lossy`). Descriptions are cut by
//! [`crate::truncate`].

use serde_json::{Map, Value, json};

use crate::model::{Conversion, ResourceModel};
use crate::output;
use crate::schema::{self, SchemaError, structural};

mod budget;
#[cfg(test)]
mod fixtures;
pub(crate) mod json_path;
mod lossy;
mod merge;
mod root;
mod version;

pub use crate::truncate::truncate_descriptions;
pub use json_path::resolve_json_path;
pub use merge::{merge_crds, merge_crds_allowing_lossy_versions, version_priority};
pub use root::{API_VERSION_DESCRIPTION, KIND_DESCRIPTION, root_schema};
pub use version::{UNCHECKED_REMEDY, infer_column_type};

/// Why a CRD could not be produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrdError {
    /// A nested schema could not be built.
    Schema(SchemaError),
    /// The result breaks the apiserver's structural-schema rules.
    NotStructural {
        /// The CRD name.
        crd: String,
        /// Each violation, with its schema path.
        violations: Vec<String>,
    },
    /// A printer column, scale or selectable-field path names nothing.
    JsonPath {
        /// The offending path.
        path: String,
        /// Why.
        message: String,
    },
    /// The rendered CRD is over etcd's limit.
    TooLarge {
        /// The CRD name.
        crd: String,
        /// Its size in bytes.
        bytes: usize,
    },
    /// Versions of one kind cannot be merged.
    Merge(String),
    /// The JSON could not be decoded into a typed CRD.
    Decode(String),
}

impl std::fmt::Display for CrdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrdError::Schema(e) => write!(f, "schema error: {e}"),
            CrdError::NotStructural { crd, violations } => {
                write!(f, "CRD {crd} is not structural: {}", violations.join("; "))
            }
            CrdError::JsonPath { path, message } => write!(f, "JSON path `{path}`: {message}"),
            CrdError::TooLarge { crd, bytes } => write!(
                f,
                "CRD {crd} is {bytes} bytes, over the {} byte limit; set `max_description_len`",
                output::MAX_BYTES
            ),
            CrdError::Merge(m) => write!(f, "cannot merge CRD versions: {m}"),
            CrdError::Decode(m) => write!(f, "cannot decode CRD: {m}"),
        }
    }
}

impl std::error::Error for CrdError {}

impl From<SchemaError> for CrdError {
    fn from(e: SchemaError) -> Self {
        CrdError::Schema(e)
    }
}

/// Assembles and checks the CRD of one resource version.
pub fn crd_json(
    res: &ResourceModel,
    spec: Value,
    status: Option<Value>,
) -> Result<Value, CrdError> {
    let spec = schema::strip_marker(spec);
    let status = status.map(schema::strip_marker);
    let root = root_schema(res, spec, status);
    let mut version = version::version_entry(res, &root)?;
    structural::check_root(&root).map_err(|violations| CrdError::NotStructural {
        crd: res.crd_name(),
        violations,
    })?;
    version.insert("schema".into(), json!({"openAPIV3Schema": root}));
    let crd = output::canonical(&crd_object(res, version));
    budget::check_stored_size(res, &crd)?;
    Ok(crd)
}

/// The CustomResourceDefinition object around its one `version`: the
/// CRD's name, labels and annotations, the kind's names, scope and
/// conversion.
fn crd_object(res: &ResourceModel, version: Map<String, Value>) -> Value {
    let mut crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": crd_metadata(res),
        "spec": {
            "group": res.group,
            "names": names(res),
            "scope": if res.namespaced { "Namespaced" } else { "Cluster" },
            "versions": [Value::Object(version)],
        }
    });
    if let Some(conversion) = &res.conversion {
        crd["spec"]["conversion"] = conversion_json(conversion);
    }
    crd
}

/// The CRD's `spec.names`: kind, list kind, plural, singular, short names
/// and categories.
fn names(res: &ResourceModel) -> Value {
    let mut names = json!({
        "kind": res.kind,
        "listKind": res.list_kind(),
        "plural": res.plural,
        "singular": res.singular,
    });
    if !res.short_names.is_empty() {
        names["shortNames"] = json!(res.short_names);
    }
    if !res.categories.is_empty() {
        names["categories"] = json!(res.categories);
    }
    names
}

/// The CRD's own `metadata`: its name, and the labels and annotations the
/// resource gives it.
fn crd_metadata(res: &ResourceModel) -> Value {
    let mut metadata = json!({"name": res.crd_name()});
    if !res.crd_labels.is_empty() {
        metadata["labels"] = json!(res.crd_labels);
    }
    if !res.crd_annotations.is_empty() {
        metadata["annotations"] = json!(res.crd_annotations);
    }
    metadata
}

/// A CRD's `spec.conversion` for a webhook: ConversionReview v1 only (the
/// `caBundle` is injected at deploy time).
pub fn conversion_json(conversion: &Conversion) -> Value {
    json!({
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": conversion.webhook.client_config(),
            "conversionReviewVersions": if conversion.review_versions.is_empty() {
                json!(["v1"])
            } else {
                json!(conversion.review_versions)
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_version() {
        let crd = crd_json(&fixtures::res("v1", true), fixtures::spec(), None).unwrap();
        assert_eq!(crd["metadata"]["name"], "foos.example.com");
        assert_eq!(crd["spec"]["versions"][0]["storage"], true);
    }
}

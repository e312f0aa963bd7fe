//! Resources and schemas the CRD tests share.

use serde_json::{Value, json};

use crate::model::{ResourceModel, Verbs};

/// A served `Foo` of `example.com` at `version`, namespaced, with every
/// option spelled out.
pub(super) fn res(version: &str, storage: bool) -> ResourceModel {
    ResourceModel {
        group: "example.com".into(),
        version: version.into(),
        kind: "Foo".into(),
        plural: "foos".into(),
        singular: "foo".into(),
        short_names: vec![],
        categories: vec![],
        allow_breaking: vec![],
        namespaced: true,
        has_status: false,
        scale: None,
        printer_columns: vec![],
        selectable_fields: vec![],
        storage,
        served: true,
        deprecated: false,
        deprecation_warning: None,
        crd_labels: Default::default(),
        crd_annotations: Default::default(),
        verbs: Verbs::default(),
        max_description_len: None,
        max_name_length: None,
        name_pattern: None,
        conversion: None,
        admission: None,
        ..ResourceModel::default()
    }
}

/// The served storage version `v1` of `Foo`, every other option left at
/// its default.
pub(super) fn bare_res() -> ResourceModel {
    ResourceModel {
        group: "example.com".into(),
        version: "v1".into(),
        kind: "Foo".into(),
        plural: "foos".into(),
        singular: "foo".into(),
        storage: true,
        served: true,
        ..ResourceModel::default()
    }
}

/// A spec with an integer and a list of objects.
pub(super) fn spec() -> Value {
    json!({"type": "object", "properties": {"size": {"type": "integer"}, "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}})
}

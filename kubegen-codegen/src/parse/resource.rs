//! Resource keys → the [`ResourceModel`], defaults filled in (plural,
//! singular, storage, served).

use super::Container;
use crate::attr::resource::ResourceAttrs;
use kubegen_core::model::ResourceModel;
use kubegen_core::plural::pluralize;

/// The resource model: resource keys with their defaults filled in
/// (`None` when a required key is missing; the check phase reports it).
pub fn resource_model(c: &Container) -> Option<ResourceModel> {
    let ResourceAttrs {
        group,
        version,
        kind,
        namespaced,
        plural,
        singular,
        list_kind,
        short_names,
        categories,
        allow_breaking,
        status,
        scale,
        printer_columns,
        selectable_fields,
        storage,
        served,
        deprecated,
        deprecation_warning,
        kind_description,
        optional_spec,
        required_metadata,
        status_subresource,
        allow_lossy_versions,
        flatten_spec,
        type_meta_schema,
        crd_labels,
        crd_annotations,
        verbs,
        max_description_len,
        max_name_length,
        name_pattern,
        derives: _,
        conversion,
        admission,
    } = &c.resource;
    let (group, version, kind) = (group.clone()?, version.clone()?, kind.clone()?);
    Some(ResourceModel {
        plural: plural.clone().unwrap_or_else(|| pluralize(&kind)),
        singular: singular
            .clone()
            .unwrap_or_else(|| kind.to_ascii_lowercase()),
        list_kind: list_kind.clone(),
        group,
        version,
        kind,
        short_names: short_names.clone(),
        categories: categories.clone(),
        allow_breaking: allow_breaking.iter().map(|(a, _)| a.clone()).collect(),
        namespaced: *namespaced,
        has_status: status_subresource.unwrap_or(status.is_some()),
        scale: scale.clone(),
        printer_columns: printer_columns.iter().map(|(p, _)| p.clone()).collect(),
        selectable_fields: selectable_fields.iter().map(|(p, _)| p.clone()).collect(),
        storage: storage.unwrap_or(true),
        served: served.unwrap_or(true),
        deprecated: *deprecated,
        deprecation_warning: deprecation_warning.clone(),
        kind_description: kind_description.clone(),
        optional_spec: *optional_spec,
        required_metadata: *required_metadata,
        allow_lossy_versions: *allow_lossy_versions,
        flatten_spec: *flatten_spec,
        type_meta_schema: type_meta_schema.clone(),
        crd_labels: crd_labels.clone(),
        crd_annotations: crd_annotations.clone(),
        verbs: verbs.clone(),
        max_description_len: *max_description_len,
        max_name_length: *max_name_length,
        name_pattern: name_pattern.clone(),
        conversion: conversion.clone(),
        admission: admission.clone(),
    })
}

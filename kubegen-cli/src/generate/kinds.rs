//! The kinds a crate's generated modules cover: its own resources plus the
//! built-ins listed under `builtins` in `[package.metadata.kubegen]`; and the
//! kinds whose versions convert through a hub.

use std::path::Path;

use quote::format_ident;

use std::collections::BTreeMap;

use super::{Analyzed, Api};
use crate::source::Diagnostic;
use kubegen_codegen::emit::{ApplySource, ConversionKind, Kind, builtins};
use kubegen_core::model::ResourceModel;

/// The Rust path of a resource's root type (`crate::api::v1::Cart`).
fn type_path(t: &Analyzed, model: &ResourceModel) -> syn::Path {
    let mut segments: Vec<syn::Ident> = vec![format_ident!("crate")];
    segments.extend(t.input.module.iter().map(|m| format_ident!("{m}")));
    segments.push(format_ident!(
        "{}",
        kubegen_codegen::names::kind_type(&model.kind)
    ));
    syn::parse_quote!(#(#segments)::*)
}

/// The kinds that declare `conversion(...)`, each with its hub (the
/// storage version unless `hub = "..."` names another) and spokes; a hub
/// that names no version of the kind is an error at the kind.
pub fn conversions(api: &Api) -> Result<Vec<ConversionKind>, Vec<Diagnostic>> {
    let mut by_kind: BTreeMap<(String, String), Vec<(&Analyzed, &ResourceModel)>> = BTreeMap::new();
    for (t, model) in api.resources() {
        by_kind
            .entry((model.group.clone(), model.kind.clone()))
            .or_default()
            .push((t, model));
    }
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for ((group, kind), versions) in by_kind {
        let Some((declared_at, conversion)) = versions
            .iter()
            .find_map(|(t, m)| m.conversion.as_ref().map(|c| (*t, c)))
        else {
            continue;
        };
        // Served by someone else (an imported CRD): no converter to write.
        if conversion.external {
            continue;
        }
        let hub_version = match &conversion.hub {
            Some(hub) => Some(hub.clone()),
            None => versions
                .iter()
                .find(|(_, m)| m.storage)
                .map(|(_, m)| m.version.clone()),
        };
        let Some(hub) = versions
            .iter()
            .find(|(_, m)| Some(&m.version) == hub_version.as_ref())
        else {
            let known: Vec<&str> = versions.iter().map(|(_, m)| m.version.as_str()).collect();
            errors.push(super::type_error(
                declared_at,
                format!(
                    "`conversion(hub = {:?})`: {kind}.{group} has no such version (it has {}); name one of them or leave `hub` out to use the storage version",
                    hub_version.unwrap_or_default(),
                    known.join(", ")
                ),
            ));
            continue;
        };
        out.push(ConversionKind {
            kind: kind.clone(),
            group: group.clone(),
            hub: type_path(hub.0, hub.1),
            spokes: versions
                .iter()
                .filter(|(_, m)| m.version != hub.1.version)
                .map(|(t, m)| type_path(t, m))
                .collect(),
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The `openAPIV3Schema` of one resource version, from its CRD: what its
/// apply configuration is made from.
fn apply_schema(
    api: &Api,
    t: &Analyzed,
    model: &ResourceModel,
) -> Result<serde_json::Value, Diagnostic> {
    let crd = api
        .crd_json(t, model)
        .map_err(|e| super::crd_error(t, &e))?;
    crd["spec"]["versions"]
        .as_array()
        .and_then(|versions| {
            versions
                .iter()
                .find(|v| v["name"] == model.version.as_str())
        })
        .and_then(|v| v["schema"].get("openAPIV3Schema"))
        .cloned()
        .ok_or_else(|| {
            super::type_error(
                t,
                format!(
                    "the CRD of version {} has no openAPIV3Schema",
                    model.version
                ),
            )
        })
}

/// The kinds of `api` plus the configured built-ins (each with where its
/// apply configuration's types come from), or an error per unknown
/// built-in or CRD that does not build.
pub fn kinds(api: &Api) -> Result<Vec<Kind>, Vec<Diagnostic>> {
    let mut kinds = Vec::new();
    let mut errors = Vec::new();
    for (t, model) in api.resources() {
        let apply = match apply_schema(api, t, model) {
            Ok(schema) => Some(ApplySource::Crd { schema }),
            Err(e) => {
                errors.push(e);
                None
            }
        };
        kinds.push(Kind {
            group: model.group.clone(),
            version: model.version.clone(),
            kind: model.kind.clone(),
            namespaced: model.namespaced,
            path: type_path(t, model),
            verbs: model.verbs.effective(model.has_status),
            status: model.has_status,
            apply,
        });
    }
    for wanted in &api.settings.builtins {
        match builtins::builtin(wanted) {
            Some(kind) => kinds.push(kind),
            None => errors.push(Diagnostic::file(
                Path::new("Cargo.toml"),
                format!(
                    "[package.metadata.kubegen] builtins: unknown kind `{wanted}`; known: {}",
                    builtins::known().join(", ")
                ),
            )),
        }
    }
    if errors.is_empty() {
        Ok(kinds)
    } else {
        Err(errors)
    }
}

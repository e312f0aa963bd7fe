//! The apply configuration emitter (client-go's applyconfiguration-gen):
//! for every kind with an [`ApplySource`], partial typed objects for
//! server-side apply — every field optional, serialized with exactly the
//! fields set — one module per group version under `applyconfigurations/`.
//!
//! Built-in kinds walk kubegen-core's built-in table with its references
//! ([`builtin`]: a Go struct is a named apply struct in its package's
//! module, the closure of what the kinds reach and nothing more); custom
//! kinds walk their version's `openAPIV3Schema` ([`crd`]: structs named by
//! path). [`render`] writes the tokens; [`shape`] holds the model between.

mod builtin;
mod crd;
mod render;
mod shape;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::Kind;
use crate::names::{
    api_version, builtin_apply_module, group_name, group_version_module, kind_type, kind_type_name,
};
use render::Top;

/// Where a kind's apply configuration takes its types from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplySource {
    /// A built-in kind: its definition in kubegen-core's built-in table
    /// (`io.k8s.api.apps.v1.Deployment`).
    Builtin {
        /// The upstream definition name.
        definition: String,
    },
    /// A custom kind: the version's `openAPIV3Schema`.
    Crd {
        /// The structural schema.
        schema: Value,
    },
}

/// The modules of `applyconfigurations/` by name (`apps_v1`), as tokens;
/// empty when no kind has an [`ApplySource`]. `accessors` maps each API
/// group to its accessor (the clientset's module names).
pub(super) fn modules(
    kinds: &[Kind],
    accessors: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, TokenStream>, Vec<String>> {
    let mut errors = Vec::new();
    let custom_module = |k: &Kind| {
        let accessor = accessors
            .get(&k.group)
            .cloned()
            .unwrap_or_else(|| group_name(&k.group));
        group_version_module(&accessor, &k.version)
    };
    let custom_modules: BTreeSet<String> = kinds
        .iter()
        .filter(|k| matches!(k.apply, Some(ApplySource::Crd { .. })))
        .map(custom_module)
        .collect();
    let module_of =
        |definition: &str| builtin_apply_module(definition, &|m: &str| custom_modules.contains(m));
    let mut tops: BTreeMap<String, BTreeMap<String, Top>> = BTreeMap::new();
    let mut out = shape::Modules::new();

    // Built-in kinds: one walk over the table, sorted by definition.
    let builtins: BTreeMap<&str, &Kind> = kinds
        .iter()
        .filter_map(|k| match &k.apply {
            Some(ApplySource::Builtin { definition }) => Some((definition.as_str(), k)),
            _ => None,
        })
        .collect();
    if !builtins.is_empty() {
        let table = kubegen_core::builtin::table().map_err(|e| vec![e.to_string()])?;
        let mut walker = builtin::Walker::new(&table.definitions, &module_of);
        for (definition, kind) in &builtins {
            match walker.root(definition) {
                Ok((module, name)) => {
                    let schema = quote!(::kubegen::apply::builtin_schema(&SCHEMA, #definition));
                    tops.entry(module)
                        .or_default()
                        .insert(name, top(kind, schema));
                }
                Err(e) => errors.push(format!("apply configuration of {}: {e}", kind.kind)),
            }
        }
        out = walker.out;
    }

    // Custom kinds: per module, roots reserved first, kinds sorted.
    let mut by_module: BTreeMap<String, BTreeMap<String, (&Kind, &Value)>> = BTreeMap::new();
    for k in kinds {
        if let Some(ApplySource::Crd { schema }) = &k.apply {
            by_module
                .entry(custom_module(k))
                .or_default()
                .insert(k.kind.clone(), (k, schema));
        }
    }
    for (module, kinds) in &by_module {
        let mut taken: BTreeSet<String> = kinds
            .keys()
            .map(|kind| kind_type_name(kind, "Apply"))
            .collect();
        let mut walker = crd::Walker::new(module, &mut taken, &mut out);
        for (kind, (k, schema)) in kinds {
            let name = kind_type_name(kind, "Apply");
            walker.root(schema, &kind_type(kind), &name, kind);
            let path = &k.path;
            let version = &k.version;
            let schema = quote!(::kubegen::apply::crd_schema::<#path>(&SCHEMA, #version));
            tops.entry(module.clone())
                .or_default()
                .insert(name, top(k, schema));
        }
    }

    let none = BTreeMap::new();
    let mut files = BTreeMap::new();
    for (module, structs) in &out {
        match render::module(module, structs, tops.get(module).unwrap_or(&none)) {
            Ok(tokens) => {
                files.insert(module.clone(), tokens);
            }
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

fn top(kind: &Kind, schema: TokenStream) -> Top {
    Top {
        kind: kind.kind.clone(),
        api_version: api_version(&kind.group, &kind.version),
        namespaced: kind.namespaced,
        status: kind.status,
        resource: kind.path.clone(),
        schema,
    }
}

//! Server-side apply (`application/apply-patch+yaml`): the configuration
//! merged into the stored object by the field manager (conflicts with
//! other managers' fields refused unless `force`), then written as an
//! update, or as a create when the object does not exist.

use kubegen_core::ssa::{self, Timestamp};
use kubegen_core::validate::field::FieldError;
use serde_json::Value;

use crate::request::ResourceCall;
use crate::resources::Resource;
use crate::state::State;
use crate::status::ApiError;

use super::{key, managed, write};

/// `PATCH` with an apply configuration.
pub fn apply(
    state: &mut State,
    r: &Resource,
    call: &ResourceCall,
    body: &[u8],
) -> Result<(u16, Value), ApiError> {
    let manager = call.query.get("fieldManager").cloned().unwrap_or_default();
    if manager.is_empty() {
        return Err(ApiError::invalid(
            "PatchOptions",
            "meta.k8s.io",
            "",
            &[FieldError::required(
                "fieldManager",
                "is required for apply patch",
            )],
        ));
    }
    let force = call.query.get("force").is_some_and(|f| f == "true");
    let config: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))?;
    if !config.is_object() {
        return Err(ApiError::bad_request("error decoding YAML: not an object"));
    }
    let name = call.name.clone().unwrap_or_default();
    let namespace = call.namespace.clone().unwrap_or_default();
    ssa::check_name(&config, &name, &namespace).map_err(managed::refused)?;
    let k = key(r, call.namespace.as_deref(), &name);
    let current = state.store.get(&k).map(|o| (**o).clone());
    let ty = managed::object_type(r)?;
    let fm = managed::field_manager(r, &ty, call.subresource.as_deref());
    let live = current.clone().unwrap_or_else(|| managed::new_object(r));
    let now = Timestamp(state.clock.unix());
    let mut merged = fm
        .apply(&live, &config, &manager, force, now)
        .map_err(managed::refused)?;
    match current {
        None => {
            if call.subresource.is_some() {
                return Err(ApiError::not_found(
                    &r.qualified(),
                    &r.group,
                    &r.plural,
                    &name,
                ));
            }
            if let Some(m) = merged.get_mut("metadata").and_then(Value::as_object_mut) {
                m.entry("name")
                    .or_insert_with(|| Value::String(name.clone()));
            }
            write::create(state, r, call, merged, write::Fields::Applied)
        }
        Some(current) => {
            // The update's precondition is the stored revision unless the
            // configuration names one.
            if merged.pointer("/metadata/resourceVersion").is_none() {
                merged["metadata"]["resourceVersion"] =
                    current["metadata"]["resourceVersion"].clone();
            }
            write::update(state, r, call, merged, write::Fields::Applied)
        }
    }
}

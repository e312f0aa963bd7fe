//! `PATCH`: the patch applied to the stored object by its content type,
//! then the result written as an update (server-side apply creates the
//! object when it does not exist).

use serde_json::Value;

use crate::request::ResourceCall;
use crate::resources::Resource;
use crate::state::State;
use crate::status::ApiError;

use super::{key, scale, write};

/// The patch types the apiserver accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchType {
    /// `application/merge-patch+json`.
    Merge,
    /// `application/json-patch+json`.
    Json,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml`.
    Apply,
}

/// The patch type of a `Content-Type`.
pub fn patch_type(content_type: &str) -> Option<PatchType> {
    match content_type.split(';').next().unwrap_or_default().trim() {
        "application/merge-patch+json" => Some(PatchType::Merge),
        "application/json-patch+json" => Some(PatchType::Json),
        "application/strategic-merge-patch+json" => Some(PatchType::Strategic),
        "application/apply-patch+yaml" | "application/apply-patch+cbor" => Some(PatchType::Apply),
        _ => None,
    }
}

fn accepted(r: &Resource) -> &'static str {
    if r.crd.is_some() {
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    } else {
        "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"
    }
}

/// `PATCH` of one object.
pub fn patch(
    state: &mut State,
    r: &Resource,
    call: &ResourceCall,
    content_type: &str,
    body: &[u8],
    manager: &str,
) -> Result<(u16, Value), ApiError> {
    let unsupported = || {
        ApiError::unsupported_media_type(format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted(r)
        ))
    };
    let kind = patch_type(content_type).ok_or_else(unsupported)?;
    if kind == PatchType::Strategic && r.crd.is_some() {
        return Err(unsupported());
    }
    let name = call.name.clone().unwrap_or_default();
    let current = state
        .store
        .get(&key(r, call.namespace.as_deref(), &name))
        .map(|o| (**o).clone());
    let patch: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
    let Some(current) = current else {
        return Err(ApiError::not_found(
            &r.qualified(),
            &r.group,
            &r.plural,
            &name,
        ));
    };
    if call.subresource.as_deref() == Some("scale") {
        let current = scale::scale_of(r, &current);
        let patched = match kind {
            PatchType::Merge => merge(current, &patch),
            _ => return Err(unsupported()),
        };
        return scale::update(state, r, call, &patched, manager);
    }
    let patched = match kind {
        PatchType::Merge => merge(current, &patch),
        PatchType::Json | PatchType::Strategic | PatchType::Apply => {
            return Err(unsupported());
        }
    };
    write::update(state, r, call, patched, manager)
}

/// RFC 7386 JSON merge patch.
fn merge(target: Value, patch: &Value) -> Value {
    let Value::Object(p) = patch else {
        return patch.clone();
    };
    let mut t = match target {
        Value::Object(t) => t,
        _ => serde_json::Map::new(),
    };
    for (k, v) in p {
        if v.is_null() {
            t.remove(k);
        } else {
            let old = t.remove(k).unwrap_or(Value::Null);
            t.insert(k.clone(), merge(old, v));
        }
    }
    Value::Object(t)
}

//! `PATCH`: the patch applied to the stored object by its content type
//! (`kubegen_core::patch`: JSON patch, JSON merge patch and strategic
//! merge patch exactly as the apiserver's `patch.go` applies them, proven
//! against it), then the result written as an update; server-side apply
//! through the field manager, creating the object when it does not
//! exist.

use kubegen_core::patch::{
    self, BUILT_IN_PATCH_TYPES, CUSTOM_RESOURCE_PATCH_TYPES, FieldValidation, PatchError, PatchType,
};
use serde_json::Value;

use crate::request::ResourceCall;
use crate::resources::Resource;
use crate::state::State;
use crate::status::ApiError;

use super::{key, scale, write};

const APPLY: &str = "application/apply-patch+yaml";

/// A patch engine's refusal as the apiserver's `Status`.
pub fn refused(e: PatchError) -> ApiError {
    let status = e.status();
    ApiError::from_parts(e.code, e.reason, e.message, status.get("details").cloned())
}

/// The `fieldValidation` directive of a request.
pub fn field_validation(call: &ResourceCall) -> Result<FieldValidation, ApiError> {
    let d = call
        .query
        .get("fieldValidation")
        .map(String::as_str)
        .unwrap_or("");
    FieldValidation::parse(d).ok_or_else(|| {
        ApiError::bad_request(format!(
            "fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got {d:?}"
        ))
    })
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
    let accepted: &[&str] = if r.crd.is_some() {
        &CUSTOM_RESOURCE_PATCH_TYPES
    } else {
        &BUILT_IN_PATCH_TYPES
    };
    let media = content_type.split(';').next().unwrap_or_default().trim();
    if media == APPLY {
        return super::apply::apply(state, r, call, body);
    }
    // A media type that is no patch type at all is refused before the
    // patch handler, by content negotiation.
    let kind =
        PatchType::from_content_type(content_type).ok_or_else(ApiError::unsupported_media_type)?;
    if !accepted.contains(&media) {
        return Err(refused(patch::unsupported_media_type(accepted)));
    }
    let validation = field_validation(call)?;
    let name = call.name.clone().unwrap_or_default();
    let current = state
        .store
        .get(&key(r, call.namespace.as_deref(), &name))
        .map(|o| (**o).clone())
        .ok_or_else(|| ApiError::not_found(&r.qualified(), &r.group, &r.plural, &name))?;
    if call.subresource.as_deref() == Some("scale") {
        let current = scale::scale_of(r, &current);
        let patched = patch::apply(
            kind,
            &current,
            body,
            Some("io.k8s.api.autoscaling.v1.Scale"),
            validation,
        )
        .map_err(refused)?;
        return scale::update(state, r, call, &patched.object, manager);
    }
    let definition = if r.crd.is_some() {
        None
    } else {
        patch::strategies::definition_for(&r.api_version(), &r.kind)
    };
    let patched = patch::apply(kind, &current, body, definition, validation).map_err(refused)?;
    if validation == FieldValidation::Strict && !patched.strict_errors.is_empty() {
        return Err(ApiError::bad_request(format!(
            "strict decoding error: {}",
            patched.strict_errors.join(", ")
        )));
    }
    write::update(
        state,
        r,
        call,
        patched.object,
        write::Fields::Update(manager),
    )
}

//! `metadata.managedFields`: which manager owns which field, kept on
//! every write by kubegen-core's field manager (`kubegen_core::ssa`, the
//! apiserver's default field manager, proven against it), with the type
//! of the resource: a custom resource's from its schema, a built-in
//! kind's from kubegen's tables of the built-in types.

use std::sync::Arc;

use kubegen_core::ssa::{self, ApplyError, FieldManager, ObjectType, ResetFields, Timestamp};
use serde_json::Value;

use crate::resources::Resource;
use crate::status::ApiError;

/// The field-management type of `r`.
pub fn object_type(r: &Resource) -> Result<Arc<ObjectType>, ApiError> {
    let failed = |why: String| {
        ApiError::from_parts(
            500,
            "",
            format!("failed to build the type of {}: {why}", r.qualified()),
            None,
        )
    };
    match &r.crd {
        Some(crd) => {
            let schema = crd
                .pointer("/spec/versions")
                .and_then(Value::as_array)
                .and_then(|vs| vs.iter().find(|v| v["name"] == r.version.as_str()))
                .and_then(|v| v.pointer("/schema/openAPIV3Schema"))
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
            ObjectType::for_custom_resource(&schema, false)
                .map(Arc::new)
                .map_err(|e| failed(e.0))
        }
        None => Ok(ssa::builtin_type(&r.api_version(), &r.kind)
            .unwrap_or_else(|| Arc::new(ObjectType::deduced()))),
    }
}

/// The field manager of `r` for `subresource`.
pub fn field_manager<'t>(
    r: &Resource,
    ty: &'t ObjectType,
    subresource: Option<&str>,
) -> FieldManager<'t> {
    let reset = match (r.status, subresource) {
        (true, Some("status")) => ResetFields::MetadataAndSpec,
        (true, _) => ResetFields::Status,
        (false, _) => ResetFields::None,
    };
    let fm = FieldManager::new(ty, &r.api_version(), &r.kind)
        .with_reset_fields(reset)
        .with_new_object(new_object(r));
    match subresource {
        Some(s) => fm.with_subresource(s),
        None => fm,
    }
}

/// What the field manager compares a create with (`ObjectCreater.New`):
/// a built-in kind's Go zero value as the apiserver encodes it, only
/// `apiVersion` and `kind` for a custom resource.
pub fn new_object(r: &Resource) -> Value {
    let zero = match r.crd {
        None => kubegen_core::defaults::zero_object(&r.api_version(), &r.kind),
        Some(_) => None,
    };
    zero.unwrap_or_else(|| ssa::empty_object(&r.api_version(), &r.kind))
}

/// An apply engine's refusal as the apiserver's `Status`.
pub fn refused(e: ApplyError) -> ApiError {
    let status = e.to_status();
    ApiError::from_parts(e.code, &e.reason, e.message, status.get("details").cloned())
}

/// Records a create or update (`live` is `None` on create) of `object`
/// by `manager`, at `now` (seconds since the epoch).
pub fn update(
    r: &Resource,
    live: Option<&Value>,
    object: &mut Value,
    manager: &str,
    subresource: Option<&str>,
    now: i64,
) -> Result<(), ApiError> {
    let ty = object_type(r)?;
    let fm = field_manager(r, &ty, subresource);
    let live = live.cloned().unwrap_or_else(|| new_object(r));
    *object = fm.update(&live, object.take(), manager, Timestamp(now));
    Ok(())
}

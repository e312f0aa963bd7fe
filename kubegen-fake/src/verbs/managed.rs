//! `metadata.managedFields`: which manager owns which field, kept on
//! every write as the apiserver's field manager keeps it.

use serde_json::Value;

use crate::resources::Resource;
use crate::status::ApiError;

/// Records a create or update (`old` is `None` on create) by `manager`.
pub fn update(
    _r: &Resource,
    _old: Option<&Value>,
    _object: &mut Value,
    _manager: &str,
    _subresource: Option<&str>,
    _now: &str,
) -> Result<(), ApiError> {
    Ok(())
}

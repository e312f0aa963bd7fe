//! Reading and setting a decoded Go value's fields (`codec`: every
//! struct field present, nil as `null`), as the defaulting functions of
//! `rules` and `groups` do.

use serde_json::{Value, json};

use super::codec::zero;

/// The field `k` of a struct value, to change.
pub(super) fn field<'a>(v: &'a mut Value, k: &str) -> Option<&'a mut Value> {
    v.as_object_mut()?.get_mut(k)
}

/// The string field `k` (`""` when it is not one).
pub(super) fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or_default()
}

/// Whether the field `k` is nil (or absent).
pub(super) fn is_nil(v: &Value, k: &str) -> bool {
    v.get(k).is_none_or(Value::is_null)
}

/// The length of the slice or map field `k` (0 when nil).
pub(super) fn len(v: &Value, k: &str) -> usize {
    match v.get(k) {
        Some(Value::Array(a)) => a.len(),
        Some(Value::Object(m)) => m.len(),
        _ => 0,
    }
}

/// Sets the field `k` of a struct value.
pub(super) fn set(v: &mut Value, k: &str, x: Value) {
    if let Some(m) = v.as_object_mut() {
        m.insert(k.to_string(), x);
    }
}

/// `if obj.K == "" { obj.K = x }`.
pub(super) fn default_if_empty(v: &mut Value, k: &str, x: &str) {
    if text(v, k).is_empty() {
        set(v, k, json!(x));
    }
}

/// `if obj.K == nil { obj.K = &x }`.
pub(super) fn default_if_nil(v: &mut Value, k: &str, x: Value) {
    if is_nil(v, k) {
        set(v, k, x);
    }
}

/// A struct's Go zero value with some fields set.
pub(super) fn with(definition: &str, fields: Value) -> Value {
    let mut v = zero(definition);
    if let (Some(m), Value::Object(f)) = (v.as_object_mut(), fields) {
        m.extend(f);
    }
    v
}

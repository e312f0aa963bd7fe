//! Go's typed JSON round trip of a built-in object, driven by the type
//! table: decoding as the apiserver's serializer decodes a request body
//! into the versioned Go type (case-sensitive field names, unknown fields
//! dropped, `null` leaving a value at its zero), and encoding as
//! `encoding/json` writes it back (every field in Go order, `omitempty`
//! empty values and `omitzero` zero values left out, nil pointers, slices
//! and maps as `null`, quantities and times as their `MarshalJSON` text).
//!
//! In between, a decoded value is a *Go value* in JSON form: a struct is
//! an object holding every one of its fields, a nil pointer, slice or map
//! is `null`, a scalar holds its zero value when it was absent. The
//! defaulting functions work on that form.
//!
//! A value of the wrong JSON type, which Go refuses with an error (and
//! the apiserver with a 400), decodes as the zero value here.

use serde_json::{Map, Value};

use super::quantity;
use super::table::{Ty, Type, table, ty};

/// The Go value of type `expr` that `v` decodes to.
pub(super) fn decode(expr: &str, v: &Value) -> Value {
    match ty(expr) {
        Ty::Pointer(inner) if !v.is_null() => decode(inner, v),
        Ty::Pointer(_) => Value::Null,
        Ty::Bytes => match v {
            Value::String(_) => v.clone(),
            _ => Value::Null,
        },
        Ty::Slice(inner) => match v {
            Value::Array(items) => Value::Array(items.iter().map(|i| decode(inner, i)).collect()),
            _ => Value::Null,
        },
        Ty::Map(inner) => match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| (k.clone(), decode(inner, x)))
                    .collect(),
            ),
            _ => Value::Null,
        },
        Ty::Named(name) => match table().types.get(name) {
            Some(Type::Struct(fields)) => {
                let input = v.as_object();
                let mut out = Map::new();
                for f in fields {
                    let x = input.and_then(|m| m.get(&f.name)).unwrap_or(&Value::Null);
                    out.insert(f.name.clone(), decode(&f.ty, x));
                }
                Value::Object(out)
            }
            Some(Type::Marshaler(go)) => decode_marshaler(go, v),
            None => v.clone(),
        },
        Ty::Scalar(kind) => decode_scalar(kind, v),
    }
}

/// The Go zero value of type `expr`.
pub(super) fn zero(expr: &str) -> Value {
    decode(expr, &Value::Null)
}

fn decode_scalar(kind: &str, v: &Value) -> Value {
    match kind {
        "string" => Value::String(v.as_str().unwrap_or_default().to_string()),
        "bool" => Value::Bool(v.as_bool().unwrap_or_default()),
        "float32" | "float64" => match v {
            Value::Number(_) => v.clone(),
            _ => Value::from(0),
        },
        "interface" => v.clone(),
        _ => match v {
            Value::Number(n) if n.is_i64() || n.is_u64() => v.clone(),
            _ => Value::from(0),
        },
    }
}

/// `UnmarshalJSON` of the types that read themselves.
fn decode_marshaler(go: &str, v: &Value) -> Value {
    match go {
        // `Time`: RFC 3339, kept to the second. The zero time, which Go
        // writes as `null`, is `""` here, so that a pointer to it stays
        // apart from a nil pointer.
        "Time" => match v.as_str().map(crate::go::time::parse_rfc3339) {
            Some(Ok(t)) if !(t.unix == GO_ZERO_TIME && t.nanos == 0) => {
                Value::String(crate::go::time::format_rfc3339(t.unix))
            }
            _ => Value::String(String::new()),
        },
        // `MicroTime`: RFC 3339 with six fraction digits.
        "MicroTime" => match v.as_str().map(crate::go::time::parse_rfc3339) {
            Some(Ok(t)) if !(t.unix == GO_ZERO_TIME && t.nanos == 0) => {
                let whole = crate::go::time::format_rfc3339(t.unix);
                let micros = t.nanos / 1000;
                Value::String(format!("{}.{micros:06}Z", whole.trim_end_matches('Z')))
            }
            _ => Value::String(String::new()),
        },
        // `Quantity`: the text, trimmed, parsed when written (`null` is
        // the zero quantity).
        "Quantity" => match v {
            Value::String(s) => Value::String(s.trim().to_string()),
            Value::Number(n) => Value::String(n.to_string()),
            _ => Value::String("0".to_string()),
        },
        // `IntOrString`: a string or an int32 (`null` is the int 0).
        "IntOrString" => match v {
            Value::String(_) => v.clone(),
            Value::Number(n) if n.is_i64() || n.is_u64() => v.clone(),
            _ => Value::from(0),
        },
        // `FieldsV1` and anything else: its JSON as it is.
        _ => v.clone(),
    }
}

/// Go's zero `time.Time` in Unix seconds (`0001-01-01T00:00:00Z`).
const GO_ZERO_TIME: i64 = -62_135_596_800;

/// The JSON `encoding/json` writes for the Go value `v` of type `expr`.
pub(super) fn encode(expr: &str, v: &Value) -> Value {
    match ty(expr) {
        Ty::Pointer(inner) if !v.is_null() => encode(inner, v),
        Ty::Pointer(_) | Ty::Bytes | Ty::Scalar(_) => v.clone(),
        Ty::Slice(inner) => match v {
            Value::Array(items) => Value::Array(items.iter().map(|i| encode(inner, i)).collect()),
            _ => Value::Null,
        },
        Ty::Map(inner) => match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| (k.clone(), encode(inner, x)))
                    .collect(),
            ),
            _ => Value::Null,
        },
        Ty::Named(name) => match table().types.get(name) {
            Some(Type::Struct(fields)) => {
                let mut out = Map::new();
                for f in fields {
                    let zero_value;
                    let x = match v.get(&f.name) {
                        Some(x) => x,
                        None => {
                            zero_value = zero(&f.ty);
                            &zero_value
                        }
                    };
                    if (f.omitempty && is_empty(&f.ty, x)) || (f.omitzero && is_zero(&f.ty, x)) {
                        continue;
                    }
                    out.insert(f.name.clone(), encode(&f.ty, x));
                }
                Value::Object(out)
            }
            Some(Type::Marshaler(go)) if go == "Quantity" => match v {
                Value::String(s) => Value::String(
                    quantity::parse(s)
                        .and_then(|q| q.marshal())
                        .unwrap_or_else(|| s.clone()),
                ),
                _ => v.clone(),
            },
            Some(Type::Marshaler(go)) if is_time(go) && v.as_str() == Some("") => Value::Null,
            _ => v.clone(),
        },
    }
}

fn is_time(go: &str) -> bool {
    go == "Time" || go == "MicroTime"
}

/// `omitempty`'s test: false, 0, `""`, nil, and empty slices and maps
/// (never a struct).
pub(super) fn is_empty(expr: &str, v: &Value) -> bool {
    match ty(expr) {
        Ty::Named(_) => false,
        Ty::Pointer(_) => v.is_null(),
        _ => is_scalar_zero(v),
    }
}

/// `omitzero`'s test, for the fields that have it (a time's `IsZero`).
fn is_zero(expr: &str, v: &Value) -> bool {
    match ty(expr) {
        Ty::Pointer(_) | Ty::Slice(_) | Ty::Map(_) | Ty::Bytes => v.is_null(),
        Ty::Named(name) => match table().types.get(name) {
            Some(Type::Marshaler(go)) if is_time(go) => v.is_null() || v.as_str() == Some(""),
            _ => false,
        },
        Ty::Scalar(_) => is_scalar_zero(v),
    }
}

fn is_scalar_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
    }
}

//! JSON values as structured-merge-diff's `value` package sees them:
//! integers (`int64`) and floats (`float64`) apart but compared by
//! number, the total order `Compare` gives (numbers, strings, booleans,
//! lists, maps, null), `Equals`, and `ToString` (how paths print keys).

use std::cmp::Ordering;

use serde_json::Value;

use crate::go::fmt::{go_float, go_quote};

/// A number as Go decodes it: an `int64`, or a `float64` for anything
/// else (a fraction, an exponent, or an integer past `int64`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Num {
    Int(i64),
    Float(f64),
}

/// The number a JSON number holds, as Go holds it.
pub(crate) fn num(n: &serde_json::Number) -> Num {
    match n.as_i64() {
        Some(i) => Num::Int(i),
        None => Num::Float(n.as_f64().unwrap_or(0.0)),
    }
}

fn float_cmp(a: f64, b: f64) -> Ordering {
    if a < b {
        Ordering::Less
    } else if a == b {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Number(n) => match num(n) {
            Num::Float(_) => 0,
            Num::Int(_) => 1,
        },
        Value::String(_) => 2,
        Value::Bool(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
        Value::Null => 6,
    }
}

/// `value.Compare`: floats and integers by number, then strings,
/// booleans, lists (item by item, shorter first), maps (by sorted key,
/// then value), null.
pub(crate) fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (num(x), num(y)) {
            (Num::Int(x), Num::Int(y)) => x.cmp(&y),
            (Num::Int(x), Num::Float(y)) => float_cmp(x as f64, y),
            (Num::Float(x), Num::Int(y)) => float_cmp(x, y as f64),
            (Num::Float(x), Num::Float(y)) => float_cmp(x, y),
        },
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (l, r) in x.iter().zip(y) {
                let c = compare(l, r);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.is_empty() && y.is_empty() {
                return Ordering::Equal;
            }
            // Every key of both in lexical order; `i` counts the keys
            // visited, as MapCompare's zip does.
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for (i, k) in keys.into_iter().enumerate() {
                let c = if i == x.len() {
                    Ordering::Less
                } else if i == y.len() {
                    Ordering::Greater
                } else {
                    match (x.get(k), y.get(k)) {
                        (None, _) => Ordering::Greater,
                        (_, None) => Ordering::Less,
                        (Some(l), Some(r)) => compare(l, r),
                    }
                };
                if c != Ordering::Equal {
                    return c;
                }
            }
            Ordering::Equal
        }
        (Value::Null, Value::Null) => Ordering::Equal,
        // Two numbers were compared above: values of two kinds by rank.
        _ => rank(a).cmp(&rank(b)),
    }
}

/// `value.Equals`: numbers by number, lists item by item, maps key by
/// key.
pub(crate) fn equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (num(x), num(y)) {
            (Num::Int(x), Num::Int(y)) => x == y,
            (Num::Int(x), Num::Float(y)) | (Num::Float(y), Num::Int(x)) => x as f64 == y,
            (Num::Float(x), Num::Float(y)) => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(l, r)| equals(l, r))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, l)| y.get(k).is_some_and(|r| equals(l, r)))
        }
        _ => a == b,
    }
}

/// `value.ToString`: how a key or set value prints in a path
/// (`[name="a"]`, `[=80]`).
pub(crate) fn to_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match num(n) {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => go_float(f),
        },
        Value::String(s) => go_quote(s),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(to_string).collect::<Vec<_>>().join(",")
        ),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", to_string(v)))
            .collect::<String>(),
    }
}

/// Whether a value is a scalar (`IsFloat || IsInt || IsString || IsBool`).
pub(crate) fn is_scalar(v: &Value) -> bool {
    matches!(v, Value::Number(_) | Value::String(_) | Value::Bool(_))
}

//! Values with their types (structured-merge-diff's `typed` package):
//! validation ([`validate`]), field sets ([`field_set`]), comparison
//! ([`compare`]), merging ([`merge`]), removing paths ([`remove`]) and
//! reconciling a field set with the schema ([`reconcile`]), each a walk
//! of the value and its type as Go's walkers make it.

pub(crate) mod compare;
pub(crate) mod field_set;
pub(crate) mod merge;
pub(crate) mod reconcile;
pub(crate) mod remove;
pub(crate) mod validate;

use std::fmt;

use serde_json::Value;

use super::path::PathElement;
use super::schema::{List, Relationship, Schema, TypeRef};
use crate::go::fmt::{go_float, go_quote};

/// One error of a walk, at a path (`typed.ValidationError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ValidationError {
    pub path: String,
    pub message: String,
}

/// The errors of a walk (`typed.ValidationErrors`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Errors(pub Vec<ValidationError>);

impl Errors {
    /// One error at the current node.
    pub fn one(message: impl Into<String>) -> Self {
        Errors(vec![ValidationError {
            path: String::new(),
            message: message.into(),
        }])
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every error's path with `prefix` before it (`WithPrefix`).
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        for e in &mut self.0 {
            e.path = format!("{prefix}{}", e.path);
        }
        self
    }

    /// Appends another walk's errors.
    pub fn extend(&mut self, other: Errors) {
        self.0.extend(other.0);
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = |e: &ValidationError| {
            if e.path.is_empty() {
                e.message.clone()
            } else {
                format!("{}: {}", e.path, e.message)
            }
        };
        if let [only] = self.0.as_slice() {
            return f.write_str(&line(only));
        }
        let mut lines = vec!["errors:".to_string()];
        lines.extend(self.0.iter().map(|e| format!("  {}", line(e))));
        f.write_str(&lines.join("\n"))
    }
}

/// The error of a reference that resolves to no type.
pub(crate) fn unresolved(sc: &Schema, tr: &TypeRef) -> Errors {
    Errors::one(format!(
        "schema error: no type found matching: {}",
        sc.name_of(tr).unwrap_or("inlined type")
    ))
}

/// The error of an atom with no part to handle the value.
pub(crate) fn invalid_atom(sc: &Schema, tr: &TypeRef) -> Errors {
    Errors::one(format!(
        "schema error: invalid atom: {}",
        sc.name_of(tr)
            .map_or("inlined".to_string(), |n| format!("named type: {n}"))
    ))
}

/// Go's `%v` of a decoded value inside `value.Value` (`&{…}`).
pub(crate) fn go_v(v: &Value) -> String {
    format!("&{{{}}}", go_v_inner(v))
}

fn go_v_inner(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match super::value::num(n) {
            super::value::Num::Int(i) => i.to_string(),
            super::value::Num::Float(f) => go_float(f),
        },
        Value::String(s) => s.clone(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(go_v_inner).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(m) => format!(
            "map[{}]",
            m.iter()
                .map(|(k, v)| format!("{k}:{}", go_v_inner(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

/// Go's `%#v` of a decoded value inside `value.Value`.
pub(crate) fn go_sharp_v(v: &Value) -> String {
    fn inner(v: &Value) -> String {
        match v {
            Value::Null => "interface {}(nil)".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => match super::value::num(n) {
                super::value::Num::Int(i) => i.to_string(),
                super::value::Num::Float(f) => go_float(f),
            },
            Value::String(s) => go_quote(s),
            Value::Array(a) => format!(
                "[]interface {{}}{{{}}}",
                a.iter().map(inner).collect::<Vec<_>>().join(", ")
            ),
            Value::Object(m) => format!(
                "map[string]interface {{}}{{{}}}",
                m.iter()
                    .map(|(k, v)| format!("{}:{}", go_quote(k), inner(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    format!("&value.valueUnstructured{{Value:{}}}", inner(v))
}

/// The path element of a list item (`listItemToPathElement`): its keys
/// for a `map` list (missing ones from their schema defaults), its value
/// for a `set`.
pub(crate) fn list_item_path_element(
    sc: &Schema,
    list: &List,
    item: &Value,
) -> Result<PathElement, String> {
    if list.relationship != Relationship::Associative {
        return Err("invalid indexing of non-associative list".into());
    }
    if list.keys.is_empty() {
        return match item {
            Value::Object(_) => {
                Err("associative list without keys has an element that's a map type".into())
            }
            Value::Array(_) => Err("not supported: associative list with lists as elements".into()),
            Value::Null => {
                Err("associative list without keys has an element that's an explicit null".into())
            }
            v => Ok(PathElement::Value(v.clone())),
        };
    }
    let m = match item {
        Value::Null => return Err("associative list with keys may not have a null element".into()),
        Value::Object(m) => m,
        _ => return Err("associative list with keys may not have non-map elements".into()),
    };
    let mut fields = Vec::new();
    for key in &list.keys {
        if let Some(v) = m.get(key) {
            fields.push((key.clone(), v.clone()));
            continue;
        }
        let atom = sc.resolve(&list.element).ok_or_else(|| {
            format!("couldn't find default value for {key}: invalid elementType for list")
        })?;
        let Some(map) = &atom.map else {
            return Err(format!(
                "couldn't find default value for {key}: associative list may not have non-map types"
            ));
        };
        if let Some(def) = map.field(key).and_then(|f| f.default.clone()) {
            fields.push((key.clone(), def));
        }
    }
    if fields.is_empty() {
        let keys: Vec<String> = list.keys.iter().map(|k| go_quote(k)).collect();
        return Err(format!(
            "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
            keys.join(" ")
        ));
    }
    Ok(PathElement::key(fields))
}

/// The list a value holds (`listValue`): `Ok(None)` for null.
pub(crate) fn list_value(v: &Value) -> Result<Option<&Vec<Value>>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Array(a) => Ok(Some(a)),
        other => Err(format!("expected list, got {}", go_v(other))),
    }
}

/// The map a value holds (`mapValue`): `Ok(None)` for null.
pub(crate) fn map_value(v: &Value) -> Result<Option<&serde_json::Map<String, Value>>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(Some(m)),
        other => Err(format!("expected map, got {}", go_v(other))),
    }
}

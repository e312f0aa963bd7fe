//! Converting `schemars` output (k8s-openapi types, user `JsonSchema` types)
//! into structural schemas: `$ref`s inlined, nulls folded into `nullable`,
//! non-structural parts dropped.

use serde_json::{Map, Value, json};

use super::merge::merge_schema;

const DROP: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "components",
    "readOnly",
    "writeOnly",
    "deprecated",
    "examples",
    "$comment",
    "contentEncoding",
    "contentMediaType",
    "title",
];

/// Converts a schemars root schema (any settings) into a structural schema.
pub fn to_structural(root: &Value) -> Value {
    let mut stack = Vec::new();
    Value::Object(convert(root, root, &mut stack))
}

fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type") == Some(&Value::from("null"))
        || v.get("const") == Some(&Value::Null)
        || v.get("enum") == Some(&json!([null]))
}

/// One schemars schema as a structural schema: its `$ref` inlined (a
/// recursive one cut to an open object), each keyword converted, nulls
/// folded into `nullable`, and a type inferred where none is given.
fn convert(root: &Value, v: &Value, stack: &mut Vec<String>) -> Map<String, Value> {
    let Value::Object(src) = v else {
        // `true` accepts anything.
        return super::obj(json!({"x-kubernetes-preserve-unknown-fields": true}));
    };
    let mut out = Map::new();
    if let Some(Value::String(r)) = src.get("$ref") {
        if stack.contains(r) {
            // Recursion cannot be expressed structurally.
            return super::obj(
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            );
        }
        if let Some(target) = lookup(root, r) {
            stack.push(r.clone());
            out = convert(root, target, stack);
            stack.pop();
        }
    }
    let mut nullable = false;
    for (k, val) in src {
        if DROP.contains(&k.as_str()) || k == "$ref" {
            continue;
        }
        nullable |= convert_keyword(root, k, val, stack, &mut out);
    }
    if nullable {
        out.insert("nullable".into(), true.into());
    }
    infer_type(&mut out);
    if out.contains_key("properties") && out.contains_key("additionalProperties") {
        out.remove("additionalProperties");
    }
    out
}

/// Keyword `k` converted into `out`: kept, rewritten, or dropped when it
/// has no structural form. Returns whether it allows `null`.
fn convert_keyword(
    root: &Value,
    k: &str,
    val: &Value,
    stack: &mut Vec<String>,
    out: &mut Map<String, Value>,
) -> bool {
    match k {
        "type" => return convert_type(val, out),
        "const" => {
            out.insert("enum".into(), json!([val]));
        }
        "properties" => {
            let props: Map<String, Value> = crate::sorting::collect_map(
                val.as_object()
                    .into_iter()
                    .flatten()
                    .map(|(n, s)| (n.clone(), Value::Object(convert(root, s, stack)))),
            );
            out.insert(k.to_owned(), Value::Object(props));
        }
        "items" => {
            let item = match val {
                Value::Array(a) => a.first().cloned().unwrap_or(Value::Bool(true)),
                other => other.clone(),
            };
            out.insert(k.to_owned(), Value::Object(convert(root, &item, stack)));
        }
        "additionalProperties" => {
            if let Value::Object(_) = val {
                out.insert(k.to_owned(), Value::Object(convert(root, val, stack)));
            }
        }
        "anyOf" | "oneOf" | "allOf" => return merge_junctor(root, val, stack, out),
        "not"
        | "if"
        | "then"
        | "else"
        | "dependentRequired"
        | "dependentSchemas"
        | "patternProperties"
        | "propertyNames"
        | "unevaluatedProperties"
        | "minContains"
        | "maxContains"
        | "contains"
        | "prefixItems" => {}
        "exclusiveMinimum" | "exclusiveMaximum" if val.is_number() => {
            let bound = if k == "exclusiveMinimum" {
                "minimum"
            } else {
                "maximum"
            };
            out.insert(bound.into(), val.clone());
            out.insert(k.to_owned(), true.into());
        }
        _ => {
            if k.starts_with("x-kubernetes-") || !k.starts_with('x') {
                out.insert(k.to_owned(), val.clone());
            }
        }
    }
    false
}

/// `type`, a name or a list of names: the one non-null type kept. Returns
/// whether `null` is among them.
fn convert_type(val: &Value, out: &mut Map<String, Value>) -> bool {
    match val {
        Value::Array(types) => {
            let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
            if let [one] = non_null.as_slice() {
                out.insert("type".into(), (*one).clone());
            }
            non_null.len() < types.len()
        }
        Value::String(t) if t == "null" => true,
        other => {
            out.insert("type".into(), other.clone());
            false
        }
    }
}

/// A junctor's non-null branches merged into one schema (an open object
/// when they conflict), its keywords added where `out` has none. Returns
/// whether a branch is `null`.
fn merge_junctor(
    root: &Value,
    val: &Value,
    stack: &mut Vec<String>,
    out: &mut Map<String, Value>,
) -> bool {
    let mut nullable = false;
    let branches: Vec<&Value> = val
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| {
            let null = is_null_schema(b);
            nullable |= null;
            !null
        })
        .collect();
    let converted: Vec<Map<String, Value>> =
        branches.iter().map(|b| convert(root, b, stack)).collect();
    let mut merged: Option<Map<String, Value>> = None;
    for c in converted {
        merged = Some(match merged {
            None => c,
            Some(m) => merge_schema(&m, &c).unwrap_or_else(|_| {
                super::obj(json!({"x-kubernetes-preserve-unknown-fields": true}))
            }),
        });
    }
    if let Some(m) = merged {
        for (mk, mv) in m {
            out.entry(mk).or_insert(mv);
        }
    }
    nullable
}

/// A node without a type gets one from its keywords: `object` with
/// properties, `array` with items, else it preserves unknown fields.
fn infer_type(out: &mut Map<String, Value>) {
    let typed = out.contains_key("type")
        || out.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
        || out.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    if typed {
        return;
    }
    if out.contains_key("properties") || out.contains_key("additionalProperties") {
        out.insert("type".into(), "object".into());
    } else if out.contains_key("items") {
        out.insert("type".into(), "array".into());
    } else {
        out.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlines_refs_and_nulls() {
        let root = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "b": {"type": ["string", "null"]},
                "c": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]},
                "d": {},
            },
            "$defs": {"A": {"type": "object", "properties": {"x": {"type": "integer", "format": "int32"}}}}
        });
        let s = to_structural(&root);
        assert_eq!(s["properties"]["a"]["properties"]["x"]["type"], "integer");
        assert_eq!(
            s["properties"]["b"],
            json!({"type": "string", "nullable": true})
        );
        assert_eq!(s["properties"]["c"]["nullable"], true);
        assert_eq!(s["properties"]["c"]["type"], "object");
        assert_eq!(
            s["properties"]["d"]["x-kubernetes-preserve-unknown-fields"],
            true
        );
        assert!(s.get("$defs").is_none());
        assert!(super::super::structural::check(&s).is_ok());
    }

    #[test]
    fn recursion_is_cut() {
        let root = json!({"$ref": "#/$defs/N", "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}});
        let s = to_structural(&root);
        assert_eq!(
            s["properties"]["next"]["x-kubernetes-preserve-unknown-fields"],
            true
        );
    }
}

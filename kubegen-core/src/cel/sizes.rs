//! The sizes the apiserver's cost estimator assumes for a schema's
//! values, as `SchemaDeclType` in k8s.io/apiserver computes them: for
//! each node the most elements it can hold (`maxLength` × 4 for strings,
//! `maxItems`, `maxProperties`, else as many as fit in a request of
//! 3 MiB) and the fewest bytes it serializes to.

use std::collections::BTreeMap;

use serde_json::Value;

use super::types::UNKNOWN;

/// The largest request the apiserver accepts, in bytes.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;

/// The sizes of one schema node and its children.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sizes {
    /// The most elements (characters, bytes, items, entries) a value can
    /// hold; 0 for numbers, booleans and objects.
    pub max_elements: i64,
    /// The fewest bytes a value serializes to in JSON.
    pub min_serialized_size: i64,
    /// Where the bound comes from: the schema keyword that set it, or
    /// `None` when estimated from the request size.
    pub bounded_by: Option<&'static str>,
    /// The node's JSON type (`string`, `array`, `object` with
    /// `additionalProperties` as `map`), for messages.
    pub kind: &'static str,
    /// An object's fields, by escaped name.
    pub fields: BTreeMap<String, Sizes>,
    /// A list's items or a map's values.
    pub elem: Option<Box<Sizes>>,
    /// Whether the node or one below it is of a type the code generator
    /// cannot see ([`UNKNOWN`]).
    pub unknown: bool,
}

impl Sizes {
    /// The sizes of `schema` (`None` where `SchemaDeclType` declares no
    /// type); `resource_root` adds `apiVersion`, `kind` and `metadata`.
    pub fn of_schema(schema: &Value, resource_root: bool) -> Option<Sizes> {
        let s = schema.as_object()?;
        let flag = |key: &str| s.get(key).and_then(Value::as_bool).unwrap_or(false);
        let int = |key: &str| s.get(key).and_then(Value::as_i64).map(|v| v.max(0));
        let request = MAX_REQUEST_SIZE_BYTES - 2;
        if flag(UNKNOWN) {
            return Some(Sizes {
                min_serialized_size: 1,
                unknown: true,
                ..Sizes::default()
            });
        }
        if flag("x-kubernetes-int-or-string") {
            return Some(Sizes {
                max_elements: int("maxLength").map_or(request, |m| m.saturating_mul(4)),
                min_serialized_size: 1,
                bounded_by: int("maxLength").map(|_| "maxLength"),
                kind: "string",
                ..Sizes::default()
            });
        }
        let embedded = |v: &Value| {
            v.get("x-kubernetes-embedded-resource")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        match s.get("type").and_then(Value::as_str).unwrap_or("") {
            "array" => {
                let items = s.get("items")?;
                let elem = Sizes::of_schema(items, embedded(items))?;
                let max =
                    int("maxItems").unwrap_or_else(|| request / (elem.min_serialized_size + 1));
                Some(Sizes {
                    max_elements: max,
                    min_serialized_size: 2,
                    bounded_by: int("maxItems").map(|_| "maxItems"),
                    kind: "array",
                    unknown: elem.unknown,
                    elem: Some(Box::new(elem)),
                    ..Sizes::default()
                })
            }
            "object" => {
                if let Some(values) = s.get("additionalProperties").filter(|v| v.is_object()) {
                    let elem = Sizes::of_schema(values, embedded(values))?;
                    let max = int("maxProperties")
                        .unwrap_or_else(|| request / (elem.min_serialized_size + 6));
                    return Some(Sizes {
                        max_elements: max,
                        min_serialized_size: 2,
                        bounded_by: int("maxProperties").map(|_| "maxProperties"),
                        kind: "map",
                        unknown: elem.unknown,
                        elem: Some(Box::new(elem)),
                        ..Sizes::default()
                    });
                }
                let mut out = Sizes {
                    min_serialized_size: 2,
                    kind: "object",
                    ..Sizes::default()
                };
                let required: Vec<&str> = s
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut props: BTreeMap<&str, &Value> = s
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| crate::sorting::collect_map(p.iter().map(|(k, v)| (k.as_str(), v))))
                    .unwrap_or_default();
                let string = serde_json::json!({"type": "string"});
                let metadata = serde_json::json!({"type": "object", "properties": {
                    "name": {"type": "string"}, "generateName": {"type": "string"}}});
                if resource_root && !has_type_and_object_meta(s) {
                    props.insert("kind", &string);
                    props.insert("apiVersion", &string);
                    props.insert("metadata", &metadata);
                }
                for (name, prop) in props {
                    let Some(field) = Sizes::of_schema(prop, embedded(prop)) else {
                        continue;
                    };
                    if required.contains(&name) && prop.get("default").is_none() {
                        out.min_serialized_size +=
                            name.len() as i64 + field.min_serialized_size + 4;
                    }
                    out.unknown |= field.unknown;
                    if let Some(escaped) = crate::schema::cel::escape(name) {
                        out.fields.insert(escaped, field);
                    }
                }
                Some(out)
            }
            "string" => {
                let fixed = |max: i64, min: i64| Sizes {
                    max_elements: max,
                    min_serialized_size: min,
                    kind: "string",
                    bounded_by: Some("format"),
                    ..Sizes::default()
                };
                Some(match s.get("format").and_then(Value::as_str) {
                    Some("byte") => Sizes {
                        max_elements: int("maxLength").unwrap_or(request),
                        min_serialized_size: 2,
                        bounded_by: int("maxLength").map(|_| "maxLength"),
                        kind: "string",
                        ..Sizes::default()
                    },
                    Some("duration") => fixed(32, 3),
                    Some("date") => fixed(12, 12),
                    Some("date-time") => fixed(32, 21),
                    _ => {
                        let enum_max = s
                            .get("enum")
                            .and_then(Value::as_array)
                            .filter(|e| !e.is_empty())
                            .map(|values| {
                                values
                                    .iter()
                                    .filter_map(Value::as_str)
                                    .map(|v| v.len() as i64)
                                    .max()
                                    .unwrap_or(0)
                            });
                        let (max, by) = match (int("maxLength"), enum_max) {
                            (Some(m), _) => (m.saturating_mul(4), Some("maxLength")),
                            (None, Some(e)) => (e, Some("enum")),
                            (None, None) => (request, None),
                        };
                        Sizes {
                            max_elements: max,
                            min_serialized_size: 2,
                            bounded_by: by,
                            kind: "string",
                            ..Sizes::default()
                        }
                    }
                })
            }
            "boolean" => Some(Sizes {
                min_serialized_size: 4,
                kind: "boolean",
                ..Sizes::default()
            }),
            "number" | "integer" => Some(Sizes {
                min_serialized_size: 1,
                kind: "number",
                ..Sizes::default()
            }),
            _ => None,
        }
    }

    /// The node at `path` below this one: field names, `@items` and
    /// `@values` (a list's items, a map's values), `@keys` (a map's keys:
    /// strings the apiserver bounds at 0).
    pub fn at<'a>(&'a self, path: &[String]) -> Option<&'a Sizes> {
        static KEYS: Sizes = Sizes {
            max_elements: 0,
            min_serialized_size: 2,
            bounded_by: None,
            kind: "string",
            fields: BTreeMap::new(),
            elem: None,
            unknown: false,
        };
        let mut node = self;
        for step in path {
            node = match step.as_str() {
                "@items" | "@values" => node.elem.as_deref()?,
                "@keys" => {
                    if node.kind != "map" {
                        return None;
                    }
                    &KEYS
                }
                field => node.fields.get(field)?,
            };
        }
        Some(node)
    }

    /// How many times data of this node can occur in one request when
    /// it sits under unbounded lists or maps (the apiserver's
    /// `maxCardinality`).
    pub fn max_cardinality(&self) -> u64 {
        (MAX_REQUEST_SIZE_BYTES / (self.min_serialized_size + 1)) as u64
    }
}

/// Whether an object already declares `kind`, `apiVersion` and
/// `metadata.name`/`generateName` as strings (`WithTypeAndObjectMeta`
/// then leaves it as it is).
fn has_type_and_object_meta(s: &serde_json::Map<String, Value>) -> bool {
    let props = s.get("properties");
    let is = |v: Option<&Value>, t: &str| {
        v.and_then(|v| v.get("type")).and_then(Value::as_str) == Some(t)
    };
    let prop = |name: &str| props.and_then(|p| p.get(name));
    let meta_props = prop("metadata").and_then(|m| m.get("properties"));
    is(prop("kind"), "string")
        && is(prop("apiVersion"), "string")
        && is(prop("metadata"), "object")
        && meta_props.is_some()
        && is(meta_props.and_then(|p| p.get("name")), "string")
        && is(meta_props.and_then(|p| p.get("generateName")), "string")
}

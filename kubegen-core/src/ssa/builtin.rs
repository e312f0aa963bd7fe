//! The field-management types of the built-in kinds, as the apiserver's
//! type converter builds them from its own OpenAPI document: kubegen's
//! table of the built-in types' schemas (`crate::builtin`, with their
//! `+listType`/`+mapType`/`+structType` markers) with each field's patch
//! strategy and merge key (`crate::patch::strategies`, from the same Go
//! struct tags), which schemaconv falls back on where a list has no list
//! type; `ObjectMeta` and its parts whole, as custom resources have
//! them. Built once per kind and kept.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use super::object_type::ObjectType;
use crate::patch::strategies;

const REF_PREFIX: &str = "#/components/schemas/";

/// `schema` with its Go-embedded structs (the table's `allOf` entries of
/// a `$ref`) inlined, as the apiserver's OpenAPI document has them: their
/// properties (and required fields) become the schema's own.
fn embedded_inlined(
    schema: &Value,
    definitions: &serde_json::Map<String, Value>,
    depth: usize,
) -> Value {
    let mut out = schema.clone();
    let Some(all_of) = out.as_object_mut().and_then(|o| o.remove("allOf")) else {
        return out;
    };
    for entry in all_of.as_array().into_iter().flatten() {
        let embedded = entry
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix(REF_PREFIX))
            .and_then(|name| definitions.get(name));
        let Some(embedded) = embedded.filter(|_| depth < 16) else {
            continue;
        };
        let embedded = embedded_inlined(embedded, definitions, depth + 1);
        if let Some(props) = embedded.get("properties").and_then(Value::as_object) {
            let own = out["properties"].as_object_mut();
            match own {
                Some(own) => {
                    for (k, v) in props {
                        own.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                None => out["properties"] = Value::Object(props.clone()),
            }
        }
        if let Some(required) = embedded.get("required").and_then(Value::as_array) {
            let mut all: Vec<Value> = out["required"].as_array().cloned().unwrap_or_default();
            for r in required {
                if !all.contains(r) {
                    all.push(r.clone());
                }
            }
            out["required"] = Value::Array(all);
        }
    }
    out
}

/// Every built-in definition as an OpenAPI model, patch metadata added.
fn models() -> &'static Vec<(String, Value)> {
    static MODELS: OnceLock<Vec<(String, Value)>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let Ok(table) = crate::builtin::table() else {
            return Vec::new();
        };
        // The table's ObjectMeta is the one controller-gen embeds in a
        // CRD's templates (name, namespace, labels, annotations,
        // finalizers); objects carry the whole of it.
        let meta = super::openapi::object_meta_models();
        table
            .definitions
            .iter()
            .map(|(name, schema)| {
                let mut schema = embedded_inlined(schema, &table.definitions, 0);
                if let (Some(meta), Some(props)) = (
                    strategies::for_type(name),
                    schema.get_mut("properties").and_then(Value::as_object_mut),
                ) {
                    for field in &meta.fields {
                        let Some(p) = props.get_mut(&field.name) else {
                            continue;
                        };
                        let strategy = field.strategies.join(",");
                        if !strategy.is_empty() {
                            p["x-kubernetes-patch-strategy"] = json!(strategy);
                        }
                        if !field.merge_key.is_empty() {
                            p["x-kubernetes-patch-merge-key"] = json!(field.merge_key);
                        }
                    }
                }
                (name.to_string(), schema)
            })
            .filter(|(name, _)| !meta.iter().any(|(m, _)| *m == name.as_str()))
            .chain(meta.iter().map(|(n, v)| (n.to_string(), v.clone())))
            .collect()
    })
}

/// The type of the built-in kind `kind` of `api_version`, or `None` for a
/// kind kubegen's tables do not hold.
pub fn builtin_type(api_version: &str, kind: &str) -> Option<Arc<ObjectType>> {
    static TYPES: OnceLock<Mutex<BTreeMap<String, Arc<ObjectType>>>> = OnceLock::new();
    let definition = strategies::definition_for(api_version, kind)?;
    let cache = TYPES.get_or_init(Default::default);
    if let Some(t) = cache.lock().ok()?.get(definition) {
        return Some(t.clone());
    }
    let t = Arc::new(ObjectType::from_models(models(), definition, false).ok()?);
    cache.lock().ok()?.insert(definition.to_string(), t.clone());
    Some(t)
}

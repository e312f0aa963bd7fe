//! Types from OpenAPI schemas, as k8s.io/kube-openapi's `schemaconv`
//! converts them (`ToSchemaFromOpenAPI`), and the type of a custom
//! resource as the apiextensions-apiserver builds its model for apply
//! (`buildOpenAPIModelsForApply`: the version's structural schema with
//! `apiVersion`, `kind` and `metadata` — a reference to ObjectMeta — set
//! at the root and in every `x-kubernetes-embedded-resource`).
//!
//! The conversion: no `type` makes an untyped atom (any scalar, an
//! atomic list of untyped items, a map of deduced entries — what
//! `x-kubernetes-int-or-string` and a bare
//! `x-kubernetes-preserve-unknown-fields` give); `object` a map whose
//! unknown entries are refused unless it has no properties or
//! preserves unknown fields (inherited by everything below);
//! `x-kubernetes-map-type` makes it atomic or granular; `array` a list
//! that is atomic unless `x-kubernetes-list-type` says `set` or `map`
//! (with `x-kubernetes-list-map-keys`), or — without it — the
//! `x-kubernetes-patch-strategy` contains `merge` (a `map` list by
//! `x-kubernetes-patch-merge-key`, or a `set` without one); strings with
//! a format other than `byte` are untyped scalars.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::schema::{
    Atom, List, Map, Relationship, Scalar, Schema, StructField, TypeRef, UNTYPED_ATOMIC,
    UNTYPED_DEDUCED,
};

/// ObjectMeta's model name, as `$ref`s name it.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The models of apimachinery's generated OpenAPI that ObjectMeta needs,
/// with what the conversion reads of them (types, formats, references
/// and the list and map extensions).
pub(crate) fn object_meta_models() -> Vec<(&'static str, Value)> {
    let time = json!({"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"});
    let string = json!({"type": "string"});
    let int64 = json!({"type": "integer", "format": "int64"});
    let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    vec![
        (
            OBJECT_META,
            json!({"type": "object", "properties": {
                "name": string, "generateName": string, "namespace": string,
                "selfLink": string, "uid": string, "resourceVersion": string,
                "generation": int64,
                "creationTimestamp": time, "deletionTimestamp": time,
                "deletionGracePeriodSeconds": int64,
                "labels": string_map, "annotations": string_map,
                "ownerReferences": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"},
                    "x-kubernetes-list-map-keys": ["uid"],
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-patch-merge-key": "uid",
                    "x-kubernetes-patch-strategy": "merge"
                },
                "finalizers": {
                    "type": "array", "items": string,
                    "x-kubernetes-list-type": "set",
                    "x-kubernetes-patch-strategy": "merge"
                },
                "managedFields": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"},
                    "x-kubernetes-list-type": "atomic"
                }
            }}),
        ),
        (
            "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
            json!({"type": "object", "properties": {
                "apiVersion": string, "kind": string, "name": string, "uid": string,
                "controller": {"type": "boolean"}, "blockOwnerDeletion": {"type": "boolean"}
            }, "x-kubernetes-map-type": "atomic"}),
        ),
        (
            "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
            json!({"type": "object", "properties": {
                "manager": string, "operation": string, "apiVersion": string, "time": time,
                "fieldsType": string,
                "fieldsV1": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"},
                "subresource": string
            }}),
        ),
        (
            "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
            json!({"type": "object"}),
        ),
        (
            "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
            json!({"type": "string", "format": "date-time"}),
        ),
    ]
}

/// Why a schema does not convert (schemaconv's error messages, one per
/// line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaConversionError(pub String);

impl std::fmt::Display for SchemaConversionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "failed to convert models to schema: {}", self.0)
    }
}

impl std::error::Error for SchemaConversionError {}

/// Converts named models into `schema`, returning each model's index.
pub(crate) fn convert_models(
    schema: &mut Schema,
    models: &[(String, Value)],
    preserve_unknown_fields: bool,
) -> Result<HashMap<String, usize>, SchemaConversionError> {
    // Every name gets its index first, so references resolve in any order.
    let mut index = HashMap::new();
    for (name, _) in models {
        index.insert(name.clone(), schema.types.len());
        schema.types.push((name.clone(), Atom::default()));
    }
    let mut conv = Convert {
        index: &index,
        errors: Vec::new(),
    };
    for (name, model) in models {
        let atom = conv.visit_spec(model, preserve_unknown_fields, name);
        schema.types[index[name]].1 = atom;
    }
    if conv.errors.is_empty() {
        Ok(index)
    } else {
        Err(SchemaConversionError(conv.errors.join("\n")))
    }
}

struct Convert<'a> {
    index: &'a HashMap<String, usize>,
    errors: Vec<String>,
}

fn ext<'v>(m: &'v Value, key: &str) -> Option<&'v Value> {
    m.get(key)
}

fn type_of(m: &Value) -> &str {
    match m.get("type") {
        Some(Value::String(s)) => s,
        Some(Value::Array(a)) => a.first().and_then(Value::as_str).unwrap_or(""),
        _ => "",
    }
}

/// The JSON text Go's `%v` gives an extension's value (for messages).
fn go_v(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Convert<'_> {
    fn report(&mut self, at: &str, msg: String) {
        self.errors.push(format!("{at}: {msg}"));
    }

    fn visit_spec(&mut self, m: &Value, preserve: bool, at: &str) -> Atom {
        let preserve =
            preserve || ext(m, "x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        self.parse_schema(m, preserve, at)
    }

    fn parse_schema(&mut self, m: &Value, preserve: bool, at: &str) -> Atom {
        match type_of(m) {
            "" => Atom {
                scalar: Some(Scalar::Untyped),
                list: Some(self.parse_list(m, preserve, at)),
                map: Some(self.parse_object(m, preserve, at)),
            },
            "object" => Atom {
                map: Some(self.parse_object(m, preserve, at)),
                ..Atom::default()
            },
            "array" => Atom {
                list: Some(self.parse_list(m, preserve, at)),
                ..Atom::default()
            },
            "integer" | "number" => scalar(Scalar::Numeric),
            "boolean" => scalar(Scalar::Boolean),
            "string" => match m.get("format").and_then(Value::as_str).unwrap_or("") {
                "" | "byte" => scalar(Scalar::String),
                _ => scalar(Scalar::Untyped),
            },
            other => {
                self.report(at, format!("unrecognized type: '{other}'"));
                scalar(Scalar::Untyped)
            }
        }
    }

    fn make_ref(&mut self, m: &Value, preserve: bool, at: &str) -> TypeRef {
        let mut reference = m.get("$ref").and_then(Value::as_str).unwrap_or("");
        if reference.is_empty()
            && let Some(Value::Array(all)) = m.get("allOf")
            && let [only] = all.as_slice()
        {
            reference = only.get("$ref").and_then(Value::as_str).unwrap_or("");
        }
        let name = reference.rsplit('/').next().unwrap_or("");
        if !name.is_empty() {
            let rel = self.map_relationship(m, at);
            return match self.index.get(name) {
                Some(&i) => TypeRef::Named(i, rel),
                // A reference to no model: resolving it fails later, as
                // Go's does.
                None => TypeRef::Named(usize::MAX, rel),
            };
        }
        let inner_at = format!("inlined in {at}");
        TypeRef::Inlined(Box::new(self.visit_spec(m, preserve, &inner_at)))
    }

    fn map_relationship(&mut self, m: &Value, at: &str) -> Option<Relationship> {
        match ext(m, "x-kubernetes-map-type")? {
            Value::String(s) if s == "atomic" => Some(Relationship::Atomic),
            Value::String(s) if s == "granular" => Some(Relationship::Separable),
            other => {
                self.report(at, format!("unknown map type {}", go_v(other)));
                None
            }
        }
    }

    fn parse_object(&mut self, m: &Value, preserve: bool, at: &str) -> Map {
        let properties = m.get("properties").and_then(Value::as_object);
        let mut fields = Vec::new();
        for (name, member) in properties.into_iter().flatten() {
            fields.push(StructField {
                name: name.clone(),
                ty: self.make_ref(member, preserve, at),
                default: member.get("default").cloned(),
            });
        }
        let deduced = TypeRef::Named(UNTYPED_DEDUCED, None);
        let element = match m.get("additionalProperties") {
            None | Some(Value::Null) => {
                if preserve || properties.is_none_or(|p| p.is_empty()) {
                    deduced
                } else {
                    TypeRef::default()
                }
            }
            Some(Value::Bool(true)) => deduced,
            Some(Value::Bool(false)) => TypeRef::default(),
            Some(schema) => self.make_ref(schema, preserve, at),
        };
        let relationship = self.map_relationship(m, at);
        Map {
            fields,
            element,
            relationship,
        }
    }

    fn parse_list(&mut self, m: &Value, preserve: bool, at: &str) -> List {
        let (relationship, keys) = self.list_relationship(m, at);
        let element = match m.get("items") {
            Some(Value::Array(items)) if items.len() != 1 => {
                self.report(
                    at,
                    "structural schema arrays must have exactly one member subtype".into(),
                );
                TypeRef::Named(UNTYPED_DEDUCED, None)
            }
            Some(Value::Array(items)) => self.make_ref(&items[0], preserve, at),
            Some(item @ Value::Object(_)) => self.make_ref(item, preserve, at),
            _ => {
                if !type_of(m).is_empty() {
                    self.report(at, "`items` must be specified on arrays".into());
                }
                TypeRef::Named(UNTYPED_ATOMIC, None)
            }
        };
        List {
            element,
            relationship,
            keys,
        }
    }

    fn list_relationship(&mut self, m: &Value, at: &str) -> (Relationship, Vec<String>) {
        if let Some(list_type) = ext(m, "x-kubernetes-list-type") {
            return match list_type.as_str() {
                Some("atomic") => (Relationship::Atomic, Vec::new()),
                Some("set") => (Relationship::Associative, Vec::new()),
                Some("map") => match ext(m, "x-kubernetes-list-map-keys") {
                    None => {
                        self.report(at, "missing map keys".into());
                        (Relationship::Associative, Vec::new())
                    }
                    Some(Value::Array(keys)) => (
                        Relationship::Associative,
                        keys.iter()
                            .filter_map(|k| k.as_str().map(String::from))
                            .collect(),
                    ),
                    Some(other) => {
                        self.report(at, format!("uninterpreted map keys: {other}"));
                        (Relationship::Associative, Vec::new())
                    }
                },
                _ => {
                    self.report(at, format!("unknown list type {}", go_v(list_type)));
                    (Relationship::Atomic, Vec::new())
                }
            };
        }
        if let Some(strategy) = ext(m, "x-kubernetes-patch-strategy") {
            return match strategy.as_str() {
                Some("merge" | "merge,retainKeys") => {
                    match ext(m, "x-kubernetes-patch-merge-key") {
                        None => (Relationship::Associative, Vec::new()),
                        Some(Value::String(key)) => (Relationship::Associative, vec![key.clone()]),
                        Some(other) => {
                            self.report(at, format!("uninterpreted merge key: {other}"));
                            (Relationship::Associative, Vec::new())
                        }
                    }
                }
                Some("retainKeys") => (Relationship::Atomic, Vec::new()),
                _ => {
                    self.report(at, format!("unknown patch strategy {}", go_v(strategy)));
                    (Relationship::Atomic, Vec::new())
                }
            };
        }
        (Relationship::Atomic, Vec::new())
    }
}

fn scalar(s: Scalar) -> Atom {
    Atom {
        scalar: Some(s),
        ..Atom::default()
    }
}

/// A custom resource version's model as the CRD handler builds it for
/// apply (`buildKubeNative`, `addTypeMetaProperties`,
/// `addEmbeddedProperties`).
pub(crate) fn kube_native(open_api_v3_schema: &Value) -> Value {
    let mut root = open_api_v3_schema.clone();
    add_embedded_properties(&mut root);
    if let Some(obj) = root.as_object_mut() {
        let props = obj
            .entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(props) = props.as_object_mut() {
            props.insert("metadata".into(), object_meta_ref());
            props.insert("apiVersion".into(), json!({"type": "string"}));
            props.insert("kind".into(), json!({"type": "string"}));
        }
    }
    root
}

fn object_meta_ref() -> Value {
    json!({"$ref": format!("#/components/schemas/{OBJECT_META}")})
}

fn add_embedded_properties(s: &mut Value) {
    let Some(obj) = s.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for v in props.values_mut() {
            add_embedded_properties(v);
        }
    }
    if let Some(items) = obj.get_mut("items") {
        add_embedded_properties(items);
    }
    if let Some(additional @ Value::Object(_)) = obj.get_mut("additionalProperties") {
        add_embedded_properties(additional);
    }
    if obj.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true)) {
        let props = obj
            .entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(props) = props.as_object_mut() {
            props.insert("apiVersion".into(), json!({"type": "string"}));
            props.insert("kind".into(), json!({"type": "string"}));
            props.insert("metadata".into(), object_meta_ref());
        }
    }
}

/// The models a custom resource's type is converted from: ObjectMeta's
/// and the resource's own (named `root`).
pub(crate) fn custom_resource_models(open_api_v3_schema: &Value) -> Vec<(String, Value)> {
    let mut models: Vec<(String, Value)> = object_meta_models()
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect();
    models.push(("root".into(), kube_native(open_api_v3_schema)));
    models
}

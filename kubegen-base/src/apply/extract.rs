//! [`extract`]: the fields one field manager owns, read out of an object as
//! client-go's `ExtractInto` does — structured-merge-diff's `ExtractItems`
//! of the `Leaves` of the manager's `operation: Apply` entry for the
//! subresource, with list-map key fields appended — walking the resource's
//! merge structure ([`MergeShape`], from its structural schema) as the
//! apiserver's `removingWalker` does:
//!
//! - a scalar, an atomic list or map, an empty or null list or map is
//!   taken whole;
//! - a list's items are matched by their path element (list-map keys, with
//!   a key field's schema default when the item omits it; set items by
//!   value) and kept in the object's order; an item owned as a whole is
//!   kept whole, one with owned fields below is walked;
//! - an object's fields owned as a whole are walked again with the whole
//!   set of that level (structured-merge-diff's own rule: a granular map
//!   owned as a whole reads back as the children the set names, which for
//!   a non-empty one is usually nothing, `null`);
//! - a walk that keeps nothing yields `null`.
//!
//! Like client-go's generated `Extract<Kind>`, the result always carries
//! apiVersion, kind, name and namespace.

use serde_json::{Map, Value};

use super::fields::{FieldSet, PathElement};
use super::shape::{ATOMIC, MapShape, MergeShape, Relationship, Shape};
use super::{ApplyConfiguration, ApplyError};

/// The fields `field_manager` owns in `object` through server-side apply
/// (`subresource` `None` for the main resource, `Some("status")` for the
/// status subresource) as the apply configuration `A`. A manager that owns
/// nothing gets `A` with only apiVersion, kind, name and namespace.
pub fn extract<A: ApplyConfiguration>(
    object: &A::Resource,
    field_manager: &str,
    subresource: Option<&str>,
) -> Result<A, ApplyError> {
    let value = serde_json::to_value(object).map_err(|e| ApplyError::Decode {
        what: format!("the object {field_manager} applied to"),
        type_name: "JSON",
        message: e.to_string(),
    })?;
    let owned = extract_shaped(&value, A::schema()?, field_manager, subresource)?;
    serde_json::from_value(owned).map_err(|e| ApplyError::Decode {
        what: format!("the fields {field_manager} owns"),
        type_name: std::any::type_name::<A>(),
        message: e.to_string(),
    })
}

/// [`extract`] on JSON: `object` walked by its structural `schema`.
pub fn extract_value(
    object: &Value,
    schema: &Value,
    field_manager: &str,
    subresource: Option<&str>,
) -> Result<Value, ApplyError> {
    extract_shaped(object, &MergeShape::of(schema), field_manager, subresource)
}

/// [`extract`] on JSON: `object` walked by the merge structure `shape`.
fn extract_shaped(
    object: &Value,
    shape: &MergeShape,
    field_manager: &str,
    subresource: Option<&str>,
) -> Result<Value, ApplyError> {
    let owned = match managed_entry(object, field_manager, subresource) {
        Some(fields) => {
            let set =
                FieldSet::from_fields_v1(fields).map_err(|message| ApplyError::ManagedFields {
                    manager: field_manager.to_string(),
                    message,
                })?;
            let mut leaves = set.leaves();
            append_key_fields(&mut leaves, object, &shape.0);
            walk(object, &leaves, Node::of(&shape.0))
        }
        None => None,
    };
    let mut result = match owned {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    for key in ["apiVersion", "kind"] {
        if let Some(v) = object.get(key) {
            result.insert(key.into(), v.clone());
        }
    }
    let meta = result
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    for key in ["name", "namespace"] {
        if let Some(v) = object["metadata"].get(key) {
            meta[key] = v.clone();
        }
    }
    Ok(Value::Object(result))
}

/// The `fieldsV1` of `field_manager`'s `Apply` entry for `subresource`.
fn managed_entry<'a>(
    object: &'a Value,
    field_manager: &str,
    subresource: Option<&str>,
) -> Option<&'a Value> {
    object["metadata"]["managedFields"]
        .as_array()?
        .iter()
        .find(|entry| {
            entry["manager"] == field_manager
                && entry["operation"] == "Apply"
                && entry["subresource"].as_str().unwrap_or_default()
                    == subresource.unwrap_or_default()
        })
        .map(|entry| &entry["fieldsV1"])
        .filter(|fields| fields.is_object())
}

/// What the schema says a node is, as structured-merge-diff's schema does.
#[derive(Clone, Copy)]
enum Node<'s> {
    Scalar,
    /// `x-kubernetes-preserve-unknown-fields` or no type: deduced from the
    /// value (lists atomic, maps granular).
    Untyped,
    List {
        items: Option<&'s Shape>,
        relationship: &'s Relationship,
    },
    Map {
        /// `None` for a map the schema does not describe.
        shape: Option<&'s MapShape>,
        atomic: bool,
    },
}

impl<'s> Node<'s> {
    fn of(shape: &'s Shape) -> Node<'s> {
        match shape {
            Shape::Scalar(_) => Node::Scalar,
            Shape::Untyped => Node::Untyped,
            Shape::List(list) => Node::List {
                items: list.items.as_ref(),
                relationship: &list.relationship,
            },
            Shape::Map(map) => Node::Map {
                shape: Some(map),
                atomic: map.atomic,
            },
        }
    }

    /// The node for `value` (an untyped node takes the value's shape).
    fn resolve(self, value: &Value) -> Node<'s> {
        match (self, value) {
            (Node::Untyped, Value::Array(_)) => Node::List {
                items: None,
                relationship: &ATOMIC,
            },
            (Node::Untyped, Value::Object(_)) => Node::Map {
                shape: None,
                atomic: false,
            },
            (Node::Untyped, _) => Node::Scalar,
            (node, _) => node,
        }
    }

    /// The schema of a map's field `name`.
    fn field(self, name: &str) -> Node<'s> {
        let Node::Map {
            shape: Some(map), ..
        } = self
        else {
            return Node::Untyped;
        };
        match map.field(name).or(map.values.as_ref()) {
            Some(field) => Node::of(field),
            None => Node::Untyped,
        }
    }

    /// Whether `name` is a declared field of this map.
    fn declares(self, name: &str) -> bool {
        matches!(self, Node::Map { shape: Some(map), .. } if map.field(name).is_some())
    }

    fn items(self) -> Node<'s> {
        match self {
            Node::List {
                items: Some(items), ..
            } => Node::of(items),
            _ => Node::Untyped,
        }
    }
}

/// The path element of a list item (structured-merge-diff's
/// `listItemToPathElement`): its key fields for a list-map (a missing key
/// field takes its schema default), its value for a set; `None` for items
/// of atomic lists and items without their keys.
fn item_element(list: Node<'_>, item: &Value) -> Option<PathElement> {
    let Node::List { relationship, .. } = list else {
        return None;
    };
    match relationship {
        Relationship::Atomic | Relationship::Unkeyed => None,
        Relationship::Set => Some(PathElement::Value(item.clone())),
        Relationship::Map(keys) => {
            let fields = item.as_object()?;
            let mut pairs = Map::new();
            for (key, default) in keys.iter() {
                let value = fields.get(&**key).or(default.as_ref())?.clone();
                pairs.insert(key.to_string(), value);
            }
            Some(PathElement::key(pairs))
        }
    }
}

/// structured-merge-diff's `removingWalker` with `shouldExtract`: the part
/// of `value` the set names; `None` for nothing (Go's `nil`).
fn walk(value: &Value, set: &FieldSet, node: Node<'_>) -> Option<Value> {
    match node.resolve(value) {
        Node::Scalar | Node::Untyped => Some(value.clone()),
        list @ Node::List { relationship, .. } => {
            let items = value.as_array()?;
            if items.is_empty() || matches!(relationship, Relationship::Atomic) {
                return Some(value.clone());
            }
            let mut kept = Vec::new();
            for item in items {
                let Some(element) = item_element(list, item) else {
                    continue;
                };
                let below = set.with_prefix(&element);
                if let Some(below) = below {
                    kept.push(walk(item, below, list.items()).unwrap_or(Value::Null));
                } else if set.has(&element) {
                    kept.push(item.clone());
                }
            }
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        map @ Node::Map { atomic, .. } => {
            let fields = value.as_object()?;
            if fields.is_empty() || atomic {
                return Some(value.clone());
            }
            let mut kept = Map::new();
            for (name, child) in fields {
                let element = PathElement::Field(name.clone());
                let below = if set.has(&element) {
                    Some(set)
                } else {
                    set.with_prefix(&element)
                };
                if let Some(below) = below {
                    let part = walk(child, below, map.field(name));
                    kept.insert(name.clone(), part.unwrap_or(Value::Null));
                }
            }
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
    }
}

/// structured-merge-diff's `WithAppendKeyFields`: for every owned path the
/// object holds, the key fields of each list-map item along it are added.
fn append_key_fields(set: &mut FieldSet, object: &Value, shape: &Shape) {
    let mut added = Vec::new();
    for path in set.paths() {
        if !holds(object, Node::of(shape), &path) {
            continue;
        }
        for (i, element) in path.iter().enumerate() {
            if let PathElement::Key(pairs) = element {
                for (name, _) in pairs {
                    let mut key_path = path[..=i].to_vec();
                    key_path.push(PathElement::Field(name.clone()));
                    added.push(key_path);
                }
            }
        }
    }
    for path in added {
        set.insert(&path);
    }
}

/// Whether `path` is in the object's own field set (structured-merge-diff's
/// `ToFieldSet`): it leads to a scalar, an atomic list or map, a list
/// item, a null or empty map, or an entry of a map's undeclared keys.
fn holds(value: &Value, node: Node<'_>, path: &[PathElement]) -> bool {
    let node = node.resolve(value);
    let Some((first, rest)) = path.split_first() else {
        return match node {
            Node::Scalar | Node::Untyped => true,
            Node::List { relationship, .. } => matches!(relationship, Relationship::Atomic),
            Node::Map { atomic, .. } => atomic,
        };
    };
    match (node, first, value) {
        (Node::Map { atomic: false, .. }, PathElement::Field(name), Value::Object(fields)) => {
            let Some(child) = fields.get(name) else {
                return false;
            };
            if rest.is_empty()
                && (child.is_null()
                    || child.as_object().is_some_and(Map::is_empty)
                    || !node.declares(name))
            {
                return true;
            }
            holds(child, node.field(name), rest)
        }
        (list @ Node::List { relationship, .. }, element, Value::Array(items))
            if !matches!(relationship, Relationship::Atomic) =>
        {
            items.iter().any(|item| {
                item_element(list, item).as_ref() == Some(element)
                    && (rest.is_empty() || holds(item, list.items(), rest))
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Deployment-like schema: list-map containers keyed by name with
    /// list-map ports keyed by (containerPort, protocol) where protocol
    /// defaults to TCP; an atomic list, a set, an atomic struct, a granular
    /// map and an untyped field.
    fn schema() -> Value {
        let mut s = json!({
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": {"type": "object", "properties": {
                    "replicas": {"type": "integer"},
                    "args": {"type": "array", "items": {"type": "string"}},
                    "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                    "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                                 "properties": {"app": {"type": "string"}, "tier": {"type": "string"}}},
                    "resources": {"type": "object", "additionalProperties": {"type": "string"}},
                    "extra": {"x-kubernetes-preserve-unknown-fields": true},
                    "containers": {"type": "array", "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["name"],
                        "items": {"type": "object", "properties": {
                            "name": {"type": "string"}, "image": {"type": "string"},
                            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                                "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                                "items": {"type": "object", "properties": {
                                    "containerPort": {"type": "integer"},
                                    "protocol": {"type": "string", "default": "TCP"},
                                    "name": {"type": "string"}}}}}}}
                }},
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
            }
        });
        s["properties"]["metadata"] = super::super::meta::object_meta_schema();
        s
    }

    fn object(managed: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Thing",
            "metadata": {"name": "t", "namespace": "ns", "labels": {"a": "1", "b": "2"},
                         "finalizers": ["x", "y"], "managedFields": managed},
            "spec": {
                "replicas": 3, "args": ["-v", "-q"], "tags": ["red", "blue"],
                "selector": {"app": "web", "tier": "front"},
                "resources": {"cpu": "1", "memory": "1Gi"},
                "extra": {"deep": {"one": 1, "two": 2}},
                "containers": [
                    {"name": "sidecar", "image": "proxy:1"},
                    {"name": "app", "image": "web:2", "ports": [
                        {"containerPort": 80, "name": "http"},
                        {"containerPort": 53, "protocol": "UDP", "name": "dns"}]}
                ]
            },
            "status": {"ready": true}
        })
    }

    fn entry(manager: &str, subresource: Option<&str>, fields: Value) -> Value {
        let mut e = json!({"manager": manager, "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": fields});
        if let Some(s) = subresource {
            e["subresource"] = json!(s);
        }
        e
    }

    fn extract_of(managed: Value, manager: &str, subresource: Option<&str>) -> Value {
        extract_value(&object(managed), &schema(), manager, subresource).unwrap()
    }

    #[test]
    fn a_list_map_item_yields_only_the_owned_fields_with_its_keys() {
        let managed = json!([
            entry(
                "me",
                None,
                json!({"f:spec": {"f:replicas": {}, "f:containers": {
                "k:{\"name\":\"app\"}": {".": {}, "f:image": {}}}}})
            ),
            entry(
                "other",
                None,
                json!({"f:spec": {"f:containers": {
                "k:{\"name\":\"sidecar\"}": {".": {}, "f:name": {}, "f:image": {}}}}})
            ),
        ]);
        let got = extract_of(managed, "me", None);
        assert_eq!(
            got,
            json!({"apiVersion": "apps/v1", "kind": "Thing",
                   "metadata": {"name": "t", "namespace": "ns"},
                   "spec": {"replicas": 3, "containers": [{"name": "app", "image": "web:2"}]}})
        );
    }

    #[test]
    fn a_key_field_omitted_by_the_item_matches_by_its_default() {
        let managed = json!([entry(
            "me",
            None,
            json!({"f:spec": {"f:containers": {
            "k:{\"name\":\"app\"}": {"f:ports": {
                "k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:name": {}}}}}}})
        )]);
        let got = extract_of(managed, "me", None);
        assert_eq!(
            got["spec"]["containers"],
            json!([{"name": "app", "ports": [{"containerPort": 80, "name": "http"}]}]),
            "the item is found by protocol's default; the key fields the item has are appended"
        );
    }

    #[test]
    fn sets_atomic_lists_and_atomic_structs() {
        let managed = json!([entry(
            "me",
            None,
            json!({
            "f:metadata": {"f:finalizers": {"v:\"y\"": {}}, "f:labels": {"f:b": {}}},
            "f:spec": {"f:args": {}, "f:tags": {"v:\"blue\"": {}}, "f:selector": {}}})
        )]);
        let got = extract_of(managed, "me", None);
        assert_eq!(got["metadata"]["finalizers"], json!(["y"]));
        assert_eq!(got["metadata"]["labels"], json!({"b": "2"}));
        assert_eq!(got["spec"]["args"], json!(["-v", "-q"]), "atomic: whole");
        assert_eq!(got["spec"]["tags"], json!(["blue"]));
        assert_eq!(
            got["spec"]["selector"],
            json!({"app": "web", "tier": "front"})
        );
    }

    #[test]
    fn a_granular_map_owned_whole_reads_back_as_smd_does() {
        // structured-merge-diff walks a map field owned as a whole with the
        // set of its parent's level: `resources` has no `cpu`/`memory` there.
        let managed = json!([entry(
            "me",
            None,
            json!({"f:spec": {"f:resources": {}, "f:extra": {"f:deep": {"f:two": {}}}}})
        )]);
        let got = extract_of(managed, "me", None);
        assert_eq!(got["spec"]["resources"], Value::Null);
        assert_eq!(
            got["spec"]["extra"],
            json!({"deep": {"two": 2}}),
            "untyped maps are granular"
        );
    }

    #[test]
    fn only_the_managers_apply_entry_of_that_subresource_counts() {
        let managed = json!([
            entry("me", Some("status"), json!({"f:status": {"f:ready": {}}})),
            {"manager": "me", "operation": "Update", "fieldsType": "FieldsV1",
             "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        ]);
        let main = extract_of(managed.clone(), "me", None);
        assert_eq!(
            main,
            json!({"apiVersion": "apps/v1", "kind": "Thing", "metadata": {"name": "t", "namespace": "ns"}}),
            "an Update entry is not the manager's applied configuration"
        );
        let status = extract_of(managed, "me", Some("status"));
        assert_eq!(status["status"], json!({"ready": true}));
        assert!(status.get("spec").is_none());
    }

    #[test]
    fn an_unreadable_entry_is_an_error_naming_the_manager() {
        let managed = json!([entry("me", None, json!({"q:spec": {}}))]);
        let error = extract_value(&object(managed), &schema(), "me", None).unwrap_err();
        assert!(
            error.to_string().contains("me") && error.to_string().contains("q"),
            "{error}"
        );
    }
}

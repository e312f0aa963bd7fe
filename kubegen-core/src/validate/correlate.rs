//! An updated object's values paired with its old ones, as the apiserver
//! pairs them to ratchet validation (`CorrelatedObject` in
//! k8s.io/apiserver `pkg/cel/common`): a field with the old object's same
//! field, an item of a `map` list with the first old item of the same
//! keys; nothing else (an item of another list, a field one side lacks)
//! has an old value. A value equal to its old one (`CachedDeepEqual`)
//! has its errors ratcheted away.

use serde_json::Value;

/// A new value, its old value, and its schema.
#[derive(Clone, Copy, Debug)]
pub struct Correlated<'a> {
    /// The value in the updated object.
    pub new: &'a Value,
    /// The value it replaces.
    pub old: &'a Value,
    /// Its schema (a CRD's `openAPIV3Schema` node).
    pub schema: &'a Value,
}

impl<'a> Correlated<'a> {
    /// The pair of the root objects.
    pub fn root(new: &'a Value, old: &'a Value, schema: &'a Value) -> Self {
        Correlated { new, old, schema }
    }

    /// The field `field` on both sides, if both have it and the schema
    /// declares it (as a property, or by `additionalProperties`).
    pub fn key(self, field: &str) -> Option<Correlated<'a>> {
        let (Value::Object(new), Value::Object(old)) = (self.new, self.old) else {
            return None;
        };
        let (new, old) = (new.get(field)?, old.get(field)?);
        let schema = self
            .schema
            .get("properties")
            .and_then(|p| p.get(field))
            .or_else(|| {
                self.schema
                    .get("additionalProperties")
                    .filter(|a| a.is_object())
            })?;
        Some(Correlated { new, old, schema })
    }

    /// The new list's item `i` and the old item of a `map` list with the
    /// same keys.
    pub fn index(self, i: usize) -> Option<Correlated<'a>> {
        let (Value::Array(new), Value::Array(old)) = (self.new, self.old) else {
            return None;
        };
        let item = new.get(i)?;
        let old_item = map_list_item(self.schema, old, item)?;
        let schema = self.schema.get("items")?;
        Some(Correlated {
            new: item,
            old: old_item,
            schema,
        })
    }

    /// Whether the new value equals the old one as `CachedDeepEqual`
    /// decides: every field and item correlated and equal (a `map` list's
    /// items in any order), scalars and other lists compared whole.
    pub fn unchanged(self) -> bool {
        match (self.new, self.old) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Array(new), Value::Array(old)) => {
                if new.len() != old.len() {
                    return false;
                }
                if self.schema.get("x-kubernetes-list-type") != Some(&Value::from("map")) {
                    return new == old;
                }
                (0..new.len()).all(|i| self.index(i).is_some_and(Correlated::unchanged))
            }
            (Value::Object(new), Value::Object(old)) => {
                new.len() == old.len()
                    && new
                        .keys()
                        .all(|k| self.key(k).is_some_and(Correlated::unchanged))
            }
            (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
                false
            }
            (new, old) => same_scalar(new, old),
        }
    }
}

/// Go's `reflect.DeepEqual` of two decoded scalars: an int64 and a float64
/// differ.
fn same_scalar(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() != y.is_f64() {
                return false;
            }
            match (x.as_i64(), y.as_i64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64() && x.is_f64(),
            }
        }
        _ => a == b,
    }
}

/// A `map` list item's key as the apiserver's `MapList` builds it: one
/// key's scalar value itself, or several keys' values printed together
/// (`%t`, `%f`, `%d`, `%q`); `None` when a key is missing or not a scalar.
fn composite_key(schema: &Value, item: &Value) -> Option<String> {
    let keys: Vec<&str> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|k| k.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let obj = item.as_object()?;
    let one = keys.len() == 1;
    let mut out = String::new();
    for key in keys {
        let v = obj.get(key)?;
        let part = match v {
            Value::Bool(b) => format!("b{b}"),
            Value::String(s) if one => format!("s{s}"),
            Value::String(s) => crate::go::fmt::go_quote(s),
            Value::Number(n) if n.is_f64() && one => format!("f{}", n.as_f64()?),
            Value::Number(n) if n.is_f64() => format!("{:.6}", n.as_f64()?),
            Value::Number(n) if one => format!("i{}", n.as_i64()?),
            Value::Number(n) => n.as_i64()?.to_string(),
            _ => return None,
        };
        out.push('\0');
        out.push_str(&part);
    }
    Some(out)
}

/// The first old item of a `map` list (of schema `schema`) with `item`'s
/// keys; none for other lists.
pub fn map_list_item<'a>(schema: &Value, old: &'a [Value], item: &Value) -> Option<&'a Value> {
    if schema.get("x-kubernetes-list-type") != Some(&Value::from("map")) {
        return None;
    }
    let key = composite_key(schema, item)?;
    old.iter()
        .find(|o| composite_key(schema, o).as_deref() == Some(&key))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "port": {"type": "integer"}}}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "n": {"type": "number"}}})
    }

    #[test]
    fn map_list_items_pair_by_key_in_any_order() {
        let (s, old) = (
            schema(),
            json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]}),
        );
        let new = json!({"ports": [{"name": "b", "port": 2}, {"name": "a", "port": 1}]});
        let root = Correlated::root(&new, &old, &s);
        assert!(root.unchanged());
        let ports = root.key("ports").unwrap();
        assert_eq!(
            ports.index(0).unwrap().old,
            &json!({"name": "b", "port": 2})
        );
        let moved = json!({"ports": [{"name": "c", "port": 2}, {"name": "a", "port": 1}]});
        let root = Correlated::root(&moved, &old, &s);
        assert!(!root.unchanged());
        assert!(root.key("ports").unwrap().index(0).is_none());
        assert!(root.key("ports").unwrap().index(1).unwrap().unchanged());
    }

    #[test]
    fn other_lists_and_numbers_compare_whole_and_by_go_type() {
        let s = schema();
        let (old, new) = (
            json!({"tags": ["x"], "n": 1}),
            json!({"tags": ["x"], "n": 1.0}),
        );
        let root = Correlated::root(&new, &old, &s);
        assert!(root.key("tags").unwrap().unchanged());
        assert!(root.key("tags").unwrap().index(0).is_none());
        assert!(
            !root.key("n").unwrap().unchanged(),
            "int64 1 and float64 1 differ"
        );
        assert!(root.key("missing").is_none());
    }
}

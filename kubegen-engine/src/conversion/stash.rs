//! Lossless conversion through versions that hold less than the hub: what
//! a spoke cannot hold is kept in an annotation and restored on the way
//! back, by a three-way merge that lets every change made through the
//! spoke win.
//!
//! An object's *data* is everything but `apiVersion`, `kind` and
//! `metadata` (`spec`, `status`, any other top-level field).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The annotation holding the data of a version that the object's current
/// version could not hold (`{"apiVersion": "<that version>", "data":
/// {...}}`, compact JSON): the hub's on a spoke that holds less, a spoke's
/// on the hub when the spoke holds more.
pub const STASH_ANNOTATION: &str = "conversion.kubegen.dev/hub-data";

/// The data fields of an object (all but `apiVersion`, `kind`, `metadata`).
pub(crate) fn data(object: &Value) -> Map<String, Value> {
    kubegen_core::sorting::collect_map(
        object
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata"))
            .map(|(k, v)| (k.clone(), v.clone())),
    )
}

/// `object` with its data replaced by `data`.
pub(crate) fn with_data(object: &Value, data: Map<String, Value>) -> Value {
    let mut out = Map::new();
    for key in ["apiVersion", "kind", "metadata"] {
        if let Some(v) = object.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    out.extend(data);
    Value::Object(out)
}

/// Removes the stash annotation from `object`, returning the version it
/// was written for and the data of that version it holds (an unreadable
/// stash is dropped).
pub(crate) fn take(object: &mut Value) -> Option<(String, Map<String, Value>)> {
    let raw = remove(object.get_mut("metadata")?)?;
    let stash: Value = serde_json::from_str(&raw).ok()?;
    match (stash.get("apiVersion"), stash.get("data")) {
        (Some(Value::String(version)), Some(Value::Object(data))) => {
            Some((version.clone(), data.clone()))
        }
        _ => {
            tracing::debug!("dropping an unreadable conversion stash");
            None
        }
    }
}

/// Removes the stash annotation from `metadata` (and `annotations` when it
/// was the only one), returning its text.
pub(crate) fn remove(metadata: &mut Value) -> Option<String> {
    let meta = metadata.as_object_mut()?;
    let annotations = meta.get_mut("annotations")?.as_object_mut()?;
    let raw = annotations.remove(STASH_ANNOTATION)?;
    if annotations.is_empty() {
        meta.remove("annotations");
    }
    raw.as_str().map(str::to_owned)
}

/// Writes `data` of `api_version` into `object`'s stash annotation.
pub(crate) fn put(object: &mut Value, api_version: &str, data: Map<String, Value>) {
    let stash = serde_json::json!({"apiVersion": api_version, "data": data});
    let text = serde_json::to_string(&stash).unwrap_or_default();
    let Some(root) = object.as_object_mut() else {
        return;
    };
    let meta = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(meta) = meta.as_object_mut() else {
        return;
    };
    let annotations = meta
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(annotations) = annotations.as_object_mut() {
        annotations.insert(STASH_ANNOTATION.to_owned(), Value::String(text));
    }
}

/// The lists of a version whose items are identified by keys
/// (`x-kubernetes-list-type: map`), by data path (`spec.lines`,
/// `spec.lines[].ports`), with their keys.
pub(crate) type ListKeys = BTreeMap<String, Vec<String>>;

/// The keyed lists of a CRD version's schema (its data fields only).
pub(crate) fn list_keys(crd: &Value) -> ListKeys {
    fn walk(schema: &Value, at: &str, out: &mut ListKeys) {
        if let Some(Value::Array(keys)) = schema.get("x-kubernetes-list-map-keys") {
            let keys = keys
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            out.insert(at.to_owned(), keys);
        }
        if let Some(items) = schema.get("items") {
            walk(items, &format!("{at}[]"), out);
        }
        for (name, child) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if at.is_empty() && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            walk(child, &join(at, name), out);
        }
    }
    let mut out = ListKeys::new();
    if let Some(root) = crd.pointer("/spec/versions/0/schema/openAPIV3Schema") {
        walk(root, "", &mut out);
    }
    out
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_owned()
    } else {
        format!("{at}.{name}")
    }
}

/// The three-way merge of one value at data path `at`: `base` is what the
/// conversion makes of the stashed data (there and back), `ours` what it
/// makes of the object as it arrives, `theirs` the stashed data itself.
///
/// Where the object did not change through the other version
/// (`ours == base`) the stashed value is restored; where it changed, the
/// change wins. Objects are merged field by field; keyed lists (`keys`)
/// item by item, matched by key: items keep the stored order, items the
/// other version could not show are kept, items removed through it stay
/// removed, new items are appended. Other lists and scalars are taken
/// whole. `None` is an absent field.
pub(crate) fn merge3(
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
    at: &str,
    keys: &ListKeys,
) -> Option<Value> {
    if ours == base {
        return theirs.cloned();
    }
    match (base, ours, theirs) {
        (Some(Value::Object(b)), Some(Value::Object(o)), Some(Value::Object(t))) => {
            Some(Value::Object(merge_maps(b, o, t, at, keys)))
        }
        (Some(Value::Array(b)), Some(Value::Array(o)), Some(Value::Array(t))) => match keys.get(at)
        {
            Some(list_keys) => Some(Value::Array(merge_keyed(b, o, t, at, list_keys, keys))),
            None => ours.cloned(),
        },
        _ => ours.cloned(),
    }
}

/// [`merge3`] over the fields of three objects at data path `at`.
pub(crate) fn merge_maps(
    base: &Map<String, Value>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    at: &str,
    keys: &ListKeys,
) -> Map<String, Value> {
    let mut names = std::collections::BTreeSet::new();
    names.extend(base.keys().chain(ours.keys()).chain(theirs.keys()));
    kubegen_core::sorting::collect_map(names.into_iter().filter_map(|k| {
        merge3(base.get(k), ours.get(k), theirs.get(k), &join(at, k), keys).map(|v| (k.clone(), v))
    }))
}

/// [`merge3`] over three keyed lists, items matched by `list_keys`.
fn merge_keyed(
    base: &[Value],
    ours: &[Value],
    theirs: &[Value],
    at: &str,
    list_keys: &[String],
    keys: &ListKeys,
) -> Vec<Value> {
    let key = |v: &Value| -> Vec<Value> {
        list_keys
            .iter()
            .map(|k| v.get(k).cloned().unwrap_or(Value::Null))
            .collect()
    };
    let find = |list: &[Value], k: &[Value]| list.iter().find(|v| key(v) == k).cloned();
    let item_at = format!("{at}[]");
    let mut out = Vec::new();
    for stored in theirs {
        let k = key(stored);
        let (b, o) = (find(base, &k), find(ours, &k));
        match (&b, &o) {
            // Removed through the other version.
            (Some(_), None) => {}
            // Not shown by the other version: kept.
            (None, None) => out.push(stored.clone()),
            _ => {
                if let Some(v) = merge3(b.as_ref(), o.as_ref(), Some(stored), &item_at, keys) {
                    out.push(v);
                }
            }
        }
    }
    for added in ours {
        let k = key(added);
        if find(theirs, &k).is_none() {
            let b = find(base, &k);
            if let Some(v) = merge3(b.as_ref(), Some(added), None, &item_at, keys) {
                out.push(v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn unchanged_spoke_restores_the_hub_exactly() {
        let theirs = map(json!({"spec": {"ports": [80, 81], "replicas": 2}}));
        let base = map(json!({"spec": {"ports": [80], "replicas": 2}}));
        assert_eq!(
            merge_maps(&base, &base.clone(), &theirs, "", &ListKeys::new()),
            theirs
        );
    }

    #[test]
    fn changes_through_the_spoke_win_field_by_field() {
        let theirs = map(json!({"spec": {"ports": [80, 81], "replicas": 2, "extra": "x"}}));
        let base = map(json!({"spec": {"ports": [80], "replicas": 2}}));
        // Only replicas changed: the ports the spoke cannot hold come back.
        let ours = map(json!({"spec": {"ports": [80], "replicas": 5}}));
        assert_eq!(
            merge_maps(&base, &ours, &theirs, "", &ListKeys::new()),
            map(json!({"spec": {"ports": [80, 81], "replicas": 5, "extra": "x"}}))
        );
        // The port changed: the spoke's list wins whole.
        let ours = map(json!({"spec": {"ports": [8080], "replicas": 2}}));
        assert_eq!(
            merge_maps(&base, &ours, &theirs, "", &ListKeys::new()),
            map(json!({"spec": {"ports": [8080], "replicas": 2, "extra": "x"}}))
        );
        // A field removed through the spoke stays removed.
        let ours = map(json!({"spec": {"ports": [80]}}));
        assert_eq!(
            merge_maps(&base, &ours, &theirs, "", &ListKeys::new()),
            map(json!({"spec": {"ports": [80, 81], "extra": "x"}}))
        );
    }

    #[test]
    fn keyed_lists_merge_item_by_item() {
        let keys = ListKeys::from([("spec.lines".to_owned(), vec!["sku".to_owned()])]);
        let theirs = map(
            json!({"spec": {"lines": [{"sku": "a", "q": 3}, {"sku": "hidden", "q": 2}, {"sku": "b", "q": 7}]}}),
        );
        let base = map(json!({"spec": {"lines": [{"sku": "a", "q": 1}, {"sku": "b", "q": 1}]}}));
        // An item added and one removed through the other version: the
        // quantities it cannot show stay, the item it cannot show too.
        let ours = map(json!({"spec": {"lines": [{"sku": "a", "q": 1}, {"sku": "c", "q": 1}]}}));
        assert_eq!(
            merge_maps(&base, &ours, &theirs, "", &keys),
            map(
                json!({"spec": {"lines": [{"sku": "a", "q": 3}, {"sku": "hidden", "q": 2}, {"sku": "c", "q": 1}]}})
            )
        );
        // Without keys the list is the other version's, whole.
        assert_eq!(
            merge_maps(&base, &ours, &theirs, "", &ListKeys::new()),
            ours
        );
    }

    #[test]
    fn list_keys_are_read_from_the_schema() {
        let crd = json!({"spec": {"versions": [{"schema": {"openAPIV3Schema": {"properties": {
            "metadata": {"type": "object"},
            "spec": {"properties": {"lines": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["sku"],
                "items": {"properties": {"parts": {"type": "array", "x-kubernetes-list-map-keys": ["name", "kind"]}}}}}},
        }}}}]}});
        assert_eq!(
            list_keys(&crd),
            ListKeys::from([
                ("spec.lines".to_owned(), vec!["sku".to_owned()]),
                (
                    "spec.lines[].parts".to_owned(),
                    vec!["name".to_owned(), "kind".to_owned()]
                ),
            ])
        );
    }

    #[test]
    fn stash_round_trips_and_leaves_other_annotations() {
        let mut object =
            json!({"apiVersion": "a/v1", "metadata": {"name": "n", "annotations": {"keep": "me"}}});
        put(&mut object, "a/v2", map(json!({"spec": {"x": 1}})));
        assert_eq!(
            take(&mut object),
            Some(("a/v2".to_owned(), map(json!({"spec": {"x": 1}}))))
        );
        assert_eq!(object["metadata"]["annotations"], json!({"keep": "me"}));
        assert_eq!(take(&mut object), None);

        let mut bare = json!({"apiVersion": "a/v1", "metadata": {"name": "n"}});
        put(&mut bare, "a/v2", Map::new());
        assert!(take(&mut bare).is_some());
        assert_eq!(
            bare,
            json!({"apiVersion": "a/v1", "metadata": {"name": "n"}})
        );

        let mut garbage = json!({"metadata": {"annotations": {STASH_ANNOTATION: "{not json"}}});
        assert_eq!(take(&mut garbage), None);
        assert_eq!(garbage, json!({"metadata": {}}));
    }
}

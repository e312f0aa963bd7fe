//! Lossless conversion through versions that hold less than the hub: what
//! a spoke cannot hold is kept in an annotation and restored on the way
//! back, by a three-way merge that lets every change made through the
//! spoke win.
//!
//! An object's *data* is everything but `apiVersion`, `kind` and
//! `metadata` (`spec`, `status`, any other top-level field).

use serde_json::{Map, Value};

/// The annotation holding the data of a version that the object's current
/// version could not hold (`{"apiVersion": "<that version>", "data":
/// {...}}`, compact JSON): the hub's on a spoke that holds less, a spoke's
/// on the hub when the spoke holds more.
pub const STASH_ANNOTATION: &str = "conversion.kubegen.dev/hub-data";

/// The data fields of an object (all but `apiVersion`, `kind`, `metadata`).
pub(crate) fn data(object: &Value) -> Map<String, Value> {
    object
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
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

/// The three-way merge of one value: `base` is what the spoke's conversion
/// makes of the stashed hub data (hub → spoke → hub), `ours` what it makes
/// of the object as it arrives, `theirs` the stashed hub data itself.
///
/// Where the object did not change through the spoke (`ours == base`) the
/// hub's original value is restored; where it changed, the change wins;
/// objects are merged field by field, everything else (lists included) is
/// taken whole. `None` is an absent field.
pub(crate) fn merge3(
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
) -> Option<Value> {
    if ours == base {
        return theirs.cloned();
    }
    match (base, ours, theirs) {
        (Some(Value::Object(b)), Some(Value::Object(o)), Some(Value::Object(t))) => {
            Some(Value::Object(merge_maps(b, o, t)))
        }
        _ => ours.cloned(),
    }
}

/// [`merge3`] over the fields of three objects.
pub(crate) fn merge_maps(
    base: &Map<String, Value>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
) -> Map<String, Value> {
    let keys: std::collections::BTreeSet<&String> = base
        .keys()
        .chain(ours.keys())
        .chain(theirs.keys())
        .collect();
    keys.into_iter()
        .filter_map(|k| merge3(base.get(k), ours.get(k), theirs.get(k)).map(|v| (k.clone(), v)))
        .collect()
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
        assert_eq!(merge_maps(&base, &base.clone(), &theirs), theirs);
    }

    #[test]
    fn changes_through_the_spoke_win_field_by_field() {
        let theirs = map(json!({"spec": {"ports": [80, 81], "replicas": 2, "extra": "x"}}));
        let base = map(json!({"spec": {"ports": [80], "replicas": 2}}));
        // Only replicas changed: the ports the spoke cannot hold come back.
        let ours = map(json!({"spec": {"ports": [80], "replicas": 5}}));
        assert_eq!(
            merge_maps(&base, &ours, &theirs),
            map(json!({"spec": {"ports": [80, 81], "replicas": 5, "extra": "x"}}))
        );
        // The port changed: the spoke's list wins whole.
        let ours = map(json!({"spec": {"ports": [8080], "replicas": 2}}));
        assert_eq!(
            merge_maps(&base, &ours, &theirs),
            map(json!({"spec": {"ports": [8080], "replicas": 2, "extra": "x"}}))
        );
        // A field removed through the spoke stays removed.
        let ours = map(json!({"spec": {"ports": [80]}}));
        assert_eq!(
            merge_maps(&base, &ours, &theirs),
            map(json!({"spec": {"ports": [80, 81], "extra": "x"}}))
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

//! JSON merge patch (`application/merge-patch+json`, RFC 7386) as the
//! apiserver applies it: gopkg.in/evanphx/json-patch.v4's `MergePatch`
//! behind patch.go's strict decoding.
//!
//! Its quirks: a `null` patch, a string, number or boolean patch is `400
//! Invalid JSON Patch`; an array patch replaces the whole document (its
//! objects' `null` members dropped, its `null` elements kept); a `null`
//! member deletes; a member whose current value is not an object (or is
//! missing) takes the patch value with its objects' `null` members
//! dropped, arrays included; with field validation `Warn` or `Strict` (the
//! apiserver's default is `Warn`) the body is first decoded as a
//! `map[string]interface{}`, so anything but an object or `null` is
//! `400 error decoding patch: json: cannot unmarshal …`.

use std::collections::BTreeMap;

use super::go_json::{self, Json};
use super::{FieldValidation, PatchError, Patched};
use serde_json::Value;

/// Applies the merge patch `body` to `current` as the apiserver does.
pub fn apply(
    current: &Value,
    body: &[u8],
    validation: FieldValidation,
) -> Result<Patched, PatchError> {
    super::check_current(current)?;
    let parsed = go_json::parse(body);
    let mut strict_errors = Vec::new();
    if validation != FieldValidation::Ignore {
        let decoding = |e: String| PatchError::bad_request(format!("error decoding patch: {e}"));
        let patch = parsed.as_ref().map_err(|e| decoding(e.clone()))?;
        match patch {
            Json::Object(_) | Json::Null => {}
            other => {
                return Err(decoding(format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    other.type_name()
                )));
            }
        }
        if let Some(e) = patch.first_bad_number() {
            return Err(decoding(e));
        }
        patch.duplicates("", &mut strict_errors);
    }
    let bad = || PatchError::bad_request("Invalid JSON Patch".into());
    let patched = match parsed.map_err(|_| bad())? {
        Json::Object(members) => {
            let Json::Object(current) = go_json::from_value(current) else {
                return Err(PatchError::internal("Invalid JSON Document".into()));
            };
            let mut doc = dedup(current);
            merge_docs(&mut doc, dedup(members));
            Json::Object(doc.into_iter().collect())
        }
        Json::Array(items) => prune_nulls(Json::Array(items)),
        _ => return Err(bad()),
    };
    Ok(Patched {
        object: patched.to_value().map_err(PatchError::unrepresentable)?,
        strict_errors,
    })
}

/// An object's members as Go's map holds them: the last of duplicates.
fn dedup(members: Vec<(String, Json)>) -> BTreeMap<String, Json> {
    members.into_iter().collect()
}

/// `mergeDocs`: the patch's members into the document.
fn merge_docs(doc: &mut BTreeMap<String, Json>, patch: BTreeMap<String, Json>) {
    for (k, v) in patch {
        if v == Json::Null {
            doc.remove(&k);
            continue;
        }
        let merged = match doc.remove(&k) {
            None | Some(Json::Null) => prune_nulls(v),
            Some(cur) => merge(cur, v),
        };
        doc.insert(k, merged);
    }
}

/// `merge`: a patch value onto a current value.
fn merge(cur: Json, patch: Json) -> Json {
    match (cur, patch) {
        (Json::Object(cur), Json::Object(p)) => {
            let mut doc = dedup(cur);
            merge_docs(&mut doc, dedup(p));
            Json::Object(doc.into_iter().collect())
        }
        (Json::Object(_), patch) => patch,
        (_, patch) => prune_nulls(patch),
    }
}

/// `pruneNulls`: objects lose their `null` members, at any depth through
/// objects and arrays; arrays keep their `null` elements.
fn prune_nulls(v: Json) -> Json {
    match v {
        Json::Object(members) => Json::Object(
            dedup(members)
                .into_iter()
                .filter(|(_, v)| *v != Json::Null)
                .map(|(k, v)| (k, prune_nulls(v)))
                .collect(),
        ),
        Json::Array(items) => Json::Array(items.into_iter().map(prune_nulls).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merge(current: Value, patch: &str) -> Result<Value, PatchError> {
        apply(&current, patch.as_bytes(), FieldValidation::Ignore).map(|p| p.object)
    }

    #[test]
    fn members_merge_and_nulls_delete() {
        let cur = json!({"a": {"b": 1, "c": 2}, "d": [1], "e": "x"});
        assert_eq!(
            merge(
                cur.clone(),
                r#"{"a": {"b": null, "f": {"g": null}}, "d": [null, {"h": null}], "e": null}"#
            )
            .unwrap(),
            json!({"a": {"c": 2, "f": {}}, "d": [null, {}]})
        );
        assert_eq!(merge(cur.clone(), "[1, null]").unwrap(), json!([1, null]));
        for bad in ["null", "1", "\"x\"", "true", "{"] {
            let e = merge(cur.clone(), bad).unwrap_err();
            assert_eq!(
                (e.code, e.message.as_str()),
                (400, "Invalid JSON Patch"),
                "{bad}"
            );
        }
    }

    #[test]
    fn warn_decodes_the_body_as_a_map_first() {
        let e = apply(&json!({}), b"[1]", FieldValidation::Warn).unwrap_err();
        assert_eq!(
            e.message,
            "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
        let p = apply(&json!({}), br#"{"a": 1, "a": 2}"#, FieldValidation::Strict).unwrap();
        assert_eq!(p.object, json!({"a": 2}));
        assert_eq!(p.strict_errors, ["duplicate field \"a\""]);
    }
}

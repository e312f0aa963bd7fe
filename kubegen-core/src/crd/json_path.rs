//! JSON paths into a version's schema: the paths printer columns, the
//! scale subresource and selectable fields name, resolved field by field
//! (`metadata` against `ObjectMeta`'s fields) with "did you mean".

use serde_json::Value;

use super::CrdError;

/// `metadata` fields a JSON path may name.
pub(crate) const OBJECT_META_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
    "selfLink",
];

/// Splits `.a.b[0].c` / `.a[?(@.x=="y")].b` into segments; `[...]` becomes `[]`.
fn segments(path: &str) -> Result<Vec<String>, String> {
    let Some(rest) = path.strip_prefix('.') else {
        return Err("must start with `.`".into());
    };
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for ch in rest.chars() {
        match ch {
            '[' => {
                depth += 1;
                if depth == 1 {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    out.push("[]".into());
                }
            }
            ']' => depth = depth.saturating_sub(1),
            '.' if depth == 0 && !cur.is_empty() => out.push(std::mem::take(&mut cur)),
            '.' if depth == 0 => {}
            _ if depth == 0 => cur.push(ch),
            _ => {}
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    if out.is_empty() {
        return Err("names no field".into());
    }
    Ok(out)
}

/// Resolves a JSON path against a root schema; returns the leaf schema.
pub fn resolve_json_path<'a>(root: &'a Value, path: &str) -> Result<Option<&'a Value>, String> {
    let segs = segments(path)?;
    if segs[0] == "metadata" {
        return match segs.get(1) {
            None => Ok(None),
            Some(f) if OBJECT_META_FIELDS.contains(&f.as_str()) => Ok(None),
            Some(f) => Err(format!("`metadata` has no field `{f}`")),
        };
    }
    let mut node = root;
    let mut walked = String::new();
    for seg in &segs {
        if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
            && node.get("properties").is_none()
        {
            return Ok(None);
        }
        if seg == "[]" {
            node = node
                .get("items")
                .ok_or_else(|| format!("`{walked}` is not a list"))?;
            walked.push_str("[]");
            continue;
        }
        if let Some(next) = node.get("properties").and_then(|p| p.get(seg)) {
            node = next;
        } else if let Some(ap) = node.get("additionalProperties") {
            node = ap;
        } else {
            return Err(no_such_field(node, seg, &walked));
        }
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(seg);
    }
    Ok(Some(node))
}

/// The message for a segment `node` (reached by `walked`) has no field
/// for, with the closest field it has.
fn no_such_field(node: &Value, seg: &str, walked: &str) -> String {
    let known: Vec<&str> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let hint = crate::suggest::suggest(seg, known.iter().copied())
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    let at = if walked.is_empty() {
        "the object".to_owned()
    } else {
        format!("`.{walked}`")
    };
    format!("{at} has no field `{seg}`{hint}")
}

/// [`resolve_json_path`] as a [`CrdError::JsonPath`], after checking the
/// path starts with `prefix` when one is given.
pub(super) fn check_path(
    root: &Value,
    path: &str,
    prefix: Option<&str>,
) -> Result<Option<Value>, CrdError> {
    if let Some(p) = prefix
        && !path.starts_with(p)
    {
        return Err(CrdError::JsonPath {
            path: path.into(),
            message: format!("must start with `{p}`"),
        });
    }
    resolve_json_path(root, path)
        .map(|v| v.cloned())
        .map_err(|message| CrdError::JsonPath {
            path: path.into(),
            message,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::{fixtures, root_schema};

    #[test]
    fn json_paths_resolve_in_the_schema() {
        let r = fixtures::res("v1", true);
        let root = root_schema(&r, fixtures::spec(), None);
        assert!(
            resolve_json_path(&root, ".spec.items[0].name")
                .unwrap()
                .is_some()
        );
        assert!(resolve_json_path(&root, ".metadata.creationTimestamp").is_ok());
        assert!(resolve_json_path(&root, ".metadata.nope").is_err());
    }
}

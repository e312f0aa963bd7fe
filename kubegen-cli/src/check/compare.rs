//! Every difference between a CRD and its earlier release that can break
//! existing objects or clients, classified as OLM v1's preflight and
//! crdify classify them: the CRD-wide rules (scope, names, served and
//! stored versions, subresources) and, for each version in both, the
//! schema rules of [`schema`].

use serde_json::Value;

use super::schema;

/// One difference and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The rule (`field-removed`, `scope-changed`, …).
    pub rule: &'static str,
    /// The version it is in, for a schema change.
    pub version: Option<String>,
    /// The schema path (`.spec.replicas`), or what else changed.
    pub path: String,
    /// Whether objects or clients that worked with the earlier release
    /// can break.
    pub breaking: bool,
    /// What changed, in words.
    pub detail: String,
}

impl Change {
    /// The id an `allow_breaking` attribute names it by: the rule, the
    /// version and the path (`field-removed v1 .spec.legacy`).
    pub fn id(&self) -> String {
        let mut id = self.rule.to_string();
        if let Some(v) = &self.version {
            id.push(' ');
            id.push_str(v);
        }
        if !self.path.is_empty() {
            id.push(' ');
            id.push_str(&self.path);
        }
        id
    }
}

/// The changes from `old` to `new` (one CRD each, same name).
pub fn compare(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    let mut crd_change = |rule, path: String, breaking, detail: String| {
        out.push(Change {
            rule,
            version: None,
            path,
            breaking,
            detail,
        })
    };
    let text = |v: &Value, p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (old_scope, new_scope) = (text(old, "/spec/scope"), text(new, "/spec/scope"));
    if old_scope != new_scope {
        crd_change(
            "scope-changed",
            String::new(),
            true,
            format!(
                "the scope changed from {old_scope} to {new_scope}: every object's name and URL change"
            ),
        );
    }
    for name in ["kind", "listKind", "singular"] {
        let (o, n) = (
            text(old, &format!("/spec/names/{name}")),
            text(new, &format!("/spec/names/{name}")),
        );
        if !o.is_empty() && o != n {
            crd_change(
                "name-changed",
                name.to_string(),
                true,
                format!("names.{name} changed from {o} to {n}"),
            );
        }
    }
    for list in ["shortNames", "categories"] {
        let names = |v: &Value| -> Vec<String> {
            crate::json::strings(v.pointer(&format!("/spec/names/{list}")))
        };
        let now = names(new);
        for gone in names(old).into_iter().filter(|n| !now.contains(n)) {
            crd_change(
                "name-removed",
                format!("{list} {gone}"),
                true,
                format!("names.{list} no longer has {gone}: `kubectl get {gone}` stops working"),
            );
        }
    }
    let versions = |v: &Value| -> Vec<Value> {
        v.pointer("/spec/versions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (old_versions, new_versions) = (versions(old), versions(new));
    let find = |vs: &[Value], name: &str| vs.iter().find(|v| v["name"] == name).cloned();
    let flag = |v: &Value, key: &str| v.get(key).and_then(Value::as_bool).unwrap_or(false);
    // Versions with objects stored in them: the status's record when the
    // earlier CRD comes from a cluster, else its storage version.
    let mut stored: Vec<String> = crate::json::strings(old.pointer("/status/storedVersions"));
    if stored.is_empty() {
        stored.extend(
            old_versions
                .iter()
                .filter(|v| flag(v, "storage"))
                .map(|v| text(v, "/name")),
        );
    }
    for ov in &old_versions {
        let name = text(ov, "/name");
        let nv = find(&new_versions, &name);
        if stored.contains(&name) && nv.is_none() {
            crd_change(
                "stored-version-removed",
                name.clone(),
                true,
                format!(
                    "version {name} is removed while objects may be stored in it: migrate them (and status.storedVersions) first"
                ),
            );
        } else if flag(ov, "served") && !nv.as_ref().is_some_and(|n| flag(n, "served")) {
            crd_change(
                "served-version-removed",
                name.clone(),
                true,
                format!("version {name} is no longer served: clients using it fail"),
            );
        }
    }
    let storage = |vs: &[Value]| {
        vs.iter()
            .find(|v| flag(v, "storage"))
            .map(|v| text(v, "/name"))
    };
    if let (Some(o), Some(n)) = (storage(&old_versions), storage(&new_versions))
        && o != n
    {
        crd_change(
            "storage-version-changed",
            format!("{o} -> {n}"),
            false,
            format!(
                "the storage version moved from {o} to {n}: objects stay stored as {o} until rewritten; keep {o} until a storage migration has run and status.storedVersions no longer lists it"
            ),
        );
    }
    for nv in &new_versions {
        let name = text(nv, "/name");
        let Some(ov) = find(&old_versions, &name) else {
            continue;
        };
        let mut version_change = |rule, path: String, breaking, detail: String| {
            out.push(Change {
                rule,
                version: Some(name.clone()),
                path,
                breaking,
                detail,
            })
        };
        for sub in ["status", "scale"] {
            let (o, n) = (
                ov.pointer(&format!("/subresources/{sub}")),
                nv.pointer(&format!("/subresources/{sub}")),
            );
            match (o, n) {
                (Some(_), None) => version_change(
                    "subresource-removed",
                    sub.to_string(),
                    true,
                    format!("the {sub} subresource is removed"),
                ),
                (Some(o), Some(n)) if o != n => version_change(
                    "subresource-changed",
                    sub.to_string(),
                    true,
                    format!("the {sub} subresource's paths changed"),
                ),
                _ => {}
            }
        }
        let schema_of = |v: &Value| {
            v.pointer("/schema/openAPIV3Schema")
                .cloned()
                .unwrap_or(Value::Null)
        };
        for c in schema::compare(&schema_of(&ov), &schema_of(nv)) {
            version_change(c.rule, c.path, c.breaking, c.detail);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn crd(scope: &str, versions: Value) -> Value {
        json!({"spec": {"scope": scope, "names": {"kind": "A", "plural": "as", "shortNames": ["aa"]}, "versions": versions}})
    }

    fn version(name: &str, served: bool, storage: bool) -> Value {
        json!({"name": name, "served": served, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object"}}, "subresources": {"status": {}}})
    }

    fn rules(changes: &[Change]) -> Vec<(String, bool)> {
        changes.iter().map(|c| (c.id(), c.breaking)).collect()
    }

    #[test]
    fn crd_wide_changes_are_classified() {
        let old = crd(
            "Namespaced",
            json!([version("v1", true, true), version("v1beta1", true, false)]),
        );
        assert!(compare(&old, &old).is_empty(), "no change, no finding");
        let mut new = crd(
            "Cluster",
            json!([version("v2", true, true), version("v1", true, false)]),
        );
        new["spec"]["names"]["shortNames"] = json!([]);
        new["spec"]["versions"][1]["subresources"] = json!({});
        assert_eq!(
            rules(&compare(&old, &new)),
            [
                ("scope-changed".to_string(), true),
                ("name-removed shortNames aa".to_string(), true),
                ("served-version-removed v1beta1".to_string(), true),
                ("storage-version-changed v1 -> v2".to_string(), false),
                ("subresource-removed v1 status".to_string(), true),
            ]
        );
    }

    #[test]
    fn a_stored_version_cannot_go_until_it_is_migrated() {
        let old = crd(
            "Namespaced",
            json!([version("v1", true, false), version("v2", true, true)]),
        );
        let new = crd("Namespaced", json!([version("v2", true, true)]));
        assert_eq!(
            rules(&compare(&old, &new)),
            [("served-version-removed v1".to_string(), true)],
            "v1 was served, not stored"
        );
        let mut from_cluster = old.clone();
        from_cluster["status"] = json!({"storedVersions": ["v1", "v2"]});
        assert_eq!(
            rules(&compare(&from_cluster, &new)),
            [("stored-version-removed v1".to_string(), true)],
            "the cluster still has objects stored as v1"
        );
    }
}

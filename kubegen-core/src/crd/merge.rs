//! Single-version CRDs of one kind merged into one multi-version CRD:
//! identity checks, one storage version, Kubernetes' version order, the
//! one conversion the versions declare.

use serde_json::Value;

use super::CrdError;
use super::lossy::refuse_lossy_versions;
use crate::output;

/// Orders versions as Kubernetes does: GA, then beta, then alpha, newest first.
pub fn version_priority(v: &str) -> (u8, u64, u64, String) {
    let parse = |s: &str| -> Option<(u64, u8, u64)> {
        let rest = s.strip_prefix('v')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let major = digits.parse().ok()?;
        let tail = &rest[digits.len()..];
        if tail.is_empty() {
            return Some((major, 3, 0));
        }
        let (level, n) = if let Some(n) = tail.strip_prefix("beta") {
            (2, n)
        } else {
            (1, tail.strip_prefix("alpha")?)
        };
        Some((major, level, n.parse().ok()?))
    };
    match parse(v) {
        Some((major, level, minor)) => (level, major, minor, String::new()),
        None => (0, 0, 0, v.to_owned()),
    }
}

/// Merges single-version CRDs of one kind into one multi-version CRD.
///
/// Exactly one version must be the storage version and at least one served.
pub fn merge_crds(crds: &[Value]) -> Result<Value, CrdError> {
    merge(crds, false)
}

/// [`merge_crds`] for kinds that declare `allow_lossy_versions`: served
/// versions may then hold different fields without a conversion.
pub fn merge_crds_allowing_lossy_versions(crds: &[Value]) -> Result<Value, CrdError> {
    merge(crds, true)
}

/// The merged CRD: the first CRD with every version, sorted by
/// [`version_priority`], and the one conversion; refuses lossy versions
/// unless `allow_lossy`.
fn merge(crds: &[Value], allow_lossy: bool) -> Result<Value, CrdError> {
    let Some(first) = crds.first() else {
        return Err(CrdError::Merge("no CRDs given".into()));
    };
    let name = first.pointer("/metadata/name").cloned().unwrap_or_default();
    let mut versions = collect_versions(first, crds)?;
    check_storage_and_served(&name, &versions)?;
    crate::sorting::sort_by_key(&mut versions, |v| {
        std::cmp::Reverse(version_priority(
            v.get("name").and_then(Value::as_str).unwrap_or(""),
        ))
    });
    let conversion = merged_conversion(&name, crds)?;
    if conversion.is_none() && !allow_lossy {
        refuse_lossy_versions(&name, first, &versions)?;
    }
    let mut out = first.clone();
    out["spec"]["versions"] = Value::Array(versions);
    match conversion {
        Some(c) => out["spec"]["conversion"] = c,
        None => {
            if let Some(spec) = out["spec"].as_object_mut() {
                spec.remove("conversion");
            }
        }
    }
    Ok(out)
}

/// Every version of every CRD, in the order given; the CRDs must all name
/// the `first` one's kind (name, group, kind, scope) and no version may
/// come twice.
fn collect_versions(first: &Value, crds: &[Value]) -> Result<Vec<Value>, CrdError> {
    let mut versions: Vec<Value> = Vec::new();
    for crd in crds {
        for key in [
            "/metadata/name",
            "/spec/group",
            "/spec/names/kind",
            "/spec/scope",
        ] {
            if crd.pointer(key) != first.pointer(key) {
                return Err(CrdError::Merge(format!(
                    "`{key}` differs: {} vs {}",
                    first.pointer(key).unwrap_or(&Value::Null),
                    crd.pointer(key).unwrap_or(&Value::Null)
                )));
            }
        }
        for v in crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if versions.iter().any(|x| x.get("name") == v.get("name")) {
                return Err(CrdError::Merge(format!(
                    "version {} is given twice",
                    v.get("name").unwrap_or(&Value::Null)
                )));
            }
            versions.push(v.clone());
        }
    }
    Ok(versions)
}

/// Exactly one of the versions is the storage version, and at least one
/// is served.
fn check_storage_and_served(name: &Value, versions: &[Value]) -> Result<(), CrdError> {
    let storage: Vec<&str> = versions
        .iter()
        .filter(|v| v.get("storage") == Some(&Value::Bool(true)))
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .collect();
    if storage.len() != 1 {
        return Err(CrdError::Merge(format!(
            "CRD {name} needs exactly one storage version, found {} ({}); mark the others `storage = false`",
            storage.len(),
            storage.join(", ")
        )));
    }
    if !versions
        .iter()
        .any(|v| v.get("served") == Some(&Value::Bool(true)))
    {
        return Err(CrdError::Merge(format!("CRD {name} has no served version")));
    }
    Ok(())
}

/// The one `spec.conversion` the versions declare (written on one version,
/// or identically on several).
fn merged_conversion(name: &Value, crds: &[Value]) -> Result<Option<Value>, CrdError> {
    let mut found: Option<&Value> = None;
    for c in crds.iter().filter_map(|c| c.pointer("/spec/conversion")) {
        match found {
            Some(f) if f != c => {
                return Err(CrdError::Merge(format!(
                    "CRD {name}: versions declare different `conversion(...)` settings ({} vs {}); write `conversion(...)` once, on one version of the kind",
                    output::to_json(f),
                    output::to_json(c)
                )));
            }
            _ => found = Some(c),
        }
    }
    Ok(found.cloned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::{crd_json, fixtures};

    #[test]
    fn merge_needs_one_storage_version() {
        let (res, spec) = (fixtures::res, fixtures::spec);
        let a = crd_json(&res("v1", true), spec(), None).unwrap();
        let b = crd_json(&res("v1beta1", true), spec(), None).unwrap();
        let e = merge_crds(&[a.clone(), b]).unwrap_err().to_string();
        assert!(e.contains("exactly one storage version"), "{e}");
        let c = crd_json(&res("v1alpha1", false), spec(), None).unwrap();
        let merged = merge_crds(&[c, a]).unwrap();
        assert_eq!(merged["spec"]["versions"][0]["name"], "v1");
        assert_eq!(merged["spec"]["versions"][1]["name"], "v1alpha1");
    }
}

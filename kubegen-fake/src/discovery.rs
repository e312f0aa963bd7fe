//! Discovery as the apiserver serves it: `/api`, `/apis` (legacy, and
//! aggregated `apidiscovery.k8s.io/v2` when the client asks for it),
//! `/apis/<group>`, each group version's resource list with its
//! subresources, and `/version`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::resources::Resource;

/// The Kubernetes version the server answers as.
pub const KUBERNETES_VERSION: (&str, &str) = ("1", "36");

const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// Group name → versions (preferred first), in the order the apiserver
/// lists groups (the order resources were registered).
fn groups(resources: &[Resource]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for r in resources.iter().filter(|r| !r.group.is_empty()) {
        match out.iter_mut().find(|(g, _)| *g == r.group) {
            Some((_, vs)) => {
                if !vs.contains(&r.version) {
                    vs.push(r.version.clone());
                }
            }
            None => out.push((r.group.clone(), vec![r.version.clone()])),
        }
    }
    for (_, vs) in &mut out {
        vs.sort_by_key(|v| std::cmp::Reverse(version_priority(v)));
    }
    out
}

/// Kubernetes' version ordering: GA over beta over alpha, higher
/// numbers first.
fn version_priority(v: &str) -> (u8, u64, u64) {
    let rest = v.strip_prefix('v').unwrap_or(v);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let major = digits.parse().unwrap_or(0);
    let tail = &rest[digits.len()..];
    let (level, minor) = if tail.is_empty() {
        (3, 0)
    } else if let Some(b) = tail.strip_prefix("beta") {
        (2, b.parse().unwrap_or(0))
    } else if let Some(a) = tail.strip_prefix("alpha") {
        (1, a.parse().unwrap_or(0))
    } else {
        (0, 0)
    };
    (level, major, minor)
}

fn group_json(name: &str, versions: &[String]) -> Value {
    let gv = |v: &String| json!({"groupVersion": format!("{name}/{v}"), "version": v});
    json!({
        "name": name,
        "versions": versions.iter().map(gv).collect::<Vec<_>>(),
        "preferredVersion": gv(&versions[0]),
    })
}

/// `/api`.
pub fn core_versions() -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "kubegen-fake:443"}],
    })
}

/// `/apis` as an `APIGroupList`.
pub fn group_list(resources: &[Resource]) -> Value {
    json!({
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": groups(resources).iter().map(|(g, vs)| group_json(g, vs)).collect::<Vec<_>>(),
    })
}

/// `/apis/<group>`, if served.
pub fn group(resources: &[Resource], name: &str) -> Option<Value> {
    let (g, vs) = groups(resources).into_iter().find(|(g, _)| g == name)?;
    let mut v = group_json(&g, &vs);
    v["kind"] = json!("APIGroup");
    v["apiVersion"] = json!("v1");
    Some(v)
}

fn subresources(r: &Resource) -> Vec<(&'static str, Value, Vec<&'static str>)> {
    let mut out = Vec::new();
    if r.status {
        out.push((
            "status",
            json!({"group": r.group, "version": r.version, "kind": r.kind}),
            vec!["get", "patch", "update"],
        ));
    }
    if r.scale.is_some() {
        out.push((
            "scale",
            json!({"group": "autoscaling", "version": "v1", "kind": "Scale"}),
            vec!["get", "patch", "update"],
        ));
    }
    out
}

/// `/api/v1` or `/apis/<group>/<version>`, if served.
pub fn resource_list(resources: &[Resource], group: &str, version: &str) -> Option<Value> {
    let rs: Vec<&Resource> = resources
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .collect();
    if rs.is_empty() {
        return None;
    }
    let mut list = Vec::new();
    for r in rs {
        let mut entry = json!({
            "name": r.plural,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": VERBS,
        });
        if !r.short_names.is_empty() {
            entry["shortNames"] = json!(r.short_names);
        }
        if !r.categories.is_empty() {
            entry["categories"] = json!(r.categories);
        }
        list.push(entry);
        for (name, kind, verbs) in subresources(r) {
            let mut sub = json!({
                "name": format!("{}/{name}", r.plural),
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": kind["kind"],
                "verbs": verbs,
            });
            if kind["group"] != r.group.as_str() {
                sub["group"] = kind["group"].clone();
                sub["version"] = kind["version"].clone();
            }
            list.push(sub);
        }
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": list,
    }))
}

/// Aggregated discovery (`apidiscovery.k8s.io/v2`) of the core group
/// (`core`) or of every named group.
pub fn aggregated(resources: &[Resource], core: bool) -> Value {
    let mut by_group: BTreeMap<String, Vec<&Resource>> = BTreeMap::new();
    for r in resources.iter().filter(|r| r.group.is_empty() == core) {
        by_group.entry(r.group.clone()).or_default().push(r);
    }
    let order = if core {
        vec![(String::new(), vec!["v1".to_string()])]
    } else {
        groups(resources)
    };
    let items: Vec<Value> = order
        .iter()
        .map(|(g, versions)| {
            let rs = by_group.get(g).cloned().unwrap_or_default();
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| {
                    let resources: Vec<Value> = rs
                        .iter()
                        .filter(|r| r.version == *v)
                        .map(|r| {
                            let mut e = json!({
                                "resource": r.plural,
                                "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
                                "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
                                "singularResource": r.singular,
                                "verbs": VERBS,
                            });
                            if !r.short_names.is_empty() {
                                e["shortNames"] = json!(r.short_names);
                            }
                            if !r.categories.is_empty() {
                                e["categories"] = json!(r.categories);
                            }
                            let subs: Vec<Value> = subresources(r)
                                .into_iter()
                                .map(|(name, kind, verbs)| {
                                    json!({"subresource": name, "responseKind": kind, "verbs": verbs})
                                })
                                .collect();
                            if !subs.is_empty() {
                                e["subresources"] = json!(subs);
                            }
                            e
                        })
                        .collect();
                    json!({"version": v, "resources": resources, "freshness": "Current"})
                })
                .collect();
            let mut meta = json!({"creationTimestamp": null});
            if !g.is_empty() {
                meta["name"] = json!(g);
            }
            json!({"metadata": meta, "versions": versions})
        })
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    })
}

/// `/version`.
pub fn version() -> Value {
    let (major, minor) = KUBERNETES_VERSION;
    json!({
        "major": major,
        "minor": minor,
        "gitVersion": format!("v{major}.{minor}.3"),
        "gitCommit": "kubegen-fake",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "none (kubegen-fake)",
        "compiler": "rustc",
        "platform": "in-process",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::builtins;

    #[test]
    fn versions_sort_as_kubernetes_sorts_them() {
        let mut vs = vec!["v1alpha1", "v2beta1", "v1", "v2", "v1beta2", "v1beta1"];
        vs.sort_by_key(|v| std::cmp::Reverse(version_priority(v)));
        assert_eq!(
            vs,
            ["v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1"]
        );
    }

    #[test]
    fn resource_lists_name_subresources() {
        let rs = builtins();
        let apps = resource_list(&rs, "apps", "v1").unwrap();
        let names: Vec<&str> = apps["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"deployments/status") && names.contains(&"deployments/scale"));
        assert!(group(&rs, "apps").is_some());
        assert!(resource_list(&rs, "nope", "v1").is_none());
        let agg = aggregated(&rs, false);
        assert_eq!(agg["items"][0]["metadata"]["name"], "apps");
    }
}

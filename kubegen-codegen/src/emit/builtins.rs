//! The built-in kinds a crate may list under `builtins` in
//! `[package.metadata.kubegen]`, served by the same generated factory.

use quote::format_ident;

use super::Kind;
use kubegen_core::model::Verb;

/// Built-in kinds known to the generator: (group, version, kind, namespaced,
/// k8s-openapi module under `k8s_openapi::api`, status subresource).
const BUILTINS: &[(&str, &str, &str, bool, &str, bool)] = &[
    ("", "v1", "ConfigMap", true, "core::v1", false),
    ("", "v1", "Endpoints", true, "core::v1", false),
    ("", "v1", "Event", true, "core::v1", false),
    ("", "v1", "Namespace", false, "core::v1", true),
    ("", "v1", "Node", false, "core::v1", true),
    ("", "v1", "PersistentVolumeClaim", true, "core::v1", true),
    ("", "v1", "Pod", true, "core::v1", true),
    ("", "v1", "Secret", true, "core::v1", false),
    ("", "v1", "Service", true, "core::v1", true),
    ("", "v1", "ServiceAccount", true, "core::v1", false),
    ("apps", "v1", "DaemonSet", true, "apps::v1", true),
    ("apps", "v1", "Deployment", true, "apps::v1", true),
    ("apps", "v1", "ReplicaSet", true, "apps::v1", true),
    ("apps", "v1", "StatefulSet", true, "apps::v1", true),
    ("batch", "v1", "CronJob", true, "batch::v1", true),
    ("batch", "v1", "Job", true, "batch::v1", true),
    (
        "coordination.k8s.io",
        "v1",
        "Lease",
        true,
        "coordination::v1",
        false,
    ),
    ("events.k8s.io", "v1", "Event", true, "events::v1", false),
    (
        "networking.k8s.io",
        "v1",
        "Ingress",
        true,
        "networking::v1",
        true,
    ),
    (
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        true,
        "networking::v1",
        false,
    ),
    (
        "policy",
        "v1",
        "PodDisruptionBudget",
        true,
        "policy::v1",
        true,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        false,
        "rbac::v1",
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        false,
        "rbac::v1",
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        true,
        "rbac::v1",
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        true,
        "rbac::v1",
        false,
    ),
];

fn gvk((group, version, kind, ..): &(&str, &str, &str, bool, &str, bool)) -> String {
    if group.is_empty() {
        format!("{version}/{kind}")
    } else {
        format!("{group}/{version}/{kind}")
    }
}

/// Every known built-in, as `group/version/Kind` (`version/Kind` for core).
pub fn known() -> Vec<String> {
    BUILTINS.iter().map(gvk).collect()
}

/// The built-in `group/version/Kind` (`v1/Service`, `apps/v1/Deployment`),
/// with every verb, or `None` when kubegen does not know it.
pub fn builtin(wanted: &str) -> Option<Kind> {
    let entry = BUILTINS.iter().find(|b| gvk(b) == wanted)?;
    let &(group, version, kind, namespaced, module, status) = entry;
    let module_text = module;
    let module: syn::Path = syn::parse_str(module).ok()?;
    let kind_ident = format_ident!("{kind}");
    Some(Kind {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.to_string(),
        namespaced,
        path: syn::parse_quote!(::kubegen::k8s_openapi::api::#module::#kind_ident),
        apply: Some(super::ApplySource::Builtin {
            definition: format!("io.k8s.api.{}.{kind}", module_text.replace("::", ".")),
        }),
        verbs: Verb::ALL.iter().map(|(_, v)| *v).collect(),
        status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_resolves_with_all_verbs() {
        for name in known() {
            let kind = builtin(&name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(kind.verbs.len(), Verb::ALL.len(), "{name}");
        }
        assert_eq!(
            builtin("apps/v1/Deployment").map(|k| k.namespaced),
            Some(true)
        );
        assert!(builtin("v1/Deployment").is_none());
    }
}

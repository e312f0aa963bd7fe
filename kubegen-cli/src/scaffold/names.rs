//! Names derived from `kubegen new`'s inputs: the package and its Rust
//! identifier, the kind's plural, its snake and kebab forms, and the
//! accessors the generated clientset and informer factory will have.

use kubegen_codegen::names::{accessor_name, group_name, group_version_module, snake_case};
use kubegen_core::plural::pluralize;

/// Every name the templates use, derived from validated inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// The package name (the target directory's name), `my-operator`.
    pub package: String,
    /// The library's Rust name, `my_operator`.
    pub crate_ident: String,
    /// The API group, `stable.example.com`.
    pub group: String,
    /// The API version, `v1`.
    pub version: String,
    /// The kind, `MyApplication`.
    pub kind: String,
    /// The resource (lower-case plural), `myapplications`.
    pub plural: String,
    /// The kind in kebab case, `my-application`.
    pub kind_kebab: String,
    /// The generated group accessor, `stable`.
    pub group_accessor: String,
    /// The generated group-version module, `stable_v1`.
    pub group_version_module: String,
    /// The generated per-kind accessor, `my_applications`.
    pub kind_accessor: String,
    /// The Helm chart's name, a DNS label: `my-operator` (`My_Op` → `my-op`).
    pub chart: String,
}

impl Names {
    /// Derives every name; the inputs must have passed validation.
    pub fn new(package: &str, group: &str, version: &str, kind: &str) -> Names {
        let group_accessor = group_name(group);
        let kind_snake = snake_case(kind);
        Names {
            package: package.to_string(),
            crate_ident: package.replace('-', "_"),
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            plural: pluralize(kind),
            kind_kebab: kind_snake.replace('_', "-"),
            group_version_module: group_version_module(&group_accessor, version),
            group_accessor,
            kind_accessor: accessor_name(kind),
            chart: crate::chart::suggested_name(package),
        }
    }

    /// The `{{name}}` → value pairs the templates are rendered with.
    pub fn variables(&self) -> Vec<(&'static str, String)> {
        vec![
            ("package", self.package.clone()),
            ("crate_ident", self.crate_ident.clone()),
            ("group", self.group.clone()),
            ("version", self.version.clone()),
            ("kind", self.kind.clone()),
            ("plural", self.plural.clone()),
            ("kind_kebab", self.kind_kebab.clone()),
            ("group_accessor", self.group_accessor.clone()),
            ("group_version_module", self.group_version_module.clone()),
            ("kind_accessor", self.kind_accessor.clone()),
            ("chart", self.chart.clone()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_names() {
        let n = Names::new("my-operator", "stable.example.com", "v1", "MyApplication");
        assert_eq!(n.crate_ident, "my_operator");
        assert_eq!(n.plural, "myapplications");
        assert_eq!(n.kind_kebab, "my-application");
        assert_eq!(n.group_accessor, "stable");
        assert_eq!(n.group_version_module, "stable_v1");
        assert_eq!(n.kind_accessor, "my_applications");
        assert_eq!(n.chart, "my-operator");
        assert_eq!(Names::new("My_Op", "a.b", "v1", "K").chart, "my-op");

        let n = Names::new(
            "policy_op",
            "net-pol.example.io",
            "v1beta1",
            "NetworkPolicy",
        );
        assert_eq!(n.crate_ident, "policy_op");
        assert_eq!(n.plural, "networkpolicies");
        assert_eq!(n.kind_kebab, "network-policy");
        assert_eq!(n.group_accessor, "net_pol");
        assert_eq!(n.group_version_module, "net_pol_v1beta1");
        assert_eq!(n.kind_accessor, "network_policies");

        let n = Names::new("boxes", "store.example.com", "v2alpha1", "Box");
        assert_eq!(n.plural, "boxes");
        assert_eq!(n.kind_accessor, "boxes");
    }
}

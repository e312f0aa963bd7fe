//! Every naming rule of generated Rust code: accessors, module and type
//! names derived from kinds, groups and versions. CRD names (plurals) come
//! from the one pluralizer in `kubegen_core::plural`.

use std::collections::BTreeSet;

use kubegen_core::plural::pluralize;

/// `MyApplication` → `my_applications`: snake case with the last word
/// pluralized by the one pluralizer.
pub fn accessor_name(kind: &str) -> String {
    let snake = snake_case(&kind_type(kind));
    match snake.rsplit_once('_') {
        Some((head, last)) => format!("{head}_{}", pluralize(last)),
        None => pluralize(&snake),
    }
}

/// The Rust type of a kind: the kind itself when it is PascalCase
/// (`MyApplication`); the apiserver also accepts kinds in lower case and
/// with `-` (a DNS-1035 label once lower-cased), whose type starts each
/// `-`-separated word with a capital: `postgresql` → `Postgresql`,
/// `my-app` → `MyApp`.
/// (`Self`, a keyword, becomes `Self_`.)
pub fn kind_type(kind: &str) -> String {
    let ty: String = kind
        .split('-')
        .flat_map(|word| {
            let mut chars = word.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars)
        })
        .collect();
    if ty == "Self" { "Self_".into() } else { ty }
}

/// The name of a type generated for a kind: [`kind_type`] + `suffix`
/// (`MyApplication` + `Client` → `MyApplicationClient`).
pub fn kind_type_name(kind: &str, suffix: &str) -> String {
    kind_type(kind) + suffix
}

/// `MyApplication` → `my_application`, `HTTPRoute` → `http_route`.
pub fn snake_case(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The group's accessor: its first DNS label (`stable.example.com` →
/// `stable`), `core` for the core group; a label starting with a digit, as
/// DNS allows, gets a `g` in front (`3scale.net` → `g3scale`).
pub fn group_name(group: &str) -> String {
    if group.is_empty() {
        return "core".into();
    }
    let label = group.split('.').next().unwrap_or(group);
    let name = label.replace('-', "_").to_ascii_lowercase();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("g{name}")
    } else {
        name
    }
}

/// `stable` + `v1` → `stable_v1`: the module of one group version.
pub fn group_version_module(group_accessor: &str, version: &str) -> String {
    format!("{group_accessor}_{version}")
}

/// `v1beta1` → `V1beta1`, `my_group` → `MyGroup`.
pub fn pascal(s: &str) -> String {
    s.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// `apps` + `v1` → `apps/v1`; the core group gives `v1`.
pub fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// The apply configuration type of a Go type or schema path:
/// `Deployment` → `DeploymentApply`, `MyApplicationSpec` →
/// `MyApplicationSpecApply`.
pub fn apply_type(base: &str) -> String {
    format!("{base}Apply")
}

/// A JSON field name as a part of a type name: `availableReplicas` →
/// `AvailableReplicas`, `x-kubernetes-foo` → `XKubernetesFoo` (each run of
/// letters and digits starts with a capital, everything else dropped).
pub fn pascal_json(json: &str) -> String {
    json.split(|c: char| !c.is_ascii_alphanumeric())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The Rust field of a JSON field in an apply configuration, before
/// keywords are dealt with ([`apply_field_ident`]): snake case, any
/// character that cannot be in an identifier as `_`, an acronym's plural
/// kept whole (`podIPs` → `pod_ips`, `$ref` → `ref`, `x-kubernetes-a` →
/// `x_kubernetes_a`); a leading digit gets a `_` in front.
pub fn apply_field_base(json: &str) -> String {
    let chars: Vec<char> = json
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let mut snake = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next = chars.get(i + 1).copied();
            // `IPs`: a plural `s` after an acronym does not start a word.
            let plural =
                next == Some('s') && chars.get(i + 2).is_none_or(|n| !n.is_ascii_lowercase());
            let next_lower = next.is_some_and(|n| n.is_ascii_lowercase()) && !plural;
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                snake.push('_');
            }
        }
        snake.push(c.to_ascii_lowercase());
    }
    let mut parts: Vec<&str> = snake.split('_').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        parts.push("field");
    }
    let joined = parts.join("_");
    if joined.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{joined}")
    } else {
        joined
    }
}

/// The Rust field identifier of a JSON field in an apply configuration:
/// [`apply_field_base`], with keywords as k8s-openapi writes them (`type` →
/// `type_`), raw otherwise (`r#match`), and a `_` after the keywords that
/// cannot be raw (`self_`).
pub fn apply_field_ident(json: &str) -> String {
    apply_ident(&apply_field_base(json))
}

/// The identifier of the apply-configuration field whose base name is
/// `base` (what [`apply_field_base`] gives, made unique in its struct):
/// `type` → `type_`, `match` → `r#match`, `self` → `self_`.
pub fn apply_ident(base: &str) -> String {
    match base {
        "type" | "self" | "super" | "crate" | "Self" => format!("{base}_"),
        _ if syn::parse_str::<syn::Ident>(base).is_err() => format!("r#{base}"),
        _ => base.to_owned(),
    }
}

/// The module holding the apply configuration of a built-in definition:
/// the Go package's name and version, `io.k8s.api.core.v1.Container` →
/// `core_v1`, `io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector` →
/// `meta_v1` (the clientset's module name whenever the group's accessor is
/// its first label, as for every built-in group unless a custom group
/// shares it). A name a custom kind's module already has gets `k8s_` in
/// front (`k8s_apps_v1`), so the two never share a file.
pub fn builtin_apply_module(definition: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let segments: Vec<&str> = definition.split('.').collect();
    let n = segments.len();
    let (package, version) = match n {
        0..=2 => ("k8s", segments.first().copied().unwrap_or("types")),
        _ => (segments[n - 3], segments[n - 2]),
    };
    let module = group_version_module(package, version)
        .replace('-', "_")
        .to_ascii_lowercase();
    if taken(&module) {
        format!("k8s_{module}")
    } else {
        module
    }
}

/// Names handed out in one namespace (a module's types, a struct's
/// fields, an enum's variants): a taken name gets `2`, `3`, … appended.
#[derive(Default, Debug)]
pub struct Namespace {
    taken: BTreeSet<String>,
}

impl Namespace {
    /// A namespace where `reserved` are already taken.
    pub fn with_reserved<'a>(reserved: impl IntoIterator<Item = &'a str>) -> Self {
        Namespace {
            taken: reserved.into_iter().map(str::to_owned).collect(),
        }
    }

    /// `wanted`, or the first free `wanted2`, `wanted3`, … .
    pub fn claim(&mut self, wanted: &str) -> String {
        let bare = wanted.trim_start_matches("r#");
        let mut candidate = wanted.to_owned();
        let mut n = 2;
        while self.taken.contains(candidate.trim_start_matches("r#")) {
            candidate = format!("{bare}{n}");
            n += 1;
        }
        self.taken
            .insert(candidate.trim_start_matches("r#").to_owned());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessor_names_pluralize_the_last_word() {
        assert_eq!(accessor_name("MyApplication"), "my_applications");
        assert_eq!(accessor_name("NetworkPolicy"), "network_policies");
        assert_eq!(accessor_name("Ingress"), "ingresses");
        assert_eq!(accessor_name("Endpoints"), "endpoints");
        assert_eq!(accessor_name("HTTPRoute"), "http_routes");
        assert_eq!(accessor_name("Foo"), "foos");
        assert_eq!(accessor_name("pg-cluster"), "pg_clusters");
    }

    #[test]
    fn kinds_the_apiserver_accepts_name_pascal_case_types() {
        assert_eq!(kind_type("MyApplication"), "MyApplication");
        assert_eq!(kind_type("postgresql"), "Postgresql");
        assert_eq!(kind_type("pg-cluster"), "PgCluster");
        assert_eq!(kind_type("Self"), "Self_");
        assert_eq!(kind_type_name("postgresql", "Client"), "PostgresqlClient");
        assert_eq!(group_name("3scale.net"), "g3scale");
        assert_eq!(pascal(&group_name("3scale.net")), "G3scale");
    }

    #[test]
    fn group_accessors_use_the_first_label() {
        assert_eq!(group_name("stable.example.com"), "stable");
        assert_eq!(group_name(""), "core");
        assert_eq!(group_name("rbac.authorization.k8s.io"), "rbac");
        assert_eq!(pascal("stable"), "Stable");
        assert_eq!(pascal("v1beta1"), "V1beta1");
    }

    #[test]
    fn snake_cases() {
        for (pascal, snake) in [
            ("MyApplication", "my_application"),
            ("Pod", "pod"),
            ("HTTPRoute", "http_route"),
            ("CronJob", "cron_job"),
            ("Http2Route", "http2_route"),
            ("IPAddress", "ip_address"),
        ] {
            assert_eq!(snake_case(pascal), snake, "{pascal}");
        }
    }

    #[test]
    fn apply_names() {
        for (json, ident) in [
            ("availableReplicas", "available_replicas"),
            ("podIPs", "pod_ips"),
            ("clusterIPs", "cluster_ips"),
            ("hostIP", "host_ip"),
            ("type", "type_"),
            ("match", "r#match"),
            ("$ref", "r#ref"),
            ("x-kubernetes-list-type", "x_kubernetes_list_type"),
            ("9lives", "_9lives"),
            ("self", "self_"),
        ] {
            assert_eq!(apply_field_ident(json), ident, "{json}");
        }
        assert_eq!(pascal_json("availableReplicas"), "AvailableReplicas");
        assert_eq!(pascal_json("x-kubernetes-foo"), "XKubernetesFoo");
        let none = |_: &str| false;
        assert_eq!(
            builtin_apply_module("io.k8s.api.core.v1.Container", &none),
            "core_v1"
        );
        assert_eq!(
            builtin_apply_module("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector", &none),
            "meta_v1"
        );
        assert_eq!(
            builtin_apply_module("io.k8s.api.apps.v1.Deployment", &|m: &str| m == "apps_v1"),
            "k8s_apps_v1"
        );
    }

    #[test]
    fn namespaces_never_hand_out_a_name_twice() {
        let mut ns = Namespace::with_reserved(["Spec"]);
        assert_eq!(ns.claim("Spec"), "Spec2");
        assert_eq!(ns.claim("Tls"), "Tls");
        assert_eq!(ns.claim("Tls"), "Tls2");
        assert_eq!(ns.claim("r#type"), "r#type");
        assert_eq!(ns.claim("r#type"), "type2");
    }
}

//! Every naming rule of generated Rust code: accessors, module and type
//! names derived from kinds, groups and versions. CRD names (plurals) come
//! from the one pluralizer in `kubegen_core::plural`.

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
}

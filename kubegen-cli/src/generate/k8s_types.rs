//! The k8s-openapi types the CLI knows without compiling the user's crate:
//! every type of kubegen's built-in table (`kubegen_core::builtin`), the
//! same table whose `KubeSchema` impls the derive calls, so both give the
//! same upstream schema. A type is found by its path
//! (`k8s_openapi::api::batch::v1::JobTemplateSpec`, also through the
//! runtime's re-export `kubegen::k8s_openapi::…`), or by its bare name when
//! no other type of the table has that name.

use kubegen_core::builtin::{self, BuiltinType};

/// The path below `k8s_openapi` of `k8s_openapi::…` or
/// `kubegen::k8s_openapi::…`.
pub fn under_k8s_openapi(segments: &[String]) -> Option<&[String]> {
    match segments {
        [first, rest @ ..] if first == "k8s_openapi" => Some(rest),
        [first, second, rest @ ..] if first == "kubegen" && second == "k8s_openapi" => Some(rest),
        _ => None,
    }
}

/// The type at `path` below `k8s_openapi` (`["api", "core", "v1", "Pod"]`).
pub fn by_path(path: &[String]) -> Result<BuiltinType, String> {
    let joined = path.join("::");
    builtin::by_path(&joined).ok_or_else(|| {
        let name = path.last().map(String::as_str).unwrap_or_default();
        let others = builtin::by_name(name);
        let hint = match others.as_slice() {
            [] => String::new(),
            some => format!("; did you mean {}?", listed(some)),
        };
        format!(
            "`k8s_openapi::{joined}` has no schema in kubegen's table of built-in types \
             (the OpenAPI definitions of Kubernetes {}; generic types and `*List`s have \
             none){hint}",
            kubernetes_version()
        )
    })
}

/// The type `name` of the k8s-openapi module `module` (below `k8s_openapi`),
/// for a glob import of that module.
pub fn in_module(module: &[String], name: &str) -> Option<BuiltinType> {
    let mut path = module.join("::");
    path.push_str("::");
    path.push_str(name);
    builtin::by_path(&path)
}

/// The one k8s-openapi type named `name`.
pub fn by_name(name: &str) -> Result<BuiltinType, String> {
    match builtin::by_name(name).as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "cannot resolve type `{name}`: no type of that name derives `KubeSchema` in the \
             scanned modules, and no k8s-openapi type has that name; add \
             `#[derive(KubeSchema)]` to it (or add its module to `modules` in \
             [package.metadata.kubegen])"
        )),
        many => Err(format!(
            "type `{name}` is ambiguous: k8s-openapi has {} types of that name, {}; import \
             the one you mean (`use k8s_openapi::…::{name};`) or write its path",
            many.len(),
            listed(many)
        )),
    }
}

fn listed(types: &[BuiltinType]) -> String {
    types
        .iter()
        .map(|t| format!("`k8s_openapi::{}`", t.path()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn kubernetes_version() -> String {
    builtin::table()
        .ok()
        .and_then(|t| t.provenance.get("kubernetes")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<String> {
        s.split("::").map(str::to_string).collect()
    }

    #[test]
    fn paths_through_k8s_openapi_or_the_runtime() {
        let job = p("k8s_openapi::api::batch::v1::JobTemplateSpec");
        let via_runtime = p("kubegen::k8s_openapi::api::batch::v1::JobTemplateSpec");
        assert_eq!(under_k8s_openapi(&job), under_k8s_openapi(&via_runtime));
        let t = by_path(under_k8s_openapi(&job).unwrap()).unwrap();
        assert_eq!(t.definition(), "io.k8s.api.batch.v1.JobTemplateSpec");
        assert!(under_k8s_openapi(&p("crate::api::Pod")).is_none());
        let e = by_path(&p("api::core::v1::JobTemplateSpec")).unwrap_err();
        assert!(
            e.contains("did you mean `k8s_openapi::api::batch::v1::JobTemplateSpec`?"),
            "{e}"
        );
        assert!(
            by_path(&p("api::core::v1::PodList"))
                .unwrap_err()
                .contains("`*List`s")
        );
    }

    #[test]
    fn bare_names_must_be_unique() {
        assert_eq!(
            by_name("RawExtension").unwrap().path(),
            "apimachinery::pkg::runtime::RawExtension"
        );
        let e = by_name("ServiceReference").unwrap_err();
        assert!(e.contains("is ambiguous"), "{e}");
        assert!(
            e.contains(
                "`k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::ServiceReference`"
            ),
            "{e}"
        );
        assert!(e.contains("use k8s_openapi::…::ServiceReference;"), "{e}");
        assert!(
            by_name("Nope")
                .unwrap_err()
                .contains("no k8s-openapi type has that name")
        );
        assert_eq!(
            in_module(&p("api::core::v1"), "Volume").map(|t| t.definition()),
            Some("io.k8s.api.core.v1.Volume")
        );
        assert!(in_module(&p("api::core::v1"), "JobTemplateSpec").is_none());
    }
}

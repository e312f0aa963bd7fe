//! A kind root's `::kubegen::apply_root!` invocation as text: what the
//! derive (`expand::apply`) and the emitted apply configuration modules
//! (`emit::apply`, the CLI's) both write, so that the two agree and the
//! derive needs none of the emitters.

/// What makes a struct a kind's root.
#[derive(Clone)]
pub(crate) struct Top {
    pub kind: String,
    /// `apps/v1`.
    pub api_version: String,
    pub namespaced: bool,
    pub status: bool,
    /// The resource type's path, as written (`crate::api::Thing`).
    pub resource: String,
    /// Where its schema comes from.
    pub schema: SchemaSource,
}

/// Where a root's schema comes from.
#[derive(Clone)]
pub(crate) enum SchemaSource {
    /// A version of the custom resource's CRD.
    Crd { version: String },
    /// A definition of the built-in table (the emitters' roots of
    /// built-in kinds; the derive writes custom resources only).
    #[cfg(feature = "emit")]
    Builtin { definition: String },
}

/// The metadata builders a root forwards to its `ObjectMetaApply`.
pub(crate) const METADATA_BUILDERS: [&str; 4] =
    ["labels", "annotations", "owner_references", "finalizers"];

/// A kind root's `apply_root!` invocation (`krate` is the path the runtime
/// is reached by), forwarding the metadata builders `forwards`.
pub(crate) fn root(krate: &str, name: &str, forwards: &[&str], top: &Top) -> String {
    let scope = if top.namespaced {
        "namespaced"
    } else {
        "cluster"
    };
    let schema = match &top.schema {
        SchemaSource::Crd { version } => format!("crd {version:?}"),
        #[cfg(feature = "emit")]
        SchemaSource::Builtin { definition } => format!("builtin {definition:?}"),
    };
    format!(
        "{krate}::apply_root! {{\n    {name} for {resource} {{\n        api_version: {api_version:?},\n        kind: {kind:?},\n        scope: {scope},\n        status: {status},\n        metadata: [{forwards}],\n        schema: {schema},\n    }}\n}}\n",
        resource = top.resource,
        api_version = top.api_version,
        kind = top.kind,
        status = top.status,
        forwards = forwards.join(" "),
    )
}

/// A path without generics as written (`crate::api::Thing`).
pub(crate) fn path_text(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let lead = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    format!("{lead}{}", segments.join("::"))
}

//! kubegen-codegen: the compile-time half of kubegen, shared by the derive
//! macros (`kubegen-derive`) and the `kubegen` command (`kubegen-cli`).
//!
//! Phases, each a module, data flowing one way:
//!
//! 1. [`attr`]: `#[kubegen(...)]`, serde and doc attributes → typed values
//!    (one key table, duplicates and "did you mean" reported with spans);
//! 2. [`parse`]: a `syn::DeriveInput` → the serde-serializable model of
//!    `kubegen-core` plus the spans later phases report at;
//! 3. [`check`]: one pass over the finished model (cross-field rules);
//! 4. output: [`expand`] (derive token output: the embedded model and the
//!    trait impls), [`emit`] (the generated clientset, lister and informer
//!    modules), [`rbac`] (`#[rbac]` parsing and Role YAML).
//!
//! [`analyze`] runs phases 1–3 for one input; errors from every phase are
//! accumulated in a [`ctxt::Ctxt`] so users see all of them at once.
//! [`names`] holds every naming rule of generated Rust code.

mod apply_root;
pub mod attr;
pub mod check;
pub mod ctxt;
#[cfg(feature = "emit")]
pub mod emit;
pub mod expand;
pub mod names;
pub mod parse;
pub mod rbac;
pub mod re2;

use kubegen_core::model::ResourceModel;

/// A derive input after the parse and check phases: what both the derive
/// (to generate code) and the CLI (to evaluate schemas and emit files) use.
pub struct Analysis {
    /// The type model, nested-type resolvers and spans.
    pub container: parse::Container,
    /// The resource model, for `CustomResource` inputs.
    pub resource: Option<ResourceModel>,
}

/// Parses and checks one derive input: `resource` is true for
/// `CustomResource` (resource keys allowed and required), false for
/// `KubeSchema`. Every error found is returned, combined.
pub fn analyze(input: &syn::DeriveInput, resource: bool) -> syn::Result<Analysis> {
    let cx = ctxt::Ctxt::new();
    let container = parse::container(&cx, input, resource);
    let resource_model = match (&container, resource) {
        (Some(c), true) => parse::resource_model(c),
        _ => None,
    };
    if let Some(c) = &container {
        check::check(&cx, input, c, resource);
    }
    cx.check()?;
    let (Some(container), true) = (container, resource_model.is_some() || !resource) else {
        let what = if resource {
            "CustomResource"
        } else {
            "KubeSchema"
        };
        return Err(syn::Error::new_spanned(
            &input.ident,
            format!("cannot derive {what}"),
        ));
    };
    Ok(Analysis {
        container,
        resource: resource_model,
    })
}

//! Code generation for the derive macros: validated model → `TokenStream`.

mod resource;
mod schema;

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;
use crate::model::ResourceModel;
use crate::model::build;

/// A derive input after the parse and check phases: what both the derive
/// (to generate code) and the CLI (to evaluate schemas and emit files) use.
pub struct Analysis {
    /// The type model, nested-type resolvers and spans.
    pub container: build::Container,
    /// The resource model, for `CustomResource` inputs.
    pub resource: Option<ResourceModel>,
}

/// Parses and checks one derive input: `resource` is true for
/// `CustomResource` (resource keys allowed and required), false for
/// `KubeSchema`. Every error found is returned, combined.
pub fn analyze(input: &syn::DeriveInput, resource: bool) -> syn::Result<Analysis> {
    let cx = Ctxt::new();
    let container = build::build(&cx, input, resource);
    let resource_model = match (&container, resource) {
        (Some(c), true) => resource::resource_model(&cx, input, c),
        _ => None,
    };
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

/// `#[derive(KubeSchema)]`: the schema trait impl.
pub fn derive_kube_schema(input: TokenStream) -> syn::Result<TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let analysis = analyze(&input, false)?;
    Ok(schema::impl_kube_schema(&input, &analysis.container))
}

/// `#[derive(CustomResource)]`: the root type, its trait impls and `crd()`.
pub fn derive_custom_resource(input: TokenStream) -> syn::Result<TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let Analysis {
        container,
        resource,
    } = analyze(&input, true)?;
    let Some(resource) = resource else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "cannot derive CustomResource",
        ));
    };
    let schema_impl = schema::impl_kube_schema(&input, &container);
    let root = resource::root_type(&input, &container, &resource);
    Ok(quote::quote! {
        #schema_impl
        #root
    })
}

/// The path generated code uses for the runtime crate.
fn krate(container: &build::Container) -> syn::Path {
    container
        .crate_path
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::kubegen))
}

/// Gives every token (recursively) the span of the attribute it comes from,
/// so errors from generated `const` checks point at the user's attribute.
fn respan(tokens: proc_macro2::TokenStream, span: proc_macro2::Span) -> proc_macro2::TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

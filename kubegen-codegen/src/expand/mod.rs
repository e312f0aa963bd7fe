//! Code generation for the derive macros: validated model → `TokenStream`.

mod apply;
mod resource;
mod schema;

use proc_macro2::TokenStream;

use crate::parse;
use crate::{Analysis, analyze};

/// `#[derive(KubeSchema)]`: the schema trait impl.
pub fn derive_kube_schema(input: TokenStream) -> syn::Result<TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let analysis = analyze(&input, false)?;
    let schema = schema::impl_kube_schema(&input, &analysis.container);
    let apply = apply::impl_applicable(&input, &analysis.container);
    Ok(quote::quote!(#schema #apply))
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
    let spec_apply = apply::impl_applicable(&input, &container);
    let root_apply = apply::root_apply(&input, &container, &resource);
    Ok(quote::quote! {
        #schema_impl
        #root
        #spec_apply
        #root_apply
    })
}

/// The path generated code uses for the runtime crate.
fn krate(container: &parse::Container) -> syn::Path {
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

//! Reading `#[kubegen(...)]` and `#[serde(...)]` attributes into typed values.

pub mod cel;
pub mod constraints;
pub mod keys;
pub mod resource;
pub mod serde_attr;
pub mod value;
pub mod webhook;

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;
pub use keys::Scope;

/// The span of every key seen on one item, for later cross-field messages.
pub type KeySpans = BTreeMap<&'static str, Span>;

/// The attribute path of kubegen's attributes.
pub const KUBEGEN: &str = "kubegen";

/// Calls `f` for every key of every `#[kubegen(...)]` attribute in `attrs`.
///
/// Unknown and misplaced keys are reported (with a suggestion) and skipped;
/// duplicates of non-repeatable keys are reported. `f` must consume the
/// key's value; it returns `Err` only for malformed syntax, which abandons
/// the rest of that attribute.
pub fn for_each_key(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    scopes: &[Scope],
    mut f: impl FnMut(&'static str, &ParseNestedMeta<'_>) -> syn::Result<()>,
) -> KeySpans {
    let mut spans = KeySpans::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(KUBEGEN)) {
        if let syn::Meta::Path(_) = attr.meta {
            cx.error_spanned_by(attr, "expected `#[kubegen(...)]`");
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            let name = path_name(&meta.path);
            let Some(key) = keys::lookup(&name, scopes) else {
                cx.error_spanned_by(&meta.path, keys::misplaced_or_unknown(&name, scopes));
                return value::skip(&meta);
            };
            if spans.contains_key(key) && !keys::repeatable(key) {
                cx.error_spanned_by(&meta.path, format!("duplicate kubegen attribute `{key}`"));
            }
            spans.insert(key, meta.path.span());
            f(key, &meta)
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    spans
}

/// Where the string literal `text` is in the attributes of `input` (the
/// type's, its fields' and its variants'), for errors about a value
/// found again after parsing (a CEL rule, by its text).
pub fn literal_span(input: &syn::DeriveInput, text: &str) -> Option<proc_macro2::Span> {
    let mut attrs: Vec<&syn::Attribute> = input.attrs.iter().collect();
    match &input.data {
        syn::Data::Struct(s) => attrs.extend(s.fields.iter().flat_map(|f| &f.attrs)),
        syn::Data::Enum(e) => {
            for v in &e.variants {
                attrs.extend(&v.attrs);
                attrs.extend(v.fields.iter().flat_map(|f| &f.attrs));
            }
        }
        syn::Data::Union(_) => {}
    }
    attrs.into_iter().find_map(|a| match &a.meta {
        syn::Meta::List(list) => find_literal(&list.tokens, text),
        _ => None,
    })
}

/// The span of the string literal `text` among `tokens`, at any depth.
fn find_literal(tokens: &proc_macro2::TokenStream, text: &str) -> Option<proc_macro2::Span> {
    use proc_macro2::TokenTree;
    tokens.clone().into_iter().find_map(|tt| match tt {
        TokenTree::Group(g) => find_literal(&g.stream(), text),
        TokenTree::Literal(lit) => {
            let span = lit.span();
            let s: syn::LitStr = syn::parse2(TokenTree::Literal(lit).into()).ok()?;
            (s.value() == text).then_some(span)
        }
        _ => None,
    })
}

/// The path as written, e.g. `min_length` or `a::b`.
pub fn path_name(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// The doc comment of an item, lines joined with `\n`, trimmed; `None` if empty.
pub fn doc_comment(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let line = s.value();
            let line = line
                .strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned();
            lines.push(line);
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// Which kubegen derive a type carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeriveKind {
    /// `#[derive(CustomResource)]` on a spec struct.
    CustomResource,
    /// `#[derive(KubeSchema)]` on a nested type.
    KubeSchema,
}

/// The traits `#[derive(...)]` lists, by last path segment
/// (`kubegen::KubeSchema` → `KubeSchema`).
pub fn derived(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut names = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            names.extend(meta.path.segments.last().map(|s| s.ident.to_string()));
            Ok(())
        });
    }
    names
}

/// Which kubegen derive the attributes request, if any.
pub fn derive_kind(attrs: &[syn::Attribute]) -> Option<DeriveKind> {
    let names = derived(attrs);
    if names.iter().any(|n| n == "CustomResource") {
        Some(DeriveKind::CustomResource)
    } else if names.iter().any(|n| n == "KubeSchema") {
        Some(DeriveKind::KubeSchema)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_derives_by_last_segment() {
        let item: syn::ItemStruct = syn::parse_quote! {
            #[derive(Clone, kubegen::CustomResource, Serialize)]
            struct S;
        };
        assert_eq!(derive_kind(&item.attrs), Some(DeriveKind::CustomResource));
        let item: syn::ItemStruct = syn::parse_quote! {
            #[derive(KubeSchema)]
            #[derive(Debug)]
            struct S;
        };
        assert_eq!(derive_kind(&item.attrs), Some(DeriveKind::KubeSchema));
        let item: syn::ItemStruct = syn::parse_quote! { #[derive(Debug)] struct S; };
        assert_eq!(derive_kind(&item.attrs), None);
    }
}

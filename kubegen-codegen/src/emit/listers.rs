//! The lister emitter: a type alias of `kubegen::lister::Lister` per kind.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Kind;
use crate::names::kind_type_name;

/// The listers module of one group version.
pub(super) fn group_version(kinds: &[Kind]) -> TokenStream {
    let items = kinds.iter().map(|k| {
        let path = &k.path;
        let lister = format_ident!("{}", kind_type_name(&k.kind, "Lister"));
        let doc = format!(
            " Lists `{}` objects from a shared informer's cache (by selector, namespace or index).",
            k.kind
        );
        quote! {
            #[doc = #doc]
            pub type #lister = ::kubegen::lister::Lister<#path>;
        }
    });
    quote!(#(#items)*)
}

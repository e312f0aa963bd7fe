//! The informer emitter: per group version, an `Interface` of typed
//! accessors into the shared informer factory.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Kind;
use crate::names::{accessor_name, kind_type, kind_type_name};

/// The informers module of one group version.
pub(super) fn group_version(module: &syn::Ident, gv: &str, kinds: &[Kind]) -> TokenStream {
    let doc = format!(" Shared informers of `{gv}`.");
    let uses = kinds.iter().map(|k| {
        let path = &k.path;
        quote!(use #path;)
    });
    let accessors = kinds.iter().map(|k| {
        let kind = format_ident!("{}", kind_type(&k.kind));
        let accessor = format_ident!("{}", accessor_name(&k.kind));
        let informer = format_ident!("{}", kind_type_name(&k.kind, "Informer"));
        let doc = format!(" The shared informer of `{}`.", k.kind);
        quote! {
            #[doc = #doc]
            pub fn #accessor(&self) -> #informer { #informer(self.factory.informer::<#kind>()) }
        }
    });
    let informers = kinds.iter().map(|k| {
        let kind = format_ident!("{}", kind_type(&k.kind));
        let informer = format_ident!("{}", kind_type_name(&k.kind, "Informer"));
        let lister = format_ident!("{}", kind_type_name(&k.kind, "Lister"));
        let doc = format!(
            " The shared informer of `{}` objects and its typed lister.",
            k.kind
        );
        quote! {
            #[doc = #doc]
            #[derive(Clone)]
            pub struct #informer(::kubegen::informer::Informer<#kind>);
            impl #informer {
                /// The informer: event handlers, indexers, sync state.
                pub fn informer(&self) -> &::kubegen::informer::Informer<#kind> { &self.0 }
                /// A lister over the informer's cache.
                pub fn lister(&self) -> super::super::listers::#module::#lister { self.0.lister() }
            }
        }
    });
    quote! {
        #(#uses)*
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        pub struct Interface<'a> { factory: &'a ::kubegen::factory::SharedInformerFactory }
        impl<'a> Interface<'a> {
            pub(crate) fn new(factory: &'a ::kubegen::factory::SharedInformerFactory) -> Self { Interface { factory } }
            #(#accessors)*
        }
        #(#informers)*
    }
}

//! The clientset emitter: one typed client per kind, grouped by API group
//! version, each declared with `kubegen::typed_client!` (a newtype over
//! `kubegen::client::ResourceClient` exposing the kind's verbs).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Kind;
use crate::names::{accessor_name, api_version, kind_type, kind_type_name, pascal};
use kubegen_core::model::Verb;

/// The clientset module of one group version.
pub(super) fn group_version(group: &str, version: &str, gv: &str, kinds: &[Kind]) -> TokenStream {
    let client_ty = format_ident!("{}{}Client", pascal(group), pascal(version));
    let doc = format!(" Typed clients for `{gv}`.");
    let accessors = kinds.iter().map(|k| {
        let accessor = format_ident!("{}", accessor_name(&k.kind));
        let ty = format_ident!("{}", kind_type_name(&k.kind, "Client"));
        if k.namespaced {
            let all = format_ident!("{}_all_namespaces", accessor_name(&k.kind));
            let doc = format!(" `{}` objects in `namespace`.", k.kind);
            let doc_all = format!(" `{}` objects across all namespaces (for list, watch and delete_collection).", k.kind);
            quote! {
                #[doc = #doc]
                pub fn #accessor(&self, namespace: &str) -> #ty {
                    #ty(::kubegen::client::ResourceClient::namespaced(self.client.clone(), namespace).with_field_manager(&self.field_manager))
                }
                #[doc = #doc_all]
                pub fn #all(&self) -> #ty {
                    #ty(::kubegen::client::ResourceClient::all_namespaces(self.client.clone()).with_field_manager(&self.field_manager))
                }
            }
        } else {
            let doc = format!(" `{}` objects (cluster-scoped).", k.kind);
            quote! {
                #[doc = #doc]
                pub fn #accessor(&self) -> #ty {
                    #ty(::kubegen::client::ResourceClient::cluster(self.client.clone()).with_field_manager(&self.field_manager))
                }
            }
        }
    });
    let uses = kinds.iter().map(|k| {
        let path = &k.path;
        quote!(use #path;)
    });
    let clients = kinds.iter().map(typed_client);
    quote! {
        #(#uses)*
        #[doc = #doc]
        #[derive(Clone)]
        pub struct #client_ty {
            client: ::kubegen::Client,
            field_manager: ::std::string::String,
        }
        impl #client_ty {
            pub(crate) fn new(client: ::kubegen::Client, field_manager: &str) -> Self {
                #client_ty { client, field_manager: field_manager.into() }
            }
            #(#accessors)*
        }
        #(#clients)*
    }
}

fn typed_client(k: &Kind) -> TokenStream {
    let kind = format_ident!("{}", kind_type(&k.kind));
    let ty = format_ident!("{}", kind_type_name(&k.kind, "Client"));
    let status_verbs = k.status
        && k.verbs
            .iter()
            .any(|v| matches!(v, Verb::UpdateStatus | Verb::ApplyStatus));
    let mut verbs: Vec<&str> = Vec::new();
    for verb in &k.verbs {
        verbs.extend(
            Verb::ALL
                .iter()
                .find(|(_, v)| v == verb)
                .map(|(name, _)| *name),
        );
        if *verb == Verb::Patch && status_verbs {
            verbs.push("patch_status");
        }
    }
    let api_version = api_version(&k.group, &k.version);
    let verbs = verbs.iter().map(|v| format_ident!("{v}"));
    quote! {
        ::kubegen::typed_client! {
            pub struct #ty(#kind, #api_version) { #(#verbs),* }
        }
    }
}

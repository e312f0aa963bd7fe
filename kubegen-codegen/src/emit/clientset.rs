//! The clientset emitter: one typed client per kind, grouped by API group
//! version, each a newtype over `kubegen::client::ResourceClient`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Kind;
use crate::names::{accessor_name, api_version, pascal};
use kubegen_core::model::Verb;

/// The clientset module of one group version.
pub(super) fn group_version(group: &str, version: &str, gv: &str, kinds: &[Kind]) -> TokenStream {
    let client_ty = format_ident!("{}{}Client", pascal(group), pascal(version));
    let doc = format!(" Typed clients for `{gv}`.");
    let accessors = kinds.iter().map(|k| {
        let accessor = format_ident!("{}", accessor_name(&k.kind));
        let ty = format_ident!("{}Client", k.kind);
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
            client: ::kubegen::kube::Client,
            field_manager: ::std::string::String,
        }
        impl #client_ty {
            pub(crate) fn new(client: ::kubegen::kube::Client, field_manager: &str) -> Self {
                #client_ty { client, field_manager: field_manager.into() }
            }
            #(#accessors)*
        }
        #(#clients)*
    }
}

fn typed_client(k: &Kind) -> TokenStream {
    let kind = format_ident!("{}", k.kind);
    let ty = format_ident!("{}Client", k.kind);
    let doc = format!(
        " The typed client of `{}` ({}): {}.",
        k.kind,
        api_version(&k.group, &k.version),
        k.verbs
            .iter()
            .filter_map(|v| Verb::ALL.iter().find(|(_, x)| x == v).map(|(n, _)| *n))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let status_verbs = k.status
        && k.verbs
            .iter()
            .any(|v| matches!(v, Verb::UpdateStatus | Verb::ApplyStatus));
    let methods = k.verbs.iter().map(|verb| match verb {
        Verb::Get => quote! {
            /// Reads one object; a missing one is an error with `is_not_found()`.
            pub async fn get(&self, name: &str) -> ::kubegen::client::Result<#kind> { self.0.get(name).await }
            /// Reads one object, `None` when it does not exist.
            pub async fn get_opt(&self, name: &str) -> ::kubegen::client::Result<Option<#kind>> { self.0.get_opt(name).await }
        },
        Verb::List => quote! {
            /// Lists objects.
            pub async fn list(&self, params: &::kubegen::kube::api::ListParams) -> ::kubegen::client::Result<::kubegen::kube::api::ObjectList<#kind>> { self.0.list(params).await }
        },
        Verb::Watch => quote! {
            /// Watches objects from `resource_version`.
            pub async fn watch(&self, params: &::kubegen::kube::api::WatchParams, resource_version: &str) -> ::kubegen::client::Result<::kubegen::client::WatchStream<#kind>> { self.0.watch(params, resource_version).await }
        },
        Verb::Create => quote! {
            /// Creates the object.
            pub async fn create(&self, obj: &#kind) -> ::kubegen::client::Result<#kind> { self.0.create(obj).await }
        },
        Verb::Update => quote! {
            /// Replaces the object (a stale resourceVersion is a conflict).
            pub async fn update(&self, obj: &#kind) -> ::kubegen::client::Result<#kind> { self.0.update(obj).await }
        },
        Verb::UpdateStatus => quote! {
            /// Replaces the object's status.
            pub async fn update_status(&self, obj: &#kind) -> ::kubegen::client::Result<#kind> { self.0.update_status(obj).await }
        },
        Verb::Patch => {
            let status = status_verbs.then(|| quote! {
                /// Patches the object's status.
                pub async fn patch_status<P: ::kubegen::__private::serde::Serialize + ::std::fmt::Debug>(&self, name: &str, patch: &::kubegen::kube::api::Patch<P>) -> ::kubegen::client::Result<#kind> { self.0.patch_status(name, patch).await }
            });
            quote! {
                /// Patches the object.
                pub async fn patch<P: ::kubegen::__private::serde::Serialize + ::std::fmt::Debug>(&self, name: &str, patch: &::kubegen::kube::api::Patch<P>) -> ::kubegen::client::Result<#kind> { self.0.patch(name, patch).await }
                #status
            }
        }
        Verb::Delete => quote! {
            /// Deletes the object.
            pub async fn delete(&self, name: &str, params: &::kubegen::kube::api::DeleteParams) -> ::kubegen::client::Result<()> { self.0.delete(name, params).await }
        },
        Verb::DeleteCollection => quote! {
            /// Deletes every object matching `list`.
            pub async fn delete_collection(&self, params: &::kubegen::kube::api::DeleteParams, list: &::kubegen::kube::api::ListParams) -> ::kubegen::client::Result<()> { self.0.delete_collection(params, list).await }
        },
        Verb::Apply => quote! {
            /// Server-side apply with this clientset's field manager.
            pub async fn apply(&self, obj: &#kind, force: bool) -> ::kubegen::client::Result<#kind> { self.0.apply(obj, force).await }
        },
        Verb::ApplyStatus => quote! {
            /// Server-side apply of the status.
            pub async fn apply_status(&self, obj: &#kind, force: bool) -> ::kubegen::client::Result<#kind> { self.0.apply_status(obj, force).await }
        },
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        pub struct #ty(::kubegen::client::ResourceClient<#kind>);
        impl #ty {
            #(#methods)*
            /// The generic client underneath (every verb, for what this shim leaves out).
            pub fn inner(&self) -> &::kubegen::client::ResourceClient<#kind> { &self.0 }
        }
    }
}

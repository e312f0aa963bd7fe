//! The generated Rust modules: a clientset, listers and a shared informer
//! factory — thin typed shims over `kubegen::client::ResourceClient`,
//! `kubegen::lister::Lister` and `kubegen::factory::SharedInformerFactory`.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Api;
use crate::files::RUST_HEADER;
use crate::model::Verb;
use crate::plural::pluralize;
use crate::source::Diagnostic;

/// One kind the generated modules give typed access to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kind {
    group: String,
    version: String,
    kind: String,
    namespaced: bool,
    /// Path of the Rust type, e.g. `crate::api::MyApplication`.
    path: syn::Path,
    verbs: Vec<Verb>,
    /// Whether the kind has a status subresource (for `patch_status`).
    status: bool,
}

/// Built-in kinds known to the generator: (group, version, kind, namespaced,
/// k8s-openapi module under `k8s_openapi::api`, status subresource).
const BUILTINS: &[(&str, &str, &str, bool, &str, bool)] = &[
    ("", "v1", "ConfigMap", true, "core::v1", false),
    ("", "v1", "Endpoints", true, "core::v1", false),
    ("", "v1", "Event", true, "core::v1", false),
    ("", "v1", "Namespace", false, "core::v1", true),
    ("", "v1", "Node", false, "core::v1", true),
    ("", "v1", "PersistentVolumeClaim", true, "core::v1", true),
    ("", "v1", "Pod", true, "core::v1", true),
    ("", "v1", "Secret", true, "core::v1", false),
    ("", "v1", "Service", true, "core::v1", true),
    ("", "v1", "ServiceAccount", true, "core::v1", false),
    ("apps", "v1", "DaemonSet", true, "apps::v1", true),
    ("apps", "v1", "Deployment", true, "apps::v1", true),
    ("apps", "v1", "ReplicaSet", true, "apps::v1", true),
    ("apps", "v1", "StatefulSet", true, "apps::v1", true),
    ("batch", "v1", "CronJob", true, "batch::v1", true),
    ("batch", "v1", "Job", true, "batch::v1", true),
    (
        "coordination.k8s.io",
        "v1",
        "Lease",
        true,
        "coordination::v1",
        false,
    ),
    ("events.k8s.io", "v1", "Event", true, "events::v1", false),
    (
        "networking.k8s.io",
        "v1",
        "Ingress",
        true,
        "networking::v1",
        true,
    ),
    (
        "networking.k8s.io",
        "v1",
        "NetworkPolicy",
        true,
        "networking::v1",
        false,
    ),
    (
        "policy",
        "v1",
        "PodDisruptionBudget",
        true,
        "policy::v1",
        true,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        false,
        "rbac::v1",
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        false,
        "rbac::v1",
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "Role",
        true,
        "rbac::v1",
        false,
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "RoleBinding",
        true,
        "rbac::v1",
        false,
    ),
];

fn all_verbs() -> Vec<Verb> {
    Verb::ALL.iter().map(|(_, v)| *v).collect()
}

/// The kinds of `api` plus the configured built-ins, or an error per
/// unknown built-in.
fn kinds(api: &Api) -> Result<Vec<Kind>, Vec<Diagnostic>> {
    let mut kinds = Vec::new();
    for (t, model) in api.resources() {
        let mut segments: Vec<syn::Ident> = vec![format_ident!("crate")];
        segments.extend(t.input.module.iter().map(|m| format_ident!("{m}")));
        segments.push(format_ident!("{}", model.kind));
        let path: syn::Path = syn::parse_quote!(#(#segments)::*);
        kinds.push(Kind {
            group: model.group.clone(),
            version: model.version.clone(),
            kind: model.kind.clone(),
            namespaced: model.namespaced,
            path,
            verbs: model.verbs.effective(model.has_status),
            status: model.has_status,
        });
    }
    let mut errors = Vec::new();
    for wanted in &api.settings.builtins {
        let found = BUILTINS.iter().find(|(g, v, k, ..)| {
            let gvk = if g.is_empty() {
                format!("{v}/{k}")
            } else {
                format!("{g}/{v}/{k}")
            };
            gvk == *wanted
        });
        match found {
            Some(&(group, version, kind, namespaced, module, status)) => {
                let module: syn::Path = syn::parse_str(module).map_err(|e| {
                    vec![Diagnostic::file(
                        std::path::Path::new("Cargo.toml"),
                        e.to_string(),
                    )]
                })?;
                let kind_ident = format_ident!("{kind}");
                kinds.push(Kind {
                    group: group.to_string(),
                    version: version.to_string(),
                    kind: kind.to_string(),
                    namespaced,
                    path: syn::parse_quote!(::kubegen::k8s_openapi::api::#module::#kind_ident),
                    verbs: all_verbs(),
                    status,
                });
            }
            None => errors.push(Diagnostic::file(
                std::path::Path::new("Cargo.toml"),
                format!(
                    "[package.metadata.kubegen] builtins: unknown kind `{wanted}`; known: {}",
                    BUILTINS
                        .iter()
                        .map(|(g, v, k, ..)| if g.is_empty() {
                            format!("{v}/{k}")
                        } else {
                            format!("{g}/{v}/{k}")
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }
    if errors.is_empty() {
        Ok(kinds)
    } else {
        Err(errors)
    }
}

/// `MyApplication` → `my_applications`: snake case with the last word
/// pluralized by the one pluralizer.
pub fn accessor_name(kind: &str) -> String {
    let snake = snake_case(kind);
    match snake.rsplit_once('_') {
        Some((head, last)) => format!("{head}_{}", pluralize(last)),
        None => pluralize(&snake),
    }
}

/// `MyApplication` → `my_application`, `HTTPRoute` → `http_route`.
pub fn snake_case(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The group's accessor: its first DNS label (`stable.example.com` →
/// `stable`), `core` for the core group.
pub fn group_name(group: &str) -> String {
    if group.is_empty() {
        return "core".into();
    }
    let label = group.split('.').next().unwrap_or(group);
    label.replace('-', "_").to_ascii_lowercase()
}

fn pascal(s: &str) -> String {
    s.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

type GroupVersions = BTreeMap<String, BTreeMap<String, (String, Vec<Kind>)>>;

/// Kinds grouped by group accessor, then version; two groups with the same
/// accessor are an error.
fn by_group_version(kinds: Vec<Kind>) -> Result<GroupVersions, Vec<Diagnostic>> {
    let mut out: GroupVersions = BTreeMap::new();
    let mut errors = Vec::new();
    for kind in kinds {
        let name = group_name(&kind.group);
        let versions = out.entry(name.clone()).or_default();
        let entry = versions
            .entry(kind.version.clone())
            .or_insert_with(|| (kind.group.clone(), Vec::new()));
        if entry.0 != kind.group {
            errors.push(Diagnostic::file(
                std::path::Path::new("Cargo.toml"),
                format!(
                    "API groups `{}` and `{}` would share the accessor `{name}()`",
                    entry.0, kind.group
                ),
            ));
            continue;
        }
        if entry.1.iter().any(|k| k.kind == kind.kind) {
            continue;
        }
        entry.1.push(kind);
    }
    for versions in out.values_mut() {
        for (_, kinds) in versions.values_mut() {
            kinds.sort_by(|a, b| a.kind.cmp(&b.kind));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn render(doc: &str, tokens: TokenStream, header: Option<&str>) -> String {
    let file: syn::File = match syn::parse2(tokens.clone()) {
        Ok(file) => file,
        // Generated tokens always parse; fall back to the raw text rather
        // than panic if they ever do not.
        Err(_) => return format!("{RUST_HEADER}\n{tokens}\n"),
    };
    let mut out = String::from(RUST_HEADER);
    out.push('\n');
    if let Some(header) = header {
        for line in header.lines() {
            out.push_str("// ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&format!("//! {doc}\n\n"));
    out.push_str(&prettyplease::unparse(&file));
    out
}

fn gv_module(group: &str, version: &str) -> syn::Ident {
    format_ident!("{}_{}", group, version)
}

fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// The generated modules, by path relative to the output directory.
pub fn modules(
    api: &Api,
    header: Option<&str>,
) -> Result<BTreeMap<String, String>, Vec<Diagnostic>> {
    let groups = by_group_version(kinds(api)?)?;
    let mut files = BTreeMap::new();
    if groups.is_empty() {
        return Ok(files);
    }
    files.insert(
        "mod.rs".to_string(),
        render(
            "Typed clients, listers and informers for this crate's API, generated by kubegen.",
            quote! { pub mod clientset; pub mod informers; pub mod listers; },
            header,
        ),
    );
    let mut client_mods = Vec::new();
    let mut client_accessors = Vec::new();
    let mut lister_mods = Vec::new();
    let mut informer_mods = Vec::new();
    let mut group_structs = Vec::new();
    let mut group_accessors = Vec::new();
    for (group, versions) in &groups {
        let mut version_accessors = Vec::new();
        for (version, (api_group, kinds)) in versions {
            let module = gv_module(group, version);
            let gv = api_version(api_group, version);
            files.insert(
                format!("clientset/{module}.rs"),
                render(
                    &format!("Typed clients for `{gv}`."),
                    clientset_gv(group, version, &gv, kinds),
                    header,
                ),
            );
            files.insert(
                format!("listers/{module}.rs"),
                render(
                    &format!("Listers for `{gv}`: typed reads from informer caches."),
                    listers_gv(kinds),
                    header,
                ),
            );
            files.insert(
                format!("informers/{module}.rs"),
                render(
                    &format!("Shared informers for `{gv}`."),
                    informers_gv(&module, &gv, kinds),
                    header,
                ),
            );
            let client_ty = format_ident!("{}{}Client", pascal(group), pascal(version));
            let doc = format!(" Typed clients for `{gv}`.");
            client_mods.push(quote!(pub mod #module;));
            lister_mods.push(quote!(pub mod #module;));
            informer_mods.push(quote!(pub mod #module;));
            client_accessors.push(quote! {
                #[doc = #doc]
                pub fn #module(&self) -> #module::#client_ty {
                    #module::#client_ty::new(self.client.clone(), &self.field_manager)
                }
            });
            let version_ident = format_ident!("{version}");
            let doc = format!(" Informers of `{gv}`.");
            version_accessors.push(quote! {
                #[doc = #doc]
                pub fn #version_ident(&self) -> #module::Interface<'a> {
                    #module::Interface::new(self.0)
                }
            });
        }
        let group_ident = format_ident!("{group}");
        let group_ty = format_ident!("{}Group", pascal(group));
        let api_group = versions
            .values()
            .next()
            .map(|(g, _)| g.clone())
            .unwrap_or_default();
        let shown = if api_group.is_empty() {
            "core".to_string()
        } else {
            api_group
        };
        let doc = format!(" Informers of the `{shown}` API group, by version.");
        group_structs.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug)]
            pub struct #group_ty<'a>(&'a ::kubegen::factory::SharedInformerFactory);
            impl<'a> #group_ty<'a> { #(#version_accessors)* }
        });
        let doc = format!(" Informers of the `{shown}` API group.");
        group_accessors.push(quote! {
            #[doc = #doc]
            pub fn #group_ident(&self) -> #group_ty<'_> { #group_ty(&self.0) }
        });
    }
    files.insert("clientset/mod.rs".into(), render("The clientset: typed clients for every API group version of this crate.", quote! {
        #(#client_mods)*
        /// Typed clients for every API group version this crate uses.
        #[derive(Clone)]
        pub struct Clientset {
            client: ::kubegen::kube::Client,
            field_manager: ::std::string::String,
        }
        impl Clientset {
            /// A clientset writing with the field manager `kubegen`.
            pub fn new(client: ::kubegen::kube::Client) -> Self {
                Clientset { client, field_manager: ::kubegen::client::DEFAULT_FIELD_MANAGER.into() }
            }
            /// Sets the field manager recorded for every write and used for server-side apply.
            pub fn with_field_manager(mut self, field_manager: &str) -> Self {
                self.field_manager = field_manager.into();
                self
            }
            #(#client_accessors)*
        }
    }, header));
    files.insert(
        "listers/mod.rs".into(),
        render(
            "Listers: typed, indexed reads from shared informer caches.",
            quote! { #(#lister_mods)* },
            header,
        ),
    );
    files.insert("informers/mod.rs".into(), render("A shared informer factory for this crate's API and the built-in kinds it uses.", quote! {
        #(#informer_mods)*
        /// One watch and one cache per kind, shared by every controller of
        /// the process (client-go's `SharedInformerFactory`), with typed accessors.
        #[derive(Clone, Debug)]
        pub struct SharedInformerFactory(::kubegen::factory::SharedInformerFactory);
        impl SharedInformerFactory {
            /// A factory with default options (all namespaces, no resync).
            pub fn new(client: ::kubegen::kube::Client) -> Self {
                SharedInformerFactory(::kubegen::factory::SharedInformerFactory::new(client))
            }
            /// Wraps a factory built with options (namespace, selectors, resync,
            /// transform) through `kubegen::factory::SharedInformerFactory::builder`.
            pub fn from_factory(factory: ::kubegen::factory::SharedInformerFactory) -> Self {
                SharedInformerFactory(factory)
            }
            /// The untyped factory underneath.
            pub fn factory(&self) -> &::kubegen::factory::SharedInformerFactory { &self.0 }
            /// Starts every informer requested so far (idempotent).
            pub fn start(&self) { self.0.start() }
            /// Waits until every started informer has synced; reports each by type.
            pub async fn wait_for_cache_sync(&self) -> ::std::collections::BTreeMap<::std::string::String, bool> {
                self.0.wait_for_cache_sync().await
            }
            /// Stops every informer and waits for their watch tasks to end.
            pub async fn shutdown(&self) { self.0.shutdown().await }
            #(#group_accessors)*
        }
        #(#group_structs)*
    }, header));
    Ok(files)
}

fn clientset_gv(group: &str, version: &str, gv: &str, kinds: &[Kind]) -> TokenStream {
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

fn listers_gv(kinds: &[Kind]) -> TokenStream {
    let items = kinds.iter().map(|k| {
        let path = &k.path;
        let lister = format_ident!("{}Lister", k.kind);
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

fn informers_gv(module: &syn::Ident, gv: &str, kinds: &[Kind]) -> TokenStream {
    let doc = format!(" Shared informers of `{gv}`.");
    let uses = kinds.iter().map(|k| {
        let path = &k.path;
        quote!(use #path;)
    });
    let accessors = kinds.iter().map(|k| {
        let kind = format_ident!("{}", k.kind);
        let accessor = format_ident!("{}", accessor_name(&k.kind));
        let informer = format_ident!("{}Informer", k.kind);
        let doc = format!(" The shared informer of `{}`.", k.kind);
        quote! {
            #[doc = #doc]
            pub fn #accessor(&self) -> #informer { #informer(self.factory.informer::<#kind>()) }
        }
    });
    let informers = kinds.iter().map(|k| {
        let kind = format_ident!("{}", k.kind);
        let informer = format_ident!("{}Informer", k.kind);
        let lister = format_ident!("{}Lister", k.kind);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessor_names_pluralize_the_last_word() {
        assert_eq!(accessor_name("MyApplication"), "my_applications");
        assert_eq!(accessor_name("NetworkPolicy"), "network_policies");
        assert_eq!(accessor_name("Ingress"), "ingresses");
        assert_eq!(accessor_name("Endpoints"), "endpoints");
        assert_eq!(accessor_name("HTTPRoute"), "http_routes");
        assert_eq!(accessor_name("Foo"), "foos");
    }

    #[test]
    fn group_accessors_use_the_first_label() {
        assert_eq!(group_name("stable.example.com"), "stable");
        assert_eq!(group_name(""), "core");
        assert_eq!(group_name("rbac.authorization.k8s.io"), "rbac");
        assert_eq!(pascal("stable"), "Stable");
        assert_eq!(pascal("v1beta1"), "V1beta1");
    }
}

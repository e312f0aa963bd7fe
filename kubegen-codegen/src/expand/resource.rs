//! `#[derive(CustomResource)]`: the generated root type, its trait impls
//! and compile-time checks of paths into the status type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::parse::Container;
use kubegen_core::model::ResourceModel;

/// `.status.<field>` paths checked against the status type's fields at compile time.
fn status_assertions(c: &Container, status: &syn::Type, krate: &syn::Path) -> TokenStream {
    let mut paths: Vec<(String, proc_macro2::Span)> = c
        .resource
        .printer_columns
        .iter()
        .map(|(col, span)| (col.json_path.clone(), *span))
        .collect();
    paths.extend(c.resource.selectable_fields.iter().cloned());
    if let Some(scale) = &c.resource.scale {
        let span = c
            .type_keys
            .get(crate::attr::keys::SCALE)
            .copied()
            .unwrap_or_else(proc_macro2::Span::call_site);
        paths.push((scale.status_replicas_path.clone(), span));
        if let Some(sel) = &scale.label_selector_path {
            paths.push((sel.clone(), span));
        }
    }
    let mut out = TokenStream::new();
    for (path, span) in paths {
        let Some(rest) = path.strip_prefix(".status.") else {
            continue;
        };
        let first: String = rest
            .chars()
            .take_while(|c| *c != '.' && *c != '[')
            .collect();
        let msg = format!("`{path}`: the status type has no field `{first}`");
        out.extend(super::respan(
            quote! {
                const _: () = {
                    let fields = <#status as #krate::KubeSchema>::FIELDS;
                    if !fields.is_empty() {
                        #krate::__private::assert_member(fields, #first, #msg);
                    }
                };
            },
            span,
        ));
    }
    out
}

/// The root type `Kind { metadata, spec, status }` with its impls.
pub fn root_type(input: &syn::DeriveInput, c: &Container, res: &ResourceModel) -> TokenStream {
    let krate = super::krate(c);
    let spec = &input.ident;
    let vis = &input.vis;
    let kind_ident = format_ident!("{}", crate::names::kind_type(&res.kind));
    let derives = &c.resource.derives;
    let resource_json = res.to_json();
    let (group, version, kind, plural) = (&res.group, &res.version, &res.kind, &res.plural);
    let api_version = res.api_version();
    let list_kind = res.list_kind();
    let scope = if res.namespaced {
        quote!(#krate::k8s_openapi::NamespaceResourceScope)
    } else {
        quote!(#krate::k8s_openapi::ClusterResourceScope)
    };
    let meta = quote!(#krate::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    let serde_path = quote!(#krate::__private::serde);
    let serde_str = format!(
        "{}::__private::serde",
        quote!(#krate).to_string().replace(' ', "")
    );
    let status = c.resource.status.as_ref();
    let status_field = status.map(|s| {
        quote! {
            /// The observed state, written by the controller.
            #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
            pub status: ::core::option::Option<#s>,
        }
    });
    let status_init = status.map(|_| quote!(status: ::core::option::Option::None,));
    let status_ser = status.map(|_| {
        quote! {
            if let ::core::option::Option::Some(status) = &self.status {
                #serde_path::ser::SerializeStruct::serialize_field(&mut state, "status", status)?;
            }
        }
    });
    let status_resolver = match status {
        Some(s) => {
            quote!(::core::option::Option::Some(<#s as #krate::KubeSchema>::kube_schema as #krate::__private::Resolver))
        }
        None => quote!(::core::option::Option::None),
    };
    let field_count = if status.is_some() { 5usize } else { 4 };
    let doc = format!(
        "The `{kind}` custom resource (`{api_version}`), generated from [`{spec}`] by `#[derive(CustomResource)]`."
    );
    let assertions = status.map(|s| status_assertions(c, s, &krate));
    // `optional_spec`: objects may come without a spec, so the root holds
    // an `Option` and writes the spec only when there is one.
    let (spec_field, spec_init, spec_ser) = if res.flatten_spec {
        (
            quote! {
                /// The object's own fields (at the top level, next to `metadata`).
                #[serde(flatten)]
                pub spec: #spec,
            },
            quote!(spec,),
            quote! {
                let fields = #krate::__private::serde_json::to_value(&self.spec)
                    .map_err(<S::Error as #serde_path::ser::Error>::custom)?;
                if let #krate::__private::serde_json::Value::Object(fields) = fields {
                    for (key, value) in fields {
                        #serde_path::ser::SerializeMap::serialize_entry(&mut state, &key, &value)?;
                    }
                }
            },
        )
    } else if res.optional_spec {
        (
            quote! {
                /// The desired state (objects may omit it).
                #[serde(default)]
                pub spec: ::core::option::Option<#spec>,
            },
            quote!(spec: ::core::option::Option::Some(spec),),
            quote! {
                if let ::core::option::Option::Some(spec) = &self.spec {
                    #serde_path::ser::SerializeStruct::serialize_field(&mut state, "spec", spec)?;
                }
            },
        )
    } else {
        (
            quote! {
                /// The desired state.
                pub spec: #spec,
            },
            quote!(spec,),
            quote!(#serde_path::ser::SerializeStruct::serialize_field(&mut state, "spec", &self.spec)?;),
        )
    };
    let ser_body = if res.flatten_spec {
        quote! {
            let mut state = #serde_path::Serializer::serialize_map(serializer, ::core::option::Option::None)?;
            #serde_path::ser::SerializeMap::serialize_entry(&mut state, "apiVersion", #api_version)?;
            #serde_path::ser::SerializeMap::serialize_entry(&mut state, "kind", #kind)?;
            #serde_path::ser::SerializeMap::serialize_entry(&mut state, "metadata", &self.metadata)?;
            #spec_ser
            #serde_path::ser::SerializeMap::end(state)
        }
    } else {
        quote! {
            let mut state = #serde_path::Serializer::serialize_struct(serializer, #kind, #field_count)?;
            #serde_path::ser::SerializeStruct::serialize_field(&mut state, "apiVersion", #api_version)?;
            #serde_path::ser::SerializeStruct::serialize_field(&mut state, "kind", #kind)?;
            #serde_path::ser::SerializeStruct::serialize_field(&mut state, "metadata", &self.metadata)?;
            #spec_ser
            #status_ser
            #serde_path::ser::SerializeStruct::end(state)
        }
    };
    quote! {
        #[doc = #doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug, #serde_path::Deserialize #(, #derives)*)]
        #[serde(crate = #serde_str)]
        #vis struct #kind_ident {
            /// Standard object metadata.
            #[serde(default)]
            pub metadata: #meta,
            #spec_field
            #status_field
        }

        #[automatically_derived]
        impl #kind_ident {
            /// A new object with the given name and spec (no status).
            pub fn new(name: &str, spec: #spec) -> Self {
                Self {
                    metadata: #meta {
                        name: ::core::option::Option::Some(::std::string::ToString::to_string(name)),
                        ..::core::default::Default::default()
                    },
                    #spec_init
                    #status_init
                }
            }

            /// The CustomResourceDefinition of this kind and version.
            pub fn crd() -> ::core::result::Result<
                #krate::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
                #krate::__private::CrdError,
            > {
                let json = <Self as #krate::CustomResourceExt>::crd_json()?;
                #krate::__private::serde_json::from_value(json)
                    .map_err(|e| #krate::__private::CrdError::Decode(::std::string::ToString::to_string(&e)))
            }
        }

        #[automatically_derived]
        impl #krate::CustomResourceExt for #kind_ident {
            fn resource_model() -> #krate::__private::ResourceModel {
                #krate::__private::resource_model(#resource_json)
            }
            fn crd_json() -> ::core::result::Result<#krate::__private::serde_json::Value, #krate::__private::CrdError> {
                #krate::__private::crd_from_model(
                    #resource_json,
                    <#spec as #krate::KubeSchema>::kube_schema,
                    #status_resolver,
                )
            }
        }

        #[automatically_derived]
        impl #krate::k8s_openapi::Resource for #kind_ident {
            const API_VERSION: &'static str = #api_version;
            const GROUP: &'static str = #group;
            const KIND: &'static str = #kind;
            const VERSION: &'static str = #version;
            const URL_PATH_SEGMENT: &'static str = #plural;
            type Scope = #scope;
        }

        #[automatically_derived]
        impl #krate::k8s_openapi::ListableResource for #kind_ident {
            const LIST_KIND: &'static str = #list_kind;
        }

        #[automatically_derived]
        impl #krate::k8s_openapi::Metadata for #kind_ident {
            type Ty = #meta;
            fn metadata(&self) -> &#meta {
                &self.metadata
            }
            fn metadata_mut(&mut self) -> &mut #meta {
                &mut self.metadata
            }
        }

        #[automatically_derived]
        impl #serde_path::Serialize for #kind_ident {
            fn serialize<S: #serde_path::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                #ser_body
            }
        }

        #assertions
    }
}

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

/// What every part of the root type names: the crate path, the root and
/// spec types, the status type if any, the resource and the paths of
/// `ObjectMeta` and serde.
struct Root<'a> {
    krate: syn::Path,
    kind_ident: syn::Ident,
    spec: &'a syn::Ident,
    status: Option<&'a syn::Type>,
    res: &'a ResourceModel,
    meta: TokenStream,
    serde_path: TokenStream,
}

/// The tokens of one part of the root (the spec or the status): its
/// field, its initialiser in `new`, its serialisation.
struct Part {
    field: TokenStream,
    init: TokenStream,
    ser: TokenStream,
}

/// The root type `Kind { metadata, spec, status }` with its impls.
pub fn root_type(input: &syn::DeriveInput, c: &Container, res: &ResourceModel) -> TokenStream {
    let krate = super::krate(c);
    let root = Root {
        kind_ident: format_ident!("{}", crate::names::kind_type(&res.kind)),
        spec: &input.ident,
        status: c.resource.status.as_ref(),
        res,
        meta: quote!(#krate::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta),
        serde_path: quote!(#krate::__private::serde),
        krate,
    };
    let spec = spec_part(&root);
    let status = status_part(&root);
    let definition = struct_definition(&root, input, c, &spec.field, &status.field);
    let inherent = inherent_impl(&root, &spec.init, &status.init);
    let ext = custom_resource_ext_impl(&root);
    let k8s = k8s_openapi_impls(&root);
    let serialize = serialize_impl(&root, &spec.ser, &status.ser);
    let assertions = root.status.map(|s| status_assertions(c, s, &root.krate));
    quote! {
        #definition
        #inherent
        #ext
        #k8s
        #serialize
        #assertions
    }
}

/// How the spec sits in the root: flattened into it (`flatten_spec`),
/// optional (`optional_spec`: objects may come without a spec, so the root
/// holds an `Option` and writes the spec only when there is one), or
/// required.
fn spec_part(root: &Root<'_>) -> Part {
    let Root {
        krate,
        spec,
        serde_path,
        ..
    } = root;
    if root.res.flatten_spec {
        Part {
            field: quote! {
                /// The object's own fields (at the top level, next to `metadata`).
                #[serde(flatten)]
                pub spec: #spec,
            },
            init: quote!(spec,),
            ser: quote! {
                let fields = #krate::__private::serde_json::to_value(&self.spec)
                    .map_err(<S::Error as #serde_path::ser::Error>::custom)?;
                if let #krate::__private::serde_json::Value::Object(fields) = fields {
                    for (key, value) in fields {
                        #serde_path::ser::SerializeMap::serialize_entry(&mut state, &key, &value)?;
                    }
                }
            },
        }
    } else if root.res.optional_spec {
        Part {
            field: quote! {
                /// The desired state (objects may omit it).
                #[serde(default)]
                pub spec: ::core::option::Option<#spec>,
            },
            init: quote!(spec: ::core::option::Option::Some(spec),),
            ser: quote! {
                if let ::core::option::Option::Some(spec) = &self.spec {
                    #serde_path::ser::SerializeStruct::serialize_field(&mut state, "spec", spec)?;
                }
            },
        }
    } else {
        Part {
            field: quote! {
                /// The desired state.
                pub spec: #spec,
            },
            init: quote!(spec,),
            ser: quote!(#serde_path::ser::SerializeStruct::serialize_field(&mut state, "spec", &self.spec)?;),
        }
    }
}

/// The status, when the resource has one: an optional field, `None` in
/// `new`, written only when set. Without one, every part is empty.
fn status_part(root: &Root<'_>) -> Part {
    let serde_path = &root.serde_path;
    let Some(s) = root.status else {
        return Part {
            field: TokenStream::new(),
            init: TokenStream::new(),
            ser: TokenStream::new(),
        };
    };
    Part {
        field: quote! {
            /// The observed state, written by the controller.
            #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
            pub status: ::core::option::Option<#s>,
        },
        init: quote!(status: ::core::option::Option::None,),
        ser: quote! {
            if let ::core::option::Option::Some(status) = &self.status {
                #serde_path::ser::SerializeStruct::serialize_field(&mut state, "status", status)?;
            }
        },
    }
}

/// The root struct: its doc, its derives (`Deserialize` and the
/// resource's `derive = ...`), `metadata`, the spec and status fields.
fn struct_definition(
    root: &Root<'_>,
    input: &syn::DeriveInput,
    c: &Container,
    spec_field: &TokenStream,
    status_field: &TokenStream,
) -> TokenStream {
    let Root {
        krate,
        kind_ident,
        spec,
        res,
        meta,
        serde_path,
        ..
    } = root;
    let vis = &input.vis;
    let derives = &c.resource.derives;
    let serde_str = format!(
        "{}::__private::serde",
        quote!(#krate).to_string().replace(' ', "")
    );
    let doc = format!(
        "The `{}` custom resource (`{}`), generated from [`{spec}`] by `#[derive(CustomResource)]`.",
        res.kind,
        res.api_version()
    );
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
    }
}

/// The root's own functions: `new(name, spec)` and `crd()`.
fn inherent_impl(
    root: &Root<'_>,
    spec_init: &TokenStream,
    status_init: &TokenStream,
) -> TokenStream {
    let Root {
        krate,
        kind_ident,
        spec,
        meta,
        ..
    } = root;
    quote! {
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
                #krate::__private::crd_decode(<Self as #krate::CustomResourceExt>::crd_json()?)
            }
        }
    }
}

/// `CustomResourceExt`: the embedded resource model, and the CRD built at
/// run time from it and the spec's and status's schemas.
fn custom_resource_ext_impl(root: &Root<'_>) -> TokenStream {
    let Root {
        krate,
        kind_ident,
        spec,
        ..
    } = root;
    let resource_json = root.res.to_json();
    let status_resolver = match root.status {
        Some(s) => {
            quote!(::core::option::Option::Some(<#s as #krate::KubeSchema>::kube_schema as #krate::__private::Resolver))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
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
    }
}

/// k8s-openapi's `Resource` (group, version, kind, plural, scope),
/// `ListableResource` and `Metadata`.
fn k8s_openapi_impls(root: &Root<'_>) -> TokenStream {
    let Root {
        krate,
        kind_ident,
        res,
        meta,
        ..
    } = root;
    let (group, version, kind, plural) = (&res.group, &res.version, &res.kind, &res.plural);
    let api_version = res.api_version();
    let list_kind = res.list_kind();
    let scope = if res.namespaced {
        quote!(#krate::k8s_openapi::NamespaceResourceScope)
    } else {
        quote!(#krate::k8s_openapi::ClusterResourceScope)
    };
    quote! {
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
    }
}

/// `Serialize`: type meta first, then metadata, spec and status; a map
/// when the spec is flattened, else a struct of four or five fields.
fn serialize_impl(
    root: &Root<'_>,
    spec_ser: &TokenStream,
    status_ser: &TokenStream,
) -> TokenStream {
    let Root {
        kind_ident,
        res,
        serde_path,
        ..
    } = root;
    let kind = &res.kind;
    let api_version = res.api_version();
    let field_count = if root.status.is_some() { 5usize } else { 4 };
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
        #[automatically_derived]
        impl #serde_path::Serialize for #kind_ident {
            fn serialize<S: #serde_path::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                #ser_body
            }
        }
    }
}

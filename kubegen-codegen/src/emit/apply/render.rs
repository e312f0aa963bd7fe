//! Apply configuration structs as tokens: the struct with its optional
//! fields, its `with_*` builders (lists append, maps insert, as client-go's
//! do), and for a kind's root `new`, `extract`, the metadata builders and
//! the `kubegen::apply::ApplyConfiguration` impl.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::shape::{Field, Scalar, Shape, Struct};
use crate::names::{Namespace, apply_field_base, apply_ident};

/// What makes a struct a kind's root.
#[derive(Clone)]
pub(crate) struct Top {
    pub kind: String,
    /// `apps/v1`.
    pub api_version: String,
    pub namespaced: bool,
    pub status: bool,
    /// The resource type.
    pub resource: syn::Path,
    /// The expression returning its schema, given the `SCHEMA` cell.
    pub schema: TokenStream,
}

/// One module's structs (sorted by name), each kind root with its extras.
pub(crate) fn module(
    module: &str,
    structs: &BTreeMap<String, Struct>,
    tops: &BTreeMap<String, Top>,
) -> TokenStream {
    let items = structs
        .iter()
        .map(|(name, s)| one(module, name, s, tops.get(name)));
    quote!(#(#items)*)
}

/// The Rust type of a shape, seen from `module`.
pub(crate) fn ty(shape: &Shape, module: &str) -> TokenStream {
    match shape {
        Shape::Scalar(s) => scalar(*s),
        Shape::Struct {
            module: m,
            name,
            boxed,
        } => {
            let name = format_ident!("{name}");
            let path = if m == module {
                quote!(#name)
            } else {
                let m = format_ident!("{m}");
                quote!(super::#m::#name)
            };
            if *boxed {
                quote!(::std::boxed::Box<#path>)
            } else {
                path
            }
        }
        Shape::List(item) => {
            let item = ty(item, module);
            quote!(::std::vec::Vec<#item>)
        }
        Shape::Map(value) => {
            let value = ty(value, module);
            quote!(::std::collections::BTreeMap<::std::string::String, #value>)
        }
        Shape::Meta => quote!(::kubegen::apply::ObjectMetaApply),
    }
}

fn scalar(s: Scalar) -> TokenStream {
    match s {
        Scalar::String => quote!(::std::string::String),
        Scalar::I32 => quote!(i32),
        Scalar::I64 => quote!(i64),
        Scalar::F64 => quote!(f64),
        Scalar::Bool => quote!(bool),
        Scalar::Time => quote!(::kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time),
        Scalar::MicroTime => {
            quote!(::kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime)
        }
        Scalar::Quantity => {
            quote!(::kubegen::k8s_openapi::apimachinery::pkg::api::resource::Quantity)
        }
        Scalar::IntOrString => {
            quote!(::kubegen::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString)
        }
        Scalar::Bytes => quote!(::kubegen::k8s_openapi::ByteString),
        Scalar::Json => quote!(::kubegen::__private::serde_json::Value),
    }
}

/// Every field's Rust name and builder base, in field order (sorted by JSON
/// name): two JSON names with one snake case (`proxyURL`, `proxyUrl`)
/// become `proxy_url` and `proxy_url2`, as `kubegen import` names them.
fn idents(s: &Struct) -> Vec<(syn::Ident, String)> {
    let mut names = Namespace::default();
    s.fields
        .iter()
        .map(|f| {
            let base = names.claim(&apply_field_base(&f.json));
            (format_ident!("{}", apply_ident(&base)), base)
        })
        .collect()
}

fn one(module: &str, name: &str, s: &Struct, top: Option<&Top>) -> TokenStream {
    let idents = idents(s);
    let ty_ident = format_ident!("{name}");
    let mut doc = s.doc.clone().unwrap_or_default();
    match top {
        Some(top) => {
            if !doc.is_empty() {
                doc.push_str("\n\n");
            }
            doc.push_str(&format!(
                "The apply configuration of `{}` (`{}`): every field optional, serialized with exactly the fields set.",
                top.kind, top.api_version
            ));
        }
        None if doc.is_empty() => {
            doc = format!("Part of an apply configuration: `{}`.", s.what);
        }
        None => {}
    }
    let doc_lines = doc.lines().map(|l| format!(" {l}"));
    let fields = s.fields.iter().zip(&idents).map(|(f, (ident, _))| {
        let t = ty(&f.shape, module);
        let doc = format!(
            " {}",
            f.doc.clone().unwrap_or_else(|| format!("`{}`", f.json))
        );
        let rename = if ident.to_string().trim_start_matches("r#") == f.json {
            quote!()
        } else {
            let json = &f.json;
            quote!(rename = #json,)
        };
        quote! {
            #[doc = #doc]
            #[serde(#rename skip_serializing_if = "::std::option::Option::is_none")]
            pub #ident: ::std::option::Option<#t>,
        }
    });
    let builders = s
        .fields
        .iter()
        .zip(&idents)
        .map(|(f, (ident, base))| builder(f, ident, base, module));
    let extras = match top {
        Some(top) => {
            let meta_field = s
                .fields
                .iter()
                .any(|f| f.json == "metadata" && f.shape == Shape::Meta);
            let taken = |base: &str| idents.iter().any(|(_, b)| b == base);
            top_items(name, meta_field, &taken, top)
        }
        None => quote!(),
    };
    let derives = derives();
    quote! {
        #(#[doc = #doc_lines])*
        #derives
        pub struct #ty_ident {
            #(#fields)*
        }
        impl #ty_ident {
            #(#builders)*
        }
        #extras
    }
}

/// The derives and serde attributes of every apply configuration struct:
/// deserialized with every field optional (`default`).
pub(crate) fn derives() -> TokenStream {
    quote! {
        #[derive(Clone, Debug, Default, PartialEq, ::kubegen::__private::serde::Serialize, ::kubegen::__private::serde::Deserialize)]
        #[serde(crate = "::kubegen::__private::serde", default)]
    }
}

fn builder(f: &Field, ident: &syn::Ident, base: &str, module: &str) -> TokenStream {
    let method = format_ident!("with_{base}");
    let json = &f.json;
    match &f.shape {
        Shape::List(item) => {
            let item = ty(item, module);
            let doc = format!(" Appends to `{json}`.");
            quote! {
                #[doc = #doc]
                pub fn #method(mut self, values: impl ::std::iter::IntoIterator<Item = #item>) -> Self {
                    self.#ident.get_or_insert_with(::std::default::Default::default).extend(values);
                    self
                }
            }
        }
        Shape::Map(value) => {
            let value = ty(value, module);
            let doc = format!(" Adds entries to `{json}` (a key given again replaces the value).");
            quote! {
                #[doc = #doc]
                pub fn #method<K: ::std::convert::Into<::std::string::String>>(mut self, entries: impl ::std::iter::IntoIterator<Item = (K, #value)>) -> Self {
                    self.#ident
                        .get_or_insert_with(::std::default::Default::default)
                        .extend(entries.into_iter().map(|(k, v)| (k.into(), v)));
                    self
                }
            }
        }
        Shape::Struct {
            module: m,
            name,
            boxed,
        } => {
            let unboxed = Shape::Struct {
                module: m.clone(),
                name: name.clone(),
                boxed: false,
            };
            let t = ty(&unboxed, module);
            let value = if *boxed {
                quote!(::std::boxed::Box::new(value))
            } else {
                quote!(value)
            };
            let doc = format!(" Sets `{json}`.");
            quote! {
                #[doc = #doc]
                pub fn #method(mut self, value: #t) -> Self {
                    self.#ident = ::std::option::Option::Some(#value);
                    self
                }
            }
        }
        Shape::Meta => {
            let doc = format!(" Sets `{json}`.");
            quote! {
                #[doc = #doc]
                pub fn #method(mut self, value: ::kubegen::apply::ObjectMetaApply) -> Self {
                    self.#ident = ::std::option::Option::Some(value);
                    self
                }
            }
        }
        Shape::Scalar(s) => {
            let t = scalar(*s);
            let doc = format!(" Sets `{json}`.");
            quote! {
                #[doc = #doc]
                pub fn #method(mut self, value: impl ::std::convert::Into<#t>) -> Self {
                    self.#ident = ::std::option::Option::Some(value.into());
                    self
                }
            }
        }
    }
}

/// A kind root's `new`, `extract`, metadata builders and
/// `ApplyConfiguration` impl, for a root struct `name` with fields
/// `api_version`, `kind` and `metadata` (an `ObjectMetaApply` when
/// `meta_field`; then `with_labels`… forward to it, except where `taken`
/// says the root has a field of that builder name itself).
pub(crate) fn top_items(
    name: &str,
    meta_field: bool,
    taken: &dyn Fn(&str) -> bool,
    top: &Top,
) -> TokenStream {
    let ty_ident = format_ident!("{name}");
    let resource = &top.resource;
    let kind = &top.kind;
    let api_version = &top.api_version;
    let (params, meta) = if top.namespaced {
        (
            quote!(name: impl ::std::convert::Into<::std::string::String>, namespace: impl ::std::convert::Into<::std::string::String>),
            quote!(
                ::kubegen::apply::ObjectMetaApply::default()
                    .with_name(name)
                    .with_namespace(namespace)
            ),
        )
    } else {
        (
            quote!(name: impl ::std::convert::Into<::std::string::String>),
            quote!(::kubegen::apply::ObjectMetaApply::default().with_name(name)),
        )
    };
    let new_doc = if top.namespaced {
        format!(" `{kind}` `name` in `namespace`, with `apiVersion` and `kind` set.")
    } else {
        format!(" `{kind}` `name`, with `apiVersion` and `kind` set.")
    };
    let extract_doc = format!(
        " Reads back the fields `field_manager` owns in `object` (the main resource): client-go's `Extract{kind}`."
    );
    let extract_status = top.status.then(|| {
        let doc = format!(
            " Reads back the fields `field_manager` owns in `object`'s status subresource: client-go's `Extract{kind}Status`."
        );
        quote! {
            #[doc = #doc]
            pub fn extract_status(object: &#resource, field_manager: &str) -> ::std::result::Result<Self, ::kubegen::apply::ApplyError> {
                ::kubegen::apply::extract(object, field_manager, ::std::option::Option::Some("status"))
            }
        }
    });
    let string = quote!(::std::convert::Into<::std::string::String>);
    // (field, doc, generics, parameter, its type): each forwarded to the
    // `ObjectMetaApply` builder of the same name, unless the root has a
    // field of that name itself.
    let forwarded = [
        (
            "labels",
            " Adds labels to `metadata` (a key given again replaces the value).",
            quote!(<K: #string, V: #string>),
            "labels",
            quote!(impl ::std::iter::IntoIterator<Item = (K, V)>),
        ),
        (
            "annotations",
            " Adds annotations to `metadata` (a key given again replaces the value).",
            quote!(<K: #string, V: #string>),
            "annotations",
            quote!(impl ::std::iter::IntoIterator<Item = (K, V)>),
        ),
        (
            "owner_references",
            " Appends owner references to `metadata`.",
            quote!(),
            "references",
            quote!(impl ::std::iter::IntoIterator<Item = ::kubegen::apply::OwnerReferenceApply>),
        ),
        (
            "finalizers",
            " Appends finalizers to `metadata`.",
            quote!(<S: #string>),
            "finalizers",
            quote!(impl ::std::iter::IntoIterator<Item = S>),
        ),
    ];
    let forwards = forwarded
        .into_iter()
        .filter(|(field, ..)| meta_field && !taken(field))
        .map(|(field, doc, generics, param, param_ty)| {
            let method = format_ident!("with_{field}");
            let param = format_ident!("{param}");
            quote! {
                #[doc = #doc]
                pub fn #method #generics(mut self, #param: #param_ty) -> Self {
                    self.metadata = ::std::option::Option::Some(self.metadata.take().unwrap_or_default().#method(#param));
                    self
                }
            }
        });
    let schema = &top.schema;
    quote! {
        impl #ty_ident {
            #[doc = #new_doc]
            pub fn new(#params) -> Self {
                #ty_ident {
                    api_version: ::std::option::Option::Some(#api_version.into()),
                    kind: ::std::option::Option::Some(#kind.into()),
                    metadata: ::std::option::Option::Some(#meta),
                    ..::std::default::Default::default()
                }
            }
            #[doc = #extract_doc]
            pub fn extract(object: &#resource, field_manager: &str) -> ::std::result::Result<Self, ::kubegen::apply::ApplyError> {
                ::kubegen::apply::extract(object, field_manager, ::std::option::Option::None)
            }
            #extract_status
            #(#forwards)*
        }
        impl ::kubegen::apply::ApplyConfiguration for #ty_ident {
            type Resource = #resource;
            fn schema() -> ::std::result::Result<&'static ::kubegen::__private::serde_json::Value, ::kubegen::apply::ApplyError> {
                static SCHEMA: ::kubegen::apply::SchemaCell = ::kubegen::apply::SchemaCell::new();
                #schema
            }
            fn metadata(&self) -> ::std::option::Option<&::kubegen::apply::ObjectMetaApply> {
                self.metadata.as_ref()
            }
        }
    }
}

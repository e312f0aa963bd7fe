//! The parse phase: a `syn::DeriveInput` → the model of `kubegen-core`
//! plus the spans that the check phase and derive output report at.
//!
//! Parsing reports what it cannot read (unknown keys, unsupported shapes);
//! rules across fields and types belong to [`crate::check`], which runs once
//! on the finished [`Container`].

mod classify;
mod fields;
mod resource;
mod variants;

use proc_macro2::Span;

use crate::attr::constraints::{Extras, parse_key};
use crate::attr::resource::ResourceAttrs;
use crate::attr::serde_attr::SerdeContainer;
use crate::attr::{self, KeySpans, Scope, keys};
use crate::ctxt::Ctxt;
use classify::Classifier;
use fields::Builder;
use kubegen_core::model::{Constraints, Shape, TypeModel};

pub(crate) use fields::overridden_ty;
pub use resource::resource_model;

/// How generated code obtains a nested type's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolverKind {
    /// `<T as ::kubegen::KubeSchema>::kube_schema`.
    KubeSchema,
    /// `schemars::JsonSchema`, converted to a structural schema.
    Schemars,
}

/// A nested type whose schema is looked up at schema-evaluation time.
#[derive(Clone)]
pub struct Resolver {
    /// The type as written.
    pub ty: syn::Type,
    /// Which trait supplies its schema.
    pub kind: ResolverKind,
}

/// Spans of one field, for cross-field diagnostics.
#[derive(Clone)]
pub struct FieldSpans {
    /// The serialized name.
    pub json_name: String,
    /// The field's own span.
    pub span: Span,
    /// The span of the field's Rust type.
    pub ty_span: Span,
    /// The field's Rust name (`None` in a newtype or tuple variant).
    pub ident: Option<syn::Ident>,
    /// The field's Rust type.
    pub ty: syn::Type,
    /// Spans of its kubegen keys.
    pub keys: KeySpans,
}

/// A parsed derive input: the model plus what code generation needs.
pub struct Container {
    /// The serializable model.
    pub model: TypeModel,
    /// Nested types, indexed by `Ty::Named::resolver`.
    pub resolvers: Vec<Resolver>,
    /// Spans of type-level keys.
    pub type_keys: KeySpans,
    /// Spans of the fields of a struct.
    pub fields: Vec<FieldSpans>,
    /// Spans of every field the model holds (struct, newtype and variant
    /// fields), in the order [`TypeModel::fields`] visits them.
    pub sites: Vec<FieldSpans>,
    /// `crate = "..."` override.
    pub crate_path: Option<syn::Path>,
    /// `apply`: derive the apply configuration; where it is written.
    pub apply: Option<Span>,
    /// Resource keys when parsed for `CustomResource`.
    pub resource: ResourceAttrs,
}

/// Parses a derive input into a [`Container`].
///
/// With `resource`, resource-level keys are accepted on the type as well.
pub fn container(cx: &Ctxt, input: &syn::DeriveInput, resource: bool) -> Option<Container> {
    let serde = SerdeContainer::from_attrs(&input.attrs);
    if let Some((msg, span)) = &serde.bad_rule {
        cx.error_at(*span, msg);
    }
    let TypeKeys {
        spans: type_keys,
        constraints: type_c,
        extras,
        resource: res,
    } = type_keys(cx, input, resource);
    let overridden = type_c.overrides_schema();
    if let Some((name, span)) = &serde.conversion
        && !overridden
    {
        cx.error_at(
            *span,
            fields::custom_serde(&format!("#[serde({name} = ...)]"), "type"),
        );
    }
    let mut b = Builder {
        cx,
        classifier: Classifier {
            cx,
            self_name: input.ident.to_string(),
            resolvers: Vec::new(),
        },
        container_default: serde.default,
        container_derives_default: attr::derived(&input.attrs).iter().any(|d| d == "Default"),
        container_optional: extras.optional,
        sites: Vec::new(),
    };
    let (shape, field_spans) = match &input.data {
        // The schema is given by hand: the Rust fields or variants are not
        // what is serialized, so they are not read.
        _ if overridden => (Shape::Struct { fields: Vec::new() }, Vec::new()),
        syn::Data::Struct(s) => struct_shape(&mut b, input, s, &serde)?,
        syn::Data::Enum(e) => (variants::enum_shape(&mut b, input, e, &serde)?, Vec::new()),
        syn::Data::Union(_) => {
            cx.error_spanned_by(&input.ident, "unions are not supported");
            return None;
        }
    };
    let description = extras
        .description
        .clone()
        .or_else(|| attr::doc_comment(&input.attrs));
    let model = TypeModel {
        name: input.ident.to_string(),
        description,
        shape,
        constraints: type_c,
    };
    Some(Container {
        model,
        resolvers: b.classifier.resolvers,
        type_keys,
        fields: field_spans,
        sites: b.sites,
        crate_path: extras.crate_path,
        apply: extras.apply,
        resource: res,
    })
}

/// What the type's `#[kubegen(...)]` keys say.
struct TypeKeys {
    spans: KeySpans,
    constraints: Constraints,
    extras: Extras,
    resource: ResourceAttrs,
}

/// The type's keys read: resource keys (with `resource`) into
/// [`ResourceAttrs`], the others as schema constraints and extras.
fn type_keys(cx: &Ctxt, input: &syn::DeriveInput, resource: bool) -> TypeKeys {
    let mut constraints = Constraints::default();
    let mut extras = Extras::default();
    let mut res = ResourceAttrs::default();
    let scopes: &[Scope] = if resource {
        &[Scope::Resource, Scope::Type]
    } else {
        &[Scope::Type]
    };
    let spans = attr::for_each_key(cx, &input.attrs, scopes, |key, meta| {
        if keys::scopes_of(key).is_some_and(|s| s.contains(&Scope::Resource)) && key != keys::CRATE
        {
            res.parse_key(cx, key, meta)
        } else {
            parse_key(cx, key, meta, &mut constraints, &mut extras)
        }
    });
    TypeKeys {
        spans,
        constraints,
        extras,
        resource: res,
    }
}

/// A struct's shape and its fields' spans: named fields (one, unnamed, when
/// `#[serde(transparent)]`), or a newtype; tuple and unit structs refused.
fn struct_shape(
    b: &mut Builder<'_>,
    input: &syn::DeriveInput,
    s: &syn::DataStruct,
    serde: &SerdeContainer,
) -> Option<(Shape, Vec<FieldSpans>)> {
    let cx = b.cx;
    match &s.fields {
        syn::Fields::Named(named) => {
            let (fields, spans) = b.fields(named, serde.rename_all);
            if !serde.transparent {
                return Some((Shape::Struct { fields }, spans));
            }
            if fields.len() != 1 {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[serde(transparent)]` needs exactly one serialized field",
                );
                return None;
            }
            let mut field = fields.into_iter().next()?;
            field.name = String::new();
            let shape = Shape::Transparent {
                field: Box::new(field),
            };
            Some((shape, spans))
        }
        syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
            let field = b.newtype(unnamed.unnamed.first()?)?;
            let shape = Shape::Transparent {
                field: Box::new(field),
            };
            Some((shape, Vec::new()))
        }
        syn::Fields::Unnamed(_) => {
            cx.error_spanned_by(&input.ident, "tuple structs serialize as heterogeneous arrays, which a structural schema cannot describe; use named fields");
            None
        }
        syn::Fields::Unit => {
            cx.error_spanned_by(
                &input.ident,
                "unit structs serialize as null, which a structural schema cannot describe",
            );
            None
        }
    }
}

pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

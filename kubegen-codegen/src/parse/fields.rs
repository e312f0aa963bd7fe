//! Named and newtype fields → model [`Field`]s, with the spans the check
//! phase reports at.

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::classify::Classifier;
use super::{FieldSpans, ResolverKind, unraw};
use crate::attr::constraints::{Extras, parse_key};
use crate::attr::serde_attr::{SerdeDefault, SerdeField};
use crate::attr::{self, Scope, keys};
use crate::ctxt::Ctxt;
use kubegen_core::model::case::RenameRule;
use kubegen_core::model::{Constraints, Field, Ty};

/// Builds fields, recording the spans of each in [`Builder::sites`].
pub(super) struct Builder<'a> {
    pub(super) cx: &'a Ctxt,
    pub(super) classifier: Classifier<'a>,
    /// `#[serde(default)]` on the container: every field is optional.
    pub(super) container_default: bool,
    /// The container derives `Default`, so its fields' defaults are their
    /// types' defaults.
    pub(super) container_derives_default: bool,
    /// Spans of every field built, in build order.
    pub(super) sites: Vec<FieldSpans>,
}

impl Builder<'_> {
    /// Builds the model of named fields, returning spans too.
    pub(super) fn fields(
        &mut self,
        fields: &syn::FieldsNamed,
        rename_all: Option<RenameRule>,
    ) -> (Vec<Field>, Vec<FieldSpans>) {
        let mut out = Vec::new();
        let mut spans = Vec::new();
        for field in &fields.named {
            let Some(ident) = &field.ident else { continue };
            let serde = SerdeField::from_attrs(&field.attrs);
            if serde.skip {
                continue;
            }
            let name = serde.rename.clone().unwrap_or_else(|| {
                let raw = unraw(ident);
                rename_all.map_or(raw.clone(), |r| r.apply_to_field(&raw))
            });
            if let Some((f, s)) = self.field(field, &serde, name, ident.span()) {
                out.push(f);
                spans.push(s);
            }
        }
        (out, spans)
    }

    pub(super) fn field(
        &mut self,
        field: &syn::Field,
        serde: &SerdeField,
        name: String,
        span: Span,
    ) -> Option<(Field, FieldSpans)> {
        let cx = self.cx;
        let mut c = Constraints::default();
        let mut extras = Extras::default();
        let keys = attr::for_each_key(cx, &field.attrs, &[Scope::Field], |key, meta| {
            parse_key(cx, key, meta, &mut c, &mut extras)
        });
        let opaque = c.schemaless || c.preserve_unknown_fields || c.int_or_string;
        if let Some(with_span) = serde.with
            && !opaque
            && !extras.schemars
        {
            cx.error_at(with_span, "`#[serde(with = ...)]` changes the JSON form, so kubegen cannot infer a schema; add `#[kubegen(schemaless)]`, `#[kubegen(int_or_string)]` or `#[kubegen(preserve_unknown_fields)]`");
        }
        let ty = if c.schemaless {
            // The Rust type is irrelevant; only optionality matters.
            match &field.ty {
                syn::Type::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "Option") =>
                {
                    Ty::Option(Box::new(Ty::Json))
                }
                _ => Ty::Json,
            }
        } else {
            self.classifier.classify(&field.ty, extras.schemars)?
        };
        if extras.required && extras.optional {
            cx.error_at(
                keys.get(keys::REQUIRED).copied().unwrap_or(span),
                "a field cannot be both `required` and `optional`",
            );
        }
        if extras.required && c.default.is_some() {
            cx.error_at(
                keys.get(keys::REQUIRED).copied().unwrap_or(span),
                "a `required` field cannot have a `default`: the apiserver fills defaults before checking `required`",
            );
        }
        if extras.required && (serde.default.is_some() || serde.skip_serializing_if) {
            cx.error_at(
                keys.get(keys::REQUIRED).copied().unwrap_or(span),
                "a `required` field cannot use `#[serde(default)]` or `skip_serializing_if`: serde would omit or not need it",
            );
        }
        let mut default_from_type = false;
        let serde_default = match serde.default {
            Some(d) => Some(d),
            None if self.container_default => Some(SerdeDefault::Trait),
            None => None,
        };
        if let Some(d) = serde_default
            && c.default.is_none()
            && !extras.no_schema_default
            && !serde.flatten
            && !extras.required
        {
            let at = keys.get(keys::DEFAULT).copied().unwrap_or(span);
            let known = match &ty {
                // The nested type's schema says (checked at compile time
                // for `KubeSchema` types, when the schema is built
                // otherwise).
                Ty::Named { resolver, .. }
                    if self.classifier.resolvers[*resolver].kind == ResolverKind::KubeSchema =>
                {
                    TypeDefault::FromType
                }
                ty => type_default(ty),
            };
            match (d, known) {
                (SerdeDefault::Function(fn_span), _) => cx.error_at(fn_span, NO_FUNCTION_DEFAULT),
                (SerdeDefault::Trait, _)
                    if serde.default.is_none() && !self.container_derives_default =>
                {
                    cx.error_at(at, NO_CONTAINER_DEFAULT)
                }
                (SerdeDefault::Trait, TypeDefault::Value(v)) => c.default = Some(v),
                (SerdeDefault::Trait, TypeDefault::Absent) => {}
                (SerdeDefault::Trait, TypeDefault::FromType) => default_from_type = true,
                (SerdeDefault::Trait, TypeDefault::Unknown) => cx.error_at(at, NO_TYPE_DEFAULT),
            }
        }
        let implied_optional = ty.is_option()
            || serde.default.is_some()
            || self.container_default
            || serde.skip_serializing_if
            || serde.half_skip
            || serde.flatten
            || c.default.is_some();
        let required = !extras.optional && (extras.required || !implied_optional);
        let description = extras
            .description
            .or_else(|| attr::doc_comment(&field.attrs));
        let model = Field {
            name: name.clone(),
            description,
            ty,
            required,
            flatten: serde.flatten,
            constraints: c,
            default_from_type,
        };
        let spans = FieldSpans {
            json_name: name,
            span,
            ty_span: field.ty.span(),
            keys,
        };
        self.sites.push(spans.clone());
        Some((model, spans))
    }

    pub(super) fn newtype(&mut self, field: &syn::Field) -> Option<Field> {
        let serde = SerdeField::from_attrs(&field.attrs);
        self.field(field, &serde, String::new(), field.span())
            .map(|(f, _)| f)
    }
}

/// What `Default::default()` of a field's type serializes to.
enum TypeDefault {
    /// A value the schema can carry.
    Value(serde_json::Value),
    /// What the nested type's schema records for its `Default`.
    FromType,
    /// Nothing: serde omits it or reads an absent field as it (`None`,
    /// JSON `null`, an empty `ObjectMeta`), so no schema default is needed.
    Absent,
    /// Not knowable without compiling the type.
    Unknown,
}

fn type_default(ty: &Ty) -> TypeDefault {
    use serde_json::json;
    match ty {
        Ty::Bool => TypeDefault::Value(json!(false)),
        Ty::Int { .. } => TypeDefault::Value(json!(0)),
        Ty::Float { .. } => TypeDefault::Value(json!(0.0)),
        Ty::String { char: false } => TypeDefault::Value(json!("")),
        Ty::List { len: None, .. } => TypeDefault::Value(json!([])),
        Ty::Map(_) => TypeDefault::Value(json!({})),
        Ty::Option(_) | Ty::Json | Ty::ObjectMeta => TypeDefault::Absent,
        Ty::String { char: true }
        | Ty::List { len: Some(_), .. }
        | Ty::IntOrString
        | Ty::DateTime
        | Ty::Duration
        | Ty::Named { .. } => TypeDefault::Unknown,
    }
}

const NO_FUNCTION_DEFAULT: &str = "`#[serde(default = \"...\")]` runs a function kubegen cannot evaluate, so the CRD would have no default: the apiserver would store objects without this field while Rust readers see the function's value; add `#[kubegen(default = <the same value>)]`, or `#[kubegen(no_schema_default)]` to leave the schema without a default on purpose";

const NO_TYPE_DEFAULT: &str = "`#[serde(default)]` gives this field its type's `Default::default()`, which kubegen cannot know for this type, so the CRD would have no default while Rust readers see one; add `#[kubegen(default = <the same value>)]`, or `#[kubegen(no_schema_default)]` to leave the schema without a default on purpose";

const NO_CONTAINER_DEFAULT: &str = "the container's `#[serde(default)]` takes this field's value from a hand-written `Default` impl kubegen cannot evaluate; add `#[kubegen(default = <the same value>)]`, or `#[kubegen(no_schema_default)]` to leave the schema without a default on purpose (or derive `Default`)";

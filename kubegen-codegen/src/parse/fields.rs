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
use kubegen_core::model::{Constraints, Field, SchemaType, Ty};

/// Builds fields, recording the spans of each in [`Builder::sites`].
pub(super) struct Builder<'a> {
    pub(super) cx: &'a Ctxt,
    pub(super) classifier: Classifier<'a>,
    /// `#[serde(default)]` on the container: every field is optional.
    pub(super) container_default: bool,
    /// The container derives `Default`, so its fields' defaults are their
    /// types' defaults.
    pub(super) container_derives_default: bool,
    /// `optional` on the container: fields are optional unless `required`
    /// (controller-gen's package-level `+kubebuilder:validation:Optional`).
    pub(super) container_optional: bool,
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

    /// One field's model and spans: its keys read, its type (as written or
    /// as a key overrides it), the key combinations refused, its schema
    /// default, and whether it is required.
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
        if let Some((name, with_span)) = &serde.with
            && !c.overrides_schema()
            && !c.int_or_string
        {
            cx.error_at(
                *with_span,
                custom_serde(&format!("#[serde({name} = ...)]"), "field"),
            );
        }
        let ty = self.field_ty(field, &c, &extras)?;
        let required_at = keys.get(keys::REQUIRED).copied().unwrap_or(span);
        required_conflicts(cx, required_at, serde, &c, &extras);
        let default_at = keys.get(keys::DEFAULT).copied().unwrap_or(span);
        let default_from_type = self.serde_default(serde, &mut c, &extras, &ty, default_at);
        let required = self.required(serde, &c, &extras, &ty);
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
            ident: field.ident.clone(),
            ty: field.ty.clone(),
            keys,
        };
        self.sites.push(spans.clone());
        Some((model, spans))
    }

    /// The field's type in the model: the Rust type classified, or, when a
    /// key gives the schema (of the field or of its items), the overriding
    /// type with only the Rust type's optionality (or list shell) kept.
    fn field_ty(&mut self, field: &syn::Field, c: &Constraints, extras: &Extras) -> Option<Ty> {
        let items_override = c
            .items
            .as_deref()
            .is_some_and(Constraints::overrides_schema);
        Some(if let Some(t) = overridden_ty(c) {
            // The Rust type is not what is written: only optionality matters.
            if is_option(&field.ty) {
                Ty::Option(Box::new(t))
            } else {
                t
            }
        } else if items_override {
            let item = c.items.as_deref().and_then(overridden_ty)?;
            list_shell(self.cx, &field.ty, item)?
        } else {
            self.classifier.classify(&field.ty, extras.schemars)?
        })
    }

    /// The schema default `#[serde(default)]` (the field's or the
    /// container's) implies, set on `c` when the field's type says it;
    /// refused when kubegen cannot know it. Returns whether the nested
    /// type's schema gives it.
    fn serde_default(
        &self,
        serde: &SerdeField,
        c: &mut Constraints,
        extras: &Extras,
        ty: &Ty,
        at: Span,
    ) -> bool {
        let cx = self.cx;
        let serde_default = match serde.default {
            Some(d) => Some(d),
            None if self.container_default => Some(SerdeDefault::Trait),
            None => None,
        };
        let Some(d) = serde_default else {
            return false;
        };
        if c.default.is_some() || extras.no_schema_default || serde.flatten || extras.required {
            return false;
        }
        let known = self.known_type_default(serde, c, ty);
        match (d, known) {
            (SerdeDefault::Function(fn_span), _) => cx.error_at(fn_span, NO_FUNCTION_DEFAULT),
            // Rust's spelling of Go's `omitempty`: serde never writes the
            // value `skip_serializing_if` skips (the type's default, in
            // the common `Vec::is_empty`, `String::is_empty`,
            // `Option::is_none`, `BTreeMap::is_empty`) and reads an absent
            // field as `Default::default()`; the schema has no default,
            // as controller-gen writes none for an `omitempty` field.
            (SerdeDefault::Trait, _) if serde.skip_serializing_if => {}
            (SerdeDefault::Trait, _)
                if serde.default.is_none() && !self.container_derives_default =>
            {
                cx.error_at(at, NO_CONTAINER_DEFAULT)
            }
            (SerdeDefault::Trait, TypeDefault::Value(v)) => c.default = Some(v),
            (SerdeDefault::Trait, TypeDefault::Absent) => {}
            (SerdeDefault::Trait, TypeDefault::FromType) => return true,
            (SerdeDefault::Trait, TypeDefault::Unknown) => cx.error_at(at, NO_TYPE_DEFAULT),
            (SerdeDefault::Trait, TypeDefault::NotInJson) => cx.error_at(at, NO_JSON_DEFAULT),
        }
        false
    }

    /// What the field's `Default::default()` serializes to, as far as
    /// kubegen can know without compiling the type.
    fn known_type_default(&self, serde: &SerdeField, c: &Constraints, ty: &Ty) -> TypeDefault {
        match ty {
            _ if ty.is_option() => TypeDefault::Absent,
            // Custom serde code or a schema given by hand: what
            // `Default::default()` serializes to is unknown, unless the
            // JSON says it.
            _ if serde.with.is_some() || c.schema_type.is_some() || c.schema_json.is_some() => {
                match &c.schema_json {
                    Some(j) if j.contains_key("default") => TypeDefault::Absent,
                    Some(_) => TypeDefault::NotInJson,
                    None => TypeDefault::Unknown,
                }
            }
            // The nested type's schema says (checked at compile time
            // for `KubeSchema` types, when the schema is built
            // otherwise).
            Ty::Named { resolver, .. }
                if self.classifier.resolvers[*resolver].kind == ResolverKind::KubeSchema =>
            {
                TypeDefault::FromType
            }
            ty => type_default(ty),
        }
    }

    /// Whether the field is required: `required`, or nothing makes it
    /// optional (its type, serde's defaults and skips, a schema default,
    /// `optional` on it or on the container).
    fn required(&self, serde: &SerdeField, c: &Constraints, extras: &Extras, ty: &Ty) -> bool {
        let implied_optional = ty.is_option()
            || serde.default.is_some()
            || self.container_default
            || serde.skip_serializing_if
            || serde.half_skip
            || serde.flatten
            || c.default.is_some();
        !extras.optional && (extras.required || !(implied_optional || self.container_optional))
    }

    pub(super) fn newtype(&mut self, field: &syn::Field) -> Option<Field> {
        let serde = SerdeField::from_attrs(&field.attrs);
        self.field(field, &serde, String::new(), field.span())
            .map(|(f, _)| f)
    }
}

/// `required` refused beside `optional`, a schema default, or serde's
/// `default` and `skip_serializing_if`.
fn required_conflicts(cx: &Ctxt, at: Span, serde: &SerdeField, c: &Constraints, extras: &Extras) {
    if extras.required && extras.optional {
        cx.error_at(at, "a field cannot be both `required` and `optional`");
    }
    if extras.required && c.default.is_some() {
        cx.error_at(
            at,
            "a `required` field cannot have a `default`: the apiserver fills defaults before checking `required`",
        );
    }
    if extras.required && (serde.default.is_some() || serde.skip_serializing_if) {
        cx.error_at(
            at,
            "a `required` field cannot use `#[serde(default)]` or `skip_serializing_if`: serde would omit or not need it",
        );
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
    /// Not in the `schema_json` that stands for the field's schema.
    NotInJson,
}

fn type_default(ty: &Ty) -> TypeDefault {
    use serde_json::json;
    match ty {
        Ty::Bool => TypeDefault::Value(json!(false)),
        Ty::Int { .. } => TypeDefault::Value(json!(0)),
        Ty::Float { .. } => TypeDefault::Value(json!(0.0)),
        Ty::String { char: false } => TypeDefault::Value(json!("")),
        Ty::List { len: None, .. } => TypeDefault::Value(json!([])),
        Ty::Map(_) | Ty::IntKeyMap { .. } => TypeDefault::Value(json!({})),
        Ty::Option(_) | Ty::Json | Ty::ObjectMeta => TypeDefault::Absent,
        Ty::String { char: true }
        | Ty::List { len: Some(_), .. }
        | Ty::IntOrString
        | Ty::Quantity
        | Ty::DateTime
        | Ty::Duration
        | Ty::Bytes
        | Ty::Named { .. } => TypeDefault::Unknown,
    }
}

const NO_FUNCTION_DEFAULT: &str = "`#[serde(default = \"...\")]` runs a function kubegen cannot evaluate, so the CRD would have no default: the apiserver would store objects without this field while Rust readers see the function's value; add `#[kubegen(default = <the same value>)]`, or `#[kubegen(no_schema_default)]` to leave the schema without a default on purpose";

const NO_TYPE_DEFAULT: &str = "`#[serde(default)]` gives this field its type's `Default::default()`, which kubegen cannot know for this type, so the CRD would have no default while Rust readers see one; add `#[kubegen(default = <the same value>)]`, or `#[kubegen(no_schema_default)]` to leave the schema without a default on purpose";

const NO_JSON_DEFAULT: &str = "`#[serde(default)]` gives this field its type's `Default::default()`, but the field's `schema_json` has no \"default\", so the CRD would have none while Rust readers see one; add \"default\" with the same value to the JSON, or `#[kubegen(no_schema_default)]` to leave the schema without a default on purpose";

const NO_CONTAINER_DEFAULT: &str = "the container's `#[serde(default)]` takes this field's value from a hand-written `Default` impl kubegen cannot evaluate; add `#[kubegen(default = <the same value>)]`, or `#[kubegen(no_schema_default)]` to leave the schema without a default on purpose (or derive `Default`)";

/// The error for serde attributes whose JSON kubegen cannot see (`what`,
/// on a `place`): the remedies that describe the JSON by hand.
pub(super) fn custom_serde(what: &str, place: &str) -> String {
    format!(
        "`{what}` writes this {place}'s JSON with code kubegen cannot read, so the schema of the Rust type would be wrong; describe the JSON instead: add `#[kubegen(schema_type = \"string\")]` (or another type, with `format = \"...\"` where one applies), `#[kubegen(schema_json = r#\"{{...}}\"#)]`, or `#[kubegen(schemaless)]` to the {place}"
    )
}

/// Whether a type is written `Option<...>`.
fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// The model type of a node whose schema an attribute gives
/// (`schema_type`, `schema_json`, `schemaless`), without looking at the
/// Rust type: what the checks of its other keys and a parent's list-map
/// keys need to know.
pub(crate) fn overridden_ty(c: &Constraints) -> Option<Ty> {
    let from_type = |t: SchemaType| match t {
        SchemaType::String => Ty::String { char: false },
        SchemaType::Integer => Ty::Int {
            bits: 64,
            signed: true,
        },
        SchemaType::Number => Ty::Float { bits: 64 },
        SchemaType::Boolean => Ty::Bool,
        SchemaType::Object => Ty::Map(Box::new(Ty::Json)),
        SchemaType::Array => Ty::List {
            item: Box::new(
                c.items
                    .as_deref()
                    .and_then(overridden_ty)
                    .unwrap_or(Ty::Json),
            ),
            set: false,
            len: None,
        },
    };
    if let Some(j) = &c.schema_json {
        if j.get("x-kubernetes-int-or-string") == Some(&serde_json::Value::Bool(true)) {
            return Some(Ty::IntOrString);
        }
        return Some(
            match j
                .get("type")
                .and_then(serde_json::Value::as_str)
                .and_then(SchemaType::parse)
            {
                // The JSON's items are the JSON's business.
                Some(SchemaType::Array) => Ty::List {
                    item: Box::new(Ty::Json),
                    set: false,
                    len: None,
                },
                Some(t) => from_type(t),
                None => Ty::Json,
            },
        );
    }
    if c.schemaless {
        return Some(Ty::Json);
    }
    c.schema_type.map(from_type)
}

/// A list field whose items' schema an attribute gives: the list (and any
/// `Option` or smart pointer around it) from the Rust type, the items
/// from the attribute; the item type itself is never looked at.
fn list_shell(cx: &Ctxt, ty: &syn::Type, item: Ty) -> Option<Ty> {
    let list = |set: bool, len: Option<u64>, item: Ty| Ty::List {
        item: Box::new(item),
        set,
        len,
    };
    match ty {
        syn::Type::Reference(r) => list_shell(cx, &r.elem, item),
        syn::Type::Paren(p) => list_shell(cx, &p.elem, item),
        syn::Type::Group(g) => list_shell(cx, &g.elem, item),
        syn::Type::Slice(_) => Some(list(false, None, item)),
        syn::Type::Array(a) => {
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<u64>().ok(),
                _ => None,
            };
            Some(list(false, len, item))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last()?;
            let inner = match &seg.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            match (seg.ident.to_string().as_str(), inner) {
                ("Option", Some(inner)) => Some(Ty::Option(Box::new(list_shell(cx, inner, item)?))),
                ("Box" | "Arc" | "Rc", Some(inner)) => list_shell(cx, inner, item),
                ("Vec" | "VecDeque" | "LinkedList", Some(_)) => Some(list(false, None, item)),
                ("BTreeSet" | "HashSet" | "IndexSet", Some(_)) => Some(list(true, None, item)),
                _ => {
                    cx.error_spanned_by(ty, NOT_A_LIST);
                    None
                }
            }
        }
        _ => {
            cx.error_spanned_by(ty, NOT_A_LIST);
            None
        }
    }
}

const NOT_A_LIST: &str = "`items(...)` with `schema_type`, `schema_json` or `schemaless` describes the items of a list: the field must be a `Vec`, `VecDeque`, `LinkedList`, a set or an array (or an `Option` of one)";

//! Cross-field checks on the model (the check phase), reported with spans,
//! and the value checker used for `default`, `example` and `enum_values`.

use proc_macro2::Span;
use serde_json::Value;

use crate::attr::resource::ResourceAttrs;
use crate::attr::{KeySpans, Scope, keys};
use crate::ctxt::Ctxt;
use crate::parse::{Container, FieldSpans};
use kubegen_core::model::{Constraints, Field, Shape, Ty, TypeModel};
use kubegen_core::vocabulary::{Applies, Effect};

/// The check phase: every rule over the finished [`Container`] — each field,
/// the type, and (for `CustomResource`) the resource keys.
pub fn check(cx: &Ctxt, input: &syn::DeriveInput, c: &Container, resource: bool) {
    let fields = c.model.fields();
    debug_assert_eq!(fields.len(), c.sites.len(), "one site per model field");
    for (field, site) in fields.into_iter().zip(&c.sites) {
        check_field(cx, field, &site.keys, site.ty_span);
    }
    check_unique_names(cx, c);
    check_type(cx, &c.model, &c.type_keys, &input.ident);
    if resource {
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(&input.generics, "a `CustomResource` spec cannot be generic");
        }
        check_resource(cx, &c.resource, &input.ident, &c.model, &c.fields);
    }
}

/// Why a JSON value does not fit a type and its constraints (empty if it fits).
pub fn value_errors(v: &Value, ty: &Ty, c: &Constraints) -> Vec<String> {
    let mut errs = Vec::new();
    if v.is_null() {
        if !(c.nullable && ty.is_option()) {
            errs.push("null is only allowed for a `nullable` optional field".into());
        }
        return errs;
    }
    let kind = ty.json_kind();
    let fits = if c.int_or_string {
        v.is_i64() || v.is_u64() || v.is_string()
    } else {
        match ty.unwrap_option() {
            Ty::Bool => v.is_boolean(),
            Ty::Int { bits, signed } => int_fits(v, *bits, *signed),
            Ty::Float { .. } => v.is_number(),
            Ty::String { char } => v.as_str().is_some_and(|s| !char || s.chars().count() == 1),
            Ty::DateTime | Ty::Duration | Ty::Bytes => v.is_string(),
            Ty::IntOrString | Ty::Quantity => v.is_i64() || v.is_u64() || v.is_string(),
            Ty::List { item, .. } => match v.as_array() {
                Some(items) => {
                    let ic = c.items.as_deref().cloned().unwrap_or_default();
                    for (i, it) in items.iter().enumerate() {
                        for e in value_errors(it, item, &ic) {
                            errs.push(format!("item {i}: {e}"));
                        }
                    }
                    true
                }
                None => false,
            },
            Ty::Map(vt) => match v.as_object() {
                Some(m) => {
                    for (k, val) in m {
                        for e in value_errors(val, vt, &Constraints::default()) {
                            errs.push(format!("key `{k}`: {e}"));
                        }
                    }
                    true
                }
                None => false,
            },
            Ty::IntKeyMap {
                bits,
                signed,
                value,
            } => match v.as_object() {
                Some(m) => {
                    for (k, val) in m {
                        let canonical = k.parse::<i128>().is_ok_and(|n| n.to_string() == *k);
                        if !canonical || !int_fits(&json_int(k), *bits, *signed) {
                            errs.push(format!(
                                "key `{k}` is not {} {}-bit {}signed integer in decimal",
                                "a",
                                bits,
                                if *signed { "" } else { "un" }
                            ));
                        }
                        for e in value_errors(val, value, &Constraints::default()) {
                            errs.push(format!("key `{k}`: {e}"));
                        }
                    }
                    true
                }
                None => false,
            },
            Ty::ObjectMeta => v.is_object(),
            Ty::Json | Ty::Named { .. } | Ty::Option(_) => true,
        }
    };
    if !fits {
        errs.push(format!(
            "expected {} {kind}, found {}",
            article(kind),
            describe(v)
        ));
        return errs;
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = c.minimum.as_ref().and_then(|m| m.as_f64())
            && (n < min || (c.exclusive_minimum && n == min))
        {
            errs.push(format!("{v} is below the minimum {min}"));
        }
        if let Some(max) = c.maximum.as_ref().and_then(|m| m.as_f64())
            && (n > max || (c.exclusive_maximum && n == max))
        {
            errs.push(format!("{v} is above the maximum {max}"));
        }
        if let Some(m) = c.multiple_of.as_ref().and_then(|m| m.as_f64())
            && m > 0.0
            && (n / m).fract() != 0.0
        {
            errs.push(format!("{v} is not a multiple of {m}"));
        }
    }
    if let Some(s) = v.as_str() {
        let len = s.chars().count() as u64;
        if c.min_length.is_some_and(|m| len < m) {
            errs.push(format!("\"{s}\" is shorter than min_length"));
        }
        if c.max_length.is_some_and(|m| len > m) {
            errs.push(format!("\"{s}\" is longer than max_length"));
        }
        // Matched as the apiserver matches (Go's RE2); a pattern Go refuses
        // is reported where it is read.
        if let Some(p) = &c.pattern
            && crate::re2::is_match(p, s) == Some(false)
        {
            errs.push(format!("\"{s}\" does not match the pattern `{p}`"));
        }
    }
    if let Some(a) = v.as_array() {
        let n = a.len() as u64;
        if c.min_items.is_some_and(|m| n < m) {
            errs.push(format!("{n} items are fewer than min_items"));
        }
        if c.max_items.is_some_and(|m| n > m) {
            errs.push(format!("{n} items are more than max_items"));
        }
        if c.unique_items && a.iter().enumerate().any(|(i, x)| a[..i].contains(x)) {
            errs.push("items are not unique".into());
        }
    }
    if let Some(o) = v.as_object() {
        let n = o.len() as u64;
        if c.min_properties.is_some_and(|m| n < m) {
            errs.push(format!("{n} properties are fewer than min_properties"));
        }
        if c.max_properties.is_some_and(|m| n > m) {
            errs.push(format!("{n} properties are more than max_properties"));
        }
    }
    if let Some(values) = &c.enum_values
        && !values.contains(v)
    {
        errs.push(format!("{v} is not one of the enum_values"));
    }
    errs
}

/// The formats the apiserver knows, by the JSON type they describe
/// (`k8s.io/kube-openapi` strfmt plus the numeric OpenAPI formats).
const INTEGER_FORMATS: &[&str] = &["int32", "int64"];
const NUMBER_FORMATS: &[&str] = &["float", "double"];
const STRING_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "duration",
    "byte",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "uri",
    "uuid",
    "mac",
    "password",
    "datetime",
    "bsonobjectid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
];

/// Why `format` does not fit a field of type `target` (a known format of
/// another JSON type, or any format on a boolean), if it does not. Formats
/// the apiserver does not know are left to it.
fn format_mismatch(format: &str, target: &Ty, place: &str) -> Option<String> {
    let kind = target.json_kind();
    let belongs = [
        (INTEGER_FORMATS, "integer"),
        (NUMBER_FORMATS, "number"),
        (STRING_FORMATS, "string"),
    ]
    .into_iter()
    .find(|(formats, _)| formats.contains(&format))
    .map(|(_, k)| k);
    let fits = match (belongs, target) {
        (_, Ty::Bool) => false,
        (None, _) | (_, Ty::IntOrString | Ty::Quantity) => true,
        (Some(k), _) => k == kind,
    };
    (!fits).then(|| match belongs {
        Some(k) => format!(
            "`format = \"{format}\"` describes {} {k}, but this {place} is {} {kind}; {}",
            article(k),
            article(kind),
            match kind {
                "integer" => "use \"int32\" or \"int64\"".to_owned(),
                "number" => "use \"float\" or \"double\"".to_owned(),
                "string" => format!(
                    "use a string format such as {}",
                    STRING_FORMATS[..6].join(", ")
                ),
                _ => "leave `format` out".to_owned(),
            }
        ),
        None => format!("`format` does not apply to a {kind}; leave it out"),
    })
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string \"{s}\""),
        Value::Number(n) => format!("the number {n}"),
        Value::Bool(b) => format!("`{b}`"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
        Value::Null => "null".into(),
    }
}

fn int_fits(v: &Value, bits: u8, signed: bool) -> bool {
    let (min, max) = Ty::int_range(bits, signed);
    let n: Option<i128> = v
        .as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from));
    n.is_some_and(|n| n >= min && n <= max)
}

/// A decimal map key as a JSON number (or null when it is none).
fn json_int(k: &str) -> Value {
    k.parse::<i64>()
        .map(Value::from)
        .or_else(|_| k.parse::<u64>().map(Value::from))
        .unwrap_or(Value::Null)
}

fn contains_float(ty: &Ty) -> bool {
    match ty {
        Ty::Float { .. } => true,
        Ty::Option(t) | Ty::Map(t) | Ty::IntKeyMap { value: t, .. } => contains_float(t),
        Ty::List { item, .. } => contains_float(item),
        _ => false,
    }
}

/// Two fields of one object serializing under the same name: serde would
/// write both keys and read only one.
fn check_unique_names(cx: &Ctxt, c: &Container) {
    use kubegen_core::model::VariantData;
    // Sites follow the model's field order (see `TypeModel::fields`).
    let mut sites = c.sites.iter();
    let object = |fields: &[Field], sites: &mut std::slice::Iter<'_, FieldSpans>| {
        let mut seen: Vec<&str> = Vec::new();
        for field in fields {
            let Some(site) = sites.next() else { return };
            if field.flatten {
                continue;
            }
            if seen.contains(&field.name.as_str()) {
                cx.error_at(
                    site.span,
                    format!(
                        "another field already serializes as `{}`: serde would write the key twice; rename one of them",
                        field.name
                    ),
                );
            }
            seen.push(&field.name);
        }
    };
    match &c.model.shape {
        Shape::Struct { fields } => object(fields, &mut sites),
        Shape::Transparent { .. } => {}
        Shape::Enum { variants, .. } => {
            for v in variants {
                match &v.data {
                    VariantData::Unit => {}
                    VariantData::Newtype(_) => {
                        sites.next();
                    }
                    VariantData::Struct(fields) => object(fields, &mut sites),
                }
            }
        }
    }
}

/// Keys that do not shape the schema of the node they are written on, and
/// so may accompany `schema_json`.
const BESIDE_SCHEMA_JSON: &[&str] = &[
    keys::SCHEMA_JSON,
    keys::DESCRIPTION,
    keys::REQUIRED,
    keys::OPTIONAL,
    keys::NO_SCHEMA_DEFAULT,
    keys::ALLOW_FLOAT,
    keys::CRATE,
];

/// Keys whose schema `schema_type` would contradict.
const BESIDE_SCHEMA_TYPE: &[&str] = &[
    keys::SCHEMA_JSON,
    keys::SCHEMALESS,
    keys::INT_OR_STRING,
    keys::SCHEMARS,
];

/// `schema_json` and `schema_type` against the other keys of one node
/// (`place` names it in messages): `schema_json` is the whole schema, so
/// no other schema keyword may shape the node; `schema_type` contradicts
/// the keys that give a schema of their own.
fn check_overrides(cx: &Ctxt, c: &Constraints, keys: &KeySpans, span: Span, place: &str) {
    let at = |k: &str| keys.get(k).copied().unwrap_or(span);
    let written: Vec<&'static str> = keys.keys().copied().collect();
    if c.schema_json.is_some() {
        for k in written.iter().filter(|k| !BESIDE_SCHEMA_JSON.contains(k)) {
            let schema_key = keys::scopes_of(k).is_some_and(|s| {
                s.iter()
                    .any(|s| matches!(s, Scope::Type | Scope::Field | Scope::Items))
            });
            if schema_key {
                cx.error_at(
                    at(k),
                    format!(
                        "`{k}` cannot be combined with `schema_json` on the same {place}: the JSON is the whole schema of the {place}; write the keyword into the JSON"
                    ),
                );
            }
        }
    } else if c.schema_type.is_some() {
        for k in written.iter().filter(|k| BESIDE_SCHEMA_TYPE.contains(k)) {
            cx.error_at(
                at(k),
                format!(
                    "`{k}` cannot be combined with `schema_type` on the same {place}: both say what the schema is; keep one"
                ),
            );
        }
    }
}

/// Rules of one field, reported at its keys (or its type when no key applies).
fn check_field(cx: &Ctxt, f: &Field, keys: &KeySpans, span: Span) {
    let c = &f.constraints;
    let explicit = c.schemaless || c.schema_type.is_some() || c.schema_json.is_some();
    if contains_float(&f.ty) && !c.allow_float && !explicit {
        cx.error_at(span, "floating-point fields are refused: Kubernetes API conventions discourage floats (they do not round-trip exactly); use an integer or a Quantity, or add `#[kubegen(allow_float)]`");
    }
    check_overrides(cx, c, keys, span, "field");
    check_node(cx, &f.ty, c, keys, span, "field");
    if f.flatten && !c.is_empty() {
        cx.error_at(span, "schema keywords on a `#[serde(flatten)]` field have no property to apply to; put them on the flattened type's fields");
    }
}

/// The type-dependent rules of one schema node: a field, list items or a
/// type, whose JSON is `ty` (for overridden nodes the type the override
/// names), with keywords `c` written at `keys`.
fn check_node(cx: &Ctxt, ty: &Ty, c: &Constraints, keys: &KeySpans, span: Span, place: &str) {
    if c.schema_json.is_some() {
        // The JSON is checked where it is read; other keys are refused.
        return;
    }
    let at = |k: &str| keys.get(k).copied().unwrap_or(span);
    let target = if c.int_or_string {
        &Ty::IntOrString
    } else {
        ty.unwrap_option()
    };
    let opaque =
        matches!(target, Ty::Named { .. } | Ty::Json) || c.schemaless || c.preserve_unknown_fields;
    if !opaque {
        let numeric = matches!(
            target,
            Ty::Int { .. } | Ty::Float { .. } | Ty::IntOrString | Ty::Quantity
        );
        let stringy = matches!(
            target,
            Ty::String { .. }
                | Ty::DateTime
                | Ty::Duration
                | Ty::Bytes
                | Ty::IntOrString
                | Ty::Quantity
        );
        let list = matches!(target, Ty::List { .. });
        let map = matches!(target, Ty::Map(_) | Ty::IntKeyMap { .. } | Ty::ObjectMeta);
        let bool_ = matches!(target, Ty::Bool);
        for k in keys::ALL.iter().filter(|k| keys.contains_key(k.name)) {
            let ok = match k.applies {
                Applies::Any => true,
                Applies::Numbers => numeric,
                Applies::Strings => stringy,
                Applies::Lists => list,
                Applies::Maps => map,
                Applies::Scalars => numeric || stringy || bool_,
            };
            if !ok {
                cx.error_at(
                    at(k.name),
                    format!(
                        "`{}` applies to {}, but this {place} is {} {}",
                        k.name,
                        k.applies.describe(),
                        article(target.json_kind()),
                        target.json_kind()
                    ),
                );
            }
        }
    }
    if !opaque
        && let Some(format) = &c.format
        && let Some(message) = format_mismatch(format, target, place)
    {
        cx.error_at(at(keys::FORMAT), message);
    }
    if let (Ty::Int { signed: false, .. }, Some(min)) = (target, &c.minimum)
        && min.as_f64().is_some_and(|m| m < 0.0)
    {
        cx.error_at(
            at(keys::MINIMUM),
            "an unsigned field cannot have a negative minimum",
        );
    }
    let pairs = [
        (
            c.minimum.as_ref().and_then(|n| n.as_f64()),
            c.maximum.as_ref().and_then(|n| n.as_f64()),
            keys::MINIMUM,
            keys::MAXIMUM,
        ),
        (
            c.min_length.map(|n| n as f64),
            c.max_length.map(|n| n as f64),
            keys::MIN_LENGTH,
            keys::MAX_LENGTH,
        ),
        (
            c.min_items.map(|n| n as f64),
            c.max_items.map(|n| n as f64),
            keys::MIN_ITEMS,
            keys::MAX_ITEMS,
        ),
        (
            c.min_properties.map(|n| n as f64),
            c.max_properties.map(|n| n as f64),
            keys::MIN_PROPERTIES,
            keys::MAX_PROPERTIES,
        ),
    ];
    for (lo, hi, klo, khi) in pairs {
        if let (Some(lo), Some(hi)) = (lo, hi)
            && lo > hi
        {
            cx.error_at(at(klo), format!("`{klo}` is greater than `{khi}`"));
        }
    }
    if let Ty::List { item, set, .. } = target {
        match c.list_type.as_deref() {
            Some("map") if c.list_map_keys.is_empty() => cx.error_at(
                at(keys::LIST_TYPE),
                "`list_type = \"map\"` needs `list_map_keys = [...]`",
            ),
            Some("map") if item.is_scalar() => cx.error_at(
                at(keys::LIST_TYPE),
                "`list_type = \"map\"` needs items that are objects",
            ),
            Some(t) if *set && t != "set" => cx.error_at(
                at(keys::LIST_TYPE),
                format!("a set type is always `list_type = \"set\"`, not \"{t}\""),
            ),
            Some("set")
                if !item.is_scalar() && !matches!(item.unwrap_option(), Ty::Named { .. }) =>
            {
                cx.error_at(
                    at(keys::LIST_TYPE),
                    "`list_type = \"set\"` needs scalar items",
                )
            }
            _ => {}
        }
        if c.unique_items {
            match c.list_type.as_deref() {
                Some(t) if t != "set" => cx.error_at(
                    at(keys::UNIQUE_ITEMS),
                    format!(
                        "`unique_items` is `list_type = \"set\"` on the apiserver; it conflicts with `list_type = \"{t}\"`"
                    ),
                ),
                _ if !item.is_scalar() && !matches!(item.unwrap_option(), Ty::Named { .. }) => {
                    cx.error_at(
                        at(keys::UNIQUE_ITEMS),
                        "`unique_items` (`list_type = \"set\"` on the apiserver) needs scalar items",
                    )
                }
                _ => {}
            }
        }
        if !c.list_map_keys.is_empty() && c.list_type.as_deref() != Some("map") {
            cx.error_at(
                at(keys::LIST_MAP_KEYS),
                "`list_map_keys` requires `list_type = \"map\"`",
            );
        }
    }
    values_fit_node(cx, ty, c, keys, span, place);
    if let Some(values) = &c.enum_values {
        let plain = Constraints {
            int_or_string: c.int_or_string,
            ..Constraints::default()
        };
        for v in values {
            let errs = value_errors(v, ty, &plain);
            if !errs.is_empty() {
                cx.error_at(
                    at(keys::ENUM_VALUES),
                    format!(
                        "`enum_values` entry does not fit the {place}: {}",
                        errs.join("; ")
                    ),
                );
            }
        }
    }
    if let (Ty::List { item, .. }, Some(ic)) = (target, c.items.as_deref()) {
        // The keys inside `items(...)` have no spans of their own.
        let items_at = at(keys::ITEMS);
        let item_keys: KeySpans = keys::present(ic)
            .into_iter()
            .map(|k| (k, items_at))
            .collect();
        check_overrides(cx, ic, &item_keys, items_at, "`items(...)`");
        check_node(cx, item, ic, &item_keys, items_at, "list's item");
    }
}

/// A value a key gives for the node (`default`, `example`, `neq`: the keys
/// whose value must fit the node) fits its type — and, for values the
/// apiserver stores, its keywords; each keyword is reported once, at the
/// key written for it.
fn values_fit_node(
    cx: &Ctxt,
    ty: &Ty,
    c: &Constraints,
    written: &KeySpans,
    span: Span,
    place: &str,
) {
    let fits = || keys::ALL.iter().filter(|k| k.value_fits_node);
    let mut reported: Vec<Option<&str>> = Vec::new();
    for k in fits() {
        let Some(v) = k.get(c) else { continue };
        let keyword = k.effect.keyword();
        if reported.contains(&keyword) {
            continue;
        }
        reported.push(keyword);
        // The message names the group's first key (`default` for
        // `default_json`), placed at the key that was written.
        let group = || fits().filter(move |o| o.effect.keyword() == keyword);
        let label = group().next().map_or(k.name, |g| g.name);
        let at = group()
            .find_map(|o| written.get(o.name).copied())
            .unwrap_or(span);
        let errs = if matches!(k.effect, Effect::Rule { .. }) {
            value_errors(&v, ty, &Constraints::default())
        } else {
            value_errors(&v, ty, c)
        };
        if !errs.is_empty() {
            cx.error_at(
                at,
                format!("`{label}` does not fit the {place}: {}", errs.join("; ")),
            );
        }
    }
}

/// The JSON a type serializes as, for the checks of its type-level keys.
fn type_ty(model: &TypeModel) -> Ty {
    if let Some(t) = crate::parse::overridden_ty(&model.constraints) {
        return t;
    }
    match &model.shape {
        Shape::Struct { .. } => Ty::Map(Box::new(Ty::Json)),
        Shape::Transparent { field } if field.constraints.int_or_string => Ty::IntOrString,
        Shape::Transparent { field } => field.ty.clone(),
        Shape::Enum {
            repr: kubegen_core::model::Repr::External,
            variants,
        } if variants
            .iter()
            .all(|v| matches!(v.data, kubegen_core::model::VariantData::Unit)) =>
        {
            Ty::String { char: false }
        }
        Shape::Enum { .. } => Ty::Json,
    }
}

/// Type-level rules needing all fields.
fn check_type(cx: &Ctxt, model: &TypeModel, type_keys: &KeySpans, ident: &syn::Ident) {
    let c = &model.constraints;
    let fields: &[Field] = match &model.shape {
        Shape::Struct { fields } => fields,
        _ => &[],
    };
    for one in &c.one_of {
        let key = match one.kind {
            kubegen_core::model::OneOfKind::ExactlyOne => keys::EXACTLY_ONE_OF,
            kubegen_core::model::OneOfKind::AtMostOne => keys::AT_MOST_ONE_OF,
            kubegen_core::model::OneOfKind::AtLeastOne => keys::AT_LEAST_ONE_OF,
        };
        let span = type_keys.get(key).copied().unwrap_or_else(|| ident.span());
        if !matches!(model.shape, Shape::Struct { .. }) {
            cx.error_at(
                span,
                format!("`{key}` applies to structs with named fields"),
            );
            continue;
        }
        for name in &one.fields {
            match fields.iter().find(|f| &f.name == name) {
                None => {
                    let hint = kubegen_core::suggest::suggest(
                        name,
                        fields.iter().map(|f| f.name.as_str()),
                    )
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                    cx.error_at(
                        span,
                        format!("`{key}` names `{name}`, which is not a serialized field{hint}"),
                    );
                }
                Some(f) if f.required => {
                    cx.error_at(span, format!("`{key}` member `{name}` must be optional"))
                }
                Some(_) => {}
            }
        }
    }
    check_overrides(cx, c, type_keys, ident.span(), "type");
    check_node(cx, &type_ty(model), c, type_keys, ident.span(), "type");
}

/// A DNS-1123 label: like [`is_dns_label`], but it may start with a digit.
fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && !s.starts_with('-')
        && !s.ends_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && !s.ends_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A `.spec.x` path: the first field after `.spec` must exist (deeper
/// segments are checked when `crd()` runs, where nested schemas are known).
/// `remedy` is appended to the error.
pub fn check_spec_path(
    cx: &Ctxt,
    path: &str,
    span: Span,
    spec: &TypeModel,
    fields: &[FieldSpans],
    remedy: &str,
) {
    let Some(rest) = path.strip_prefix(".spec.") else {
        return;
    };
    let first: String = rest
        .chars()
        .take_while(|c| *c != '.' && *c != '[')
        .collect();
    let flattened =
        matches!(&spec.shape, Shape::Struct { fields } if fields.iter().any(|f| f.flatten));
    // A spec whose schema is given by hand has no Rust fields to check.
    if !matches!(spec.shape, Shape::Struct { .. })
        || flattened
        || spec.constraints.overrides_schema()
    {
        return;
    }
    if !fields.iter().any(|f| f.json_name == first) {
        let hint =
            kubegen_core::suggest::suggest(&first, fields.iter().map(|f| f.json_name.as_str()))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
        cx.error_at(
            span,
            format!("`{path}`: the spec has no field `{first}`{hint}{remedy}"),
        );
    }
}

/// Resource-level rules: names, paths into the spec and metadata.
fn check_resource(
    cx: &Ctxt,
    res: &ResourceAttrs,
    ident: &syn::Ident,
    spec: &TypeModel,
    fields: &[FieldSpans],
) {
    for (key, v) in [
        (keys::GROUP, &res.group),
        (keys::VERSION, &res.version),
        (keys::KIND, &res.kind),
    ] {
        if v.is_none() {
            cx.error_spanned_by(
                ident,
                format!("`#[derive(CustomResource)]` needs `#[kubegen({key} = \"...\")]`"),
            );
        }
    }
    // The apiserver's rule: a DNS-1123 subdomain (labels may start with a
    // digit) with at least one dot.
    if let Some(g) = &res.group
        && (!g.contains('.') || g.len() > 253 || !g.split('.').all(is_dns1123_label))
    {
        cx.error_spanned_by(ident, format!("group \"{g}\" must be a DNS subdomain with at least one dot, e.g. \"stable.example.com\""));
    }
    if let Some(v) = &res.version
        && !is_dns_label(v)
    {
        cx.error_spanned_by(
            ident,
            format!("version \"{v}\" must be a DNS label such as \"v1\" or \"v1beta1\""),
        );
    }
    if let Some(k) = &res.kind {
        // The apiserver's rule: in lower case, a DNS-1035 label (the Rust
        // type is `names::kind_type`: `my-app` → `MyApp`).
        if !is_dns_label(&k.to_ascii_lowercase()) {
            cx.error_spanned_by(
                ident,
                format!("kind \"{k}\" must be, in lower case, a DNS label starting with a letter (the apiserver's rule), e.g. \"MyApplication\""),
            );
        }
        let ty = crate::names::kind_type(k);
        if *ident == ty {
            cx.error_spanned_by(ident, format!("the spec struct cannot be named like the kind's type `{ty}`, which is generated; name it `{ty}Spec`"));
        }
    }
    if let Some(l) = &res.list_kind {
        let lower = l.to_ascii_lowercase();
        if res.kind.as_ref() == Some(l) {
            cx.error_spanned_by(
                ident,
                format!("list_kind \"{l}\" must differ from the kind (the apiserver's rule), e.g. \"{l}List\""),
            );
        } else if !is_dns_label(&lower) {
            cx.error_spanned_by(
                ident,
                format!("list_kind \"{l}\" must be, in lower case, a DNS label starting with a letter (the apiserver's rule), e.g. \"MyApplicationList\""),
            );
        }
    }
    for (what, v) in [("plural", &res.plural), ("singular", &res.singular)] {
        if let Some(v) = v
            && !is_dns_label(v)
        {
            cx.error_spanned_by(
                ident,
                format!("{what} \"{v}\" must be a lower-case DNS label"),
            );
        }
    }
    for s in res.short_names.iter().chain(&res.categories) {
        if !is_dns_label(s) {
            cx.error_spanned_by(
                ident,
                format!("short names and categories must be lower-case DNS labels, not \"{s}\""),
            );
        }
    }
    if res.flatten_spec {
        if let Some(status) = &res.status {
            cx.error_spanned_by(
                status,
                "`flatten_spec` puts every top-level field in the spec struct: declare `status` there and enable the subresource with `status_subresource`",
            );
        }
        // Paths name the spec struct's fields at the top level; `crd()`
        // checks them against the finished schema.
        return;
    }
    let known_roots = [".spec", ".status", ".metadata", ".apiVersion", ".kind"];
    for (col, span) in &res.printer_columns {
        let p = &col.json_path;
        if col.unchecked {
            continue;
        }
        if !known_roots
            .iter()
            .any(|r| p == r || p.starts_with(&format!("{r}.")) || p.starts_with(&format!("{r}[")))
        {
            cx.error_at(
                *span,
                format!("`{p}` must start with .spec, .status or .metadata"),
            );
            continue;
        }
        if p.starts_with(".status") && res.status.is_none() {
            cx.error_at(
                *span,
                format!("`{p}` points into the status, but no `status = \"...\"` type is set"),
            );
        }
        if let Some(m) = p.strip_prefix(".metadata.") {
            let first: String = m.chars().take_while(|c| *c != '.' && *c != '[').collect();
            if kubegen_core::crd::resolve_json_path(&Value::Null, &format!(".metadata.{first}"))
                .is_err()
            {
                cx.error_at(
                    *span,
                    format!(
                        "`{p}`: metadata has no field `{first}`{}",
                        kubegen_core::crd::UNCHECKED_REMEDY
                    ),
                );
            }
        }
        check_spec_path(
            cx,
            p,
            *span,
            spec,
            fields,
            kubegen_core::crd::UNCHECKED_REMEDY,
        );
    }
    for (p, span) in &res.selectable_fields {
        if !p.starts_with(".spec.") && !p.starts_with(".status.") {
            cx.error_at(*span, "a selectable field must be under .spec or .status");
        }
        check_spec_path(cx, p, *span, spec, fields, "");
    }
    if let Some(scale) = &res.scale {
        if !scale.spec_replicas_path.starts_with(".spec.") {
            cx.error_spanned_by(ident, "`scale(spec_replicas_path)` must start with .spec.");
        }
        if !scale.status_replicas_path.starts_with(".status.") {
            cx.error_spanned_by(
                ident,
                "`scale(status_replicas_path)` must start with .status.",
            );
        }
        if let Some(sel) = &scale.label_selector_path
            && !sel.starts_with(".spec.")
            && !sel.starts_with(".status.")
        {
            cx.error_spanned_by(
                ident,
                "`scale(label_selector_path)` must start with .spec. or .status.",
            );
        }
        // Whether the paths name declared fields: a lint (`unchecked`).
        if !scale.unchecked {
            if res.status.is_none() {
                cx.error_spanned_by(ident, "`scale(...)` needs a `status = \"...\"` type (or `unchecked`, to point it at fields the schema does not declare)");
            }
            check_spec_path(
                cx,
                &scale.spec_replicas_path,
                ident.span(),
                spec,
                fields,
                " (or add `unchecked` to `scale(...)` to point it at a field the schema does not declare)",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values() {
        let s = Ty::String { char: false };
        let c = Constraints {
            min_length: Some(2),
            ..Default::default()
        };
        assert!(value_errors(&json!("ab"), &s, &c).is_empty());
        assert!(value_errors(&json!("a"), &s, &c)[0].contains("min_length"));
        assert!(value_errors(&json!(1), &s, &c)[0].contains("expected a string"));
        let i8t = Ty::Int {
            bits: 8,
            signed: true,
        };
        assert!(!value_errors(&json!(300), &i8t, &Constraints::default()).is_empty());
        let list = Ty::List {
            item: Box::new(Ty::Bool),
            set: false,
            len: None,
        };
        assert!(
            value_errors(&json!([true, 1]), &list, &Constraints::default())[0].contains("item 1")
        );
    }

    #[test]
    fn defaults_match_patterns_as_the_apiserver_does() {
        let s = Ty::String { char: false };
        let pattern = |p: &str| Constraints {
            pattern: Some(p.into()),
            ..Default::default()
        };
        // Go's `\w` is ASCII: the apiserver refuses "é" (Rust's `\w` takes it).
        assert!(value_errors(&json!("é"), &s, &pattern(r"^\w+$"))[0].contains("does not match"));
        // A literal `[` in a class (Rust's `regex` cannot even read it).
        let token = pattern(r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$"#);
        assert!(value_errors(&json!("gzip"), &s, &token).is_empty());
        assert!(value_errors(&json!("a[b"), &s, &token)[0].contains("does not match"));
    }
}

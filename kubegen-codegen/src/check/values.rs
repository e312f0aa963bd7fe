//! The value checker: whether a JSON value (a `default`, an `example`, an
//! `enum_values` entry, a `neq`) fits a type and its keywords, and whether
//! a `format` fits a node's JSON type.

use serde_json::Value;

use kubegen_core::model::{Constraints, Ty};

/// Why a JSON value does not fit a type and its constraints (empty if it
/// fits): a `null` only where `nullable`; the JSON kind of the type (items,
/// map values and keys within); then each keyword the value must satisfy.
pub fn value_errors(v: &Value, ty: &Ty, c: &Constraints) -> Vec<String> {
    let mut errs = Vec::new();
    if v.is_null() {
        if !(c.nullable && ty.is_option()) {
            errs.push("null is only allowed for a `nullable` optional field".into());
        }
        return errs;
    }
    if !kind_fits(v, ty, c, &mut errs) {
        let kind = ty.json_kind();
        errs.push(format!(
            "expected {} {kind}, found {}",
            article(kind),
            describe(v)
        ));
        return errs;
    }
    number_bounds(v, c, &mut errs);
    string_bounds(v, c, &mut errs);
    collection_bounds(v, c, &mut errs);
    if let Some(values) = &c.enum_values
        && !values.contains(v)
    {
        errs.push(format!("{v} is not one of the enum_values"));
    }
    errs
}

/// Whether `v` is of the JSON kind `ty` serializes as; the errors of list
/// items and map entries (checked against the item and value types) go to
/// `errs`.
fn kind_fits(v: &Value, ty: &Ty, c: &Constraints, errs: &mut Vec<String>) -> bool {
    if c.int_or_string {
        return v.is_i64() || v.is_u64() || v.is_string();
    }
    match ty.unwrap_option() {
        Ty::Bool => v.is_boolean(),
        Ty::Int { bits, signed } => int_fits(v, *bits, *signed),
        Ty::Float { .. } => v.is_number(),
        Ty::String { char } => v.as_str().is_some_and(|s| !char || s.chars().count() == 1),
        Ty::DateTime | Ty::Duration | Ty::Bytes => v.is_string(),
        Ty::IntOrString | Ty::Quantity => v.is_i64() || v.is_u64() || v.is_string(),
        Ty::List { item, .. } => {
            let Some(items) = v.as_array() else {
                return false;
            };
            let ic = c.items.as_deref().cloned().unwrap_or_default();
            for (i, it) in items.iter().enumerate() {
                for e in value_errors(it, item, &ic) {
                    errs.push(format!("item {i}: {e}"));
                }
            }
            true
        }
        Ty::Map(vt) => {
            let Some(m) = v.as_object() else {
                return false;
            };
            for (k, val) in m {
                for e in value_errors(val, vt, &Constraints::default()) {
                    errs.push(format!("key `{k}`: {e}"));
                }
            }
            true
        }
        Ty::IntKeyMap {
            bits,
            signed,
            value,
        } => {
            let Some(m) = v.as_object() else {
                return false;
            };
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
        Ty::ObjectMeta => v.is_object(),
        Ty::Json | Ty::Named { .. } | Ty::Option(_) => true,
    }
}

/// A number within `minimum`/`maximum` (exclusive when flagged) and a
/// multiple of `multiple_of`.
fn number_bounds(v: &Value, c: &Constraints, errs: &mut Vec<String>) {
    let Some(n) = v.as_f64() else { return };
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

/// A string within `min_length`/`max_length` (in characters) matching
/// `pattern` as the apiserver matches (Go's RE2; a pattern Go refuses is
/// reported where it is read).
fn string_bounds(v: &Value, c: &Constraints, errs: &mut Vec<String>) {
    let Some(s) = v.as_str() else { return };
    let len = s.chars().count() as u64;
    if c.min_length.is_some_and(|m| len < m) {
        errs.push(format!("\"{s}\" is shorter than min_length"));
    }
    if c.max_length.is_some_and(|m| len > m) {
        errs.push(format!("\"{s}\" is longer than max_length"));
    }
    if let Some(p) = &c.pattern
        && crate::re2::is_match(p, s) == Some(false)
    {
        errs.push(format!("\"{s}\" does not match the pattern `{p}`"));
    }
}

/// A list within `min_items`/`max_items`, unique when `unique_items`; an
/// object within `min_properties`/`max_properties`.
fn collection_bounds(v: &Value, c: &Constraints, errs: &mut Vec<String>) {
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
pub(super) fn format_mismatch(format: &str, target: &Ty, place: &str) -> Option<String> {
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

pub(super) fn article(kind: &str) -> &'static str {
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

pub(super) fn contains_float(ty: &Ty) -> bool {
    match ty {
        Ty::Float { .. } => true,
        Ty::Option(t) | Ty::Map(t) | Ty::IntKeyMap { value: t, .. } => contains_float(t),
        Ty::List { item, .. } => contains_float(item),
        _ => false,
    }
}

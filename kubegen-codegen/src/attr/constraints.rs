//! Parsing schema keywords (field-, type- and item-level keys) into
//! [`Constraints`].

use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use super::keys::{self, Key, Scope, Syntax};
use super::value;
use crate::ctxt::Ctxt;
use kubegen_core::model::{Constraints, ExternalDocs, OneOf, OneOfKind, SchemaType, Validation};
use serde_json::{Map, Value};

/// Field-level keys that are not schema keywords.
#[derive(Default)]
pub struct Extras {
    /// `description = "..."` overrides the doc comment.
    pub description: Option<String>,
    /// `required`.
    pub required: bool,
    /// `optional`.
    pub optional: bool,
    /// `schemars`: take the schema from `schemars::JsonSchema`.
    pub schemars: bool,
    /// `no_schema_default`: a `#[serde(default)]` field whose schema has no
    /// default, on purpose.
    pub no_schema_default: bool,
    /// `crate = "..."` (type level).
    pub crate_path: Option<syn::Path>,
    /// `apply` (type level): where it is written.
    pub apply: Option<proc_macro2::Span>,
}

/// The CEL reasons the apiserver accepts.
pub const REASONS: &[&str] = &[
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
];

fn one_of_strings(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    allowed: &[&str],
) -> syn::Result<Option<String>> {
    let (v, span) = value::string(meta, key)?;
    if allowed.contains(&v.as_str()) {
        Ok(Some(v))
    } else {
        cx.error_at(
            span,
            format!(
                "`{key}` must be one of {}, found \"{v}\"",
                allowed
                    .iter()
                    .map(|a| format!("\"{a}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        Ok(None)
    }
}

/// Checks a `pattern` as the apiserver does: Go's `regexp.Compile` (RE2
/// syntax, see [`crate::re2`]), with Go's error text.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    crate::re2::parse(pattern).map(|_| ()).map_err(|e| {
        let lookaround = ["(?=", "(?!", "(?<=", "(?<!"];
        let hint = if lookaround.iter().any(|l| e.expr.starts_with(l)) {
            " (look-around is not supported by the apiserver's RE2 regular expressions: state the condition as a CEL rule, `validation(rule = \"...\")`, instead)"
        } else if e.code == "invalid escape sequence"
            && e.expr.len() == 2
            && e.expr.as_bytes()[1].is_ascii_digit()
        {
            " (backreferences are not supported by the apiserver's RE2 regular expressions: compare the parts in a CEL rule, `validation(rule = \"...\")`, instead)"
        } else {
            ""
        };
        format!("invalid pattern (the apiserver's Go RE2 syntax): {e}{hint}")
    })
}

/// Why a `schema_json` object is not a schema kubegen can emit, checked as
/// far as the object alone allows: the apiserver's structural rules, RE2
/// patterns and CEL syntax at every node (whatever depends on the place it
/// is used, such as transition rules under lists, is left to the apiserver).
pub fn check_schema_json(schema: &Map<String, Value>) -> Vec<String> {
    let root = Value::Object(schema.clone());
    let mut problems = kubegen_core::schema::structural::check(&root)
        .err()
        .unwrap_or_default();
    let mut stack = vec![(String::from("schema"), &root)];
    while let Some((path, node)) = stack.pop() {
        let Value::Object(m) = node else { continue };
        if let Some(Value::String(p)) = m.get("pattern")
            && let Err(e) = check_pattern(p)
        {
            problems.push(format!("{path}: {e}"));
        }
        if let Some(default) = m.get("default") {
            default_patterns(node, default, &format!("{path}.default"), &mut problems);
        }
        if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
            for r in rules {
                for key in ["rule", "messageExpression"] {
                    if let Some(Value::String(e)) = r.get(key)
                        && let Err(e) = super::cel::expression(key, e)
                    {
                        problems.push(format!("{path}: {e}"));
                    }
                }
            }
        }
        for (key, child) in m {
            match (key.as_str(), child) {
                ("properties", Value::Object(props)) => {
                    stack.extend(props.iter().map(|(k, v)| (format!("{path}.{k}"), v)));
                }
                ("items" | "additionalProperties" | "not", v) => {
                    stack.push((format!("{path}.{key}"), v));
                }
                ("allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                    stack.extend(list.iter().map(|v| (format!("{path}.{key}"), v)));
                }
                _ => {}
            }
        }
    }
    problems
}

/// Where `value` (a default) breaks a pattern of `schema` or of the
/// schemas of its properties and items, matched as the apiserver matches
/// (Go's RE2): the apiserver refuses such a CRD.
fn default_patterns(schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    match value {
        Value::String(s) => {
            if let Some(Value::String(p)) = schema.get("pattern")
                && crate::re2::is_match(p, s) == Some(false)
            {
                problems.push(format!("{at}: \"{s}\" does not match the pattern `{p}`"));
            }
        }
        Value::Object(fields) => {
            for (k, v) in fields {
                let sub = schema
                    .pointer(&format!(
                        "/properties/{}",
                        k.replace('~', "~0").replace('/', "~1")
                    ))
                    .or_else(|| schema.get("additionalProperties"));
                if let Some(sub) = sub {
                    default_patterns(sub, v, &format!("{at}.{k}"), problems);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    default_patterns(sub, v, &format!("{at}[{i}]"), problems);
                }
            }
        }
        _ => {}
    }
}

/// Parses `schema_json = r#"{...}"#`: a JSON object that is a structural
/// schema (see [`check_schema_json`]).
fn schema_json(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Map<String, Value>>> {
    let e = value::expr(meta, keys::SCHEMA_JSON)?;
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(lit),
        ..
    }) = &e
    else {
        cx.error_spanned_by(
            &e,
            "expected a string literal holding a JSON object for `schema_json`, such as r#\"{\"type\": \"string\"}\"#",
        );
        return Ok(None);
    };
    let schema = match serde_json::from_str::<Value>(&lit.value()) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            cx.error_at(lit.span(), "`schema_json` must be a JSON object (a schema)");
            return Ok(None);
        }
        Err(err) => {
            cx.error_at(
                lit.span(),
                format!("`schema_json` is not valid JSON: {err}"),
            );
            return Ok(None);
        }
    };
    let problems = check_schema_json(&schema);
    if !problems.is_empty() {
        cx.error_at(
            lit.span(),
            format!(
                "`schema_json` is not a structural schema the apiserver accepts: {}",
                problems.join("; ")
            ),
        );
    }
    Ok(Some(schema))
}

/// Parses `external_docs(url = "...", description = "...")`.
fn external_docs(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<ExternalDocs>> {
    let mut url = None;
    let mut description = None;
    meta.parse_nested_meta(|inner| {
        match super::path_name(&inner.path).as_str() {
            "url" => url = Some(value::string(&inner, "url")?),
            "description" => description = Some(value::string(&inner, "description")?.0),
            other => {
                let hint = kubegen_core::suggest::suggest(other, ["url", "description"])
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                cx.error_spanned_by(
                    &inner.path,
                    format!("unknown key `{other}` in `external_docs(...)`{hint}"),
                );
                value::skip(&inner)?;
            }
        }
        Ok(())
    })?;
    let Some((url, span)) = url else {
        cx.error_spanned_by(&meta.path, "`external_docs(...)` needs `url = \"...\"`");
        return Ok(None);
    };
    // The apiserver's rule (Go's `url.ParseRequestURI`, as controller-gen
    // checks it): an absolute URL or an absolute path, without spaces.
    let scheme = url.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !(scheme || url.starts_with('/')) || url.contains(char::is_whitespace) {
        cx.error_at(
            span,
            format!("`external_docs(url)` must be an absolute URL such as \"https://example.com/docs\", not \"{url}\""),
        );
    }
    Ok(Some(ExternalDocs { url, description }))
}

/// Parses `validation(...)` or `validation = "rule"`.
fn validation(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Validation>> {
    if meta.input.peek(syn::Token![=]) {
        let (rule, span) = value::string(meta, keys::VALIDATION)?;
        if let Err(e) = super::cel::expression("rule", &rule) {
            cx.error_at(span, e);
        }
        return Ok(Some(Validation {
            rule,
            message: None,
            message_expression: None,
            reason: None,
            field_path: None,
            optional_old_self: false,
        }));
    }
    let mut v = Validation {
        rule: String::new(),
        message: None,
        message_expression: None,
        reason: None,
        field_path: None,
        optional_old_self: false,
    };
    let mut has_rule = false;
    meta.parse_nested_meta(|inner| {
        let name = super::path_name(&inner.path);
        match name.as_str() {
            "rule" => {
                let (rule, span) = value::string(&inner, "rule")?;
                if !rule.trim().is_empty()
                    && let Err(e) = super::cel::expression("rule", &rule)
                {
                    cx.error_at(span, e);
                }
                v.rule = rule;
                has_rule = true;
            }
            "message" => {
                let (m, span) = value::string(&inner, "message")?;
                if let Err(e) = super::cel::message(&m) {
                    cx.error_at(span, e);
                }
                v.message = Some(m);
            }
            "message_expression" => {
                let (m, span) = value::string(&inner, "message_expression")?;
                if let Err(e) = super::cel::expression("message_expression", &m) {
                    cx.error_at(span, e);
                }
                v.message_expression = Some(m);
            }
            "reason" => v.reason = one_of_strings(cx, &inner, "reason", REASONS)?,
            "field_path" => {
                let (p, span) = value::string(&inner, "field_path")?;
                if let Err(e) = super::cel::field_path(&p) {
                    cx.error_at(span, e);
                }
                v.field_path = Some(p);
            }
            "optional_old_self" => v.optional_old_self = value::flag(&inner, "optional_old_self")?,
            other => {
                let known = [
                    "rule",
                    "message",
                    "message_expression",
                    "reason",
                    "field_path",
                    "optional_old_self",
                ];
                let hint = kubegen_core::suggest::suggest(other, known)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                cx.error_spanned_by(
                    &inner.path,
                    format!("unknown key `{other}` in `validation(...)`{hint}"),
                );
                value::skip(&inner)?;
            }
        }
        Ok(())
    })?;
    if !has_rule || v.rule.trim().is_empty() {
        cx.error_spanned_by(
            &meta.path,
            "`validation(...)` needs a non-empty `rule = \"...\"`",
        );
        return Ok(None);
    }
    Ok(Some(v))
}

/// Parses one schema keyword into `c` (or `extras`): keys with a parser of
/// their own first, every other key by its [`keys::Syntax`] into the place
/// the vocabulary table keeps it.
pub fn parse_key(
    cx: &Ctxt,
    key: &'static str,
    meta: &ParseNestedMeta<'_>,
    c: &mut Constraints,
    extras: &mut Extras,
) -> syn::Result<()> {
    match key {
        keys::EXCLUSIVE_MINIMUM | keys::EXCLUSIVE_MAXIMUM => exclusive_bound(cx, key, meta, c)?,
        keys::ENUM_VALUES => {
            let e = value::expr(meta, key)?;
            match value::to_json(&e)? {
                Value::Array(values) if !values.is_empty() => c.enum_values = Some(values),
                _ => cx.error_spanned_by(&e, "expected a non-empty list for `enum_values`"),
            }
        }
        keys::VALIDATION => {
            if let Some(v) = validation(cx, meta)? {
                c.validations.push(v);
            }
        }
        keys::EXACTLY_ONE_OF | keys::AT_MOST_ONE_OF | keys::AT_LEAST_ONE_OF => {
            let kind = match key {
                keys::EXACTLY_ONE_OF => OneOfKind::ExactlyOne,
                keys::AT_MOST_ONE_OF => OneOfKind::AtMostOne,
                _ => OneOfKind::AtLeastOne,
            };
            let fields = value::string_list(meta, key)?;
            if fields.len() < 2 {
                cx.error_spanned_by(
                    &meta.path,
                    format!("`{key}` needs at least two field names"),
                );
            }
            c.one_of.push(OneOf { kind, fields });
        }
        keys::SCHEMA_TYPE => {
            let names: Vec<&str> = SchemaType::ALL.iter().map(|t| t.as_str()).collect();
            c.schema_type = one_of_strings(cx, meta, key, &names)?
                .as_deref()
                .and_then(SchemaType::parse);
        }
        keys::SCHEMA_JSON => c.schema_json = schema_json(cx, meta)?,
        keys::EXTERNAL_DOCS => c.external_docs = external_docs(cx, meta)?,
        keys::ITEMS => items(cx, meta, c)?,
        keys::DESCRIPTION => extras.description = Some(value::string(meta, key)?.0),
        keys::REQUIRED => extras.required = value::flag(meta, key)?,
        keys::OPTIONAL => extras.optional = value::flag(meta, key)?,
        keys::SCHEMARS => extras.schemars = value::flag(meta, key)?,
        keys::NO_SCHEMA_DEFAULT => extras.no_schema_default = value::flag(meta, key)?,
        keys::APPLY => {
            if value::flag(meta, key)? {
                extras.apply = Some(meta.path.span());
            }
        }
        keys::CRATE => {
            let (p, span) = value::string(meta, key)?;
            match syn::parse_str::<syn::Path>(&p) {
                Ok(path) => extras.crate_path = Some(path),
                Err(_) => cx.error_at(span, "`crate` must be a path such as \"::kubegen\""),
            }
        }
        _ => match keys::find(key) {
            Some(entry) if entry.store.holds_value() => {
                if let Some(v) = table_value(cx, entry, meta)? {
                    entry.set(c, v);
                }
            }
            // Resource keys are handled by the resource parser; reaching
            // here means a key table entry has no parser.
            _ => unsupported(cx, key, meta)?,
        },
    }
    Ok(())
}

/// Reports a key no parser reads here, and skips its value.
fn unsupported(cx: &Ctxt, key: &str, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    cx.error_spanned_by(
        &meta.path,
        format!("kubegen attribute `{key}` is not supported here"),
    );
    value::skip(meta)
}

/// Reads a key's value by its syntax, applying the key's own rules
/// (`pattern` is RE2, `multiple_of` is positive); `None` after an error.
fn table_value(cx: &Ctxt, entry: &Key, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Value>> {
    let key = entry.name;
    Ok(match entry.syntax {
        Syntax::Flag | Syntax::BoundOrFlag => Some(Value::Bool(value::flag(meta, key)?)),
        Syntax::Count => Some(Value::from(value::unsigned(meta, key)?)),
        Syntax::Number => {
            let n = value::number(meta, key)?;
            if key == keys::MULTIPLE_OF && n.as_f64().is_none_or(|f| f <= 0.0) {
                cx.error_spanned_by(&meta.path, "`multiple_of` must be greater than 0");
            }
            Some(Value::Number(n))
        }
        Syntax::Text | Syntax::JsonType | Syntax::Path => {
            let (text, span) = value::string(meta, key)?;
            if key == keys::PATTERN
                && let Err(msg) = check_pattern(&text)
            {
                cx.error_at(span, msg);
            }
            Some(Value::String(text))
        }
        Syntax::Choice(allowed) => one_of_strings(cx, meta, key, allowed)?.map(Value::String),
        Syntax::Texts => Some(Value::from(value::string_list(meta, key)?)),
        Syntax::Literal => Some(value::json(meta, key)?),
        Syntax::JsonText => Some(value::json_string(meta, key)?),
        Syntax::Literals | Syntax::Nested | Syntax::Rule => {
            unsupported(cx, key, meta)?;
            None
        }
    })
}

/// `exclusive_minimum`/`exclusive_maximum`: a bare flag modifies
/// `minimum`/`maximum`; a number sets both.
fn exclusive_bound(
    cx: &Ctxt,
    key: &'static str,
    meta: &ParseNestedMeta<'_>,
    c: &mut Constraints,
) -> syn::Result<()> {
    let (bound, excl) = if key == keys::EXCLUSIVE_MINIMUM {
        (&mut c.minimum, &mut c.exclusive_minimum)
    } else {
        (&mut c.maximum, &mut c.exclusive_maximum)
    };
    if meta.input.peek(syn::Token![=]) {
        let e = value::expr(meta, key)?;
        match value::to_json(&e) {
            Ok(Value::Bool(b)) => *excl = b,
            Ok(Value::Number(n)) => {
                *bound = Some(n);
                *excl = true;
            }
            _ => cx.error_spanned_by(&e, format!("expected a number or a boolean for `{key}`")),
        }
    } else {
        *excl = value::flag(meta, key)?;
    }
    Ok(())
}

/// `items(...)`: the keys inside apply to the list's items.
fn items(cx: &Ctxt, meta: &ParseNestedMeta<'_>, c: &mut Constraints) -> syn::Result<()> {
    let items = c.items.get_or_insert_with(Default::default);
    let mut inner_extras = Extras::default();
    meta.parse_nested_meta(|inner| {
        let name = super::path_name(&inner.path);
        let Some(k) = keys::lookup(&name, &[Scope::Items]) else {
            cx.error_spanned_by(
                &inner.path,
                keys::misplaced_or_unknown(&name, &[Scope::Items]),
            );
            return value::skip(&inner);
        };
        parse_key(cx, k, &inner, items, &mut inner_extras)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(check_pattern("^[a-z]+$").is_ok());
        // Defaults are matched as the apiserver matches: Go's `\\w` is ASCII.
        let schema = serde_json::json!({"type": "object", "properties": {
            "mode": {"type": "string", "pattern": "^\\w+$", "default": "é"},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"},
                     "default": ["ok", "Not"]},
        }});
        let problems = check_schema_json(schema.as_object().unwrap());
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems.iter().any(|p| p.contains("schema.mode.default")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("schema.tags.default[1]")),
            "{problems:?}"
        );
        // RE2 reads `[` inside a class as a literal; Rust's `regex` refuses it.
        assert!(check_pattern(r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$"#).is_ok());
        assert!(
            check_pattern("(?<=a)b")
                .unwrap_err()
                .contains("look-around")
        );
        assert!(check_pattern("(?=x)").unwrap_err().contains("look-around"));
        assert!(
            check_pattern(r"(a)\1")
                .unwrap_err()
                .contains("backreferences")
        );
        assert!(
            check_pattern("[a-")
                .unwrap_err()
                .contains("invalid pattern")
        );
    }
}

//! Parsing attribute values (`key = value`, `key(...)`, bare flags).

use proc_macro2::TokenStream;
use serde_json::{Number, Value};
use syn::meta::ParseNestedMeta;
use syn::{Expr, Lit, Token};

/// Consumes whatever value a key has, so parsing can go on after an error.
pub fn skip(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// The expression after `=`, with a clear message when `=` is missing.
pub fn expr(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Expr> {
    if !meta.input.peek(Token![=]) {
        skip(meta)?;
        return Err(meta.error(format!("expected `{key} = ...`")));
    }
    meta.value()?.parse::<Expr>()
}

/// Describes what an expression is, for "expected X, found Y" messages.
fn found(expr: &Expr) -> &'static str {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(_) => "a string literal",
            Lit::Int(_) => "an integer literal",
            Lit::Float(_) => "a float literal",
            Lit::Bool(_) => "a boolean literal",
            _ => "a literal",
        },
        Expr::Array(_) => "a list",
        Expr::Unary(_) => "a number",
        Expr::Path(_) => "a path",
        _ => "an expression",
    }
}

/// `key = "string"`.
pub fn string(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<(String, proc_macro2::Span)> {
    let e = expr(meta, key)?;
    match &e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok((s.value(), s.span())),
        other => Err(syn::Error::new_spanned(
            other,
            format!(
                "expected a string literal for `{key}`, found {}",
                found(other)
            ),
        )),
    }
}

/// `key = ["a", "b"]` (a single `"a"` is accepted too).
pub fn string_list(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Vec<String>> {
    let e = expr(meta, key)?;
    let elems: Vec<&Expr> = match &e {
        Expr::Array(arr) => arr.elems.iter().collect(),
        other => vec![other],
    };
    elems
        .into_iter()
        .map(|el| match el {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Ok(s.value()),
            other => Err(syn::Error::new_spanned(
                other,
                format!(
                    "expected a list of string literals for `{key}`, found {}",
                    found(other)
                ),
            )),
        })
        .collect()
}

/// A bare flag, or `key = true|false`.
pub fn flag(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<bool> {
    if !meta.input.peek(Token![=]) {
        if meta.input.peek(syn::token::Paren) {
            skip(meta)?;
            return Err(meta.error(format!(
                "`{key}` is a flag: write `{key}` or `{key} = false`"
            )));
        }
        return Ok(true);
    }
    let e = meta.value()?.parse::<Expr>()?;
    match &e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        other => Err(syn::Error::new_spanned(
            other,
            format!(
                "expected `true` or `false` for `{key}`, found {}",
                found(other)
            ),
        )),
    }
}

/// `key = 3` as an unsigned integer.
pub fn unsigned(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<u64> {
    let e = expr(meta, key)?;
    match &e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<u64>(),
        other => Err(syn::Error::new_spanned(
            other,
            format!(
                "expected a non-negative integer for `{key}`, found {}",
                found(other)
            ),
        )),
    }
}

/// `key = 1.5` / `key = -3` as a JSON number.
pub fn number(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Number> {
    let e = expr(meta, key)?;
    match to_json(&e) {
        Ok(Value::Number(n)) => Ok(n),
        Err(err) if !matches!(e, Expr::Path(_) | Expr::Call(_) | Expr::MethodCall(_)) => Err(err),
        _ => Err(syn::Error::new_spanned(
            &e,
            format!(
                "expected a number literal for `{key}`, found {}{}",
                found(&e),
                if matches!(e, Expr::Path(_) | Expr::Call(_) | Expr::MethodCall(_)) {
                    "; attribute values are read without evaluating Rust constants: write the number itself (e.g. `-9223372036854775808` for `i64::MIN`)"
                } else {
                    ""
                }
            ),
        )),
    }
}

/// `key = <literal>` as a JSON value.
pub fn json(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Value> {
    let e = expr(meta, key)?;
    to_json(&e)
}

/// `key = r#"{...}"#` parsed as JSON.
pub fn json_string(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Value> {
    let e = expr(meta, key)?;
    match &e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => serde_json::from_str(&s.value())
            .map_err(|err| syn::Error::new(s.span(), format!("`{key}` is not valid JSON: {err}"))),
        other => Err(syn::Error::new_spanned(
            other,
            format!(
                "expected a string literal holding JSON for `{key}`, found {}",
                found(other)
            ),
        )),
    }
}

/// Converts a literal expression (strings, numbers, booleans, lists) to JSON.
pub fn to_json(e: &Expr) -> syn::Result<Value> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Ok(Value::String(s.value())),
            Lit::Bool(b) => Ok(Value::Bool(b.value)),
            Lit::Int(i) => i
                .base10_parse::<u64>()
                .map(Value::from)
                .or_else(|_| i.base10_parse::<i64>().map(Value::from)),
            Lit::Float(f) => {
                let v = f.base10_parse::<f64>()?;
                Number::from_f64(v)
                    .map(Value::Number)
                    .ok_or_else(|| syn::Error::new(f.span(), "not a finite number"))
            }
            other => Err(syn::Error::new(
                other.span(),
                "expected a string, number, boolean or list literal",
            )),
        },
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => match to_json(expr)? {
            Value::Number(n) => {
                if let Some(i) = n.as_u64() {
                    // i128 so that `-9223372036854775808` (i64::MIN) fits.
                    i64::try_from(-i128::from(i)).map(Value::from).map_err(|_| {
                        syn::Error::new_spanned(e, "integer out of range: below i64::MIN")
                    })
                } else {
                    Number::from_f64(-n.as_f64().unwrap_or(0.0))
                        .map(Value::Number)
                        .ok_or_else(|| syn::Error::new_spanned(e, "not a finite number"))
                }
            }
            _ => Err(syn::Error::new_spanned(e, "only numbers can be negated")),
        },
        Expr::Array(arr) => arr
            .elems
            .iter()
            .map(to_json)
            .collect::<syn::Result<_>>()
            .map(Value::Array),
        Expr::Group(g) => to_json(&g.expr),
        Expr::Paren(p) => to_json(&p.expr),
        other => Err(syn::Error::new_spanned(
            other,
            format!(
                "expected a string, number, boolean or list literal, found {}; use `default_json = r#\"...\"#` for objects",
                found(other)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(src: &str) -> syn::Result<Value> {
        to_json(&syn::parse_str::<Expr>(src).unwrap())
    }

    #[test]
    fn literals() {
        assert_eq!(j("1").unwrap(), Value::from(1));
        assert_eq!(j("-3").unwrap(), Value::from(-3));
        assert_eq!(j("1.5").unwrap(), Value::from(1.5));
        assert_eq!(j("-1.5").unwrap(), Value::from(-1.5));
        assert_eq!(j("\"a\"").unwrap(), Value::from("a"));
        assert_eq!(
            j("[true, false]").unwrap(),
            serde_json::json!([true, false])
        );
        assert!(j("foo()").is_err());
        assert_eq!(j("-9223372036854775808").unwrap(), Value::from(i64::MIN));
        assert_eq!(j("18446744073709551615").unwrap(), Value::from(u64::MAX));
        assert!(
            j("-9223372036854775809")
                .unwrap_err()
                .to_string()
                .contains("below i64::MIN")
        );
    }
}

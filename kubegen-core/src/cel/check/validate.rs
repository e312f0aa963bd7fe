//! The apiserver's validations of an expression that checked: homogeneous
//! aggregate literals (`format`'s arguments exempt), literal arguments of
//! `duration()`, `timestamp()` and `matches()`, and the strings library's
//! check of literal format strings.

use super::plan::children;
use super::unify::exact;
use super::{Checker, unwrap_optional};
use crate::cel::ast::{Expr, ExprKind, Literal};
use crate::cel::types::Type;

impl Checker {
    /// The apiserver's validations of a checked expression: homogeneous
    /// aggregate literals, and literal arguments of `duration()`,
    /// `timestamp()` and `matches()` that must parse.
    pub(super) fn validate(&mut self, e: &Expr, in_format: bool) {
        let final_type = |c: &Self, e: &Expr| c.final_type(e);
        match &e.kind {
            // The strings library exempts `format`'s arguments.
            ExprKind::List(_) | ExprKind::Map(_) if in_format => {}
            ExprKind::List(elements) => {
                let mut first: Option<Type> = None;
                for el in elements {
                    let mut t = final_type(self, &el.value);
                    if el.optional {
                        t = unwrap_optional(&t).unwrap_or(t);
                    }
                    match &first {
                        None => first = Some(t),
                        Some(f) if !equivalent(f, &t) => {
                            let f = f.clone();
                            self.error(el.value.at, format!("expected type '{f}' but found '{t}'"));
                            break;
                        }
                        Some(_) => {}
                    }
                }
            }
            ExprKind::Map(entries) => {
                let mut first: Option<(Type, Type)> = None;
                for en in entries {
                    let k = final_type(self, &en.key);
                    let mut v = final_type(self, &en.value);
                    if en.optional {
                        v = unwrap_optional(&v).unwrap_or(v);
                    }
                    match &first {
                        None => first = Some((k, v)),
                        Some((fk, fv)) => {
                            let (fk, fv) = (fk.clone(), fv.clone());
                            if !equivalent(&fk, &k) {
                                self.error(
                                    en.key.at,
                                    format!("expected type '{fk}' but found '{k}'"),
                                );
                            }
                            if !equivalent(&fv, &v) {
                                self.error(
                                    en.value.at,
                                    format!("expected type '{fv}' but found '{v}'"),
                                );
                            }
                        }
                    }
                }
            }
            ExprKind::Call {
                function,
                args,
                is_macro: false,
                ..
            } => {
                if let Some(Expr {
                    kind: ExprKind::Literal(Literal::String(lit)),
                    at,
                    ..
                }) = args.first()
                {
                    let valid = match function.as_str() {
                        "duration" => crate::go::time::duration(lit).is_some(),
                        "timestamp" => crate::cel::literals::timestamp(lit).is_some(),
                        "matches" => (self.regex)(lit),
                        _ => true,
                    };
                    if !valid {
                        self.error(*at, format!("invalid {function} argument"));
                    }
                }
            }
            _ => {}
        }
        if let ExprKind::Call {
            function,
            target: Some(target),
            args,
            is_macro: false,
        } = &e.kind
            && function == "format"
            && let ExprKind::Literal(Literal::String(format)) = &target.kind
            && let [list] = args.as_slice()
            && let ExprKind::List(elements) = &list.kind
        {
            let values: Vec<&Expr> = elements.iter().map(|el| &el.value).collect();
            if let Err((at, message)) = self.format_string(format, &values, e.at) {
                self.error(at, message);
            }
        }
        let in_format =
            in_format || matches!(&e.kind, ExprKind::Call { function, .. } if function == "format");
        for child in children(e) {
            self.validate(child, in_format);
        }
    }

    /// The strings library's check of `'literal'.format([args])`: every
    /// clause known (`%s %d %f %e %b %x %X %o`, `%.Nf`), an argument for
    /// each, of a type the clause takes, and no argument left over.
    fn format_string(
        &self,
        format: &str,
        args: &[&Expr],
        call_at: usize,
    ) -> Result<(), (usize, String)> {
        let b = format.as_bytes();
        let (mut i, mut index, mut requested) = (0, 0, 0);
        while i < b.len() {
            if b[i] != b'%' {
                i += 1;
                continue;
            }
            if b.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            requested += 1;
            if i + 1 >= b.len() {
                return Err((call_at, "unexpected end of string".into()));
            }
            let Some(arg) = args.get(index) else {
                return Err((call_at, format!("index {index} out of range")));
            };
            let mut j = i + 1;
            let clause_error =
                |m: &str| (call_at, format!("could not parse formatting clause: {m}"));
            if b[j] == b'.' {
                j += 1;
                let start = j;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                if j >= b.len() {
                    return Err(clause_error(
                        "error while parsing precision: could not find end of precision specifier",
                    ));
                }
                if j == start {
                    return Err(clause_error(
                        "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax",
                    ));
                }
                let digits = std::str::from_utf8(&b[start..j]).unwrap_or_default();
                if digits.parse::<i64>().is_err() {
                    return Err(clause_error(&format!(
                        "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"{digits}\": value out of range"
                    )));
                }
            }
            let verb = b[j];
            let (ok, what): (fn(&Type) -> bool, &str) = match verb {
                b's' => (|_| true, ""),
                b'd' => (
                    |t| matches!(t, Type::Int | Type::Uint),
                    "decimal clause can only be used on integers",
                ),
                b'f' => (
                    |t| matches!(t, Type::Double | Type::String),
                    "fixed-point clause can only be used on doubles",
                ),
                b'e' => (
                    |t| matches!(t, Type::Double | Type::String),
                    "scientific clause can only be used on doubles",
                ),
                b'b' => (
                    |t| matches!(t, Type::Int | Type::Uint | Type::Bool),
                    "only integers and bools can be formatted as binary",
                ),
                b'x' | b'X' => (
                    |t| matches!(t, Type::Int | Type::Uint | Type::String | Type::Bytes),
                    "only integers, byte buffers, and strings can be formatted as hex",
                ),
                b'o' => (
                    |t| matches!(t, Type::Int | Type::Uint),
                    "octal clause can only be used on integers",
                ),
                other => {
                    return Err(clause_error(&format!(
                        "unrecognized formatting clause \"{}\"",
                        char::from(other)
                    )));
                }
            };
            let bad = if verb == b's' {
                self.not_formattable(arg)
            } else {
                let t = self.final_type(arg);
                (t != Type::Dyn && !ok(&t))
                    .then(|| (arg.at, format!("{what}, was given {}", t.type_name())))
            };
            if let Some((at, m)) = bad {
                return Err((at, format!("error during formatting: {m}")));
            }
            i = j + 1;
            index += 1;
        }
        if args.len() > requested {
            return Err((
                call_at,
                format!(
                    "too many arguments supplied to string.format (expected {requested}, got {})",
                    args.len()
                ),
            ));
        }
        Ok(())
    }

    /// What `%s` cannot print in `e` (list and map literals checked
    /// element by element).
    fn not_formattable(&self, e: &Expr) -> Option<(usize, String)> {
        let t = self.final_type(e);
        let printable = matches!(
            t,
            Type::Dyn
                | Type::List(_)
                | Type::Map(..)
                | Type::Int
                | Type::Uint
                | Type::Double
                | Type::Bool
                | Type::String
                | Type::Timestamp
                | Type::Bytes
                | Type::Duration
                | Type::Type(_)
                | Type::Null
        );
        if !printable {
            return Some((
                e.at,
                format!(
                    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}",
                    t.type_name()
                ),
            ));
        }
        match &e.kind {
            ExprKind::List(elements) => elements
                .iter()
                .find_map(|el| self.not_formattable(&el.value)),
            ExprKind::Map(entries) => entries.iter().find_map(|en| {
                self.not_formattable(&en.key)
                    .or_else(|| self.not_formattable(&en.value))
            }),
            _ => None,
        }
    }
}

/// The same type, type parameter names aside.
fn equivalent(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Param(_), Type::Param(_)) => true,
        (Type::List(x), Type::List(y))
        | (Type::Optional(x), Type::Optional(y))
        | (Type::Type(x), Type::Type(y)) => equivalent(x, y),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => equivalent(k1, k2) && equivalent(v1, v2),
        _ => exact(a, b),
    }
}

//! The strings extension's `format` and `strings.quote` as the
//! apiserver's environment has them (cel-go v0.26 `ext/formatting.go`,
//! strings version 2, locale `en_US`): `%s`, `%d`, `%f`, `%e`, `%b`,
//! `%o`, `%x`, `%X` and `%%`, lists and maps under `%s` in CEL's literal
//! syntax, `%f` and `%e` through golang.org/x/text's printer (grouped
//! thousands, `∞`, `%e` as `1.500000×10⁰⁰` with the clause's precision
//! as a width), and the errors worded as cel-go words them. Objects,
//! precisions beyond [`MAX_PRECISION`] and `%e` widths from 256 are
//! unsupported.

use super::value::Val;
use super::{EvalError, Res};
use crate::go::fmt::{go_float, go_quote};

/// The largest precision (or `%e` width) kubegen formats with.
pub const MAX_PRECISION: usize = 1000;

/// A clause's text, or the expression's error, or kubegen's gap.
type Out = Result<String, EvalError>;

fn error(message: String) -> EvalError {
    EvalError::Error(message)
}

/// `error during formatting: …` of a clause's error.
fn during(message: String) -> EvalError {
    error(format!("error during formatting: {message}"))
}

fn string_clause_error(type_name: &str) -> EvalError {
    during(format!(
        "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {type_name}"
    ))
}

/// `Duration.ConvertToType(StringType)`: seconds, shortest, and `s`.
fn duration_text(nanos: i128) -> String {
    format!("{}s", super::time::seconds(nanos))
}

/// `FormatString`: a value as `%s` prints it.
fn format_string(v: &Val) -> Out {
    Ok(match v {
        Val::List(items, _) => format_list(items)?,
        Val::Map(entries) => format_map(entries)?,
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Double(d) => go_float(*d),
        Val::Bool(b) => b.to_string(),
        Val::String(s) => s.to_string(),
        Val::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => {
                return Err(during(
                    "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string"
                        .into(),
                ));
            }
        },
        Val::Duration(n) => duration_text(*n),
        Val::Type(t) => t.to_string(),
        Val::Null => "null".into(),
        // kubegen's timestamps are all in UTC.
        Val::Timestamp(t) => super::time::rfc3339_nano(*t),
        Val::Object(..) => return Err(EvalError::unsupported("formatting an object")),
        other => return Err(string_clause_error(other.type_name()?)),
    })
}

/// `clauseForType` of a list element or map value, quoted as CEL
/// literals are (`quoteForCEL`).
fn format_member(v: &Val) -> Out {
    Ok(match v {
        Val::Int(_) | Val::Uint(_) | Val::Bool(_) | Val::Null | Val::Type(_) => format_string(v)?,
        Val::String(s) => go_quote(s),
        Val::Bytes(_) => format!("b{}", go_quote(&format_string(v)?)),
        Val::Duration(n) => format!("duration({})", go_quote(&duration_text(*n))),
        Val::List(items, _) => format_list(items)?,
        Val::Map(entries) => format_map(entries)?,
        Val::Double(d) if d.is_nan() => "\"NaN\"".into(),
        Val::Double(d) if d.is_infinite() => {
            if *d > 0.0 {
                "\"+Inf\"".into()
            } else {
                "\"-Inf\"".into()
            }
        }
        Val::Double(d) => format!("{d:.6}"),
        Val::Timestamp(t) => format!("timestamp({})", go_quote(&super::time::rfc3339_nano(*t))),
        Val::Object(..) => return Err(EvalError::unsupported("formatting an object")),
        other => {
            return Err(during(format!(
                "no formatting function for {}",
                other.type_name()?
            )));
        }
    })
}

fn format_list(items: &[Val]) -> Out {
    let parts: Result<Vec<String>, EvalError> = items.iter().map(format_member).collect();
    Ok(format!("[{}]", parts?.join(", ")))
}

fn format_map(entries: &[(Val, Val)]) -> Out {
    let mut pairs = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let key = match k {
            Val::String(s) => go_quote(s),
            Val::Bool(_) | Val::Int(_) | Val::Uint(_) => format_string(k)?,
            other => {
                return Err(during(format!(
                    "no formatting function for map key of type {}",
                    other.type_name()?
                )));
            }
        };
        pairs.push((key, format_member(v)?));
    }
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let parts: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
    Ok(format!("{{{}}}", parts.join(", ")))
}

/// The double `%f` and `%e` read: a double, or the strings `NaN`,
/// `Infinity` and `-Infinity`; else the clause's error.
fn double_arg(v: &Val, clause: &str) -> Result<f64, EvalError> {
    match v {
        Val::Double(d) => Ok(*d),
        Val::String(s) if &**s == "NaN" => Ok(f64::NAN),
        Val::String(s) if &**s == "Infinity" => Ok(f64::INFINITY),
        Val::String(s) if &**s == "-Infinity" => Ok(f64::NEG_INFINITY),
        other => Err(during(format!(
            "{clause} clause can only be used on doubles, was given {}",
            other.type_name()?
        ))),
    }
}

/// x/text's `%.Nf` in `en_US`: thousands grouped with `,`, `∞`, no sign
/// for negative zero.
fn fixed(d: f64, precision: usize) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    let sign = if d < 0.0 { "-" } else { "" };
    if d.is_infinite() {
        return format!("{sign}∞");
    }
    let text = format!("{:.precision$}", d.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    // The printer keeps the minimum of fraction digits in a byte: the
    // digits are rounded at the precision, shown down to the last
    // non-zero one and padded to the precision modulo 256.
    let shown = frac.trim_end_matches('0').len().max(precision % 256);
    let frac = &frac[..shown];
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// x/text's `%We` in `en_US` (six decimals, the exponent in superscript
/// digits), padded to `width` characters.
fn scientific(d: f64, width: usize) -> String {
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let sign = if d < 0.0 { "-" } else { "" };
    let text = if d.is_nan() {
        "NaN".to_string()
    } else if d.is_infinite() {
        format!("{sign}∞")
    } else {
        let e = format!("{:.6e}", d.abs());
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let mut digits: String = format!("{:02}", exp.unsigned_abs())
            .bytes()
            .map(|c| SUP[usize::from(c - b'0')])
            .collect();
        if exp < 0 {
            digits.insert(0, '⁻');
        }
        format!("{sign}{mantissa}×10{digits}")
    };
    let pad = width.saturating_sub(text.chars().count());
    format!("{}{text}", " ".repeat(pad))
}

/// Go's `%b`, `%o`, `%x` of an integer: the magnitude with a sign.
fn radix(v: &Val, base: u32, upper: bool) -> Option<String> {
    let (neg, mag) = match v {
        Val::Int(i) => (*i < 0, u128::from(i.unsigned_abs())),
        Val::Uint(u) => (false, u128::from(*u)),
        _ => return None,
    };
    let text = match base {
        2 => format!("{mag:b}"),
        8 => format!("{mag:o}"),
        _ if upper => format!("{mag:X}"),
        _ => format!("{mag:x}"),
    };
    Some(if neg { format!("-{text}") } else { text })
}

fn hex_bytes(b: &[u8], upper: bool) -> String {
    b.iter()
        .map(|c| {
            if upper {
                format!("{c:02X}")
            } else {
                format!("{c:02x}")
            }
        })
        .collect()
}

/// One clause (after its `%`) on `arg`: the text and the bytes read.
fn clause(rest: &[u8], arg: &Val) -> Result<(String, usize), EvalError> {
    let parse_error = |m: String| error(format!("could not parse formatting clause: {m}"));
    let mut i = 0;
    let mut precision = None;
    if rest[0] == b'.' {
        i = 1;
        while i < rest.len() && rest[i].is_ascii_digit() {
            i += 1;
        }
        if i >= rest.len() {
            return Err(parse_error(
                "error while parsing precision: could not find end of precision specifier".into(),
            ));
        }
        let digits = std::str::from_utf8(&rest[1..i]).unwrap_or_default();
        let invalid = |why: &str| {
            parse_error(format!(
                "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing {}: {why}",
                go_quote(digits)
            ))
        };
        if digits.is_empty() {
            return Err(invalid("invalid syntax"));
        }
        let p: i64 = digits.parse().map_err(|_| invalid("value out of range"))?;
        precision = Some(p as u64);
    }
    let precision = || match precision {
        None => Ok(6),
        Some(p) if p <= MAX_PRECISION as u64 => Ok(p as usize),
        Some(_) => Err(EvalError::unsupported("a precision this large")),
    };
    let verb = rest[i];
    let text = match verb {
        b's' => format_string(arg)?,
        b'd' => match arg {
            Val::Int(_) | Val::Uint(_) => format_string(arg)?,
            other => {
                return Err(during(format!(
                    "decimal clause can only be used on integers, was given {}",
                    other.type_name()?
                )));
            }
        },
        b'f' => fixed(double_arg(arg, "fixed-point")?, precision()?),
        b'e' => match precision()? {
            width if width < 256 => scientific(double_arg(arg, "scientific")?, width),
            _ => return Err(EvalError::unsupported("a width this large")),
        },
        b'b' => match (arg, radix(arg, 2, false)) {
            (_, Some(t)) => t,
            (Val::Bool(b), _) => if *b { "1" } else { "0" }.into(),
            (other, None) => {
                return Err(during(format!(
                    "only integers and bools can be formatted as binary, was given {}",
                    other.type_name()?
                )));
            }
        },
        b'o' => radix(arg, 8, false).map_or_else(
            || {
                Err(during(format!(
                    "octal clause can only be used on integers, was given {}",
                    arg.type_name()?
                )))
            },
            Ok,
        )?,
        b'x' | b'X' => {
            let upper = verb == b'X';
            match arg {
                Val::String(s) => hex_bytes(s.as_bytes(), upper),
                Val::Bytes(b) => hex_bytes(b, upper),
                _ => radix(arg, 16, upper).map_or_else(
                    || {
                        Err(during(format!(
                            "only integers, byte buffers, and strings can be formatted as hex, was given {}",
                            arg.type_name()?
                        )))
                    },
                    Ok,
                )?,
            }
        }
        other => {
            return Err(parse_error(format!(
                "unrecognized formatting clause \"{}\"",
                char::from(other)
            )));
        }
    };
    Ok((text, i + 1))
}

/// `parseFormatString`: `s.format(args)`.
pub fn format(s: &str, args: &[Val]) -> Res {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let (mut i, mut next) = (0, 0);
    while i < b.len() {
        if b[i] != b'%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        let Some(arg) = args.get(next) else {
            return Err(error(format!("index {next} out of range")));
        };
        if i + 1 >= b.len() {
            return Err(error("unexpected end of string".into()));
        }
        let (text, read) = clause(&b[i + 1..], arg)?;
        out.extend_from_slice(text.as_bytes());
        i += 1 + read;
        next += 1;
    }
    // Only whole clauses are replaced: the rest is the input's UTF-8.
    Ok(Val::str(&String::from_utf8_lossy(&out)))
}

/// cel-go's `strings.quote`: `"`-quoted with the escapes of CEL string
/// literals for controls with one, other characters as they are.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The calls of this module, `None` for others.
pub fn apply(function: &str, v: &[Val]) -> Option<Res> {
    Some(match (function, v) {
        ("format", [Val::String(s), Val::List(args, _)]) => format(s, args),
        ("strings.quote", [Val::String(s)]) => Ok(Val::str(&quote(s))),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(template: &str, args: Vec<Val>) -> String {
        match format(template, &args) {
            Ok(Val::String(s)) => s.to_string(),
            Err(EvalError::Error(e)) => format!("error: {e}"),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn clauses_as_cel_go() {
        let d = Val::Double;
        assert_eq!(
            run("%.2f|%f", vec![d(1234567.891), d(-0.0)]),
            "1,234,567.89|0.000000"
        );
        assert_eq!(
            run("%e|%.20e", vec![d(-0.00012), d(1.5)]),
            "-1.200000×10⁻⁰⁴|       1.500000×10⁰⁰"
        );
        assert_eq!(
            run("%f|%e", vec![Val::str("-Infinity"), Val::str("NaN")]),
            "-∞|   NaN"
        );
        assert_eq!(
            run(
                "%x %X %o %b %b",
                vec![
                    Val::Int(-255),
                    Val::Uint(255),
                    Val::Int(-8),
                    Val::Int(-5),
                    Val::Bool(true)
                ]
            ),
            "-ff FF -10 -101 1"
        );
        assert_eq!(run("%x 100%%", vec![Val::str("hi")]), "6869 100%");
        let list = Val::list(vec![
            Val::Int(1),
            Val::str("a"),
            d(1.5),
            Val::Null,
            d(f64::INFINITY),
            Val::Duration(-3_600_001_000_000),
            Val::Bytes(std::rc::Rc::from(&b"x\""[..])),
        ]);
        assert_eq!(
            run("%s", vec![list]),
            "[1, \"a\", 1.500000, null, \"+Inf\", duration(\"-3600.001s\"), b\"x\\\"\"]"
        );
        let map = Val::Map(std::rc::Rc::new(vec![
            (Val::str("k"), Val::Int(3)),
            (Val::Int(1), Val::str("a")),
            (Val::Bool(true), d(2.0)),
        ]));
        assert_eq!(run("%s", vec![map]), "{\"k\":3, 1:\"a\", true:2.000000}");
        assert_eq!(run("%s", vec![d(1e21)]), "1e+21");
    }

    #[test]
    fn errors_as_cel_go() {
        for (template, arg, want) in [
            ("%s %s", Val::Int(1), "index 1 out of range"),
            ("%", Val::Int(1), "unexpected end of string"),
            (
                "%z",
                Val::Int(1),
                "could not parse formatting clause: unrecognized formatting clause \"z\"",
            ),
            (
                "%.",
                Val::Int(1),
                "could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
            ),
            (
                "%.a",
                Val::Int(1),
                "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax",
            ),
            (
                "%d",
                Val::str("a"),
                "error during formatting: decimal clause can only be used on integers, was given string",
            ),
            (
                "%f",
                Val::Int(1),
                "error during formatting: fixed-point clause can only be used on doubles, was given int",
            ),
            (
                "%s",
                Val::Optional(None),
                "error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type",
            ),
        ] {
            assert_eq!(
                run(template, vec![arg]),
                format!("error: {want}"),
                "{template}"
            );
        }
    }

    #[test]
    fn quotes_as_cel_go() {
        assert_eq!(
            quote("a\"b\\\n\u{1}\u{2028}"),
            "\"a\\\"b\\\\\\n\u{1}\u{2028}\""
        );
    }
}

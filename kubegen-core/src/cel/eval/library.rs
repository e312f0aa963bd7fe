//! The extension libraries of the apiserver's environment, as far as
//! kubegen evaluates them: cel-go's strings extension (version 2:
//! `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`,
//! `replace`, `split`, `substring`, `trim`, `join`; its `format` and
//! `strings.quote` are [`super::formatting`]'s), Kubernetes' list
//! library (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`),
//! its regex library (`find`, `findAll`), cel-go's lists extension
//! (`distinct`, `flatten`, `lists.range`, `reverse`, `slice`, `sort`,
//! `first`, `last`),
//! cel-go's sets extension and the optional types' functions (the
//! short-circuiting `or` and `orValue` are in the evaluator). Errors are
//! worded as the Go functions word them.

use std::cmp::Ordering;
use std::rc::Rc;

use super::value::{Val, equal};
use super::{EvalError, Res, compare};

fn err(message: String) -> Res {
    Err(EvalError::Error(message))
}

fn strings(items: &[Val]) -> Result<Vec<&str>, EvalError> {
    items
        .iter()
        .map(|v| match v {
            Val::String(s) => Ok(&**s),
            _ => Err(EvalError::unsupported("join of non-strings")),
        })
        .collect()
}

fn string_list(parts: Vec<&str>) -> Val {
    Val::list(parts.into_iter().map(Val::str).collect())
}

/// Go's `strings.SplitN(s, sep, n)` (`n < 0`: all).
fn split_n<'a>(s: &'a str, sep: &str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    if sep.is_empty() {
        // Go's `explode`: one rune each, the rest in the last.
        let mut out = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            if out.len() + 1 == limit {
                out.push(rest);
                return out;
            }
            let len = rest.chars().next().map_or(1, char::len_utf8);
            out.push(&rest[..len]);
            rest = &rest[len..];
        }
        return out;
    }
    s.splitn(limit, sep).collect()
}

/// `indexOfOffset` of cel-go's strings extension.
fn index_of(s: &str, sub: &str, offset: i64) -> Res {
    if sub.is_empty() {
        return Ok(Val::Int(offset));
    }
    let runes: Vec<char> = s.chars().collect();
    let subs: Vec<char> = sub.chars().collect();
    if offset < 0 {
        return err(format!("index out of range: {offset}"));
    }
    let off = offset as usize;
    if off >= runes.len() {
        return Ok(Val::Int(-1));
    }
    let mut i = off;
    while i + subs.len() <= runes.len() {
        if runes[i..i + subs.len()] == subs[..] {
            return Ok(Val::Int(i as i64));
        }
        i += 1;
    }
    Ok(Val::Int(-1))
}

/// `lastIndexOfOffset` of cel-go's strings extension.
fn last_index_of(s: &str, sub: &str, offset: i64) -> Res {
    if sub.is_empty() {
        return Ok(Val::Int(offset));
    }
    let runes: Vec<char> = s.chars().collect();
    let subs: Vec<char> = sub.chars().collect();
    if offset < 0 {
        return err(format!("index out of range: {offset}"));
    }
    let mut off = offset as usize;
    if off >= runes.len() {
        return Ok(Val::Int(-1));
    }
    if subs.len() > runes.len() {
        return Ok(Val::Int(-1));
    }
    off = off.min(runes.len() - subs.len());
    for i in (0..=off).rev() {
        if runes[i..i + subs.len()] == subs[..] {
            return Ok(Val::Int(i as i64));
        }
    }
    Ok(Val::Int(-1))
}

fn substring(s: &str, start: i64, end: Option<i64>) -> Res {
    let runes: Vec<char> = s.chars().collect();
    let l = runes.len() as i64;
    if let Some(end) = end
        && start > end
    {
        return err(format!(
            "invalid substring range. start: {start}, end: {end}"
        ));
    }
    if start < 0 || start > l {
        return err(format!("index out of range: {start}"));
    }
    let end = end.unwrap_or(l);
    if end < 0 || end > l {
        return err(format!("index out of range: {end}"));
    }
    Ok(Val::str(
        &runes[start as usize..end as usize]
            .iter()
            .collect::<String>(),
    ))
}

/// `traits.Lister.Contains`: an element equal to `x`.
fn contains(items: &[Val], x: &Val) -> Result<bool, EvalError> {
    for i in items {
        if equal(i, x)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether the lists library's `indexOf` stops at `e`: `e.Equal(x) ==
/// types.True`, so an element the schema does not allow (an error, which
/// any comparison passes on) is passed over.
fn found(e: &Val, x: &Val) -> Result<bool, EvalError> {
    match equal(e, x) {
        Ok(b) => Ok(b),
        Err(EvalError::Error(_)) => Ok(false),
        Err(other) => Err(other),
    }
}

/// `l.Compare(r)` of two values of one ordered type.
fn order(l: &Val, r: &Val) -> Result<Ordering, EvalError> {
    compare(l, r)?.ok_or_else(|| EvalError::unsupported("comparing NaN"))
}

/// A pattern as Go's `regexp` compiles it; [`EvalError::Unsupported`]
/// where Go's reading may differ from the regex crate's (ASCII-only
/// Perl classes and word boundaries, ASCII classes) or where it does not
/// compile (Go's error message is not reproduced).
pub fn go_regex(pattern: &str) -> Result<regex::Regex, EvalError> {
    let differs = [
        "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "[[:",
    ]
    .iter()
    .any(|p| pattern.contains(p));
    if differs {
        return Err(EvalError::unsupported(
            "a pattern Go's regexp reads otherwise",
        ));
    }
    regex::Regex::new(pattern)
        .map_err(|_| EvalError::unsupported("a pattern the regex crate refuses"))
}

/// Go's `FindAllString(s, n)`; unsupported when an empty match is found
/// (Go and the regex crate skip different ones).
fn find_all(s: &str, pattern: &str, n: i64) -> Res {
    let re = go_regex(pattern)?;
    let limit = if n < 0 { usize::MAX } else { n as usize };
    let mut out = Vec::new();
    for m in re.find_iter(s).take(limit) {
        if m.is_empty() {
            return Err(EvalError::unsupported("empty regex matches"));
        }
        out.push(Val::str(m.as_str()));
    }
    Ok(Val::list(out))
}

/// cel-go's `flatten(list, depth)`.
fn flatten(items: &[Val], depth: i64, out: &mut Vec<Val>) {
    for v in items {
        match v {
            Val::List(inner, _) if depth > 0 => flatten(inner, depth - 1, out),
            other => out.push(other.clone()),
        }
    }
}

/// cel-go's `slice(start, end)`.
fn slice(items: &[Val], start: i64, end: i64) -> Res {
    if start < 0 || end < 0 {
        return err(format!(
            "cannot slice({start}, {end}), negative indexes not supported"
        ));
    }
    if start > end {
        return err(format!(
            "cannot slice({start}, {end}), start index must be less than or equal to end index"
        ));
    }
    if (items.len() as i64) < end {
        return err(format!(
            "cannot slice({start}, {end}), list is length {}",
            items.len()
        ));
    }
    Ok(Val::list(items[start as usize..end as usize].to_vec()))
}

/// cel-go's `sort()`: unsupported where Go's unstable sort could order
/// differently (equal elements that are not the same) or refuse
/// (elements of several types).
fn sort(items: &[Val]) -> Res {
    let mut out = items.to_vec();
    if out
        .iter()
        .any(|v| matches!(v, Val::Double(d) if *d == 0.0 && d.is_sign_negative()))
    {
        return Err(EvalError::unsupported("sorting -0 among 0"));
    }
    if let Some(first) = out.first() {
        let t = first.type_name()?;
        for v in &out {
            if v.type_name()? != t {
                return Err(EvalError::unsupported("sorting elements of several types"));
            }
        }
    }
    let mut failed = None;
    out.sort_by(|a, b| match order(a, b) {
        Ok(o) => o,
        Err(e) => {
            failed = Some(e);
            Ordering::Equal
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(Val::list(out))
}

/// Whether a value is its type's zero value (`optional.ofNonZeroValue`).
fn is_zero(v: &Val) -> Result<bool, EvalError> {
    Ok(match v {
        Val::Null => true,
        Val::Bool(b) => !b,
        Val::Int(i) => *i == 0,
        Val::Uint(u) => *u == 0,
        Val::Double(d) => *d == 0.0,
        Val::String(s) => s.is_empty(),
        Val::Bytes(b) => b.is_empty(),
        Val::List(items, _) => items.is_empty(),
        Val::Map(entries) => entries.is_empty(),
        Val::Duration(n) | Val::Timestamp(n) => *n == 0,
        _ => return Err(EvalError::unsupported("the zero value of this type")),
    })
}

/// A call of the extension libraries on evaluated arguments (the
/// target first), with the overloads the checker resolved it to; `None`
/// when kubegen does not implement it.
pub fn apply(function: &str, overloads: &[String], v: &[Val]) -> Option<Res> {
    use Val::*;
    let int = |i: i64| Ok(Int(i));
    Some(match (function, v) {
        ("charAt", [String(s), Int(i)]) => {
            let runes: Vec<char> = s.chars().collect();
            if *i < 0 || *i as u64 > runes.len() as u64 {
                err(format!("index out of range: {i}"))
            } else {
                Ok(Val::str(
                    &runes
                        .get(*i as usize)
                        .map(char::to_string)
                        .unwrap_or_default(),
                ))
            }
        }
        ("indexOf", [String(s), String(t)]) => index_of(s, t, 0),
        ("indexOf", [String(s), String(t), Int(o)]) => index_of(s, t, *o),
        ("lastIndexOf", [String(s), String(t)]) => {
            let n = s.chars().count() as i64;
            if t.is_empty() {
                int(n)
            } else if s.len() < t.len() {
                int(-1)
            } else {
                last_index_of(s, t, n - 1)
            }
        }
        ("lastIndexOf", [String(s), String(t), Int(o)]) => last_index_of(s, t, *o),
        ("lowerAscii", [String(s)]) => Ok(Val::str(&s.to_ascii_lowercase())),
        ("upperAscii", [String(s)]) => Ok(Val::str(&s.to_ascii_uppercase())),
        ("replace", [String(s), String(old), String(new)]) => Ok(Val::str(&s.replace(&**old, new))),
        ("replace", [String(s), String(old), String(new), Int(n)]) => Ok(Val::str(&if *n < 0 {
            s.replace(&**old, new)
        } else {
            s.replacen(&**old, new, usize::try_from(*n).unwrap_or(usize::MAX))
        })),
        ("split", [String(s), String(sep)]) => Ok(string_list(split_n(s, sep, -1))),
        ("split", [String(s), String(sep), Int(n)]) => Ok(string_list(split_n(s, sep, *n))),
        ("substring", [String(s), Int(start)]) => substring(s, *start, None),
        ("substring", [String(s), Int(start), Int(end)]) => substring(s, *start, Some(*end)),
        ("trim", [String(s)]) => Ok(Val::str(s.trim())),
        ("join", [List(items, _)]) => strings(items).map(|p| Val::str(&p.concat())),
        ("join", [List(items, _), String(sep)]) => {
            strings(items).map(|p| Val::str(&p.join(&**sep)))
        }
        ("isSorted", [List(items, _)]) => (|| {
            for w in items.windows(2) {
                if order(&w[0], &w[1])? == Ordering::Greater {
                    return Ok(Bool(false));
                }
            }
            Ok(Bool(true))
        })(),
        ("sum", [List(items, _)]) => {
            // The library adds every element to its element type's zero.
            let zero = |id: &str| overloads.len() == 1 && overloads[0] == id;
            let mut acc = if zero("list_int_sum_int") {
                Int(0)
            } else if zero("list_uint_sum_uint") {
                Uint(0)
            } else if zero("list_double_sum_double") {
                Double(0.0)
            } else if zero("list_duration_sum_duration") {
                Duration(0)
            } else {
                return Some(Err(EvalError::unsupported("the sum of this list")));
            };
            for i in items.iter() {
                acc = match super::apply("_+_", overloads, &[acc, i.clone()]) {
                    Ok(s) => s,
                    Err(e) => return Some(Err(e)),
                };
            }
            Ok(acc)
        }
        ("min" | "max", [List(items, _)]) => (|| {
            let prefer = if function == "min" {
                Ordering::Greater
            } else {
                Ordering::Less
            };
            let mut result: Option<&Val> = None;
            for i in items.iter() {
                result = Some(match result {
                    None => i,
                    Some(r) if order(r, i)? == prefer => i,
                    Some(r) => r,
                });
            }
            match result {
                Some(r) => Ok(r.clone()),
                None => err(format!("{function} called on empty list")),
            }
        })(),
        ("indexOf", [List(items, _), x]) => (|| {
            for (i, e) in items.iter().enumerate() {
                if found(e, x)? {
                    return Ok(Int(i as i64));
                }
            }
            Ok(Int(-1))
        })(),
        ("lastIndexOf", [List(items, _), x]) => (|| {
            for (i, e) in items.iter().enumerate().rev() {
                if found(e, x)? {
                    return Ok(Int(i as i64));
                }
            }
            Ok(Int(-1))
        })(),
        ("sets.contains", [List(l, _), List(sub, _)]) => all_in(l, sub).map(Bool),
        ("sets.equivalent", [List(a, _), List(b, _)]) => {
            (|| Ok(Bool(all_in(a, b)? && all_in(b, a)?)))()
        }
        ("sets.intersects", [List(a, _), List(b, _)]) => (|| {
            for x in a.iter() {
                if contains(b, x)? {
                    return Ok(Bool(true));
                }
            }
            Ok(Bool(false))
        })(),
        ("find", [String(s), String(p)]) => {
            go_regex(p).map(|re| Val::str(re.find(s).map_or("", |m| m.as_str())))
        }
        ("findAll", [String(s), String(p)]) => find_all(s, p, -1),
        ("findAll", [String(s), String(p), Int(n)]) => find_all(s, p, *n),
        ("distinct", [List(items, _)]) => (|| {
            let mut out: Vec<Val> = Vec::new();
            for v in items.iter() {
                if !contains(&out, v)? {
                    out.push(v.clone());
                }
            }
            Ok(Val::list(out))
        })(),
        ("flatten", [List(items, _)]) => {
            let mut out = Vec::new();
            flatten(items, 1, &mut out);
            Ok(Val::list(out))
        }
        ("flatten", [List(items, _), Int(depth)]) => {
            if *depth < 0 {
                err("level must be non-negative".into())
            } else {
                let mut out = Vec::new();
                flatten(items, *depth, &mut out);
                Ok(Val::list(out))
            }
        }
        ("lists.range", [Int(n)]) => Ok(Val::list((0..(*n).max(0)).map(Int).collect())),
        ("reverse", [List(items, _)]) => Ok(Val::list(items.iter().rev().cloned().collect())),
        ("slice", [List(items, _), Int(start), Int(end)]) => slice(items, *start, *end),
        ("sort", [List(items, _)]) => sort(items),
        ("first", [List(items, _)]) => Ok(Optional(items.first().cloned().map(Rc::new))),
        ("last", [List(items, _)]) => Ok(Optional(items.last().cloned().map(Rc::new))),
        ("optional.of", [x]) => Ok(Optional(Some(Rc::new(x.clone())))),
        ("optional.none", []) => Ok(Optional(None)),
        ("optional.ofNonZeroValue", [x]) => {
            is_zero(x).map(|zero| Optional(if zero { None } else { Some(Rc::new(x.clone())) }))
        }
        ("hasValue", [Optional(o)]) => Ok(Bool(o.is_some())),
        ("value", [Optional(Some(x))]) => Ok((**x).clone()),
        ("value", [Optional(None)]) => err("optional.none() dereference".into()),
        _ => return None,
    })
}

fn ordering_int(o: Ordering) -> i64 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// The semver library's calls, `None` for others.
pub fn semver(function: &str, v: &[Val]) -> Option<Res> {
    let parsed = |s: &str, normalize: bool| {
        if normalize {
            super::semver::normalize_and_parse(s)
        } else {
            super::semver::parse(s)
        }
    };
    Some(match (function, v) {
        ("isSemver", [Val::String(s)]) => Ok(Val::Bool(super::semver::parse(s).is_some())),
        ("isSemver", [Val::String(s), Val::Bool(n)]) => Ok(Val::Bool(parsed(s, *n).is_some())),
        ("semver", [Val::String(s)]) | ("semver", [Val::String(s), Val::Bool(false)]) => {
            super::semver::parse(s)
                .map(|v| Val::Semver(Rc::new(v)))
                .ok_or_else(|| EvalError::unsupported("the semver parse error"))
        }
        ("semver", [Val::String(s), Val::Bool(true)]) => super::semver::normalize_and_parse(s)
            .map(|v| Val::Semver(Rc::new(v)))
            .ok_or_else(|| EvalError::unsupported("the semver parse error")),
        ("major", [Val::Semver(v)]) => Ok(Val::Int(v.major as i64)),
        ("minor", [Val::Semver(v)]) => Ok(Val::Int(v.minor as i64)),
        ("patch", [Val::Semver(v)]) => Ok(Val::Int(v.patch as i64)),
        ("compareTo", [Val::Semver(a), Val::Semver(b)]) => {
            Ok(Val::Int(ordering_int(super::semver::compare(a, b))))
        }
        ("isLessThan", [Val::Semver(a), Val::Semver(b)]) => {
            Ok(Val::Bool(super::semver::compare(a, b) == Ordering::Less))
        }
        ("isGreaterThan", [Val::Semver(a), Val::Semver(b)]) => {
            Ok(Val::Bool(super::semver::compare(a, b) == Ordering::Greater))
        }
        _ => return None,
    })
}

/// Whether every element of `needles` is in `haystack` (the sets
/// library's containment, with CEL equality).
fn all_in(haystack: &[Val], needles: &[Val]) -> Result<bool, EvalError> {
    for x in needles {
        if !contains(haystack, x)? {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Val {
        Val::str(x)
    }

    fn text(r: Option<Res>) -> String {
        match r {
            Some(Ok(Val::String(s))) => s.to_string(),
            Some(Ok(Val::Int(i))) => i.to_string(),
            Some(Ok(Val::Bool(b))) => b.to_string(),
            Some(Ok(Val::List(items, _))) => items
                .iter()
                .map(|i| text(Some(Ok(i.clone()))))
                .collect::<Vec<_>>()
                .join("|"),
            Some(Err(EvalError::Error(e))) => format!("error: {e}"),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn index_of_a_list_passes_over_elements_the_schema_does_not_allow() {
        // `lister.Get(i).Equal(item) == types.True`: an element holding
        // invalid data is an error, never True, never an error of the call.
        let invalid = Val::Error(Rc::from("invalid data, expected string, got float64"));
        let l = Val::list(vec![invalid.clone(), s("a"), invalid]);
        assert_eq!(text(apply("indexOf", &[], &[l.clone(), s("a")])), "1");
        assert_eq!(text(apply("lastIndexOf", &[], &[l.clone(), s("a")])), "1");
        assert_eq!(text(apply("indexOf", &[], &[l, s("b")])), "-1");
    }

    #[test]
    fn strings_as_cel_go() {
        for (f, args, want) in [
            ("charAt", vec![s("héllo"), Val::Int(1)], "é"),
            ("charAt", vec![s("ab"), Val::Int(2)], ""),
            (
                "charAt",
                vec![s("ab"), Val::Int(3)],
                "error: index out of range: 3",
            ),
            ("indexOf", vec![s("abcabc"), s("c"), Val::Int(3)], "5"),
            ("indexOf", vec![s("abc"), s("")], "0"),
            (
                "indexOf",
                vec![s("abc"), s("b"), Val::Int(-1)],
                "error: index out of range: -1",
            ),
            ("lastIndexOf", vec![s("abcabc"), s("bc")], "4"),
            ("lastIndexOf", vec![s("abc"), s("")], "3"),
            ("lastIndexOf", vec![s("abcabc"), s("a"), Val::Int(2)], "0"),
            (
                "replace",
                vec![s("aaa"), s("a"), s("b"), Val::Int(2)],
                "bba",
            ),
            ("split", vec![s("a,b,c"), s(","), Val::Int(2)], "a|b,c"),
            ("split", vec![s("abc"), s("")], "a|b|c"),
            ("split", vec![s("abc"), s(""), Val::Int(2)], "a|bc"),
            (
                "substring",
                vec![s("hello"), Val::Int(1), Val::Int(3)],
                "el",
            ),
            (
                "substring",
                vec![s("hello"), Val::Int(3), Val::Int(1)],
                "error: invalid substring range. start: 3, end: 1",
            ),
            (
                "substring",
                vec![s("hello"), Val::Int(6)],
                "error: index out of range: 6",
            ),
            ("trim", vec![s(" \t x \n")], "x"),
            ("upperAscii", vec![s("aé")], "Aé"),
            ("join", vec![Val::list(vec![s("a"), s("b")]), s("-")], "a-b"),
            ("find", vec![s("xabcab"), s("[a-c]+")], "abcab"),
            ("find", vec![s("xyz"), s("q")], ""),
            ("findAll", vec![s("a1b22c"), s("[0-9]+")], "1|22"),
            ("findAll", vec![s("a1b22c"), s("[0-9]+"), Val::Int(1)], "1"),
        ] {
            assert_eq!(text(apply(f, &[], &args)), want, "{f}{args:?}");
        }
    }

    #[test]
    fn patterns_go_reads_otherwise_are_unsupported() {
        for (f, args) in [
            ("find", vec![s("١"), s("\\d")]),
            ("findAll", vec![s("ab"), s("x*")]),
            ("find", vec![s("ab"), s("(")]),
        ] {
            assert!(
                matches!(apply(f, &[], &args), Some(Err(EvalError::Unsupported(_)))),
                "{f}{args:?}"
            );
        }
    }

    #[test]
    fn list_extensions_as_cel_go() {
        let l = Val::list(vec![Val::Int(3), Val::Int(1), Val::Int(3)]);
        let nested = Val::list(vec![
            Val::Int(0),
            Val::list(vec![Val::Int(1), Val::list(vec![])]),
        ]);
        let show = |r: Option<Res>| match r {
            Some(Ok(Val::List(items, _))) => format!("{items:?}"),
            Some(Ok(Val::Optional(o))) => format!("{o:?}"),
            Some(Err(EvalError::Error(e))) => e,
            other => format!("{other:?}"),
        };
        assert_eq!(
            show(apply("distinct", &[], std::slice::from_ref(&l))),
            show(Some(Ok(Val::list(vec![Val::Int(3), Val::Int(1)]))))
        );
        assert_eq!(
            show(apply("sort", &[], std::slice::from_ref(&l))),
            show(Some(Ok(Val::list(vec![
                Val::Int(1),
                Val::Int(3),
                Val::Int(3)
            ]))))
        );
        assert_eq!(
            show(apply("flatten", &[], std::slice::from_ref(&nested))),
            show(Some(Ok(Val::list(vec![
                Val::Int(0),
                Val::Int(1),
                Val::list(vec![])
            ]))))
        );
        assert_eq!(
            show(apply("flatten", &[], &[nested, Val::Int(-1)])),
            "level must be non-negative"
        );
        assert_eq!(
            show(apply("slice", &[], &[l.clone(), Val::Int(1), Val::Int(5)])),
            "cannot slice(1, 5), list is length 3"
        );
        assert_eq!(
            show(apply("slice", &[], &[l.clone(), Val::Int(2), Val::Int(1)])),
            "cannot slice(2, 1), start index must be less than or equal to end index"
        );
        assert_eq!(show(apply("last", &[], &[Val::list(vec![])])), "None");
        assert_eq!(
            show(apply("lists.range", &[], &[Val::Int(2)])),
            show(Some(Ok(Val::list(vec![Val::Int(0), Val::Int(1)]))))
        );
    }

    #[test]
    fn lists_sets_and_optionals() {
        let l = Val::list(vec![Val::Int(3), Val::Int(1), Val::Int(2)]);
        assert_eq!(
            text(apply("isSorted", &[], std::slice::from_ref(&l))),
            "false"
        );
        assert_eq!(
            text(apply(
                "sum",
                &["list_int_sum_int".to_string()],
                std::slice::from_ref(&l)
            )),
            "6"
        );
        assert_eq!(text(apply("min", &[], std::slice::from_ref(&l))), "1");
        assert_eq!(text(apply("max", &[], std::slice::from_ref(&l))), "3");
        assert_eq!(
            text(apply("min", &[], &[Val::list(vec![])])),
            "error: min called on empty list"
        );
        assert_eq!(text(apply("indexOf", &[], &[l.clone(), Val::Int(2)])), "2");
        let sub = Val::list(vec![Val::Int(1), Val::Double(2.0)]);
        assert_eq!(
            text(apply("sets.contains", &[], &[l.clone(), sub.clone()])),
            "true"
        );
        assert_eq!(
            text(apply("sets.equivalent", &[], &[l.clone(), sub])),
            "false"
        );
        assert_eq!(
            text(apply("value", &[], &[Val::Optional(None)])),
            "error: optional.none() dereference"
        );
        assert_eq!(
            text(apply(
                "hasValue",
                &[],
                &[apply("optional.ofNonZeroValue", &[], &[s("")])
                    .unwrap()
                    .unwrap()]
            )),
            "false"
        );
    }
}

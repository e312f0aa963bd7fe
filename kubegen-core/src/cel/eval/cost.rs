//! The runtime cost of one call, as the apiserver's cost tracker charges
//! it (cel-go v0.26 `CostTracker.costCall`): first the overload trackers
//! of cel-go's lists and sets extensions, then k8s.io/apiserver's
//! `CostEstimator.CallCost` (by function name), then cel-go's own
//! figures by overload id, else 1. Sizes are cel-go's `actualSize` (a
//! string's runes, a list's elements, a map's or object's entries, an
//! IP's or prefix's bytes, 1 otherwise) and k8s' `traversalCost`.

use super::value::Val;
use super::{EvalError, Res};

/// `common.StringTraversalCostFactor`.
const STRING_TRAVERSAL: f64 = 0.1;
/// `common.RegexStringLengthCostFactor`.
const REGEX_STRING_LENGTH: f64 = 0.25;
/// `common.ListCreateBaseCost`.
pub const LIST_CREATE: u64 = 10;
/// `common.MapCreateBaseCost`.
pub const MAP_CREATE: u64 = 30;

/// `ceil(n × factor)` in Go's float64 arithmetic.
fn ceil(n: u64, factor: f64) -> u64 {
    (n as f64 * factor).ceil() as u64
}

/// A value's `actualSize`, as cel-go's tracker reads it (an optional's
/// value when it has one, when `unwrap`; k8s' own reads it as 1).
fn size_of(v: &Res, unwrap: bool) -> u64 {
    let Ok(v) = v else { return 1 };
    match v {
        Val::String(s) => s.chars().count() as u64,
        Val::Bytes(b) => b.len() as u64,
        Val::List(items, _) => items.len() as u64,
        Val::Map(entries) => entries.len() as u64,
        Val::Object(_, shape) => shape.size as u64,
        Val::Ip(_, v4) => {
            if *v4 {
                4
            } else {
                16
            }
        }
        Val::Cidr(_, _, bits) => u64::from(*bits).div_ceil(8),
        Val::Optional(Some(inner)) if unwrap => size_of(&Ok((**inner).clone()), true),
        _ => 1,
    }
}

/// k8s' `traversalCost`: a string's bytes × 0.1 (truncated), every
/// element of a list, every key and value of a map, 1 for anything else.
fn traversal(v: &Val) -> u64 {
    match v {
        Val::String(s) => (s.len() as f64 * STRING_TRAVERSAL) as u64,
        Val::Bytes(b) => (b.len() as f64 * STRING_TRAVERSAL) as u64,
        Val::List(items, _) => items.iter().map(traversal).sum(),
        Val::Map(entries) => entries
            .iter()
            .map(|(k, v)| traversal(k) + traversal(v))
            .sum(),
        Val::Object(fields, ..) => fields
            .iter()
            .map(|(k, v)| (k.len() as f64 * STRING_TRAVERSAL) as u64 + traversal(v))
            .sum(),
        _ => 1,
    }
}

/// The extensions' `trackAllocatingListCall`.
fn allocating_list(factor: f64, size: u64) -> u64 {
    (size as f64 * factor) as u64 + 1 + LIST_CREATE
}

/// The panic of a tracker's type assertion on an error value.
fn not_a(what: &str) -> EvalError {
    EvalError::Internal(format!("internal error: interface conversion: {what}"))
}

/// The lists extension's `trackListSelfCompare`.
fn self_compare(list: &Res) -> Result<u64, EvalError> {
    let items = match list {
        Ok(Val::List(items, _)) => items,
        Err(EvalError::Error(_)) => {
            return Err(not_a("*types.Err is not traits.Lister: missing method Add"));
        }
        _ => return Err(EvalError::unsupported("the cost of this call")),
    };
    let n = items.len() as u64;
    let mut factor = 2.0;
    if n == 0 {
        return Ok(allocating_list(factor, 0));
    }
    if matches!(items[0], Val::String(_) | Val::Bytes(_)) {
        factor += STRING_TRAVERSAL;
    }
    Ok(allocating_list(factor, n * n))
}

/// What the overload trackers of cel-go's lists (version 3) and sets
/// extensions charge, if `overload` is theirs.
fn tracked(overload: &str, args: &[Res], result: &Res) -> Option<Result<u64, EvalError>> {
    let actual = |i: usize| size_of(&args[i], true);
    Some(Ok(match overload {
        "list_slice" | "lists_range" | "list_reverse" => {
            allocating_list(1.0, size_of(result, true))
        }
        "list_flatten" => allocating_list(1.0, actual(0)),
        "list_flatten_int" => match &args[1] {
            Ok(Val::Int(depth)) => allocating_list(*depth as f64, actual(0)),
            Err(EvalError::Error(_)) => {
                return Some(Err(not_a("ref.Val is *types.Err, not types.Int")));
            }
            _ => return Some(Err(EvalError::unsupported("the cost of this call"))),
        },
        "list_distinct" => return Some(self_compare(&args[0])),
        "list_sets_contains_list" | "list_sets_intersects_list" => {
            1 + (actual(0).wrapping_mul(actual(1)) as f64) as u64
        }
        "list_sets_equivalent_list" => 1 + (actual(0).wrapping_mul(actual(1)) as f64 * 2.0) as u64,
        o if o.starts_with("list_") && o.ends_with("_sortByAssociatedKeys") => {
            return Some(self_compare(&args[1]));
        }
        o if o.starts_with("list_") && o.ends_with("_sort") => return Some(self_compare(&args[0])),
        _ => return None,
    }))
}

/// What k8s.io/apiserver's `CostEstimator.CallCost` charges, if it
/// prices `function`.
fn kubernetes(function: &str, overload: &str, args: &[Res], result: &Res) -> Option<u64> {
    let k8s = |i: usize| size_of(&args[i], false);
    let traversal_of = |i: usize| match &args[i] {
        Ok(v) => traversal(v),
        Err(_) => 1,
    };
    Some(match function {
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
            if args.is_empty() {
                0
            } else {
                traversal_of(0)
            }
        }
        "url" | "lowerAscii" | "upperAscii" | "substring" | "trim" | "jsonpatch.escapeKey"
            if !args.is_empty() =>
        {
            ceil(k8s(0), STRING_TRAVERSAL)
        }
        "replace" | "split" if !args.is_empty() => ceil(k8s(0), 2.0 * STRING_TRAVERSAL),
        "join" if !args.is_empty() => ceil(size_of(result, false), 2.0 * STRING_TRAVERSAL),
        "find" | "findAll" if args.len() >= 2 => {
            ((1.0 + k8s(0) as f64) * STRING_TRAVERSAL).ceil() as u64
                * ceil(k8s(1), REGEX_STRING_LENGTH)
        }
        "cidr" | "isIP" | "isCIDR" if !args.is_empty() => ceil(k8s(0), STRING_TRAVERSAL),
        "ip" if overload == "cidr_ip" && !args.is_empty() => 1,
        "ip" if !args.is_empty() => ceil(k8s(0), STRING_TRAVERSAL),
        "ip.isCanonical" if !args.is_empty() => ceil(k8s(0), 2.0 * STRING_TRAVERSAL),
        "masked"
        | "prefixLength"
        | "family"
        | "isUnspecified"
        | "isLoopback"
        | "isLinkLocalMulticast"
        | "isLinkLocalUnicast"
        | "isGlobalUnicast" => 1,
        "containsIP" if args.len() >= 2 => {
            let cidr = k8s(0);
            let mut cost = ceil(cidr + cidr, STRING_TRAVERSAL);
            if overload == "cidr_contains_ip_string" {
                cost += ceil(k8s(1), STRING_TRAVERSAL);
            }
            cost
        }
        "containsCIDR" if args.len() >= 2 => {
            let cidr = k8s(0);
            let mut cost = ceil(cidr + cidr, STRING_TRAVERSAL) + ceil(cidr, STRING_TRAVERSAL) + 1;
            if overload == "cidr_contains_cidr_string" {
                cost += ceil(k8s(1), STRING_TRAVERSAL);
            }
            cost
        }
        "quantity" | "isQuantity" | "semver" | "isSemver" if !args.is_empty() => {
            ceil(k8s(0), STRING_TRAVERSAL)
        }
        "validate" if args.len() >= 2 => match &args[0] {
            Ok(Val::Format(f)) => {
                ((1.0 + k8s(1) as f64) * STRING_TRAVERSAL).ceil() as u64
                    * ceil(f.max_regex_size(), REGEX_STRING_LENGTH)
            }
            _ => return None,
        },
        "format.named" => 1,
        "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
        | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => 1,
        "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => 1,
        "_==_" if args.len() == 2 => match &args[0] {
            Ok(
                Val::Ip(..)
                | Val::Cidr(..)
                | Val::Semver(_)
                | Val::Quantity(..)
                | Val::Url(_)
                | Val::Format(_),
            ) => 1,
            _ => return None,
        },
        _ => return None,
    })
}

/// What cel-go charges for an overload no estimator prices.
fn standard(overload: &str, args: &[Res]) -> u64 {
    let actual = |i: usize| size_of(&args[i], true);
    match overload {
        "starts_with_string" | "ends_with_string" | "string_to_bytes" | "bytes_to_string"
        | "strings_quote" | "string_format" => ceil(actual(0), STRING_TRAVERSAL),
        "in_list" => actual(1),
        "less_string"
        | "greater_string"
        | "less_equals_string"
        | "greater_equals_string"
        | "less_bytes"
        | "greater_bytes"
        | "less_equals_bytes"
        | "greater_equals_bytes"
        | "equals"
        | "not_equals" => ceil(actual(0).min(actual(1)), STRING_TRAVERSAL),
        "add_string" | "add_bytes" => ceil(actual(0) + actual(1), STRING_TRAVERSAL),
        "matches_string" => {
            ((1.0 + actual(0) as f64) * STRING_TRAVERSAL).ceil() as u64
                * ceil(actual(1), REGEX_STRING_LENGTH)
        }
        "contains_string" => ceil(actual(0), STRING_TRAVERSAL) * ceil(actual(1), STRING_TRAVERSAL),
        _ => 1,
    }
}

/// The cost the tracker charges for a call of `function` (dispatched to
/// `overload`, or `""` when the checker left more than one) on `args`
/// (the target first; errors as they were evaluated) giving `result`.
/// An unsupported value (kubegen cannot size it as cel-go would) gives
/// [`EvalError::Unsupported`].
pub fn call(function: &str, overload: &str, args: &[Res], result: &Res) -> Result<u64, EvalError> {
    if args
        .iter()
        .any(|a| matches!(a, Err(EvalError::Unsupported(_))))
    {
        return Err(EvalError::unsupported(
            "the cost of a call on an unsupported value",
        ));
    }
    if let Some(c) = tracked(overload, args, result) {
        return c;
    }
    if let Some(c) = kubernetes(function, overload, args, result) {
        return Ok(c);
    }
    Ok(standard(overload, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Res {
        Ok(Val::str(x))
    }

    #[test]
    fn string_costs_follow_cel_go() {
        // ceil(0.1 × min(runes)): an empty string compares for free.
        assert_eq!(
            call("_==_", "equals", &[s(""), s("abc")], &Ok(Val::Bool(false))),
            Ok(0)
        );
        assert_eq!(
            call(
                "_==_",
                "equals",
                &[s("ééé"), s("abcd")],
                &Ok(Val::Bool(false))
            ),
            Ok(1)
        );
        // (1 + len) × 0.1 ceiled, times the pattern's length × 0.25 ceiled.
        let long = "a".repeat(25);
        assert_eq!(
            call(
                "matches",
                "matches_string",
                &[s(&long), s("^[a-z]+$")],
                &Ok(Val::Bool(true))
            ),
            Ok(3 * 2)
        );
        // Several overloads left by the checker: the default.
        assert_eq!(
            call("_<_", "", &[s(&long), s(&long)], &Ok(Val::Bool(false))),
            Ok(1)
        );
    }

    #[test]
    fn kubernetes_prices_by_function_name() {
        // k8s' traversal truncates where cel-go ceils.
        let l = Ok(Val::list(vec![Val::str("abcdefghijk"), Val::Int(1)]));
        assert_eq!(
            call(
                "indexOf",
                "list_indexof",
                &[l, Ok(Val::Int(1))],
                &Ok(Val::Int(1))
            ),
            Ok(2)
        );
        assert_eq!(
            call("join", "list_join", &[s("x")], &s(&"y".repeat(12))),
            Ok(3)
        );
    }

    #[test]
    fn list_extension_trackers() {
        let l = Ok(Val::list(vec![Val::str("b"), Val::str("a"), Val::str("c")]));
        // 9 × 2.1 truncated, + 1 + 10.
        assert_eq!(
            call("sort", "list_string_sort", std::slice::from_ref(&l), &l),
            Ok(18 + 11)
        );
        assert_eq!(
            call("reverse", "list_reverse", std::slice::from_ref(&l), &l),
            Ok(3 + 11)
        );
    }
}

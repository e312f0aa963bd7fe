//! The estimators the apiserver adds to cel-go's: the lists and sets
//! extensions' per-overload estimators (cel-go `ext/lists.go`,
//! `ext/sets.go`) and the Kubernetes libraries' (`EstimateCallCost` of
//! k8s.io/apiserver `library.CostEstimator`), function for function.

use super::slice::Path;
use super::{AstNode, Estimate, SizeEstimator};
use crate::cel::ast::Literal;
use crate::cel::checked::NodeKind;
use crate::cel::types::Type;

const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_STRING_LENGTH: f64 = 0.25;
const LIST_CREATE: u64 = 10;
/// `MaxNameFormatRegexSize`: the regular expression a named format is
/// assumed to run.
const MAX_NAME_FORMAT_REGEX: f64 = 128.0;
/// `MaxFormatSize`.
const MAX_FORMAT: u64 = 64;

type Call = (Estimate, Option<Estimate>);

/// A size: what the node shows, else the schema's, else unknown.
fn size(c: &mut dyn SizeEstimator, n: &AstNode<'_>) -> Estimate {
    if let Some(s) = n.computed {
        return s;
    }
    c.estimate_size(n).unwrap_or_else(Estimate::unknown)
}

/// A literal int argument, clamped at 0; `default` otherwise.
fn int_literal(n: &AstNode<'_>, default: u64) -> u64 {
    match n.expr.map(|e| &e.kind) {
        Some(NodeKind::Literal(Literal::Int(i))) => (*i).max(0) as u64,
        _ => default,
    }
}

fn fixed(n: u64) -> Option<Call> {
    Some((Estimate::fixed(n), None))
}

/// A call that builds a list of `size` at `factor` per element.
fn allocating(factor: f64, size: Estimate) -> Option<Call> {
    let cost = size
        .factor(factor)
        .plus(Estimate::fixed(1))
        .plus(Estimate::fixed(LIST_CREATE));
    Some((cost, Some(size)))
}

/// The estimators the lists and sets extensions register per overload.
pub(super) fn extension(
    c: &mut dyn SizeEstimator,
    overload: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
) -> Option<Call> {
    match overload {
        "list_sets_contains_list" | "list_sets_intersects_list" | "list_sets_equivalent_list" => {
            if args.len() != 2 {
                return None;
            }
            let factor = if overload == "list_sets_equivalent_list" {
                2.0
            } else {
                1.0
            };
            let (a, b) = (size(c, &args[0]), size(c, &args[1]));
            Some((a.times(b).factor(factor).plus(Estimate::fixed(1)), None))
        }
        "list_slice" => {
            let t = target?;
            if args.len() != 2 {
                return None;
            }
            let sz = size(c, t);
            let start = int_literal(&args[0], 0);
            let end = int_literal(&args[1], sz.max);
            allocating(1.0, Estimate::fixed(end.wrapping_sub(start)))
        }
        "lists_range" => {
            if target.is_some() || args.len() != 1 {
                return None;
            }
            allocating(1.0, Estimate::fixed(int_literal(&args[0], u64::MAX)))
        }
        "list_reverse" => {
            let t = target?;
            if !args.is_empty() {
                return None;
            }
            let sz = size(c, t);
            allocating(1.0, sz)
        }
        "list_flatten" | "list_flatten_int" => {
            let t = target?;
            if args.len() > 1 {
                return None;
            }
            let depth = args.first().map_or(1, |a| int_literal(a, u64::MAX));
            let sz = size(c, t);
            allocating(depth as f64, sz)
        }
        "list_distinct" => {
            let t = target?;
            if !args.is_empty() {
                return None;
            }
            let sz = size(c, t);
            allocating(2.0, sz.times(sz))
        }
        _ => {
            let elem = overload.strip_prefix("list_")?;
            let (elem, by_keys) = match elem.strip_suffix("_sortByAssociatedKeys") {
                Some(e) => (e, true),
                None => (elem.strip_suffix("_sort")?, false),
            };
            if !matches!(
                elem,
                "int"
                    | "uint"
                    | "double"
                    | "bool"
                    | "google.protobuf.Duration"
                    | "google.protobuf.Timestamp"
                    | "string"
                    | "bytes"
            ) {
                return None;
            }
            target?;
            let node = if by_keys {
                if args.len() != 1 {
                    return None;
                }
                &args[0]
            } else {
                if !args.is_empty() {
                    return None;
                }
                target?
            };
            let sz = size(c, node);
            let mut factor = 2.0;
            if matches!(elem, "string" | "bytes") {
                factor += STRING_TRAVERSAL;
            }
            allocating(factor, sz.times(sz))
        }
    }
}

/// The element of a list node, with the path to its schema node when the
/// list has one (`listElementNode`).
fn element<'a>(list: &AstNode<'a>) -> Option<AstNode<'a>> {
    let elem = match &list.ty {
        Type::List(e) | Type::Map(e, _) | Type::Optional(e) | Type::Type(e) => (**e).clone(),
        _ => return None,
    };
    let path = if list.path.len() > 0 {
        list.path.copy_with("@items")
    } else {
        Path::default()
    };
    Some(AstNode {
        path,
        ty: elem,
        expr: None,
        computed: None,
    })
}

/// The Kubernetes libraries' estimator (`EstimateCallCost`), by function.
pub(super) fn kubernetes(
    c: &mut dyn SizeEstimator,
    function: &str,
    overload: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
) -> Option<Call> {
    let traversal = |s: Estimate| s.factor(STRING_TRAVERSAL);
    match function {
        "check" => fixed(350_000),
        "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace" | "name"
        | "allowed" | "reason" | "error" | "errored" => fixed(1),
        "fieldSelector" | "labelSelector" => {
            if args.len() != 1 {
                return None;
            }
            let len = size(c, &args[0]);
            let parse = traversal(len);
            let requirements = len.factor(0.5).factor(50.0);
            Some((Estimate::fixed(10).plus(parse).plus(requirements), None))
        }
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
            let t = target?;
            match element(t) {
                Some(el) => {
                    let mut el_cost = Estimate::fixed(1);
                    if matches!(el.ty, Type::String | Type::Bytes) {
                        el_cost = el_cost.plus(traversal(size(c, &el)));
                    }
                    Some((size(c, t).times(el_cost), None))
                }
                None => Some((traversal(size(c, t)), None)),
            }
        }
        "url" | "jsonpatch.escapeKey" => {
            if args.len() != 1 {
                return None;
            }
            let sz = size(c, &args[0]);
            Some((traversal(sz), Some(sz)))
        }
        "lowerAscii" | "upperAscii" | "substring" | "trim" => {
            let sz = size(c, target?);
            Some((traversal(sz), Some(sz)))
        }
        "replace" => {
            let t = target?;
            if args.len() < 2 {
                return None;
            }
            let sz = size(c, t);
            let from = size(c, &args[0]);
            let with = size(c, &args[1]);
            let (mut count, mut retained) = (Estimate::default(), Estimate::default());
            if from.min == 0 {
                count.max = if sz.max < u64::MAX {
                    sz.max + 1
                } else {
                    sz.max
                };
                retained.max = sz.max;
            } else if with.max <= from.min {
                count.max = 0;
                retained.max = sz.max;
            } else {
                count.max = go_ceil_div(sz.max, from.min);
            }
            if from.max == 0 {
                count.min = if sz.min < u64::MAX {
                    sz.min + 1
                } else {
                    sz.min
                };
                retained.min = sz.min;
            } else if from.max <= with.min {
                count.min = 0;
                retained.min = sz.min;
            } else {
                count.min = go_ceil_div(sz.min, from.max);
            }
            let result = count.times(with).plus(retained);
            Some((sz.factor(2.0 * STRING_TRAVERSAL), Some(result)))
        }
        "split" => {
            let t = target?;
            let sz = size(c, t);
            let max = match args.get(1).and_then(|a| a.expr).map(|e| &e.kind) {
                Some(NodeKind::Literal(Literal::Int(i))) => *i as u64,
                _ => sz.max,
            };
            Some((
                sz.factor(2.0 * STRING_TRAVERSAL),
                Some(Estimate { min: 0, max }),
            ))
        }
        "join" => {
            let t = target?;
            let list = size(c, t);
            let mut sz = Estimate::default();
            if let Some(el) = element(t) {
                sz = list.times(size(c, &el));
            }
            if let Some(sep) = args.first() {
                let sep = size(c, sep);
                let separators = Estimate {
                    min: list.min.saturating_sub(1),
                    max: list.max.saturating_sub(1),
                };
                sz = sz.plus(sep.times(separators));
            }
            Some((traversal(sz), Some(sz)))
        }
        "find" | "findAll" => {
            let t = target?;
            let pattern = args.first()?;
            let sz = size(c, t);
            let s = traversal(sz.plus(Estimate::fixed(1)));
            let r = size(c, pattern).factor(REGEX_STRING_LENGTH);
            Some((
                s.times(r),
                Some(Estimate {
                    min: 0,
                    max: sz.max,
                }),
            ))
        }
        "cidr" | "isIP" | "isCIDR" => {
            let sz = size(c, args.first()?);
            Some((traversal(sz), None))
        }
        "ip" => {
            if overload == "cidr_ip" {
                return fixed(1);
            }
            let sz = size(c, args.first()?);
            Some((traversal(sz), None))
        }
        "ip.isCanonical" => {
            let sz = size(c, args.first()?);
            Some((sz.factor(2.0 * STRING_TRAVERSAL), None))
        }
        "masked"
        | "prefixLength"
        | "family"
        | "isUnspecified"
        | "isLoopback"
        | "isLinkLocalMulticast"
        | "isLinkLocalUnicast"
        | "isGlobalUnicast" => fixed(1),
        "containsIP" | "containsCIDR" => {
            let first = args.first()?;
            let ip = Estimate { min: 4, max: 16 };
            let mut cost = traversal(ip.plus(ip));
            if function == "containsCIDR" {
                cost = cost.plus(traversal(ip)).plus(Estimate::fixed(1));
            }
            if overload == "cidr_contains_ip_string" || overload == "cidr_contains_cidr_string" {
                cost = cost.plus(traversal(size(c, first)));
            }
            Some((cost, None))
        }
        "quantity" | "isQuantity" | "semver" | "isSemver" => {
            let sz = size(c, args.first()?);
            Some((traversal(sz), None))
        }
        "validate" => {
            let sz = size(c, args.first()?);
            Some((
                traversal(sz).factor(MAX_NAME_FORMAT_REGEX * REGEX_STRING_LENGTH),
                None,
            ))
        }
        "format.named" | "sign" | "asInteger" | "isInteger" | "asApproximateFloat"
        | "isGreaterThan" | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor"
        | "patch" | "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath"
        | "getQuery" => fixed(1),
        "_==_" => {
            if args.len() != 2 || args[0].ty != args[1].ty {
                return None;
            }
            match &args[0].ty {
                Type::Opaque(name) if name == "net.IP" || name == "net.CIDR" => fixed(1),
                Type::Opaque(name) => match name.as_str() {
                    "kubernetes.NamedFormat" => Some((
                        traversal(Estimate {
                            min: 1,
                            max: MAX_FORMAT,
                        }),
                        None,
                    )),
                    "kubernetes.URL" => {
                        // As the apiserver: both sides' sizes read from the right.
                        let max = args[1].computed.map_or(1, |r| r.max);
                        Some((traversal(Estimate { min: 1, max }), None))
                    }
                    "kubernetes.Quantity" | "kubernetes.Semver" => fixed(1),
                    n if n.starts_with("kubernetes.authorization.") => fixed(1),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// `uint64(math.Ceil(float64(a) / float64(b)))`, as Go computes it.
fn go_ceil_div(a: u64, b: u64) -> u64 {
    let q = (a as f64 / b as f64).ceil();
    if q >= 2f64.powi(64) {
        // Go's conversion of an out-of-range float is platform-defined;
        // on amd64 it yields 1<<63.
        1 << 63
    } else {
        q as u64
    }
}

//! What the apiserver's interpreter refuses when it plans a rule that
//! checked: an index by a constant of a type it cannot index with.

use crate::cel::ast::{Expr, ExprKind, Literal};

/// What the apiserver's interpreter refuses when it plans a checked
/// expression: an index whose index is a constant (a literal, a literal
/// list or map of constants, a type conversion of a constant — what its
/// optimizer folds) of a type other than string, int, uint, bool or double.
pub(super) fn plan(e: &Expr) -> Result<(), String> {
    if let ExprKind::Call {
        function,
        args,
        is_macro: false,
        ..
    } = &e.kind
        && (function == "_[_]" || function == "_[?_]")
        && let Some(Some(go_type)) = constant(&args[1])
    {
        return Err(format!(
            "program instantiation failed: invalid qualifier type: {go_type}"
        ));
    }
    children(e).into_iter().try_for_each(plan)
}

/// For a constant the optimizer folds: `None` inside when it is a valid
/// qualifier, else the Go type of the folded value.
fn constant(e: &Expr) -> Option<Option<&'static str>> {
    match &e.kind {
        ExprKind::Literal(Literal::Bytes(_)) => Some(Some("types.Bytes")),
        ExprKind::Literal(Literal::Null) => Some(Some("types.Null")),
        ExprKind::Literal(_) => Some(None),
        ExprKind::List(elements) => elements
            .iter()
            .all(|el| !el.optional && constant(&el.value).is_some())
            .then_some(Some("*types.baseList")),
        ExprKind::Map(entries) => entries
            .iter()
            .all(|en| !en.optional && constant(&en.key).is_some() && constant(&en.value).is_some())
            .then_some(Some("*types.baseMap")),
        ExprKind::Call {
            function,
            target: None,
            args,
            is_macro: false,
        } if args.len() == 1 => {
            let inner = constant(&args[0])?;
            match function.as_str() {
                "duration" => Some(Some("types.Duration")),
                "timestamp" => Some(Some("types.Timestamp")),
                "bytes" => Some(Some("types.Bytes")),
                "type" => Some(Some("*types.Type")),
                "dyn" => Some(inner),
                "int" | "uint" | "double" | "string" | "bool" => Some(None),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The direct subexpressions of `e`.
pub(super) fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Ident(_) => Vec::new(),
        ExprKind::Select { operand, .. } => vec![operand],
        ExprKind::Call { target, args, .. } => target.as_deref().into_iter().chain(args).collect(),
        ExprKind::List(elements) => elements.iter().map(|el| &el.value).collect(),
        ExprKind::Map(entries) => entries.iter().flat_map(|en| [&en.key, &en.value]).collect(),
        ExprKind::Struct { fields, .. } => fields.iter().map(|f| &f.value).collect(),
    }
}

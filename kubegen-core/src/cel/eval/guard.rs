//! cel-go's invocation guards (`guardedUnaryOp` and its kin in
//! `common/decls`): before an overload's implementation runs, each
//! argument must be runtime-assignable to its declared type — for a list,
//! its first element to the element type; for a map, its first entry —
//! else the call is `no such overload: f(list)`. Type parameters and
//! `dyn` take anything. A list of the object holding data its schema does
//! not allow (an error as its first element) is how a rule meets this.

use super::EvalError;
use super::value::Val;
use crate::cel::functions;
use crate::cel::types::Type;

/// Functions declared with `DisableTypeGuards(true)`.
const UNGUARDED: &[&str] = &["contains", "endsWith", "startsWith", "matches", "flatten"];

/// `Ok` when an overload among `overloads` (the checker's candidates) of
/// `function` takes `args` at run time; cel-go's error when none does.
pub fn check(function: &str, overloads: &[String], args: &[Val]) -> Result<(), EvalError> {
    if UNGUARDED.contains(&function) {
        return Ok(());
    }
    let Some(declared) = functions::overloads(function) else {
        return Ok(());
    };
    let candidates: Vec<&functions::Overload> = declared
        .iter()
        .filter(|o| overloads.contains(&o.id) && o.args.len() == args.len())
        .collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let mut unsure = false;
    for o in candidates {
        let all: Option<bool> = o
            .args
            .iter()
            .zip(args)
            .map(|(t, v)| assignable(t, v))
            .try_fold(true, |acc, m| m.map(|m| acc && m));
        match all {
            Some(true) => return Ok(()),
            Some(false) => {}
            None => unsure = true,
        }
    }
    if unsure {
        return Err(EvalError::unsupported(
            "whether its arguments match the function's declared types at run time",
        ));
    }
    let mut names = Vec::new();
    for a in args {
        names.push(a.type_name()?);
    }
    Err(EvalError::Error(format!(
        "no such overload: {function}({})",
        names.join(", ")
    )))
}

/// `IsAssignableRuntimeType`: `None` where kubegen cannot tell (a value
/// it does not represent, an object's type name, a map whose entries
/// disagree, where Go's first entry is random).
fn assignable(t: &Type, v: &Val) -> Option<bool> {
    match (t, v) {
        (Type::Dyn | Type::Param(_), _) => Some(true),
        (_, Val::Unsupported(_)) => None,
        (_, Val::Error(_)) => Some(false),
        (Type::List(elem), Val::List(items, _)) => match items.first() {
            None => Some(true),
            Some(first) => assignable(elem, first),
        },
        (Type::Map(k, e), Val::Map(entries)) => {
            let mut verdicts = entries
                .iter()
                .map(|(key, value)| Some(assignable(k, key)? && assignable(e, value)?));
            let first = verdicts.next().unwrap_or(Some(true))?;
            verdicts.all(|v| v == Some(first)).then_some(first)
        }
        (Type::Object(_), _) | (_, Val::Object(..)) => None,
        // cel-go compares the types' names (`TypeName`).
        (t, v) => Some(v.type_name().ok() == Some(t.type_name().as_str())),
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;

    #[test]
    fn a_list_whose_first_element_is_invalid_data_matches_no_typed_overload() {
        let invalid = Val::Error(Rc::from("invalid data, expected string, got float64"));
        let bad = Val::list(vec![invalid.clone(), Val::str("a")]);
        let min = ["list_string_min_string".to_string()];
        match check("min", &min, std::slice::from_ref(&bad)) {
            Err(EvalError::Error(e)) => assert_eq!(e, "no such overload: min(list)"),
            other => panic!("{other:?}"),
        }
        // Only the first element is looked at.
        let later = Val::list(vec![Val::str("a"), invalid]);
        assert!(check("min", &min, &[later]).is_ok());
        // A type parameter takes anything.
        assert!(
            check(
                "indexOf",
                &["list_a_index_of_int".to_string()],
                &[bad, Val::str("a")]
            )
            .is_ok()
        );
    }
}

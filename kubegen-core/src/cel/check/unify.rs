//! cel-go's type unification: assignability with type parameters bound
//! as they are met (`internalIsAssignable`, `isValidTypeSubstitution`),
//! substitution, and the more general of two types.

use std::collections::HashMap;

use crate::cel::types::Type;

/// Type parameters bound so far.
pub(super) type Mapping = HashMap<String, Type>;

/// An overload's type parameters renamed to fresh variables.
pub(super) fn rename_params(t: &Type, fresh: &mut HashMap<String, Type>, next: &mut u32) -> Type {
    match t {
        Type::Param(p) => fresh
            .entry(p.clone())
            .or_insert_with(|| {
                *next += 1;
                Type::Param(format!("_var{next}"))
            })
            .clone(),
        Type::List(e) => Type::List(Box::new(rename_params(e, fresh, next))),
        Type::Map(k, v) => Type::Map(
            Box::new(rename_params(k, fresh, next)),
            Box::new(rename_params(v, fresh, next)),
        ),
        Type::Optional(e) => Type::Optional(Box::new(rename_params(e, fresh, next))),
        Type::Type(e) => Type::Type(Box::new(rename_params(e, fresh, next))),
        other => other.clone(),
    }
}

/// `t` with bound parameters replaced (free ones by `dyn` if `to_dyn`).
pub(super) fn substitute(m: &Mapping, t: &Type, to_dyn: bool) -> Type {
    match t {
        Type::Param(p) => match m.get(p) {
            Some(sub) => substitute(m, sub, to_dyn),
            None if to_dyn => Type::Dyn,
            None => t.clone(),
        },
        Type::List(e) => Type::List(Box::new(substitute(m, e, to_dyn))),
        Type::Map(k, v) => Type::Map(
            Box::new(substitute(m, k, to_dyn)),
            Box::new(substitute(m, v, to_dyn)),
        ),
        Type::Optional(e) => Type::Optional(Box::new(substitute(m, e, to_dyn))),
        Type::Type(e) => Type::Type(Box::new(substitute(m, e, to_dyn))),
        other => other.clone(),
    }
}

/// The same type (objects by name).
pub(super) fn exact(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Object(x), Type::Object(y)) => x.name == y.name,
        _ => a == b,
    }
}

/// cel-go's `internalIsAssignable(m, t1, t2)`: a value of `t1` may be
/// passed where `t2` is expected.
pub(super) fn is_assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    if let Type::Param(_) = t2 {
        let (valid, has_sub) = valid_substitution(m, t1, t2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if let Type::Param(_) = t1 {
        return valid_substitution(m, t2, t1).0;
    }
    if matches!(t1, Type::Dyn | Type::Error) || matches!(t2, Type::Dyn | Type::Error) {
        return true;
    }
    if *t1 == Type::Null {
        return nullable(t2);
    }
    if *t2 == Type::Null {
        return nullable(t1);
    }
    match (t1, t2) {
        (Type::Type(_), other) => matches!(other, Type::Type(_)),
        (Type::List(a), Type::List(b)) | (Type::Optional(a), Type::Optional(b)) => {
            is_assignable(m, a, b)
        }
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            is_assignable(m, k1, k2) && is_assignable(m, v1, v2)
        }
        (Type::List(_) | Type::Optional(_) | Type::Map(..), _) => false,
        _ => exact(t1, t2),
    }
}

fn nullable(t: &Type) -> bool {
    matches!(
        t,
        Type::Null
            | Type::Opaque(_)
            | Type::Optional(_)
            | Type::Object(_)
            | Type::Duration
            | Type::Timestamp
    )
}

/// cel-go's `isValidTypeSubstitution(m, t1, t2)` for a type parameter `t2`.
fn valid_substitution(m: &mut Mapping, t1: &Type, t2: &Type) -> (bool, bool) {
    if exact(t1, t2) {
        return (true, true);
    }
    let Type::Param(name) = t2 else {
        return (false, false);
    };
    if let Some(sub) = m.get(name).cloned() {
        if exact(t1, &sub) {
            return (true, true);
        }
        if is_assignable(m, t1, &sub) {
            let general = most_general(t1, &sub);
            if not_referenced_in(m, t2, &general) {
                m.insert(name.clone(), general);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        m.insert(name.clone(), t1.clone());
        return (true, false);
    }
    (false, false)
}

fn not_referenced_in(m: &Mapping, t: &Type, within: &Type) -> bool {
    if exact(t, within) {
        return false;
    }
    match within {
        Type::Param(p) => match m.get(p) {
            Some(sub) => not_referenced_in(m, t, sub),
            None => true,
        },
        Type::List(e) | Type::Optional(e) | Type::Type(e) => not_referenced_in(m, t, e),
        Type::Map(k, v) => not_referenced_in(m, t, k) && not_referenced_in(m, t, v),
        _ => true,
    }
}

/// The less specific of two types (cel-go's `mostGeneral`).
pub(super) fn most_general(t1: &Type, t2: &Type) -> Type {
    if less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

fn less_specific(t1: &Type, t2: &Type) -> bool {
    if matches!(t1, Type::Dyn | Type::Param(_)) {
        return true;
    }
    if matches!(t2, Type::Dyn | Type::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Type::List(a), Type::List(b)) | (Type::Optional(a), Type::Optional(b)) => {
            less_specific(a, b)
        }
        (Type::Map(k1, v1), Type::Map(k2, v2)) => less_specific(k1, k2) && less_specific(v1, v2),
        _ => std::mem::discriminant(t1) == std::mem::discriminant(t2),
    }
}

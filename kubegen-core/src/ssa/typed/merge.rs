//! An applied configuration merged into a live object
//! (`TypedValue.Merge` with `ruleKeepRHS`): the configuration's value
//! wins at every leaf (scalars, atomic lists and maps, empty ones);
//! granular maps merge entry by entry; associative lists item by item,
//! in the order `visitListItems` gives (the live order, with the
//! configuration's items placed where its own order puts them).

use std::collections::BTreeMap;

use serde_json::{Map as JsonMap, Value};

use super::validate::validate_scalar;
use super::{Errors, list_item_path_element, unresolved};
use crate::ssa::path::PathElement;
use crate::ssa::schema::{
    Atom, Deduced, Handled, List, Map, Relationship, Schema, TypeRef, handled,
};

static NULL: Value = Value::Null;

/// Merges `rhs` into `lhs` (both of type `tr`): the merged value, absent
/// when neither side leaves anything.
pub(crate) fn merge(
    sc: &Schema,
    tr: &TypeRef,
    lhs: &Value,
    rhs: &Value,
) -> Result<Option<Value>, Errors> {
    let errs_and_out = merge_node(sc, tr, Some(lhs), Some(rhs));
    match errs_and_out {
        (errs, _) if !errs.is_empty() => Err(errs),
        (_, out) => Ok(out),
    }
}

#[derive(Clone, Default)]
struct State {
    in_leaf: bool,
    out: Option<Value>,
}

fn merge_node(
    sc: &Schema,
    tr: &TypeRef,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
) -> (Errors, Option<Value>) {
    if lhs.is_none() && rhs.is_none() {
        return (
            Errors::one("at least one of lhs and rhs must be provided"),
            None,
        );
    }
    let Some(atom) = sc.resolve(tr) else {
        return (unresolved(sc, tr), None);
    };
    let atom: &Atom = &atom;
    let (dl, dr) = (Deduced::of(atom, lhs), Deduced::of(atom, rhs));
    let mut errs = Errors::default();
    let mut st = State::default();
    if rhs.is_none() {
        errs.extend(handle(sc, atom, dl, tr, lhs, rhs, &mut st));
    } else if lhs.is_none() || dl == dr {
        errs.extend(handle(sc, atom, dr, tr, lhs, rhs, &mut st));
    } else {
        // Go handles the live value's atom on a copy of the walker, whose
        // output is dropped.
        let mut copy = st.clone();
        errs.extend(handle(sc, atom, dl, tr, lhs, rhs, &mut copy));
        errs.extend(handle(sc, atom, dr, tr, lhs, rhs, &mut st));
    }
    (errs, st.out)
}

fn handle(
    sc: &Schema,
    atom: &Atom,
    d: Deduced,
    tr: &TypeRef,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    st: &mut State,
) -> Errors {
    match handled(atom, d) {
        Handled::Scalar(s) => {
            let mut lerrs = validate_scalar(s, lhs, "lhs: ");
            let rerrs = validate_scalar(s, rhs, "rhs: ");
            if !lerrs.is_empty() && !rerrs.is_empty() {
                lerrs.extend(rerrs);
                return lerrs;
            }
            leaf(lhs, rhs, st);
            Errors::default()
        }
        Handled::List(l) => list(sc, l, lhs, rhs, st),
        Handled::Map(m) => map(sc, m, lhs, rhs, st),
        Handled::Invalid => super::invalid_atom(sc, tr),
    }
}

fn leaf(lhs: Option<&Value>, rhs: Option<&Value>, st: &mut State) {
    if st.in_leaf {
        return;
    }
    st.in_leaf = true;
    st.out = rhs.or(lhs).cloned();
}

fn list(sc: &Schema, t: &List, lhs: Option<&Value>, rhs: Option<&Value>, st: &mut State) -> Errors {
    let l = lhs.and_then(Value::as_array);
    let r = rhs.and_then(Value::as_array);
    let empty = l.is_none_or(Vec::is_empty) && r.is_none_or(Vec::is_empty);
    if t.relationship == Relationship::Atomic || empty {
        leaf(lhs, rhs, st);
        return Errors::default();
    }
    if l.is_none() && r.is_none() {
        return Errors::default();
    }
    let (errs, out) = list_items(
        sc,
        t,
        l.map_or(&[][..], Vec::as_slice),
        r.map_or(&[][..], Vec::as_slice),
    );
    if !out.is_empty() {
        st.out = Some(Value::Array(out));
    }
    errs
}

/// Each item's path element, and the first value of each (`None` for
/// the value of a key seen twice, which Go records as null).
type Indexed<'v> = (Vec<PathElement>, BTreeMap<PathElement, Option<&'v Value>>);

fn index<'v>(
    sc: &Schema,
    t: &List,
    list: &'v [Value],
    allow_duplicates: bool,
    errs: &mut Errors,
) -> Indexed<'v> {
    let mut pes = Vec::new();
    let mut observed: BTreeMap<PathElement, Option<&Value>> = BTreeMap::new();
    for (i, child) in list.iter().enumerate() {
        let pe = match list_item_path_element(sc, t, child) {
            Ok(pe) => pe,
            Err(e) => {
                errs.extend(Errors::one(format!("element {i}: {e}")));
                continue;
            }
        };
        if observed.contains_key(&pe) {
            if !allow_duplicates {
                errs.extend(Errors::one(format!("duplicate entries for key {pe}")));
                continue;
            }
            observed.insert(pe.clone(), None);
        } else {
            observed.insert(pe.clone(), Some(child));
        }
        pes.push(pe);
    }
    (pes, observed)
}

fn get<'v>(m: &BTreeMap<PathElement, Option<&'v Value>>, pe: &PathElement) -> Option<&'v Value> {
    m.get(pe).map(|v| v.unwrap_or(&NULL))
}

fn list_items(sc: &Schema, t: &List, lhs: &[Value], rhs: &[Value]) -> (Errors, Vec<Value>) {
    let mut errs = Errors::default();
    let (rhs_pes, observed_rhs) = index(sc, t, rhs, false, &mut errs);
    let (lhs_pes, observed_lhs) = index(sc, t, lhs, true, &mut errs);
    let mut out = Vec::with_capacity(lhs.len().max(rhs.len()));
    if !errs.is_empty() {
        return (errs, out);
    }
    // The configuration's items the live list has too, in the
    // configuration's order.
    let mut shared = rhs_pes.iter().filter(|pe| observed_lhs.contains_key(pe));
    let mut next_shared = shared.next();
    let mut merged_rhs = std::collections::BTreeSet::new();
    // Errors of items are dropped, as Go's shadowed `errs` drops them.
    let item = |l: Option<&Value>, r: Option<&Value>, out: &mut Vec<Value>| {
        let (_, merged) = merge_node(sc, &t.element, l, r);
        if let Some(v) = merged {
            out.push(v);
        }
    };
    let (l_len, r_len) = (lhs_pes.len(), rhs_pes.len());
    let (mut li, mut ri) = (0, 0);
    while li < l_len || ri < r_len {
        if li < l_len && ri < r_len {
            let pe = &lhs_pes[li];
            if *pe == rhs_pes[ri] {
                merged_rhs.insert(pe.clone());
                item(get(&observed_lhs, pe), get(&observed_rhs, pe), &mut out);
                li += 1;
                ri += 1;
                next_shared = shared.next();
                continue;
            }
            if observed_rhs.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                li += 1;
                continue;
            }
        }
        if li < l_len {
            let pe = &lhs_pes[li];
            if !observed_rhs.contains_key(pe) {
                item(Some(&lhs[li]), None, &mut out);
                li += 1;
                continue;
            } else if merged_rhs.contains(pe) {
                li += 1;
            }
        }
        if ri < r_len {
            let pe = &rhs_pes[ri];
            merged_rhs.insert(pe.clone());
            item(get(&observed_lhs, pe), get(&observed_rhs, pe), &mut out);
            ri += 1;
            if next_shared.is_some_and(|n| n == pe) {
                next_shared = shared.next();
            }
        }
    }
    (errs, out)
}

fn map(sc: &Schema, t: &Map, lhs: Option<&Value>, rhs: Option<&Value>, st: &mut State) -> Errors {
    let l = lhs.and_then(Value::as_object);
    let r = rhs.and_then(Value::as_object);
    let empty = l.is_none_or(|m| m.is_empty()) && r.is_none_or(|m| m.is_empty());
    if t.is_atomic() || empty {
        leaf(lhs, rhs, st);
        return Errors::default();
    }
    if l.is_none() && r.is_none() {
        return Errors::default();
    }
    let mut keys: Vec<&String> = l.into_iter().flat_map(|m| m.keys()).collect();
    keys.extend(r.into_iter().flat_map(|m| m.keys()));
    keys.sort();
    keys.dedup();
    let mut errs = Errors::default();
    let mut out = JsonMap::new();
    for key in keys {
        let ty = t.field(key).map_or(&t.element, |f| &f.ty);
        let (e, merged) = merge_node(
            sc,
            ty,
            l.and_then(|m| m.get(key)),
            r.and_then(|m| m.get(key)),
        );
        errs.extend(e.with_prefix(&format!(".{key}")));
        if let Some(v) = merged {
            out.insert(key.clone(), v);
        }
    }
    if !out.is_empty() {
        st.out = Some(Value::Object(out));
    }
    errs
}

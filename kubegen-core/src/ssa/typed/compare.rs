//! What changed between two values of a type (`TypedValue.Compare`): the
//! paths added, removed and modified, leaves compared whole (scalars,
//! atomic lists and maps, empty ones), a granular node added or removed
//! with everything under it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::validate::validate_scalar;
use super::{Errors, list_item_path_element, unresolved};
use crate::ssa::fieldset::FieldSet;
use crate::ssa::path::PathElement;
use crate::ssa::schema::{
    Atom, Deduced, Handled, List, Map, Relationship, Schema, TypeRef, handled,
};
use crate::ssa::value::equals;

/// The paths that differ between two values.
#[derive(Clone, Debug, Default)]
pub(crate) struct Comparison {
    pub removed: FieldSet,
    pub modified: FieldSet,
    pub added: FieldSet,
}

impl Comparison {
    /// Each set less the paths a reset filter excludes (`FilterFields`).
    pub fn filter(self, exclude: Option<&FieldSet>) -> Self {
        let Some(ex) = exclude else {
            return self;
        };
        Comparison {
            removed: self.removed.recursive_difference(ex),
            modified: self.modified.recursive_difference(ex),
            added: self.added.recursive_difference(ex),
        }
    }
}

/// Compares `lhs` (old) with `rhs` (new) of type `tr`.
pub(crate) fn compare(
    sc: &Schema,
    tr: &TypeRef,
    lhs: &Value,
    rhs: &Value,
) -> Result<Comparison, Errors> {
    let mut w = Walker {
        sc,
        cmp: Comparison::default(),
        path: Vec::new(),
    };
    let errs = w.compare(tr, Some(lhs), Some(rhs));
    if errs.is_empty() {
        Ok(w.cmp)
    } else {
        Err(errs)
    }
}

struct Walker<'s> {
    sc: &'s Schema,
    cmp: Comparison,
    path: Vec<PathElement>,
}

impl Walker<'_> {
    fn compare(&mut self, tr: &TypeRef, lhs: Option<&Value>, rhs: Option<&Value>) -> Errors {
        if lhs.is_none() && rhs.is_none() {
            return Errors::one("at least one of lhs and rhs must be provided");
        }
        let Some(atom) = self.sc.resolve(tr) else {
            return unresolved(self.sc, tr);
        };
        let atom: &Atom = &atom;
        let (dl, dr) = (Deduced::of(atom, lhs), Deduced::of(atom, rhs));
        let mut errs = Errors::default();
        let mut in_leaf = false;
        if rhs.is_none() {
            errs.extend(self.handle(atom, dl, tr, lhs, rhs, &mut in_leaf));
        } else if lhs.is_none() || dl == dr {
            errs.extend(self.handle(atom, dr, tr, lhs, rhs, &mut in_leaf));
        } else {
            // Go handles the old value's atom on a copy of the walker:
            // only what it records in the shared comparison stays.
            let mut copy_leaf = in_leaf;
            errs.extend(self.handle(atom, dl, tr, lhs, rhs, &mut copy_leaf));
            errs.extend(self.handle(atom, dr, tr, lhs, rhs, &mut in_leaf));
        }
        if !in_leaf {
            if lhs.is_none() {
                self.cmp.added.insert(&self.path);
            } else if rhs.is_none() {
                self.cmp.removed.insert(&self.path);
            }
        }
        errs
    }

    fn handle(
        &mut self,
        atom: &Atom,
        d: Deduced,
        tr: &TypeRef,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> Errors {
        match handled(atom, d) {
            Handled::Scalar(s) => {
                let mut lerrs = validate_scalar(s, lhs, "lhs: ");
                let rerrs = validate_scalar(s, rhs, "rhs: ");
                if !lerrs.is_empty() && !rerrs.is_empty() {
                    lerrs.extend(rerrs);
                    return lerrs;
                }
                self.leaf(lhs, rhs, in_leaf);
                Errors::default()
            }
            Handled::List(l) => self.list(l, lhs, rhs, in_leaf),
            Handled::Map(m) => self.map(m, lhs, rhs, in_leaf),
            Handled::Invalid => super::invalid_atom(self.sc, tr),
        }
    }

    fn leaf(&mut self, lhs: Option<&Value>, rhs: Option<&Value>, in_leaf: &mut bool) {
        if *in_leaf {
            return;
        }
        *in_leaf = true;
        match (lhs, rhs) {
            (None, _) => self.cmp.added.insert(&self.path),
            (_, None) => self.cmp.removed.insert(&self.path),
            (Some(l), Some(r)) if !equals(r, l) => self.cmp.modified.insert(&self.path),
            _ => {}
        }
    }

    fn list(
        &mut self,
        t: &List,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> Errors {
        let l = lhs.and_then(Value::as_array);
        let r = rhs.and_then(Value::as_array);
        let empty = l.is_none_or(Vec::is_empty) && r.is_none_or(Vec::is_empty);
        if t.relationship == Relationship::Atomic || empty {
            self.leaf(lhs, rhs, in_leaf);
            return Errors::default();
        }
        if l.is_none() && r.is_none() {
            return Errors::default();
        }
        self.list_items(
            t,
            l.map_or(&[][..], Vec::as_slice),
            r.map_or(&[][..], Vec::as_slice),
        )
    }

    fn list_items(&mut self, t: &List, lhs: &[Value], rhs: &[Value]) -> Errors {
        let mut errs = Errors::default();
        let mut all: Vec<PathElement> = Vec::new();
        let mut lvals: BTreeMap<PathElement, Vec<&Value>> = BTreeMap::new();
        for (i, child) in lhs.iter().enumerate() {
            match list_item_path_element(self.sc, t, child) {
                Ok(pe) => {
                    let e = lvals.entry(pe.clone()).or_default();
                    if e.is_empty() {
                        all.push(pe);
                    }
                    e.push(child);
                }
                Err(e) => errs.extend(Errors::one(format!("element {i}: {e}"))),
            }
        }
        let mut rvals: BTreeMap<PathElement, Vec<&Value>> = BTreeMap::new();
        for (i, child) in rhs.iter().enumerate() {
            match list_item_path_element(self.sc, t, child) {
                Ok(pe) => {
                    let e = rvals.entry(pe.clone()).or_default();
                    if e.is_empty() && !lvals.contains_key(&pe) {
                        all.push(pe);
                    }
                    e.push(child);
                }
                Err(e) => errs.extend(Errors::one(format!("element {i}: {e}"))),
            }
        }
        for pe in all {
            let l = lvals.get(&pe).cloned().unwrap_or_default();
            let r = rvals.get(&pe).cloned().unwrap_or_default();
            match (l.len(), r.len()) {
                (0, 0) => return errs,
                (0..=1, 0..=1) => {
                    errs.extend(self.item(t, &pe, l.first().copied(), r.first().copied()));
                }
                (2.., 2..) => {
                    let same = l.len() == r.len() && l.iter().zip(&r).all(|(a, b)| equals(a, b));
                    if !same {
                        self.insert_child(&pe, Which::Modified);
                    }
                }
                (2.., _) => {
                    if let Some(r0) = r.first() {
                        errs.extend(self.item(t, &pe, None, Some(r0)));
                    }
                    self.insert_child(&pe, Which::Removed);
                }
                (_, _) => {
                    if let Some(l0) = l.first() {
                        errs.extend(self.item(t, &pe, Some(l0), None));
                    }
                    self.insert_child(&pe, Which::Added);
                }
            }
        }
        errs
    }

    fn insert_child(&mut self, pe: &PathElement, which: Which) {
        self.path.push(pe.clone());
        match which {
            Which::Added => self.cmp.added.insert(&self.path),
            Which::Removed => self.cmp.removed.insert(&self.path),
            Which::Modified => self.cmp.modified.insert(&self.path),
        }
        self.path.pop();
    }

    fn item(&mut self, t: &List, pe: &PathElement, l: Option<&Value>, r: Option<&Value>) -> Errors {
        self.path.push(pe.clone());
        let errs = self.compare(&t.element, l, r).with_prefix(&pe.to_string());
        self.path.pop();
        errs
    }

    fn map(
        &mut self,
        t: &Map,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        in_leaf: &mut bool,
    ) -> Errors {
        let l = lhs.and_then(Value::as_object);
        let r = rhs.and_then(Value::as_object);
        let empty = l.is_none_or(|m| m.is_empty()) && r.is_none_or(|m| m.is_empty());
        if t.is_atomic() || empty {
            self.leaf(lhs, rhs, in_leaf);
            return Errors::default();
        }
        let mut keys: Vec<&String> = l.into_iter().flat_map(|m| m.keys()).collect();
        keys.extend(r.into_iter().flat_map(|m| m.keys()));
        keys.sort();
        keys.dedup();
        let mut errs = Errors::default();
        for key in keys {
            let ty = t.field(key).map_or(&t.element, |f| &f.ty);
            let pe = PathElement::Field(key.clone());
            self.path.push(pe.clone());
            let e = self.compare(ty, l.and_then(|m| m.get(key)), r.and_then(|m| m.get(key)));
            errs.extend(e.with_prefix(&pe.to_string()));
            self.path.pop();
        }
        errs
    }
}

enum Which {
    Added,
    Removed,
    Modified,
}

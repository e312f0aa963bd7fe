//! A manager's field set brought in line with the schema
//! (`ReconcileFieldSetWithSchema`): paths under what the schema now says
//! is atomic are replaced by the atomic node itself.

use crate::ssa::fieldset::FieldSet;
use crate::ssa::path::PathElement;
use crate::ssa::schema::{Atom, Relationship, Schema, TypeRef, UNTYPED_DEDUCED};

/// The reconciled set, or `None` when nothing changes.
pub(crate) fn reconcile(sc: &Schema, tr: &TypeRef, set: &FieldSet) -> Option<FieldSet> {
    let mut to_remove = FieldSet::new();
    let mut to_add = FieldSet::new();
    let mut changed = false;
    walk(
        sc,
        tr,
        Some(set),
        false,
        &mut Vec::new(),
        &mut to_remove,
        &mut to_add,
        &mut changed,
    );
    changed.then(|| set.recursive_difference(&to_remove).union(&to_add))
}

fn is_untyped_deduced_ref(tr: &TypeRef) -> bool {
    match tr {
        TypeRef::Named(i, _) => *i == UNTYPED_DEDUCED,
        TypeRef::Inlined(a) => a.scalar == Some(crate::ssa::schema::Scalar::Untyped),
    }
}

#[allow(clippy::too_many_arguments)]
fn walk(
    sc: &Schema,
    tr: &TypeRef,
    set: Option<&FieldSet>,
    is_atomic: bool,
    path: &mut Vec<PathElement>,
    to_remove: &mut FieldSet,
    to_add: &mut FieldSet,
    changed: &mut bool,
) {
    let Some(atom) = sc.resolve(tr) else {
        return;
    };
    let atom: &Atom = &atom;
    // `handleAtom` on the whole atom: the map first, then the scalar,
    // then the list.
    if let Some(m) = &atom.map {
        if is_untyped_deduced_ref(&m.element) && m.fields.is_empty() {
            return;
        }
        if !is_atomic && m.relationship == Some(Relationship::Atomic) {
            if set.is_some_and(|s| !s.is_empty()) {
                mark(path, to_remove, to_add, changed);
            }
            return;
        }
        if let Some(set) = set {
            visit(sc, set, path, to_remove, to_add, changed, |pe| match pe {
                PathElement::Field(name) => {
                    let ty = m.field(name).map_or(&m.element, |f| &f.ty);
                    (!ty.is_empty()).then(|| ty.clone())
                }
                _ => (!m.element.is_empty()).then(|| m.element.clone()),
            });
        }
        return;
    }
    if atom.scalar.is_some() {
        return;
    }
    if let Some(l) = &atom.list {
        if !is_atomic && l.relationship == Relationship::Atomic {
            mark(path, to_remove, to_add, changed);
            return;
        }
        if let Some(set) = set {
            visit(sc, set, path, to_remove, to_add, changed, |_| {
                Some(l.element.clone())
            });
        }
    }
}

fn mark(path: &[PathElement], to_remove: &mut FieldSet, to_add: &mut FieldSet, changed: &mut bool) {
    to_remove.insert(path);
    to_add.insert(path);
    *changed = true;
}

/// Children that are not members first, then members, as Go visits them.
fn visit(
    sc: &Schema,
    set: &FieldSet,
    path: &mut Vec<PathElement>,
    to_remove: &mut FieldSet,
    to_add: &mut FieldSet,
    changed: &mut bool,
    type_at: impl Fn(&PathElement) -> Option<TypeRef>,
) {
    let mut handle = |pe: &PathElement, is_member: bool, path: &mut Vec<PathElement>| {
        let Some(tr) = type_at(pe) else {
            return;
        };
        let child = set.child(pe);
        path.push(pe.clone());
        walk(
            sc,
            &tr,
            child,
            is_member && child.is_none(),
            path,
            to_remove,
            to_add,
            changed,
        );
        path.pop();
    };
    for (pe, _) in &set.children {
        if !set.has_member(pe) {
            handle(pe, false, path);
        }
    }
    for pe in &set.members {
        handle(pe, true, path);
    }
}

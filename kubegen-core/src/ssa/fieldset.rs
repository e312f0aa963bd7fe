//! Sets of field paths (structured-merge-diff's `fieldpath.Set`): the
//! members of a node and its children, each kept sorted in path-element
//! order, with Go's union, intersection, difference (children only) and
//! recursive difference (a member drops its whole subtree).

use std::fmt;

use super::path::{Path, PathElement};
use super::schema::{Schema, TypeRef};

/// A set of field paths, as a manager owns them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSet {
    /// Path elements that end a path at this node, sorted.
    pub(crate) members: Vec<PathElement>,
    /// Subsets under path elements, sorted by element.
    pub(crate) children: Vec<(PathElement, FieldSet)>,
}

impl FieldSet {
    /// The empty set.
    pub fn new() -> Self {
        FieldSet::default()
    }

    /// The set of these paths.
    pub fn from_paths<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Self {
        let mut s = FieldSet::new();
        for p in paths {
            s.insert(&p.0);
        }
        s
    }

    /// Adds a path (the empty path adds nothing).
    pub fn insert(&mut self, path: &[PathElement]) {
        match path {
            [] => {}
            [last] => {
                if let Err(at) = self.members.binary_search(last) {
                    self.members.insert(at, last.clone());
                }
            }
            [first, rest @ ..] => self.descend(first).insert(rest),
        }
    }

    /// The child node under `pe`, made where missing.
    pub(crate) fn descend(&mut self, pe: &PathElement) -> &mut FieldSet {
        let at = match self.children.binary_search_by(|(p, _)| p.cmp(pe)) {
            Ok(at) => at,
            Err(at) => {
                self.children.insert(at, (pe.clone(), FieldSet::new()));
                at
            }
        };
        &mut self.children[at].1
    }

    /// The child node under `pe`.
    pub(crate) fn child(&self, pe: &PathElement) -> Option<&FieldSet> {
        self.children
            .binary_search_by(|(p, _)| p.cmp(pe))
            .ok()
            .map(|at| &self.children[at].1)
    }

    /// Whether `pe` is a member of this node.
    pub(crate) fn has_member(&self, pe: &PathElement) -> bool {
        self.members.binary_search(pe).is_ok()
    }

    /// Whether the set holds `path`.
    pub fn has(&self, path: &[PathElement]) -> bool {
        match path {
            [] => false,
            [last] => self.has_member(last),
            [first, rest @ ..] => self.child(first).is_some_and(|c| c.has(rest)),
        }
    }

    /// Whether the set holds no path.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.iter().all(|(_, c)| c.is_empty())
    }

    /// The paths under `pe` (`WithPrefix`), relative to it.
    pub fn with_prefix(&self, pe: &PathElement) -> FieldSet {
        self.child(pe).cloned().unwrap_or_default()
    }

    /// Every path, members of a node before its children's, in order
    /// (`Iterate`).
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.paths_into(&mut Vec::new(), &mut out);
        out
    }

    fn paths_into(&self, prefix: &mut Vec<PathElement>, out: &mut Vec<Path>) {
        for m in &self.members {
            let mut p = prefix.clone();
            p.push(m.clone());
            out.push(Path(p));
        }
        for (pe, c) in &self.children {
            prefix.push(pe.clone());
            c.paths_into(prefix, out);
            prefix.pop();
        }
    }

    /// The paths of either.
    pub fn union(&self, other: &FieldSet) -> FieldSet {
        // Where both hold a member, Go keeps the right-hand one.
        let mut members = Vec::with_capacity(self.members.len() + other.members.len());
        let (mut i, mut j) = (0, 0);
        while i < self.members.len() && j < other.members.len() {
            if self.members[i] < other.members[j] {
                members.push(self.members[i].clone());
                i += 1;
            } else {
                if self.members[i] == other.members[j] {
                    i += 1;
                }
                members.push(other.members[j].clone());
                j += 1;
            }
        }
        members.extend_from_slice(&self.members[i..]);
        members.extend_from_slice(&other.members[j..]);
        let mut children = Vec::with_capacity(self.children.len() + other.children.len());
        let (mut i, mut j) = (0, 0);
        while i < self.children.len() && j < other.children.len() {
            let (a, b) = (&self.children[i], &other.children[j]);
            if a.0 < b.0 {
                children.push(a.clone());
                i += 1;
            } else if a.0 == b.0 {
                children.push((a.0.clone(), a.1.union(&b.1)));
                i += 1;
                j += 1;
            } else {
                children.push(b.clone());
                j += 1;
            }
        }
        children.extend_from_slice(&self.children[i..]);
        children.extend_from_slice(&other.children[j..]);
        FieldSet { members, children }
    }

    /// The paths of both.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let members = self
            .members
            .iter()
            .filter(|m| other.has_member(m))
            .cloned()
            .collect();
        let children = self
            .children
            .iter()
            .filter_map(|(pe, c)| {
                let res = c.intersection(other.child(pe)?);
                (!res.is_empty()).then(|| (pe.clone(), res))
            })
            .collect();
        FieldSet { members, children }
    }

    /// The paths of this set not in `other` (`Difference`: a member of
    /// `other` takes only that path away, not what lies under it).
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let members = self
            .members
            .iter()
            .filter(|m| !other.has_member(m))
            .cloned()
            .collect();
        let children = self
            .children
            .iter()
            .filter_map(|(pe, c)| match other.child(pe) {
                None => Some((pe.clone(), c.clone())),
                Some(o) => {
                    let diff = c.difference(o);
                    (!diff.is_empty()).then(|| (pe.clone(), diff))
                }
            })
            .collect();
        FieldSet { members, children }
    }

    /// The paths of this set neither in `other` nor under one of its
    /// members (`RecursiveDifference`).
    pub fn recursive_difference(&self, other: &FieldSet) -> FieldSet {
        let members = self
            .members
            .iter()
            .filter(|m| !other.has_member(m))
            .cloned()
            .collect();
        let children = self
            .children
            .iter()
            .filter_map(|(pe, c)| {
                if other.has_member(pe) {
                    return None;
                }
                match other.child(pe) {
                    None => Some((pe.clone(), c.clone())),
                    Some(o) => {
                        let diff = c.recursive_difference(o);
                        (!diff.is_empty()).then(|| (pe.clone(), diff))
                    }
                }
            })
            .collect();
        FieldSet { members, children }
    }

    /// `EnsureNamedFieldsAreMembers`: every child that is a field the
    /// schema declares made a member too, all the way down.
    pub(crate) fn ensure_named_fields_are_members(&self, sc: &Schema, tr: &TypeRef) -> FieldSet {
        let atom = sc.resolve(tr);
        let map = atom.as_ref().and_then(|a| a.map.as_ref());
        let list = atom.as_ref().and_then(|a| a.list.as_ref());
        let mut members = self.members.clone();
        for (pe, _) in &self.children {
            if let (PathElement::Field(name), Some(m)) = (pe, map)
                && m.field(name).is_some()
                && let Err(at) = members.binary_search(pe)
            {
                members.insert(at, pe.clone());
            }
        }
        let children = self
            .children
            .iter()
            .map(|(pe, c)| {
                let child_tr = match (pe, map, list) {
                    (PathElement::Field(name), Some(m), _) => {
                        m.field(name).map_or(&m.element, |f| &f.ty).clone()
                    }
                    (PathElement::Key(_), _, Some(l)) => l.element.clone(),
                    _ => TypeRef::default(),
                };
                (pe.clone(), c.ensure_named_fields_are_members(sc, &child_tr))
            })
            .collect();
        FieldSet { members, children }
    }
}

impl fmt::Display for FieldSet {
    /// Every path on a line of its own (`Set.String`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.paths().iter().map(ToString::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

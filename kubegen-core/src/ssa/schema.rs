//! The type model structured-merge-diff merges by (its `schema`
//! package): an atom is a scalar, a list, a map, or several of them at
//! once (an untyped value takes whichever its value is), lists and maps
//! are atomic or granular, lists associative by keys (`map`) or by value
//! (`set`); named types ([`Schema`]) let `metadata` share ObjectMeta's.

use std::borrow::Cow;

use serde_json::Value;

/// What kind of scalar a value must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// An integer or a float.
    Numeric,
    /// A string.
    String,
    /// A boolean.
    Boolean,
    /// Any scalar.
    Untyped,
}

/// How a list's items or a map's entries relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Relationship {
    /// Items identified by keys or value (a `map` or `set` list).
    Associative,
    /// The value is replaced whole and owned whole.
    Atomic,
    /// A map's entries owned one by one (`x-kubernetes-map-type: granular`).
    Separable,
}

/// A type: any of a scalar, a list and a map.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Atom {
    pub scalar: Option<Scalar>,
    pub list: Option<List>,
    pub map: Option<Map>,
}

/// A list type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct List {
    pub element: TypeRef,
    pub relationship: Relationship,
    /// A `map` list's key fields (none for a `set`).
    pub keys: Vec<String>,
}

/// A map or struct type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Map {
    pub fields: Vec<StructField>,
    /// The type of entries that are not fields (the empty type refuses
    /// them).
    pub element: TypeRef,
    /// `None` where the schema says nothing (granular).
    pub relationship: Option<Relationship>,
}

impl Map {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&StructField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Whether the map is replaced and owned whole.
    pub fn is_atomic(&self) -> bool {
        self.relationship == Some(Relationship::Atomic)
    }
}

/// A struct's field.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StructField {
    pub name: String,
    pub ty: TypeRef,
    /// Its schema's `default` (what a `map` list's missing key takes).
    pub default: Option<Value>,
}

/// A reference to a type: a named one (with the relationship a `$ref`
/// site may impose) or one written in place.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TypeRef {
    /// A type of [`Schema`]'s, by index.
    Named(usize, Option<Relationship>),
    /// A type written in place.
    Inlined(Box<Atom>),
}

impl Default for TypeRef {
    fn default() -> Self {
        TypeRef::Inlined(Box::default())
    }
}

impl TypeRef {
    /// Whether this is the empty type (`schema.TypeRef{}`).
    pub fn is_empty(&self) -> bool {
        matches!(self, TypeRef::Inlined(a) if **a == Atom::default())
    }
}

/// Index of `__untyped_atomic_` in every [`Schema`].
pub(crate) const UNTYPED_ATOMIC: usize = 0;
/// Index of `__untyped_deduced_` in every [`Schema`].
pub(crate) const UNTYPED_DEDUCED: usize = 1;

/// Named types.
#[derive(Clone, Debug)]
pub(crate) struct Schema {
    pub types: Vec<(String, Atom)>,
}

impl Schema {
    /// A schema holding only the two untyped types every converted
    /// schema has.
    pub fn with_common_types() -> Self {
        let untyped = |element: usize, map_rel: Relationship| Atom {
            scalar: Some(Scalar::Untyped),
            list: Some(List {
                element: TypeRef::Named(UNTYPED_ATOMIC, None),
                relationship: Relationship::Atomic,
                keys: Vec::new(),
            }),
            map: Some(Map {
                fields: Vec::new(),
                element: TypeRef::Named(element, None),
                relationship: Some(map_rel),
            }),
        };
        Schema {
            types: vec![
                (
                    "__untyped_atomic_".into(),
                    untyped(UNTYPED_ATOMIC, Relationship::Atomic),
                ),
                (
                    "__untyped_deduced_".into(),
                    untyped(UNTYPED_DEDUCED, Relationship::Separable),
                ),
            ],
        }
    }

    /// `Schema.Resolve`: the atom a reference names, with the
    /// relationship the reference imposes; `None` where a scalar is given
    /// one.
    pub fn resolve<'a>(&'a self, tr: &'a TypeRef) -> Option<Cow<'a, Atom>> {
        match tr {
            TypeRef::Inlined(a) => Some(Cow::Borrowed(a)),
            TypeRef::Named(i, None) => self.types.get(*i).map(|(_, a)| Cow::Borrowed(a)),
            TypeRef::Named(i, Some(rel)) => {
                let (_, a) = self.types.get(*i)?;
                let mut a = a.clone();
                if let Some(m) = &mut a.map {
                    m.relationship = Some(*rel);
                } else if let Some(l) = &mut a.list {
                    l.relationship = *rel;
                } else {
                    return None;
                }
                Some(Cow::Owned(a))
            }
        }
    }

    /// The name a reference prints with in errors.
    pub fn name_of(&self, tr: &TypeRef) -> Option<&str> {
        match tr {
            TypeRef::Named(i, _) => self.types.get(*i).map(|(n, _)| n.as_str()),
            TypeRef::Inlined(_) => None,
        }
    }
}

/// Which parts of an atom a value selects (`deduceAtom`): the scalar for
/// a scalar, the list for a list, the map for a map, where the atom has
/// them; the whole atom otherwise (null, or a value of a kind the atom
/// lacks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Deduced {
    pub scalar: bool,
    pub list: bool,
    pub map: bool,
}

impl Deduced {
    /// The parts of `atom` that `value` (absent: `None`) selects.
    pub fn of(atom: &Atom, value: Option<&Value>) -> Self {
        let whole = Deduced {
            scalar: atom.scalar.is_some(),
            list: atom.list.is_some(),
            map: atom.map.is_some(),
        };
        let only = |scalar, list, map| Deduced { scalar, list, map };
        match value {
            Some(Value::Number(_) | Value::String(_) | Value::Bool(_)) if whole.scalar => {
                only(true, false, false)
            }
            Some(Value::Array(_)) if whole.list => only(false, true, false),
            Some(Value::Object(_)) if whole.map => only(false, false, true),
            _ => whole,
        }
    }
}

/// The part of an atom a walker handles (`handleAtom`): the map before
/// the scalar before the list.
pub(crate) enum Handled<'a> {
    Map(&'a Map),
    Scalar(Scalar),
    List(&'a List),
    /// No part: `schema error: invalid atom`.
    Invalid,
}

/// The part `handleAtom` picks from the deduced parts of `atom`.
pub(crate) fn handled(atom: &Atom, d: Deduced) -> Handled<'_> {
    match (&atom.map, atom.scalar, &atom.list) {
        (Some(m), _, _) if d.map => Handled::Map(m),
        (_, Some(s), _) if d.scalar => Handled::Scalar(s),
        (_, _, Some(l)) if d.list => Handled::List(l),
        _ => Handled::Invalid,
    }
}

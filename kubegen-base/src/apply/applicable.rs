//! [`Applicable`]: the apply configuration a value of a Rust type takes
//! inside an apply configuration derived with `#[kubegen(apply)]`.
//!
//! A derived apply configuration (`FooApply` for `Foo`) holds, for each of
//! `Foo`'s fields of type `T`, an `Option<<T as Applicable>::Apply>`. The
//! impls here say what that is for the types a schema can be derived for:
//!
//! - scalars, strings, `serde_json::Value` and sets: the type itself (a
//!   scalar is owned as a whole; a set's items are owned one by one by the
//!   apiserver, whatever type holds them);
//! - `Option<T>`: `T`'s (the field's own `Option` already says "not
//!   set"); `Box<T>`, `Rc<T>`, `Arc<T>`: `T`'s, boxed;
//! - lists (`Vec`, `VecDeque`, `LinkedList`, arrays) and string- or
//!   integer-keyed maps: the same collection of `T`'s apply configuration,
//!   so a list-map item says only the fields its manager sets;
//! - every k8s-openapi type (through the built-in table's impls,
//!   `crate::kube_schema`'s `builtin`): the type itself, applied whole — every field its
//!   value sets is owned. `kubegen generate` writes per-field apply
//!   configurations for built-in types instead;
//! - a type deriving `KubeSchema` or `CustomResource` with
//!   `#[kubegen(apply)]`: its generated `<Type>Apply` struct (enums and
//!   newtypes: the type itself, applied whole).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::rc::Rc;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// What a field of this type holds in a derived apply configuration.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no apply configuration: it does not implement `Applicable`",
    label = "a field of a type with `#[kubegen(apply)]`",
    note = "add `apply` to the `#[kubegen(...)]` of `{Self}`'s derive (every type an apply configuration holds needs one)",
    note = "a field whose schema a key replaces (`schema_json`, `schemaless`, `int_or_string`, `schema_type`) is applied as its Rust type, whatever it implements"
)]
pub trait Applicable {
    /// The apply configuration: the type's own, or the type itself where
    /// its value is applied whole. (Not bound by `Deserialize`: k8s-openapi's
    /// `Patch` only serializes; an apply configuration holding it fails to
    /// derive `Deserialize`, where the error names it.)
    type Apply: Serialize + Clone + Debug + PartialEq;
}

/// Types applied as themselves.
macro_rules! whole {
    ($($t:ty),* $(,)?) => {
        $(impl Applicable for $t { type Apply = $t; })*
    };
}

whole!(
    bool,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    char,
    String,
    serde_json::Value,
);

impl<T: Applicable> Applicable for Option<T> {
    type Apply = T::Apply;
}

/// Pointers are applied as what they point at, boxed (so that a type
/// holding itself through one has an apply configuration of finite size).
macro_rules! pointer {
    ($($p:ident),*) => {
        $(impl<T: Applicable> Applicable for $p<T> { type Apply = Box<T::Apply>; })*
    };
}

pointer!(Box, Rc, Arc);

/// Lists: a list of the items' apply configurations.
macro_rules! list {
    ($($l:ident),*) => {
        $(impl<T: Applicable> Applicable for $l<T> { type Apply = Vec<T::Apply>; })*
    };
}

list!(Vec, VecDeque, LinkedList);

impl<T: Applicable, const N: usize> Applicable for [T; N] {
    type Apply = Vec<T::Apply>;
}

impl<T> Applicable for BTreeSet<T>
where
    T: Serialize + DeserializeOwned + Clone + Debug + Ord,
{
    type Apply = BTreeSet<T>;
}

impl<T> Applicable for HashSet<T>
where
    T: Serialize + DeserializeOwned + Clone + Debug + Ord + std::hash::Hash,
{
    type Apply = BTreeSet<T>;
}

/// Maps: their keys (strings, or integers serde_json writes as strings)
/// to the values' apply configurations, in key order.
impl<K, T> Applicable for BTreeMap<K, T>
where
    K: Serialize + DeserializeOwned + Clone + Debug + Ord,
    T: Applicable,
{
    type Apply = BTreeMap<K, T::Apply>;
}

impl<K, T, S> Applicable for HashMap<K, T, S>
where
    K: Serialize + DeserializeOwned + Clone + Debug + Ord,
    T: Applicable,
{
    type Apply = BTreeMap<K, T::Apply>;
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use super::Applicable;

    fn apply_of<T: Applicable>(v: T::Apply) -> T::Apply {
        v
    }

    #[test]
    fn containers_hold_their_items_apply_configurations() {
        let v: Box<Vec<i32>> = apply_of::<Option<Box<[i32; 2]>>>(Box::new(vec![1, 2]));
        assert_eq!(*v, [1, 2]);
        let m: BTreeMap<String, Vec<String>> =
            apply_of::<HashMap<String, Option<Vec<String>>>>(BTreeMap::new());
        assert!(m.is_empty());
    }
}

//! Stable sorts compiled once. std's `sort_by` is generic over the element
//! and the comparison, so each call site compiles a whole merge sort of its
//! own (several thousand lines of LLVM IR in a debug build), and so does
//! collecting into a `BTreeMap` (which sorts the pairs first). These sort
//! a permutation of indices with one comparison type — that sort is
//! compiled here once, for this crate and every crate above it — then move
//! the elements into place, so a call site compiles only its comparison
//! and the moves. The order is `slice::sort_by`'s: stable.

use std::cmp::Ordering;

/// Sorts `items` stably by `compare`, as `items.sort_by(compare)`.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let order = order(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` stably by `key`, as `items.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably, as `items.sort()`.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Collects `pairs` into a map (a `BTreeMap`, a `serde_json::Map`) one
/// insert at a time, where `collect` would sort them first: the same map,
/// the last value of a repeated key kept as `collect` keeps it.
pub fn collect_map<M, K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> M
where
    M: Default + Extend<(K, V)>,
{
    let mut map = M::default();
    map.extend(pairs);
    map
}

/// The stable order of `len` items under `compare` (of their indices):
/// `order[i]` is the index of the item that belongs at `i`.
fn order(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves `items[order[i]]` to `i` for every `i`, one cycle of the
/// permutation at a time.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The same order as std's stable sort, ties (equal keys with
        /// different payloads) included.
        #[test]
        fn sorts_as_the_standard_library_does(items in proptest::collection::vec((0u8..8, any::<u32>()), 0..200)) {
            let mut ours = items.clone();
            sort_by_key(&mut ours, |(key, _)| *key);
            let mut std = items;
            std.sort_by_key(|(key, _)| *key);
            prop_assert_eq!(ours, std);
        }

        #[test]
        fn sorts_whole_values_and_reversed_orders(items in proptest::collection::vec(any::<i16>(), 0..200)) {
            let mut ours = items.clone();
            sort(&mut ours);
            let mut std = items.clone();
            std.sort();
            prop_assert_eq!(&ours, &std);
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| b.cmp(a));
            let mut std = items;
            std.sort_by(|a, b| b.cmp(a));
            prop_assert_eq!(ours, std);
        }
    }

    proptest! {
        /// The same map as `collect`, repeated keys included.
        #[test]
        fn collects_maps_as_collect_does(pairs in proptest::collection::vec((0u8..16, any::<u32>()), 0..100)) {
            let ours: std::collections::BTreeMap<u8, u32> = collect_map(pairs.iter().copied());
            let std: std::collections::BTreeMap<u8, u32> = pairs.iter().copied().collect();
            prop_assert_eq!(ours, std);
            let json = |(k, v): (u8, u32)| (k.to_string(), serde_json::Value::from(v));
            let ours: serde_json::Map<String, serde_json::Value> = collect_map(pairs.iter().copied().map(json));
            let std: serde_json::Map<String, serde_json::Value> = pairs.iter().copied().map(json).collect();
            prop_assert_eq!(ours, std);
        }
    }

    #[test]
    fn empty_and_single_items_stay() {
        let mut none: Vec<String> = Vec::new();
        sort(&mut none);
        assert!(none.is_empty());
        let mut one = vec!["a".to_owned()];
        sort(&mut one);
        assert_eq!(one, ["a"]);
    }
}

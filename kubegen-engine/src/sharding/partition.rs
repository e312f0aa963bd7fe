//! The key space: the apiserver's shard hash (64-bit FNV-1a of
//! `metadata.uid`, KEP-5866's `k8s.io/apimachinery/pkg/sharding.HashField`),
//! its split into a fixed number of equal partitions, sets of partitions,
//! and the `shardSelector` expression that selects a set on the apiserver.

use std::fmt;

/// The largest number of partitions a shard set may have.
pub const MAX_PARTITIONS: u32 = 256;

/// The 64-bit FNV-1a hash of `value`'s bytes: Go's `hash/fnv.New64a`, which
/// the apiserver applies to `object.metadata.uid` to place an object in a
/// `shardRange`.
pub fn shard_hash(value: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    value.bytes().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// A split of the 64-bit hash space into `count` equal, contiguous
/// partitions: partition `i` is `[i·2⁶⁴/count, (i+1)·2⁶⁴/count)`, so a set
/// of neighbouring partitions is one `shardRange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partitions {
    count: u32,
}

impl Partitions {
    /// `count` partitions, `1..=MAX_PARTITIONS`.
    pub fn new(count: u32) -> Option<Self> {
        (1..=MAX_PARTITIONS)
            .contains(&count)
            .then_some(Partitions { count })
    }

    /// How many partitions there are.
    pub fn count(self) -> u32 {
        self.count
    }

    /// The partition holding `hash`.
    pub fn of_hash(self, hash: u64) -> u32 {
        ((u128::from(hash) * u128::from(self.count)) >> 64) as u32
    }

    /// The partition of an object whose `metadata.uid` is `uid`.
    pub fn of_uid(self, uid: &str) -> u32 {
        self.of_hash(shard_hash(uid))
    }

    /// The first hash of partition `index` (`count` gives 2⁶⁴, the end of
    /// the last one). The smallest value whose partition is `index`.
    fn start(self, index: u32) -> u128 {
        let count = u128::from(self.count);
        (u128::from(index) << 64).div_ceil(count)
    }

    /// Every partition.
    pub fn all(self) -> PartitionSet {
        (0..self.count).collect()
    }

    /// The `shardSelector` that selects the objects of `set`
    /// (`shardRange(object.metadata.uid, '0x…', '0x…') || …`, neighbouring
    /// partitions merged into one range); `None` for an empty set, which no
    /// selector expresses.
    pub fn selector(self, set: &PartitionSet) -> Option<String> {
        let ranges: Vec<String> = set
            .runs()
            .map(|(first, last)| {
                format!(
                    "shardRange(object.metadata.uid, '{}', '{}')",
                    hex(self.start(first)),
                    hex(self.start(last + 1)),
                )
            })
            .collect();
        (!ranges.is_empty()).then(|| ranges.join(" || "))
    }
}

/// A bound as the apiserver's parser accepts it: `0x` and 16 hexadecimal
/// digits, or `0x10000000000000000` for 2⁶⁴.
fn hex(value: u128) -> String {
    format!("0x{value:016x}")
}

/// A set of partition indexes (below [`MAX_PARTITIONS`]).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PartitionSet {
    bits: [u64; 4],
}

impl PartitionSet {
    /// The empty set.
    pub fn new() -> Self {
        PartitionSet::default()
    }

    /// Whether `index` is in the set.
    pub fn contains(&self, index: u32) -> bool {
        index < MAX_PARTITIONS && self.bits[(index / 64) as usize] & (1 << (index % 64)) != 0
    }

    /// Adds `index`; returns whether it was absent.
    ///
    /// # Panics
    /// When `index` is not below [`MAX_PARTITIONS`].
    pub fn insert(&mut self, index: u32) -> bool {
        assert!(index < MAX_PARTITIONS, "partition {index} out of range");
        let absent = !self.contains(index);
        self.bits[(index / 64) as usize] |= 1 << (index % 64);
        absent
    }

    /// Removes `index`; returns whether it was present.
    pub fn remove(&mut self, index: u32) -> bool {
        let present = self.contains(index);
        if present {
            self.bits[(index / 64) as usize] &= !(1 << (index % 64));
        }
        present
    }

    /// How many partitions the set holds.
    pub fn len(&self) -> usize {
        self.bits
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|word| *word == 0)
    }

    /// The partitions, in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..MAX_PARTITIONS).filter(|index| self.contains(*index))
    }

    /// The partitions in `self` but not in `other`.
    pub fn difference(&self, other: &PartitionSet) -> PartitionSet {
        let mut out = *self;
        for (word, theirs) in out.bits.iter_mut().zip(other.bits) {
            *word &= !theirs;
        }
        out
    }

    /// The maximal runs of consecutive partitions, as `(first, last)`.
    fn runs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut members = self.iter().peekable();
        std::iter::from_fn(move || {
            let first = members.next()?;
            let mut last = first;
            while members.peek() == Some(&(last + 1)) {
                last = members.next()?;
            }
            Some((first, last))
        })
    }
}

impl FromIterator<u32> for PartitionSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let mut set = PartitionSet::new();
        for index in iter {
            set.insert(index);
        }
        set
    }
}

impl fmt::Debug for PartitionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_hash_is_go_fnv_1a_64() {
        // Values of Go's hash/fnv New64a (`fmt.Sprintf("%016x", h.Sum64())`).
        assert_eq!(shard_hash(""), 0xcbf29ce484222325);
        assert_eq!(shard_hash("a"), 0xaf63dc4c8601ec8c);
        assert_eq!(shard_hash("foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn selectors_merge_neighbours_and_end_at_two_to_the_64() {
        let four = Partitions::new(4).unwrap();
        assert_eq!(
            four.selector(&[0, 1, 3].into_iter().collect()).unwrap(),
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || \
             shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')"
        );
        assert_eq!(four.selector(&PartitionSet::new()), None);
    }

    proptest! {
        /// A hash is in partition `i` exactly when the apiserver's test
        /// `start <= hash < end` holds for partition `i`'s range.
        #[test]
        fn partitions_and_ranges_agree(count in 1u32..=MAX_PARTITIONS, hash in any::<u64>()) {
            let partitions = Partitions::new(count).unwrap();
            let index = partitions.of_hash(hash);
            prop_assert!(index < count);
            prop_assert!(partitions.start(index) <= u128::from(hash));
            prop_assert!(u128::from(hash) < partitions.start(index + 1));
        }

        #[test]
        fn sets_behave_as_btree_sets(ops in proptest::collection::vec((any::<bool>(), 0u32..MAX_PARTITIONS), 0..64)) {
            let mut set = PartitionSet::new();
            let mut model = std::collections::BTreeSet::new();
            for (insert, index) in ops {
                if insert {
                    prop_assert_eq!(set.insert(index), model.insert(index));
                } else {
                    prop_assert_eq!(set.remove(index), model.remove(&index));
                }
            }
            prop_assert_eq!(set.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(set.len(), model.len());
        }
    }
}

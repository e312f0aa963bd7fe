//! Which live replica should hold which partition: a pure function of the
//! partition count and the set of live members, so that every replica that
//! sees the same members computes the same assignment without talking to
//! the others (the partition Leases arbitrate while views differ).
//!
//! Balanced rendezvous hashing: each partition ranks the members by a hash
//! of (partition, member) and goes to the best-ranked member that still has
//! room, where room is ⌈P/N⌉ for the first `P mod N` members (in name
//! order) and ⌊P/N⌋ for the rest. Counts never differ by more than one, and
//! a member joining or leaving moves few partitions besides its own share,
//! because a partition's ranking does not depend on the other members.

use std::collections::BTreeMap;

use super::partition::{PartitionSet, Partitions, shard_hash};

/// The partitions of each member; every partition goes to exactly one
/// member, and none are assigned when there are no members.
pub fn assign<'a>(
    partitions: Partitions,
    members: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<&'a str, PartitionSet> {
    let mut members: Vec<&str> = members.into_iter().collect();
    members.sort_unstable();
    members.dedup();
    let mut out: BTreeMap<&str, PartitionSet> =
        members.iter().map(|m| (*m, PartitionSet::new())).collect();
    if members.is_empty() {
        return out;
    }
    let count = partitions.count() as usize;
    let (base, extra) = (count / members.len(), count % members.len());
    let mut room: Vec<usize> = (0..members.len())
        .map(|i| base + usize::from(i < extra))
        .collect();
    // Partitions choose in the order of their own hash, so that no
    // partition index is always first to choose.
    let mut order: Vec<u32> = (0..partitions.count()).collect();
    order.sort_unstable_by_key(|p| shard_hash(&format!("partition/{p}")));
    for partition in order {
        let best = (0..members.len())
            .filter(|i| room[*i] > 0)
            .max_by_key(|i| {
                (
                    shard_hash(&format!("{partition}/{}", members[*i])),
                    members[*i],
                )
            })
            .expect("the rooms add up to the partition count");
        room[best] -= 1;
        out.get_mut(members[best])
            .expect("every member has an entry")
            .insert(partition);
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("replica-{i}_{:04x}", i * 7919))
            .collect()
    }

    proptest! {
        #[test]
        fn every_partition_has_one_owner_and_counts_are_balanced(count in 1u32..=64, n in 1usize..=8) {
            let members = names(n);
            let partitions = Partitions::new(count).unwrap();
            let assignment = assign(partitions, members.iter().map(String::as_str));
            let mut seen = PartitionSet::new();
            for set in assignment.values() {
                for p in set.iter() {
                    prop_assert!(seen.insert(p), "partition {} assigned twice", p);
                }
            }
            prop_assert_eq!(seen, partitions.all());
            let sizes: Vec<usize> = assignment.values().map(PartitionSet::len).collect();
            prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        }

        #[test]
        fn the_assignment_does_not_depend_on_the_order_members_are_seen(count in 1u32..=64, n in 1usize..=8, seed in any::<u64>()) {
            let members = names(n);
            let mut shuffled = members.clone();
            shuffled.rotate_left(seed as usize % n);
            shuffled.reverse();
            let partitions = Partitions::new(count).unwrap();
            prop_assert_eq!(
                assign(partitions, members.iter().map(String::as_str)),
                assign(partitions, shuffled.iter().map(String::as_str))
            );
        }
    }

    #[test]
    fn a_joining_member_takes_mostly_its_own_share() {
        let partitions = Partitions::new(32).unwrap();
        let members = names(4);
        let before = assign(partitions, members.iter().take(3).map(String::as_str));
        let after = assign(partitions, members.iter().map(String::as_str));
        let moved: usize = before
            .iter()
            .map(|(member, set)| set.difference(&after[member]).len())
            .sum();
        // The newcomer's share is 8 of 32; a modulo split would move 24.
        assert!(moved <= 12, "{moved} partitions moved");
        assert_eq!(after[members[3].as_str()].len(), 8);
    }

    #[test]
    fn no_members_no_assignment() {
        assert!(assign(Partitions::new(8).unwrap(), []).is_empty());
    }
}

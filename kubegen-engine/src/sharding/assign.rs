//! Which live replica should hold which partition: a pure function of the
//! partition count and the set of live members, so that every replica that
//! sees the same members computes the same assignment without talking to
//! the others (the partition Leases arbitrate while views differ).
//!
//! Sticky balanced rendezvous hashing. Each member has room for ⌈P/N⌉ or
//! ⌊P/N⌋ partitions; the larger rooms go to the members holding the most
//! partitions now (then in name order). Every member first keeps the
//! partitions it holds, up to its room, its best-ranked first; each other
//! partition then ranks the members by a hash of (partition, member) and
//! goes to the best-ranked member that still has room. Counts never differ
//! by more than one; when a member leaves, the others keep everything they
//! hold and share out its partitions; when one joins, the others give up
//! only what exceeds their new room. Without holders it is plain balanced
//! rendezvous hashing, where a partition's ranking does not depend on the
//! other members either.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use super::partition::{PartitionSet, Partitions, shard_hash};

/// The partitions of each member; every partition goes to exactly one
/// member, and none are assigned when there are no members. `holders`:
/// who holds each partition now (holders that are not members, and
/// partitions beyond the count, are ignored).
pub fn assign<'a>(
    partitions: Partitions,
    members: impl IntoIterator<Item = &'a str>,
    holders: &BTreeMap<u32, String>,
) -> BTreeMap<&'a str, PartitionSet> {
    let mut members: Vec<&str> = members.into_iter().collect();
    kubegen_core::sorting::sort(&mut members);
    members.dedup();
    let mut out: BTreeMap<&str, PartitionSet> =
        kubegen_core::sorting::collect_map(members.iter().map(|m| (*m, PartitionSet::new())));
    if members.is_empty() {
        return out;
    }
    let rank = |partition: u32, member: &str| shard_hash(&format!("{partition}/{member}"));
    let mut held: Vec<Vec<u32>> = members
        .iter()
        .map(|member| {
            holders
                .iter()
                .filter(|(p, holder)| **p < partitions.count() && holder.as_str() == *member)
                .map(|(p, _)| *p)
                .collect()
        })
        .collect();
    let count = partitions.count() as usize;
    let (base, extra) = (count / members.len(), count % members.len());
    let mut by_holding: Vec<usize> = (0..members.len()).collect();
    kubegen_core::sorting::sort_by_key(&mut by_holding, |i| (Reverse(held[*i].len()), members[*i]));
    let mut room = vec![base; members.len()];
    for i in by_holding.into_iter().take(extra) {
        room[i] += 1;
    }
    let mut taken = PartitionSet::new();
    for (i, member) in members.iter().enumerate() {
        let mut keep = std::mem::take(&mut held[i]);
        kubegen_core::sorting::sort_by_key(&mut keep, |p| Reverse((rank(*p, member), *p)));
        keep.truncate(room[i]);
        room[i] -= keep.len();
        let mine = out.get_mut(member).expect("every member has an entry");
        for p in keep {
            mine.insert(p);
            taken.insert(p);
        }
    }
    // The other partitions choose in the order of their own hash, so that
    // no partition index is always first to choose.
    let mut order: Vec<u32> = (0..partitions.count())
        .filter(|p| !taken.contains(*p))
        .collect();
    kubegen_core::sorting::sort_by_key(&mut order, |p| shard_hash(&format!("partition/{p}")));
    for partition in order {
        let best = (0..members.len())
            .filter(|i| room[*i] > 0)
            .max_by_key(|i| (rank(partition, members[*i]), members[*i]))
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

    fn plain<'a>(
        partitions: Partitions,
        members: impl IntoIterator<Item = &'a str>,
    ) -> BTreeMap<&'a str, PartitionSet> {
        assign(partitions, members, &BTreeMap::new())
    }

    /// Who holds what under `assignment`.
    fn holders_of(assignment: &BTreeMap<&str, PartitionSet>) -> BTreeMap<u32, String> {
        assignment
            .iter()
            .flat_map(|(member, set)| set.iter().map(move |p| (p, member.to_string())))
            .collect()
    }

    /// Partitions that change hands from `before` to `after`.
    fn moved(before: &BTreeMap<&str, PartitionSet>, after: &BTreeMap<&str, PartitionSet>) -> usize {
        before
            .iter()
            .map(|(member, set)| {
                after
                    .get(member)
                    .map_or(set.len(), |now| set.difference(now).len())
            })
            .sum()
    }

    fn assert_valid(
        partitions: Partitions,
        assignment: &BTreeMap<&str, PartitionSet>,
    ) -> Result<(), TestCaseError> {
        let mut seen = PartitionSet::new();
        for set in assignment.values() {
            for p in set.iter() {
                prop_assert!(seen.insert(p), "partition {} assigned twice", p);
            }
        }
        prop_assert_eq!(seen, partitions.all());
        let sizes: Vec<usize> = assignment.values().map(PartitionSet::len).collect();
        prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        Ok(())
    }

    proptest! {
        #[test]
        fn every_partition_has_one_owner_and_counts_are_balanced(
            count in 1u32..=64,
            n in 1usize..=8,
            holders in proptest::collection::btree_map(0u32..80, 0usize..10, 0..80),
        ) {
            let members = names(n);
            let partitions = Partitions::new(count).unwrap();
            // Holders: members, and replicas that are no longer members.
            let holders: BTreeMap<u32, String> = holders
                .into_iter()
                .map(|(p, i)| (p, names(10)[i].clone()))
                .collect();
            let assignment = assign(partitions, members.iter().map(String::as_str), &holders);
            assert_valid(partitions, &assignment)?;
        }

        #[test]
        fn the_assignment_does_not_depend_on_the_order_members_are_seen(count in 1u32..=64, n in 1usize..=8, seed in any::<u64>()) {
            let members = names(n);
            let mut shuffled = members.clone();
            shuffled.rotate_left(seed as usize % n);
            shuffled.reverse();
            let partitions = Partitions::new(count).unwrap();
            let holders = holders_of(&plain(partitions, members.iter().take(n.div_ceil(2)).map(String::as_str)));
            prop_assert_eq!(
                assign(partitions, members.iter().map(String::as_str), &holders),
                assign(partitions, shuffled.iter().map(String::as_str), &holders)
            );
        }

        /// When a member leaves, the others keep every partition they hold
        /// and only its partitions move.
        #[test]
        fn survivors_keep_what_they_hold(count in 1u32..=64, n in 2usize..=8, gone in 0usize..8) {
            let members = names(n);
            let partitions = Partitions::new(count).unwrap();
            let before = plain(partitions, members.iter().map(String::as_str));
            let gone = members[gone % n].as_str();
            let after = assign(
                partitions,
                members.iter().map(String::as_str).filter(|m| *m != gone),
                &holders_of(&before),
            );
            assert_valid(partitions, &after)?;
            for (member, set) in before.iter().filter(|(m, _)| **m != gone) {
                prop_assert!(set.difference(&after[member]).is_empty(), "{} lost partitions", member);
            }
            prop_assert_eq!(moved(&before, &after), before[gone].len());
        }

        /// When a member joins, the others give up only what exceeds their
        /// new room: exactly the newcomer's share moves.
        #[test]
        fn a_joining_member_takes_only_its_share(count in 1u32..=64, n in 1usize..=7) {
            let members = names(n + 1);
            let partitions = Partitions::new(count).unwrap();
            let before = plain(partitions, members.iter().take(n).map(String::as_str));
            let after = assign(partitions, members.iter().map(String::as_str), &holders_of(&before));
            assert_valid(partitions, &after)?;
            prop_assert_eq!(moved(&before, &after), after[members[n].as_str()].len());
        }
    }

    #[test]
    fn plain_rendezvous_moves_few_partitions_when_a_member_joins() {
        let partitions = Partitions::new(32).unwrap();
        let members = names(4);
        let before = plain(partitions, members.iter().take(3).map(String::as_str));
        let after = plain(partitions, members.iter().map(String::as_str));
        // The newcomer's share is 8 of 32; a modulo split would move 24.
        let moved = moved(&before, &after);
        assert!(moved <= 12, "{moved} partitions moved");
        assert_eq!(after[members[3].as_str()].len(), 8);
    }

    #[test]
    fn no_members_no_assignment() {
        assert!(plain(Partitions::new(8).unwrap(), []).is_empty());
    }
}

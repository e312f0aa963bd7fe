//! [`Shards`]: the handle informers and controllers share to learn which
//! partitions this replica holds — to cache, and to act on.

use std::fmt;
use std::sync::Arc;

use tokio::sync::watch;

use super::config::ServerSideFiltering;
use super::filter::OWNER_PARTITION_LABEL;
use super::gate::{Gate, Permit};
use super::partition::{PartitionSet, Partitions};

/// Which partitions of a shard set this replica holds: a cheap handle
/// (clones share one state) that a [`Manager`](crate::Manager) with
/// [`sharding`](crate::ManagerBuilder::sharding) keeps current from the
/// partition Leases, or a [`fixed`](Shards::fixed) assignment.
///
/// Two sets, which differ only during a handover: the partitions
/// *cached* ([`held`](Shards::held); informers cache their objects) and
/// those *acted on* ([`acting`](Shards::acting); controllers reconcile their
/// keys). A partition is cached before it is acted on, and stops being
/// acted on — its in-flight reconciles finished or abandoned — before its
/// Lease is released and it stops being cached.
#[derive(Clone)]
pub struct Shards {
    inner: Arc<Inner>,
}

struct Inner {
    partitions: Partitions,
    identity: String,
    server_side: ServerSideFiltering,
    gate: Arc<Gate>,
    held: watch::Sender<PartitionSet>,
}

impl fmt::Debug for Shards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shards")
            .field("identity", &self.inner.identity)
            .field("partitions", &self.inner.partitions.count())
            .field("held", &self.held())
            .field("acting", &self.acting())
            .finish()
    }
}

impl Shards {
    /// A fixed assignment: `held` of `partitions`, cached and acted on for
    /// good (say, from a StatefulSet's ordinal), filtered as `server_side`
    /// says. No Leases fence it: two processes given overlapping sets both
    /// act.
    pub fn fixed(
        partitions: Partitions,
        held: PartitionSet,
        server_side: ServerSideFiltering,
    ) -> Shards {
        let shards = Shards::new(partitions, "fixed".into(), server_side);
        for partition in held.iter().filter(|p| *p < partitions.count()) {
            shards.inner.gate.grant(partition);
            shards.inner.held.send_modify(|set| {
                set.insert(partition);
            });
        }
        shards
    }

    /// No partition held yet.
    pub(crate) fn new(
        partitions: Partitions,
        identity: String,
        server_side: ServerSideFiltering,
    ) -> Shards {
        Shards {
            inner: Arc::new(Inner {
                partitions,
                identity,
                server_side,
                gate: Arc::new(Gate::default()),
                held: watch::Sender::new(PartitionSet::new()),
            }),
        }
    }

    /// How the key space is split.
    pub fn partitions(&self) -> Partitions {
        self.inner.partitions
    }

    /// This replica's identity in the shard set.
    pub fn identity(&self) -> &str {
        &self.inner.identity
    }

    /// Whether informers ask the apiserver to filter.
    pub fn server_side(&self) -> ServerSideFiltering {
        self.inner.server_side
    }

    /// The partitions whose objects sharded informers cache.
    pub fn held(&self) -> PartitionSet {
        *self.inner.held.borrow()
    }

    /// The partitions whose keys sharded controllers reconcile.
    pub fn acting(&self) -> PartitionSet {
        self.inner.gate.acting()
    }

    /// Whether this replica acts on the object whose `metadata.uid` is
    /// `uid`.
    pub fn acts_on(&self, uid: &str) -> bool {
        self.acting().contains(self.inner.partitions.of_uid(uid))
    }

    /// The label a child of the object whose `metadata.uid` is `owner_uid`
    /// carries so that informers sharded by
    /// [`ShardBy::OwnerLabel`](super::ShardBy::OwnerLabel)
    /// select it: [`OWNER_PARTITION_LABEL`] and the owner's partition.
    /// Set it on every object the reconciler writes for the owner (in the
    /// same apply as the rest): a child without it is not seen by a
    /// replica whose owned informers select by label.
    ///
    /// ```
    /// use kubegen::sharding::{PartitionSet, Partitions, ServerSideFiltering, Shards};
    ///
    /// let partitions = Partitions::new(16).unwrap();
    /// let shards = Shards::fixed(partitions, PartitionSet::new(), ServerSideFiltering::Auto);
    /// let (key, value) = shards.owner_partition_label("0b6c1c35-4a52-4bd8-9f8e-31a3c3b6e1a2");
    /// assert_eq!(key, "kubegen.io/owner-partition");
    /// assert!(value.parse::<u32>().unwrap() < 16);
    /// ```
    pub fn owner_partition_label(&self, owner_uid: &str) -> (&'static str, String) {
        (
            OWNER_PARTITION_LABEL,
            self.inner.partitions.of_uid(owner_uid).to_string(),
        )
    }

    /// A receiver of [`held`](Shards::held), marked changed at each change.
    pub fn changes(&self) -> watch::Receiver<PartitionSet> {
        self.inner.held.subscribe()
    }

    /// Whether `other` is a handle of the same shards.
    pub(crate) fn same(&self, other: &Shards) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// A permit to act on the object whose `metadata.uid` is `uid`, if its
    /// partition is acted on.
    pub(crate) fn enter(&self, uid: &str) -> Option<Permit> {
        self.inner.gate.enter(self.inner.partitions.of_uid(uid))
    }

    pub(crate) fn gate(&self) -> &Gate {
        &self.inner.gate
    }

    /// Replaces the cached set (a no-op, notifying nobody, when equal).
    pub(crate) fn set_held(&self, held: PartitionSet) {
        self.inner.held.send_if_modified(|set| {
            let changed = *set != held;
            *set = held;
            changed
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_assignment_caches_and_acts_on_its_partitions_only() {
        let partitions = Partitions::new(4).unwrap();
        let shards = Shards::fixed(
            partitions,
            [1, 2, 9].into_iter().collect(),
            ServerSideFiltering::Off,
        );
        assert_eq!(shards.held(), [1, 2].into_iter().collect());
        assert_eq!(shards.acting(), shards.held());
        let uid = (0..)
            .map(|i| format!("uid-{i}"))
            .find(|uid| partitions.of_uid(uid) == 2)
            .unwrap();
        assert!(shards.acts_on(&uid));
        assert!(shards.enter(&uid).is_some());
        let other = (0..)
            .map(|i| format!("uid-{i}"))
            .find(|uid| partitions.of_uid(uid) == 0)
            .unwrap();
        assert!(!shards.acts_on(&other));
        assert!(shards.enter(&other).is_none());
    }
}

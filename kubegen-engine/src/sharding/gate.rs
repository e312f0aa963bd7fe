//! [`Gate`]: the partitions this replica may act on now, and the
//! reconciles in flight in each. A worker enters a partition before it
//! reconciles a key of it and holds a [`Permit`] until the reconcile
//! returns; a partition is handed over only once it has been revoked (no
//! new permits) and its permits are gone — returned, or abandoned, which
//! drops the reconcile's future at its next await.

use std::collections::HashMap;
use std::pin::Pin;

use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::partition::PartitionSet;

/// The partitions granted to this replica and their permits.
#[derive(Default)]
pub(crate) struct Gate {
    state: Mutex<State>,
    /// Woken whenever a permit is dropped.
    released: Notify,
}

#[derive(Default)]
struct State {
    acting: PartitionSet,
    /// Per partition: the permits out, and the token that abandons them.
    partitions: HashMap<u32, Entry>,
}

struct Entry {
    permits: usize,
    abandon: CancellationToken,
}

impl Gate {
    /// The partitions permits are given for.
    pub(crate) fn acting(&self) -> PartitionSet {
        self.state.lock().acting
    }

    /// Starts giving permits for `partition`.
    pub(crate) fn grant(&self, partition: u32) {
        let mut state = self.state.lock();
        if state.acting.insert(partition) {
            let entry = state.partitions.entry(partition).or_insert_with(|| Entry {
                permits: 0,
                abandon: CancellationToken::new(),
            });
            if entry.abandon.is_cancelled() {
                entry.abandon = CancellationToken::new();
            }
        }
    }

    /// Stops giving permits for `partition`; those out stay valid.
    pub(crate) fn revoke(&self, partition: u32) {
        self.state.lock().acting.remove(partition);
    }

    /// Revokes `partition` and abandons its permits: their reconciles are
    /// dropped at their next await.
    pub(crate) fn abandon(&self, partition: u32) {
        let mut state = self.state.lock();
        state.acting.remove(partition);
        if let Some(entry) = state.partitions.get(&partition) {
            entry.abandon.cancel();
        }
    }

    /// The permits out for `partition`.
    pub(crate) fn in_flight(&self, partition: u32) -> usize {
        self.state
            .lock()
            .partitions
            .get(&partition)
            .map_or(0, |entry| entry.permits)
    }

    /// Resolves once no permit of `partition` is out.
    pub(crate) async fn drained(&self, partition: u32) {
        loop {
            let released = self.released.notified();
            if self.in_flight(partition) == 0 {
                return;
            }
            released.await;
        }
    }

    /// A permit to act on `partition`, if it is granted.
    pub(crate) fn enter(self: &std::sync::Arc<Self>, partition: u32) -> Option<Permit> {
        let mut state = self.state.lock();
        if !state.acting.contains(partition) {
            return None;
        }
        let entry = state
            .partitions
            .get_mut(&partition)
            .expect("a granted partition has an entry");
        entry.permits += 1;
        Some(Permit {
            gate: self.clone(),
            partition,
            abandoned: Box::pin(entry.abandon.clone().cancelled_owned()),
        })
    }
}

/// Leave to act on one partition; dropping it ends the act.
pub(crate) struct Permit {
    gate: std::sync::Arc<Gate>,
    partition: u32,
    abandoned: Pin<Box<WaitForCancellationFutureOwned>>,
}

impl Permit {
    /// Resolves when the partition is abandoned (handed over after the
    /// drain timeout, or its Lease lost): the act must stop at once.
    pub(crate) fn abandoned(&mut self) -> &mut Pin<Box<WaitForCancellationFutureOwned>> {
        &mut self.abandoned
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut state = self.gate.state.lock();
        if let Some(entry) = state.partitions.get_mut(&self.partition) {
            entry.permits -= 1;
        }
        drop(state);
        self.gate.released.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_revoked_partition_gives_no_permits_and_drains_when_they_return() {
        let gate = Arc::new(Gate::default());
        assert!(gate.enter(3).is_none(), "not granted yet");
        gate.grant(3);
        let permit = gate.enter(3).expect("granted");
        gate.revoke(3);
        assert!(gate.enter(3).is_none(), "revoked");
        assert_eq!(gate.in_flight(3), 1);
        let drained = tokio::spawn({
            let gate = gate.clone();
            async move { gate.drained(3).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!drained.is_finished(), "a permit is still out");
        drop(permit);
        tokio::time::timeout(Duration::from_secs(1), drained)
            .await
            .expect("drained once the permit returned")
            .unwrap();
    }

    #[tokio::test]
    async fn abandoning_wakes_the_permit_holders_and_a_new_grant_starts_afresh() {
        let gate = Arc::new(Gate::default());
        gate.grant(1);
        let mut permit = gate.enter(1).unwrap();
        gate.abandon(1);
        tokio::time::timeout(Duration::from_secs(1), permit.abandoned())
            .await
            .expect("abandoned");
        drop(permit);
        gate.grant(1);
        let mut fresh = gate.enter(1).unwrap();
        let waited = tokio::time::timeout(Duration::from_millis(20), fresh.abandoned()).await;
        assert!(waited.is_err(), "a new grant is not abandoned");
        assert_eq!(gate.acting(), [1].into_iter().collect());
    }
}

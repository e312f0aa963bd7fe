//! Sharding: N active replicas of one operator split the objects of the
//! sharded kinds between them, each caching and reconciling only its share.
//!
//! * **Partitions.** The key space — the 64-bit FNV-1a hash of an object's
//!   `metadata.uid`, the apiserver's own shard hash (KEP-5866) — is split
//!   into a fixed number of equal ranges ([`Partitions`]). Owned objects
//!   are placed by their controller owner's uid ([`ShardBy`]), so a
//!   Deployment is handled where its MyApplication is.
//! * **Leases.** Each partition has a Lease; each replica keeps a member
//!   Lease alive. Every replica computes the same balanced assignment from
//!   the live members and the current holders ([`assign`]: partitions stay
//!   where they are when they can) and acquires the partitions it is given,
//!   once their holder released them or their Lease expired. A replica acts
//!   on a partition only within the renew deadline of its last renewal —
//!   the fencing of leader election, per partition.
//! * **Handover.** A partition assigned elsewhere is drained first: its
//!   keys are no longer reconciled, in-flight reconciles finish (or are
//!   abandoned after [`ShardingConfig::handover_timeout`]), then its Lease
//!   is released and its objects leave the cache.
//! * **Informers.** A sharded informer caches only the partitions held
//!   ([`Shards::held`]) and lists again when they change. On an apiserver
//!   with the `ShardedListAndWatch` feature gate (Kubernetes 1.36+, alpha)
//!   it sends a `shardSelector`, so the apiserver sends it only its share;
//!   elsewhere every replica receives every event and drops the others'
//!   ([`ServerSideFiltering`]). Owned objects that carry their owner's
//!   partition as a label ([`ShardBy::OwnerLabel`]) are selected by that
//!   label, on every apiserver; others are filtered on the client.
//!
//! [`ManagerBuilder::sharding`](crate::ManagerBuilder::sharding) turns it
//! on; [`ControllerBuilder::shards`](crate::controller::ControllerBuilder::shards)
//! shards a controller, its primary informer and its owned informers.

mod assign;
mod config;
mod coordinator;
mod filter;
mod gate;
mod partition;
mod shards;

pub use assign::assign;
pub use config::{
    DEFAULT_HANDOVER_TIMEOUT, DEFAULT_PARTITIONS, ServerSideFiltering, ShardingConfig,
    ShardingConfigError,
};
pub use coordinator::{SHARD_PARTITIONS_LABEL, SHARD_ROLE_LABEL, SHARD_SET_LABEL, ShardingError};
pub use filter::{OWNER_PARTITION_LABEL, SHARD_SELECTOR_PARAM, ShardBy};
pub use partition::{MAX_PARTITIONS, PartitionSet, Partitions, shard_hash};
pub use shards::Shards;

pub(crate) use coordinator::Coordinator;
pub(crate) use filter::{
    Kept, and_label_selectors, owner_partition_selector, probe, selecting_client,
};

//! A sharded informer's scope: the partitions it caches, whether the
//! apiserver filters them (decided by a probe when the watch starts) and
//! the `Api` its lists and watches go through — with the `shardSelector`
//! of the partitions held when the apiserver filters.

use std::sync::Arc;
use std::time::Duration;

use kubegen_client::api::ObjectMeta;
use kubegen_client::{Api, Client};
use tokio::sync::watch;

use super::watcher;
use crate::sharding::{
    Kept, PartitionSet, ServerSideFiltering, ShardBy, Shards, and_label_selectors,
    owner_partition_selector, probe, selecting_client,
};

/// Builds the informer's `Api` over another client (same URL and
/// namespace).
pub(super) type Rebuild<K> = Arc<dyn Fn(Client) -> Api<K> + Send + Sync>;

/// How an informer is sharded, as [`Informer::shard`](super::Informer::shard)
/// set it.
pub(super) struct InformerShard<K> {
    pub(super) shards: Shards,
    pub(super) by: ShardBy,
    /// `None` for informers that always filter on the client.
    pub(super) rebuild: Option<Rebuild<K>>,
}

impl<K> Clone for InformerShard<K> {
    fn clone(&self) -> Self {
        InformerShard {
            shards: self.shards.clone(),
            by: self.by,
            rebuild: self.rebuild.clone(),
        }
    }
}

/// Why an informer cannot be sharded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Its watch has started: its cache holds objects of every partition.
    #[error("informer {0}: cannot be sharded once started")]
    Started(String),
    /// It is sharded already, by other shards or another key.
    #[error("informer {0}: already sharded differently (by {1:?})")]
    Conflict(String, ShardBy),
}

/// The scope of one run of the watch task.
pub(super) struct Scope<K> {
    shard: InformerShard<K>,
    changes: watch::Receiver<PartitionSet>,
    held: PartitionSet,
    server_side: bool,
}

impl<K> Scope<K> {
    /// The scope of `shard` for the collection `api` lists: probes the
    /// apiserver when server-side filtering may be used, until it answers
    /// (or forever, with backoff, when it is required and the apiserver
    /// does not filter).
    pub(super) async fn resolve(shard: InformerShard<K>, api: &Api<K>, resource: &str) -> Self
    where
        K: kubegen_client::Resource + Clone,
    {
        let mode = shard.shards.server_side();
        let server_side = if shard.by != ShardBy::Uid
            || shard.rebuild.is_none()
            || mode == ServerSideFiltering::Off
        {
            false
        } else {
            let client = api.clone().into_client();
            let path = api.resource_url().to_string();
            let mut backoff = Duration::from_millis(500);
            loop {
                match probe(&client, &path, shard.shards.partitions()).await {
                    Ok(true) => {
                        tracing::info!(
                            resource,
                            "the apiserver filters by shard; informer sends a shardSelector"
                        );
                        break true;
                    }
                    Ok(false) if mode == ServerSideFiltering::Auto => {
                        tracing::info!(
                            resource,
                            "the apiserver does not filter by shard (ShardedListAndWatch off or older than 1.36); informer filters its events itself"
                        );
                        break false;
                    }
                    Ok(false) => tracing::error!(
                        resource,
                        "server-side sharding is required but the apiserver does not filter by shard (enable the ShardedListAndWatch feature gate); retrying"
                    ),
                    Err(error) => {
                        tracing::warn!(resource, %error, "could not probe the apiserver for sharded lists; retrying")
                    }
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(30));
            }
        };
        let mut changes = shard.shards.changes();
        let held = *changes.borrow_and_update();
        Scope {
            shard,
            changes,
            held,
            server_side,
        }
    }

    /// Whether the apiserver filters.
    pub(super) fn server_side(&self) -> bool {
        self.server_side
    }

    /// The `Api` to list and watch the partitions held through (`None`:
    /// none is held, nothing to watch).
    pub(super) fn api(&self, api: &Api<K>) -> Option<Api<K>>
    where
        K: kubegen_client::Resource + Clone,
    {
        let partitions = self.shard.shards.partitions();
        let selector = partitions.selector(&self.held)?;
        if !self.server_side || self.held == partitions.all() {
            return Some(api.clone());
        }
        let rebuild = self.shard.rebuild.as_ref()?;
        let client = selecting_client(
            api.clone().into_client(),
            api.resource_url().to_string(),
            &selector,
        );
        Some(rebuild(client))
    }

    /// `config` for the partitions held: informers sharded by
    /// [`ShardBy::OwnerLabel`] also select the owner partition label of
    /// the partitions held (whether or not the apiserver filters by shard).
    pub(super) fn watcher_config(&self, config: &watcher::Config) -> watcher::Config {
        let mut config = config.clone();
        if self.shard.by == ShardBy::OwnerLabel
            && let Some(selector) = owner_partition_selector(&self.held)
        {
            config.label_selector = Some(and_label_selectors(
                config.label_selector.as_deref(),
                &selector,
            ));
        }
        config
    }

    /// What the informer keeps now.
    pub(super) fn kept(&self) -> Kept {
        Kept {
            by: self.shard.by,
            partitions: self.shard.shards.partitions(),
            held: self.held,
        }
    }

    /// Whether an object with `meta` is in a partition held.
    pub(super) fn keeps(&self, meta: &ObjectMeta) -> bool {
        self.kept().keeps(meta)
    }

    /// Resolves when the partitions held change, and takes the new set.
    pub(super) async fn changed(&mut self) {
        if self.changes.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
        self.held = *self.changes.borrow_and_update();
    }
}

//! The watch task: drives the [`watcher`] and applies its events to the
//! cache, buffering each (re)list to diff it against the cache at the end.
//!
//! A streaming list (the default) that the apiserver rejects — the
//! `WatchList` feature off, or a server older than 1.27 — makes the task
//! start over with paginated lists, as client-go's reflector falls back to
//! LIST when its watch-list request fails.
//!
//! A built-in kind is listed and watched in protobuf
//! ([`watcher::protocol`]); a reply that is not protobuf (`406`) sends
//! the task back to JSON. In protobuf, managed fields are cut from each
//! watched message before it is decoded; in JSON, with the default
//! transform the watch decodes through [`Wire`](super::received::Wire):
//! managed fields are cut from the JSON before decoding, and a compact
//! cache keeps the received bytes.

use std::fmt::Debug;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use kubegen_client::{Api, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::oneshot;
use tokio::time::{Instant, Interval, MissedTickBehavior};

use super::handle_state::Shared;
use super::received::{Received, Wire};
use super::sharded::Scope;
use super::watcher::protocol::{self, Encoding, Source};
use super::watcher::{self, InitialListStrategy};
use crate::sharding::Kept;
use crate::store::{Notification, Staged, Store};

/// Runs until `stop` fires (or its sender is dropped).
pub(super) async fn run<K>(shared: Arc<Shared<K>>, stop: oneshot::Receiver<()>)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    if shared.config.strips_managed_fields || keeps_bytes(&shared) {
        run_as::<K, Wire<K>>(shared, stop).await;
    } else {
        run_as::<K, K>(shared, stop).await;
    }
}

/// Whether the protobuf watch hands a compact store the envelope of each
/// object: when those bytes decode into the object as cached, that is,
/// unless a transform of the user's changes it.
fn keeps_bytes<K: Resource>(shared: &Shared<K>) -> bool {
    shared.protobuf
        && shared.store.is_compact()
        && (shared.config.transform.is_none() || shared.config.strips_managed_fields)
}

/// The events of one watcher, decoded as `W`.
type Events<W> = BoxStream<'static, Result<watcher::Event<W>, watcher::Error>>;

/// The watcher `shared`'s informer uses with `config`: protobuf when
/// `protobuf`, JSON otherwise; with client-go's reflector backoff.
fn open<K, W>(
    shared: &Shared<K>,
    api: &Api<K>,
    config: &watcher::Config,
    protobuf: bool,
) -> Events<W>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    W: Received<K>,
{
    let source = |encoding| Source::of(api, config.clone(), encoding);
    let json = Encoding::json::<K>();
    let events = if protobuf {
        let encoding = Encoding::Protobuf {
            keep_managed_fields: !shared.config.strips_managed_fields,
            keep_bytes: keeps_bytes(shared),
        };
        protocol::stream::<K>(source(encoding))
            .map_ok(|event| event.map(|decoded| W::decoded(decoded.obj, decoded.bytes)))
            .boxed()
    } else if shared.config.strips_managed_fields {
        // Decoded as `W` itself: `Wire` cuts the managed fields out of the
        // JSON before decoding the object.
        protocol::stream::<W>(source(json))
            .map_ok(|event| event.map(|decoded| decoded.obj))
            .boxed()
    } else {
        protocol::stream::<K>(source(json))
            .map_ok(|event| event.map(|decoded| W::decoded(decoded.obj, None)))
            .boxed()
    };
    watcher::backoff(events).boxed()
}

/// The watch loop, decoding objects as `W`.
async fn run_as<K, W>(shared: Arc<Shared<K>>, mut stop: oneshot::Receiver<()>)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    W: Received<K>,
{
    let mut config = shared.config.watcher.clone();
    let mut protobuf = shared.protobuf;
    let shard = shared.shard.lock().clone();
    let mut scope = match shard {
        Some(shard) => tokio::select! {
            biased;
            _ = &mut stop => return,
            scope = Scope::resolve(shard, &shared.api, &shared.name) => Some(scope),
        },
        None => None,
    };
    if let Some(scope) = &scope {
        *shared.server_side.lock() = Some(scope.server_side());
    }
    let mut relist = Relist::default();
    let mut events = open_scoped::<K, W>(&shared, scope.as_ref(), &config, protobuf, &mut relist);
    let mut resync = shared.config.resync.map(|period| {
        let mut interval = tokio::time::interval_at(Instant::now() + period, period);
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        interval
    });
    loop {
        tokio::select! {
            biased;
            _ = &mut stop => break,
            event = events.next() => match event {
                Some(Ok(event)) => {
                    shared.count_received(scope.as_ref(), &event);
                    match &scope {
                        Some(scope) => match scoped(scope, event) {
                            Scoped::Pass(event) => shared.on_event(event, &mut relist),
                            Scoped::Skip => {}
                            Scoped::Evict(obj) => shared.evict(obj),
                        },
                        None => shared.on_event(event, &mut relist),
                    }
                }
                Some(Err(error)) => {
                    if let Some(metrics) = &shared.config.metrics {
                        metrics.inc_watch_restarts(&shared.name);
                    }
                    let falls_back = if protobuf && rejects_protobuf(&error) {
                        tracing::warn!(resource = %shared.name, %error, "the apiserver does not serve this resource as protobuf; falling back to JSON");
                        protobuf = false;
                        true
                    } else if config.initial_list_strategy == InitialListStrategy::StreamingList
                        && rejects_streaming_list(&error)
                    {
                        tracing::warn!(resource = %shared.name, %error, "the apiserver rejected a streaming list; falling back to paginated lists");
                        config.initial_list_strategy = InitialListStrategy::ListWatch;
                        true
                    } else {
                        tracing::warn!(resource = %shared.name, %error, "informer watch failed; retrying after backoff");
                        false
                    };
                    if falls_back {
                        relist.abandon();
                        events = open_scoped::<K, W>(&shared, scope.as_ref(), &config, protobuf, &mut relist);
                    }
                }
                None => break,
            },
            _ = tick(&mut resync) => shared.resync(),
            () = held_changed(&mut scope) => {
                tracing::debug!(resource = %shared.name, "partitions held changed; listing again");
                relist.abandon();
                events = open_scoped::<K, W>(&shared, scope.as_ref(), &config, protobuf, &mut relist);
            }
        }
    }
}

/// The watcher of `shared`'s informer within `scope`: over the scope's
/// `Api` (with the shard selector when the apiserver filters); while no
/// partition is held, none — the cache is emptied and counts as synced.
fn open_scoped<K, W>(
    shared: &Shared<K>,
    scope: Option<&Scope<K>>,
    config: &watcher::Config,
    protobuf: bool,
    relist: &mut Relist<K>,
) -> Events<W>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    W: Received<K>,
{
    let Some(scope) = scope else {
        return open::<K, W>(shared, &shared.api, config, protobuf);
    };
    relist.kept = Some(scope.kept());
    match scope.api(&shared.api) {
        Some(api) => open::<K, W>(shared, &api, &scope.watcher_config(config), protobuf),
        None => {
            shared.on_event(watcher::Event::<W>::Init, relist);
            shared.on_event(watcher::Event::<W>::InitDone, relist);
            futures::stream::pending().boxed()
        }
    }
}

/// What becomes of an event of a sharded informer.
enum Scoped<W> {
    /// Applied as received.
    Pass(watcher::Event<W>),
    /// An object of a partition not held, listed: not cached.
    Skip,
    /// An object of a partition not held, updated (which the apiserver
    /// does not send when it filters, and a controller owner change can
    /// cause): removed from the cache without telling the handlers, for
    /// it was not deleted.
    Evict(W),
}

/// `event` kept to the partitions `scope` holds.
fn scoped<K, W: Received<K>>(scope: &Scope<K>, event: watcher::Event<W>) -> Scoped<W> {
    match event {
        watcher::Event::InitApply(obj) if !scope.keeps(obj.meta()) => Scoped::Skip,
        watcher::Event::Apply(obj) if !scope.keeps(obj.meta()) => Scoped::Evict(obj),
        event => Scoped::Pass(event),
    }
}

/// Resolves when the partitions of `scope` change; never without a scope.
async fn held_changed<K>(scope: &mut Option<Scope<K>>) {
    match scope {
        Some(scope) => scope.changed().await,
        None => std::future::pending().await,
    }
}

/// Whether `error` says the resource is not served as protobuf: `406 Not
/// Acceptable` when a list or watch starts.
pub(super) fn rejects_protobuf(error: &watcher::Error) -> bool {
    matches!(
        error,
        watcher::Error::InitialListFailed(kubegen_client::Error::Api(status))
            | watcher::Error::WatchStartFailed(kubegen_client::Error::Api(status))
            if status.code == 406
    )
}

/// Whether `error` is the apiserver refusing `sendInitialEvents` itself
/// (400 or 422 when a watch starts), as opposed to a failure that the
/// watcher's backoff and retry cure (network, 403, 410, 429, 5xx).
pub(super) fn rejects_streaming_list(error: &watcher::Error) -> bool {
    matches!(
        error,
        watcher::Error::WatchStartFailed(kubegen_client::Error::Api(status))
            if matches!(status.code, 400 | 422)
    )
}

async fn tick(interval: &mut Option<Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// The list being received, between `Init` and `InitDone`: staged
/// entries, so that a compact store never holds the list decoded.
pub(super) struct Relist<K> {
    buffer: Option<Vec<Staged<K>>>,
    lists: u64,
    /// For a sharded informer, what it keeps: a cached object missing from
    /// the list and not kept left with its partition, which handlers are
    /// not told of as a deletion.
    kept: Option<Kept>,
}

impl<K> Relist<K> {
    /// Drops a list that will not complete (its watcher was replaced).
    fn abandon(&mut self) {
        self.buffer = None;
    }
}

impl<K> Default for Relist<K> {
    fn default() -> Self {
        Relist {
            buffer: None,
            lists: 0,
            kept: None,
        }
    }
}

impl<K> Shared<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// The object to cache and hand out, transformed, and the bytes (JSON
    /// or a protobuf envelope) a compact store may keep for it.
    fn prepare<W: Received<K>>(&self, received: W) -> (Arc<K>, Option<Box<[u8]>>) {
        let (mut obj, bytes) = received.into_parts();
        if let Some(transform) = &self.config.transform {
            transform(&mut obj);
        }
        (Arc::new(obj), bytes)
    }

    pub(super) fn on_event<W: Received<K>>(
        &self,
        event: watcher::Event<W>,
        relist: &mut Relist<K>,
    ) {
        match event {
            watcher::Event::Init => {
                relist.lists += 1;
                relist.buffer = Some(Vec::new());
                if relist.lists > 1 {
                    tracing::debug!(resource = %self.name, "informer relisting");
                    if let Some(metrics) = &self.config.metrics {
                        metrics.inc_relists(&self.name);
                    }
                }
            }
            watcher::Event::InitApply(obj) => {
                let (obj, bytes) = self.prepare(obj);
                let staged = self.store.stage_received(&obj, bytes);
                relist.buffer.get_or_insert_with(Vec::new).push(staged);
            }
            watcher::Event::InitDone => {
                let objects = relist.buffer.take().unwrap_or_default();
                let mut processor = self.processor.lock();
                let mut changes = self.store.replace(objects, processor.has_listeners());
                if let Some(kept) = &relist.kept {
                    changes.retain(|change| match change {
                        Notification::Delete(gone) => kept.keeps(gone.object().meta()),
                        _ => true,
                    });
                }
                processor.distribute(changes);
                processor.mark_synced();
                drop(processor);
                self.state
                    .send_if_modified(|s| !std::mem::replace(&mut s.synced, true));
                self.record_size();
            }
            watcher::Event::Apply(obj) => {
                let (obj, bytes) = self.prepare(obj);
                self.commit(|store| store.apply_received(obj, bytes));
            }
            watcher::Event::Delete(obj) => {
                let (obj, _) = self.prepare(obj);
                self.commit(|store| store.delete(obj));
            }
        }
    }

    /// Removes `received`'s object from the cache without telling the
    /// handlers (it left the partitions held; it was not deleted).
    fn evict<W: Received<K>>(&self, received: W) {
        let (obj, _) = self.prepare(received);
        let processor = self.processor.lock();
        let _ = self.store.delete(obj);
        drop(processor);
        self.record_size();
    }

    /// Applies one change to the store and queues it for the handlers, as
    /// one step under the dispatch lock.
    fn commit(&self, change: impl FnOnce(&Store<K>) -> Option<Notification<K>>) {
        let processor = self.processor.lock();
        if let Some(change) = change(&self.store) {
            processor.distribute(vec![change]);
        }
        drop(processor);
        self.record_size();
    }

    /// Counts an object received, and whether `scope` drops it.
    fn count_received<W: Received<K>>(&self, scope: Option<&Scope<K>>, event: &watcher::Event<W>) {
        let (Some(metrics), Some(obj)) = (&self.config.metrics, event.object()) else {
            return;
        };
        metrics.inc_received(&self.name);
        let applied = matches!(
            event,
            watcher::Event::InitApply(_) | watcher::Event::Apply(_)
        );
        if applied && scope.is_some_and(|scope| !scope.keeps(obj.meta())) {
            metrics.inc_not_held(&self.name);
        }
    }

    fn record_size(&self) {
        if let Some(metrics) = &self.config.metrics {
            metrics.set_store_objects(&self.name, self.store.len());
        }
    }

    /// Re-delivers every cached object as `on_update(obj, obj)`.
    pub(super) fn resync(&self) {
        let processor = self.processor.lock();
        if !self.state.borrow().synced || !processor.has_listeners() {
            return;
        }
        let changes = self
            .store
            .list()
            .into_iter()
            .map(|obj| Notification::Update(obj.clone(), obj))
            .collect();
        processor.distribute(changes);
    }
}

//! Publishing `events.k8s.io/v1` Events, with repeats aggregated into
//! series as client-go's events broadcaster does.
//!
//! The first occurrence of an event creates an Event. A repeat of the same
//! event — same regarding and related objects, type, reason, action and
//! note — within the series window (default 6 minutes after the previous
//! occurrence, client-go's) patches that Event's `series.count` and
//! `series.lastObservedTime` instead of creating another. The cache behind
//! this is bounded: series expire after the window and the least recently
//! used ones are evicted beyond the capacity.
//!
//! Two deliberate differences from client-go's `tools/events` key (type,
//! action, reason, reporting controller and instance, regarding, related):
//! the note is part of the key here, so two events that differ only in
//! their note ("created Deployment a", "created Service a") stay two Events
//! instead of the second joining the first's series and its note being
//! lost; and the regarding object's `resourceVersion` is not, so repeats
//! about an object that was written in between still form one series.
//!
//! [`EventRecorder::publish`] waits for the write and returns its error;
//! [`EventRecorder::record`] returns at once and writes in the background,
//! as client-go's recorder does — what a reconcile usually wants.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::events::{object_reference, EventRecorder, EventType};
//!
//! # async fn demo(client: kubegen::Client, cm: ConfigMap) -> Result<(), kubegen::Error> {
//! let recorder = EventRecorder::new(client, "example.com/my-operator", "my-operator-7d9f");
//! let regarding = object_reference(&cm);
//! recorder
//!     .publish(&regarding, None, EventType::Normal, "Synced", "Reconcile", "synced successfully")
//!     .await?;
//! # Ok(()) }
//! ```

mod cache;
mod event_type;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::{Event, EventSeries};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kubegen_client::api::{ObjectMeta, Patch, PatchParams, PostParams};
use kubegen_client::{Client, Resource};
use parking_lot::Mutex;
use serde_json::json;
use tokio::sync::Semaphore;

pub use event_type::EventType;

use crate::api_errors::{is_already_exists, is_not_found};
use cache::{EventKey, RefKey, SeriesCache, SeriesState};

/// client-go's series window: a repeat after this long without one starts
/// a new Event.
pub const DEFAULT_SERIES_WINDOW: Duration = Duration::from_secs(6 * 60);
/// Default number of series remembered at once.
pub const DEFAULT_CACHE_CAPACITY: usize = 4096;
/// Events [`EventRecorder::record`] lets wait for their write at once
/// (client-go's broadcaster queues 1,000).
const MAX_IN_FLIGHT: usize = 1000;
/// Series written side by side: repeats of one event wait for each other,
/// and two series wait for each other when they share one of these lanes.
const LANES: usize = 64;
/// The API server's limit on an Event's note, in bytes.
const MAX_NOTE_BYTES: usize = 1024;
/// The API server's limit on reason, action and reporting fields.
const MAX_FIELD_LEN: usize = 128;

/// A reference to `obj` for an Event's `regarding` or `related` field:
/// apiVersion, kind, namespace, name, uid and resourceVersion.
pub fn object_reference<K>(obj: &K) -> ObjectReference
where
    K: Resource,
    K::DynamicType: Default,
{
    obj.object_ref(&K::DynamicType::default())
}

/// Publishes Events for one controller instance. Cheap to clone; clones
/// share the series cache.
#[derive(Clone)]
pub struct EventRecorder {
    client: Client,
    reporting_controller: String,
    reporting_instance: String,
    cache: Arc<Mutex<SeriesCache>>,
    /// Held while a series' Event is written, by the series' lane.
    lanes: Arc<[tokio::sync::Mutex<()>]>,
    /// Room for events [`EventRecorder::record`] has not finished writing.
    in_flight: Arc<Semaphore>,
    dropped: Arc<AtomicU64>,
}

impl fmt::Debug for EventRecorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventRecorder")
            .field("reporting_controller", &self.reporting_controller)
            .field("reporting_instance", &self.reporting_instance)
            .finish_non_exhaustive()
    }
}

impl EventRecorder {
    /// A recorder reporting as `reporting_controller` (e.g.
    /// `example.com/my-operator`) and `reporting_instance` (e.g. the pod
    /// name), with the default series window and cache capacity. Both are
    /// cut to the API server's 128 characters.
    pub fn new(
        client: Client,
        reporting_controller: impl Into<String>,
        reporting_instance: impl Into<String>,
    ) -> Self {
        Self::with_limits(
            client,
            reporting_controller,
            reporting_instance,
            DEFAULT_SERIES_WINDOW,
            DEFAULT_CACHE_CAPACITY,
        )
    }

    /// Like [`EventRecorder::new`], with a series window and a maximum
    /// number of series remembered.
    pub fn with_limits(
        client: Client,
        reporting_controller: impl Into<String>,
        reporting_instance: impl Into<String>,
        series_window: Duration,
        cache_capacity: usize,
    ) -> Self {
        EventRecorder {
            client,
            reporting_controller: truncate(reporting_controller.into(), MAX_FIELD_LEN),
            reporting_instance: truncate(reporting_instance.into(), MAX_FIELD_LEN),
            cache: Arc::new(Mutex::new(SeriesCache::new(series_window, cache_capacity))),
            lanes: (0..LANES).map(|_| tokio::sync::Mutex::new(())).collect(),
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Records an event without waiting for it to be written, as
    /// client-go's `EventRecorder.Eventf` does: the write (create, or a
    /// series patch — see [`EventRecorder::publish`]) runs on a background
    /// task and a failure is logged, so a reconcile does not spend an API
    /// round trip per event. At most 1,000 events wait to be written (the
    /// queue length of client-go's broadcaster); beyond that an event is
    /// dropped with a warning and counted in [`EventRecorder::dropped`].
    /// Repeats of one event are still written in order.
    ///
    /// Must be called within a Tokio runtime.
    pub fn record(
        &self,
        regarding: ObjectReference,
        related: Option<ObjectReference>,
        event_type: EventType,
        reason: &str,
        action: &str,
        note: &str,
    ) {
        let Ok(permit) = Arc::clone(&self.in_flight).try_acquire_owned() else {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                reason,
                "too many events waiting to be written; dropping one"
            );
            return;
        };
        let recorder = self.clone();
        let (reason, action, note) = (reason.to_string(), action.to_string(), note.to_string());
        tokio::spawn(async move {
            let result = recorder
                .publish(
                    &regarding,
                    related.as_ref(),
                    event_type,
                    &reason,
                    &action,
                    &note,
                )
                .await;
            if let Err(error) = result {
                tracing::warn!(%error, reason, "could not record event");
            }
            drop(permit);
        });
    }

    /// How many events [`EventRecorder::record`] dropped because too many
    /// were waiting to be written.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Waits until every event passed to [`EventRecorder::record`] so far
    /// has been written or has failed — before a process exits, say.
    ///
    /// Boxed, as [`publish`](Self::publish)'s future is.
    pub fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.flush_inner())
    }

    async fn flush_inner(&self) {
        // Taking every permit means no write holds one.
        let all = MAX_IN_FLIGHT as u32;
        if let Ok(permits) = self.in_flight.acquire_many(all).await {
            drop(permits);
        }
    }

    /// Publishes an event about `regarding` (and optionally `related`):
    /// creates an Event, or adds to the series of an identical recent one.
    /// `reason` says why (`Synced`), `action` what was done or tried
    /// (`Reconcile`), `note` is for humans (cut to 1 kB). The Event lives in
    /// the regarding object's namespace, `default` for cluster-scoped ones.
    ///
    /// The future is boxed, unlike an `async fn`'s, on purpose: a crate
    /// that awaits another crate's `async fn` compiles its body (and the
    /// bodies it awaits) itself, so a boxed future keeps the recorder's
    /// writes compiled once, in kubegen, rather than in every operator
    /// crate that publishes. `recorder.publish(…).await` reads the same.
    pub fn publish<'a>(
        &'a self,
        regarding: &'a ObjectReference,
        related: Option<&'a ObjectReference>,
        event_type: EventType,
        reason: &'a str,
        action: &'a str,
        note: &'a str,
    ) -> BoxFuture<'a, Result<(), kubegen_client::Error>> {
        Box::pin(self.publish_inner(regarding, related, event_type, reason, action, note))
    }

    async fn publish_inner(
        &self,
        regarding: &ObjectReference,
        related: Option<&ObjectReference>,
        event_type: EventType,
        reason: &str,
        action: &str,
        note: &str,
    ) -> Result<(), kubegen_client::Error> {
        let key = EventKey {
            regarding: RefKey::from(regarding),
            related: related.map(RefKey::from),
            event_type,
            reason: truncate(reason.to_string(), MAX_FIELD_LEN),
            action: truncate(action.to_string(), MAX_FIELD_LEN),
            note: truncate(note.to_string(), MAX_NOTE_BYTES),
        };
        let id = self.cache.lock().id(&key);
        // Repeats of one event are written one after the other: their
        // series shares a lane (and so, rarely, do unrelated ones).
        let _lane = self.lanes[id.lane(self.lanes.len())].lock().await;
        let series = self.cache.lock().occur(id, tokio::time::Instant::now());
        let now = MicroTime(Timestamp::now());
        let object = regarding.name.as_deref().unwrap_or("object");
        let namespace = event_namespace(regarding);
        if series.count > 0 {
            let count = series.count + 1;
            let name = event_name(object, series.suffix);
            match self.patch_series(&namespace, &name, count, &now).await {
                Ok(()) => {
                    self.cache
                        .lock()
                        .written(id, SeriesState { count, ..series });
                    return Ok(());
                }
                // The Event expired on the server (default TTL one hour):
                // start over.
                Err(kubegen_client::Error::Api(status)) if is_not_found(&status) => {}
                Err(error) => return Err(error),
            }
        }
        let event = self.new_event(regarding, related, &key, namespace, now);
        let suffix = self.create(event, object).await?;
        self.cache
            .lock()
            .written(id, SeriesState { count: 1, suffix });
        Ok(())
    }

    fn new_event(
        &self,
        regarding: &ObjectReference,
        related: Option<&ObjectReference>,
        key: &EventKey,
        namespace: String,
        now: MicroTime,
    ) -> Event {
        Event {
            metadata: ObjectMeta {
                namespace: Some(namespace),
                ..ObjectMeta::default()
            },
            event_time: Some(now),
            regarding: Some(regarding.clone()),
            related: related.cloned(),
            type_: Some(key.event_type.as_str().to_string()),
            reason: Some(key.reason.clone()),
            action: Some(key.action.clone()),
            note: Some(key.note.clone()).filter(|n| !n.is_empty()),
            reporting_controller: Some(self.reporting_controller.clone()),
            reporting_instance: Some(self.reporting_instance.clone()),
            ..Event::default()
        }
    }

    /// Creates `event` about `object`, named for it, under another suffix if
    /// the name was taken; returns the suffix of the name it got. The
    /// Event's name is chosen here, so the apiserver's reply is not decoded.
    async fn create(&self, mut event: Event, object: &str) -> Result<u128, kubegen_client::Error> {
        let namespace = event.metadata.namespace.clone().unwrap_or_default();
        let request = kubegen_client::core::Request::new(Event::url_path(&(), Some(&namespace)));
        let mut suffix = unique_suffix();
        let mut tries = 0;
        loop {
            event.metadata.name = Some(event_name(object, suffix));
            let body = serde_json::to_vec(&event).map_err(kubegen_client::Error::SerdeError)?;
            let create = request
                .create(&PostParams::default(), body)
                .map_err(kubegen_client::Error::BuildRequest)?;
            match self.client.request_text(create).await {
                Ok(_) => return Ok(suffix),
                Err(kubegen_client::Error::Api(status))
                    if is_already_exists(&status) && tries < 3 =>
                {
                    tries += 1;
                    suffix = unique_suffix();
                }
                Err(error) => return Err(error),
            }
        }
    }

    async fn patch_series(
        &self,
        namespace: &str,
        name: &str,
        count: i32,
        now: &MicroTime,
    ) -> Result<(), kubegen_client::Error> {
        let series = EventSeries {
            count,
            last_observed_time: now.clone(),
        };
        let patch = kubegen_client::core::Request::new(Event::url_path(&(), Some(namespace)))
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "series": series })),
            )
            .map_err(kubegen_client::Error::BuildRequest)?;
        self.client.request_text(patch).await?;
        Ok(())
    }
}

/// A suffix for a new Event's name: the time in nanoseconds plus a
/// process-wide counter (client-go uses `<name>.<nanoseconds>`).
fn unique_suffix() -> u128 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = Timestamp::now().as_nanosecond().unsigned_abs();
    nanos.wrapping_add(u128::from(COUNTER.fetch_add(1, Ordering::Relaxed)))
}

/// The name of the Event about `object` with `suffix`: the object's name,
/// a dot, and the suffix in hexadecimal. A series keeps only the suffix and
/// names its Event again from the regarding object, part of its key.
fn event_name(object: &str, suffix: u128) -> String {
    // Names are at most 253 characters; keep room for the suffix.
    let prefix: String = object.chars().take(220).collect();
    format!("{prefix}.{suffix:x}")
}

/// The namespace of Events about `regarding`: its own, `default` for
/// cluster-scoped objects.
fn event_namespace(regarding: &ObjectReference) -> String {
    regarding
        .namespace
        .clone()
        .filter(|ns| !ns.is_empty())
        .unwrap_or_else(|| "default".to_string())
}

/// Cuts `s` to at most `max` bytes, on a character boundary.
fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    /// `publish` and `flush` return boxed futures, not `async fn` ones: an
    /// operator crate awaiting an `async fn` of this crate compiles its
    /// body (and the kube client calls it awaits) again. Each line compiles
    /// only while the method returns a `BoxFuture`.
    #[test]
    fn the_recorders_futures_are_boxed() {
        type Publish = for<'a> fn(
            &'a EventRecorder,
            &'a ObjectReference,
            Option<&'a ObjectReference>,
            EventType,
            &'a str,
            &'a str,
            &'a str,
        ) -> BoxFuture<'a, Result<(), kubegen_client::Error>>;
        let _: Publish = EventRecorder::publish;
        let _: for<'a> fn(&'a EventRecorder) -> BoxFuture<'a, ()> = EventRecorder::flush;
    }

    #[test]
    fn names_are_unique_and_prefixed() {
        let a = event_name("web", unique_suffix());
        let b = event_name("web", unique_suffix());
        assert_ne!(a, b);
        assert!(a.starts_with("web."));
        assert_eq!(event_name("web", 0xabc), "web.abc");
        assert!(event_name(&"x".repeat(300), u128::MAX).len() <= 253);
    }

    #[test]
    fn long_fields_are_cut_on_char_boundaries() {
        assert_eq!(truncate("abc".into(), 5), "abc");
        assert_eq!(truncate("ééé".into(), 3), "é");
        assert_eq!(truncate("x".repeat(2000), MAX_NOTE_BYTES).len(), 1024);
    }

    #[test]
    fn references_carry_kind_and_identity() {
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some("c".into()),
                namespace: Some("ns".into()),
                uid: Some("u".into()),
                resource_version: Some("7".into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        };
        let reference = object_reference(&cm);
        assert_eq!(reference.kind.as_deref(), Some("ConfigMap"));
        assert_eq!(reference.api_version.as_deref(), Some("v1"));
        assert_eq!(reference.name.as_deref(), Some("c"));
        assert_eq!(reference.namespace.as_deref(), Some("ns"));
        assert_eq!(reference.uid.as_deref(), Some("u"));
        assert_eq!(EventType::Warning.to_string(), "Warning");
    }
}

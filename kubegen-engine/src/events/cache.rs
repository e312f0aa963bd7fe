//! The bounded cache that turns repeats of an event into a series: one
//! entry per event key, dropped after the series window without a repeat,
//! and least-recently-used entries evicted beyond the capacity.
//!
//! An operator records a few events per object it reconciles, so up to the
//! capacity (4,096 by default) series are live at once in every replica,
//! however few objects it holds. An entry is therefore small and fixed: the
//! key as a 128-bit keyed hash ([`SeriesId`]), the series' Event as the
//! suffix of its name, the count, the last occurrence and its place in the
//! use order: a 64-byte entry in one table, about 34 bytes of index, no
//! allocation per series — 100 bytes a series, measured by
//! `kubegen-runtime/tests/fixed_memory.rs`. Keeping the key's strings and
//! a lock per series cost 455, 1.9 MB at the capacity. Repeats of one
//! event are still written in order: the recorder writes a series in one
//! of a fixed set of lanes, chosen by its id.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use tokio::time::Instant;

use super::event_type::EventType;

/// The identity of an object reference for deduplication: everything but
/// its `resourceVersion`, which changes with every write of the object and
/// would split a series.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct RefKey {
    api_version: Option<String>,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    field_path: Option<String>,
}

impl From<&ObjectReference> for RefKey {
    fn from(reference: &ObjectReference) -> Self {
        RefKey {
            api_version: reference.api_version.clone(),
            kind: reference.kind.clone(),
            namespace: reference.namespace.clone(),
            name: reference.name.clone(),
            uid: reference.uid.clone(),
            field_path: reference.field_path.clone(),
        }
    }
}

/// What makes two events repeats of one another (the reporting controller
/// and instance are fixed per recorder).
///
/// Its `Hash` feeds a hasher one stream that reads back one way only: each
/// `Option` writes its variant first and each string ends with a byte that
/// UTF-8 never holds (`0xff`), so two keys feed equal streams exactly when
/// they are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct EventKey {
    pub(crate) regarding: RefKey,
    pub(crate) related: Option<RefKey>,
    pub(crate) event_type: EventType,
    pub(crate) reason: String,
    pub(crate) action: String,
    pub(crate) note: String,
}

/// An [`EventKey`] as the cache holds it: its stream hashed by two SipHash
/// hashers with independent random keys, chosen per cache. Two different
/// keys get one id with probability 2⁻¹²⁸ per pair — with the 4,096 live
/// series of a full cache, about 10⁻³² at any moment — and the keys are
/// secret, so no caller can choose strings that collide. A collision would
/// count one event in another's series; it cannot touch anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SeriesId(u128);

impl SeriesId {
    fn low(self) -> u64 {
        self.0 as u64
    }

    /// Which of `lanes` lanes the series is written in: from the id's high
    /// half, independent of the index's low half.
    pub(crate) fn lane(self, lanes: usize) -> usize {
        ((self.0 >> 64) as u64 % lanes as u64) as usize
    }
}

/// The series' Event and how often it was observed, as a publish reads it
/// and writes it back.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SeriesState {
    /// Occurrences written so far; 0: no Event yet (a new series).
    pub(crate) count: i32,
    /// The unique suffix of the Event's name (`<regarding name>.<suffix
    /// in hex>`, see `event_name`), valid when `count > 0`. The name's
    /// other part and the Event's namespace come from the regarding
    /// object, which is part of the key.
    pub(crate) suffix: u128,
}

/// No entry: the end of the use order, or an empty slot.
const NONE: u32 = u32::MAX;

struct Entry {
    id: SeriesId,
    /// [`SeriesState::suffix`].
    suffix: u128,
    last_seen: Instant,
    /// [`SeriesState::count`].
    count: i32,
    /// The entry used just before this one (towards the oldest).
    older: u32,
    /// The entry used just after this one (towards the newest).
    newer: u32,
}

impl Entry {
    fn state(&self) -> SeriesState {
        SeriesState {
            count: self.count,
            suffix: self.suffix,
        }
    }
}

/// Hashes the index's keys (the low half of a [`SeriesId`]) as they are:
/// they are a keyed hash already.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// The series cache: entries in one table, linked in use order (an
/// intrusive LRU list), found through an index by id.
pub(crate) struct SeriesCache {
    window: Duration,
    capacity: usize,
    hashers: [RandomState; 2],
    entries: Vec<Entry>,
    /// Slots of `entries` freed by eviction, reused before the table grows.
    free: Vec<u32>,
    /// Where each entry is, by the low half of its id (16 bytes a bucket
    /// instead of 32); the entry holds the whole id. Two live ids with one
    /// low half (probability 2⁻⁶⁴ a pair) cannot both stay: the newer one
    /// evicts the other, whose next occurrence starts a new series.
    index: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
    /// The least and the most recently used entries.
    oldest: u32,
    newest: u32,
}

impl SeriesCache {
    /// A cache keeping series alive for `window` after their last
    /// occurrence, with at most `capacity` series (at least one).
    pub(crate) fn new(window: Duration, capacity: usize) -> Self {
        SeriesCache {
            window,
            capacity: capacity.clamp(1, NONE as usize - 1),
            hashers: [RandomState::new(), RandomState::new()],
            entries: Vec::new(),
            free: Vec::new(),
            index: HashMap::default(),
            oldest: NONE,
            newest: NONE,
        }
    }

    /// The id of `key` in this cache.
    pub(crate) fn id(&self, key: &EventKey) -> SeriesId {
        let [low, high] = &self.hashers;
        SeriesId((u128::from(high.hash_one(key)) << 64) | u128::from(low.hash_one(key)))
    }

    /// An occurrence of the series `id` at `now`: its state if its last
    /// occurrence is within the window, else a new series' (count 0). The
    /// series becomes the most recently used; a new one may evict expired
    /// and least recently used series to make room.
    pub(crate) fn occur(&mut self, id: SeriesId, now: Instant) -> SeriesState {
        if let Some(&at) = self.index.get(&id.low()) {
            if self.entries[at as usize].id == id {
                let window = self.window;
                let entry = &mut self.entries[at as usize];
                if now.saturating_duration_since(entry.last_seen) > window {
                    (entry.count, entry.suffix) = (0, 0);
                }
                entry.last_seen = now;
                let state = entry.state();
                self.unlink(at);
                self.push_newest(at);
                return state;
            }
            self.remove(at);
        }
        self.evict(now);
        let entry = Entry {
            id,
            suffix: 0,
            last_seen: now,
            count: 0,
            older: NONE,
            newer: NONE,
        };
        let at = match self.free.pop() {
            Some(at) => {
                self.entries[at as usize] = entry;
                at
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as u32
            }
        };
        self.index.insert(id.low(), at);
        self.push_newest(at);
        SeriesState::default()
    }

    /// Records what a publish wrote for the series `id`. A series evicted
    /// while its Event was being written is not brought back: its next
    /// occurrence starts a new one, as an evicted series' does.
    pub(crate) fn written(&mut self, id: SeriesId, state: SeriesState) {
        if let Some(&at) = self.index.get(&id.low()) {
            let entry = &mut self.entries[at as usize];
            if entry.id == id {
                entry.count = state.count;
                entry.suffix = state.suffix;
            }
        }
    }

    /// Drops expired series, then the least recently used ones until there
    /// is room for one more. The use order follows time, so expired series
    /// are all at the old end.
    fn evict(&mut self, now: Instant) {
        while self.oldest != NONE {
            let at = self.oldest;
            let entry = &self.entries[at as usize];
            let expired = now.saturating_duration_since(entry.last_seen) > self.window;
            if !expired && self.index.len() < self.capacity {
                break;
            }
            self.remove(at);
        }
    }

    /// Forgets the entry at `at`.
    fn remove(&mut self, at: u32) {
        let low = self.entries[at as usize].id.low();
        self.unlink(at);
        self.index.remove(&low);
        self.free.push(at);
    }

    /// Takes the entry at `at` out of the use order.
    fn unlink(&mut self, at: u32) {
        let (older, newer) = {
            let entry = &self.entries[at as usize];
            (entry.older, entry.newer)
        };
        match older {
            NONE => self.oldest = newer,
            older => self.entries[older as usize].newer = newer,
        }
        match newer {
            NONE => self.newest = older,
            newer => self.entries[newer as usize].older = older,
        }
    }

    /// Puts the entry at `at` at the new end of the use order.
    fn push_newest(&mut self, at: u32) {
        let previous = self.newest;
        {
            let entry = &mut self.entries[at as usize];
            entry.older = previous;
            entry.newer = NONE;
        }
        match previous {
            NONE => self.oldest = at,
            previous => self.entries[previous as usize].newer = at,
        }
        self.newest = at;
    }

    /// The number of live series.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(name: &str, rv: &str) -> ObjectReference {
        ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("ConfigMap".into()),
            namespace: Some("ns".into()),
            name: Some(name.into()),
            uid: Some(format!("uid-{name}")),
            resource_version: Some(rv.into()),
            field_path: None,
        }
    }

    fn key(name: &str, rv: &str, note: &str) -> EventKey {
        EventKey {
            regarding: RefKey::from(&reference(name, rv)),
            related: None,
            event_type: EventType::Normal,
            reason: "Synced".into(),
            action: "Reconcile".into(),
            note: note.into(),
        }
    }

    #[test]
    fn keys_ignore_the_resource_version_only() {
        assert_eq!(key("a", "1", "n"), key("a", "2", "n"));
        assert_ne!(key("a", "1", "n"), key("b", "1", "n"));
        assert_ne!(key("a", "1", "n"), key("a", "1", "other note"));
        let warning = EventKey {
            event_type: EventType::Warning,
            ..key("a", "1", "n")
        };
        assert_ne!(key("a", "1", "n"), warning);
        let related = EventKey {
            related: Some(RefKey::from(&reference("b", "1"))),
            ..key("a", "1", "n")
        };
        assert_ne!(key("a", "1", "n"), related);
        let action = EventKey {
            action: "Delete".into(),
            ..key("a", "1", "n")
        };
        assert_ne!(key("a", "1", "n"), action);
    }

    #[test]
    fn ids_are_equal_exactly_when_keys_are() {
        let cache = SeriesCache::new(Duration::from_secs(60), 10);
        let base = key("a", "1", "n");
        assert_eq!(cache.id(&base), cache.id(&key("a", "9", "n")));
        // Strings whose concatenations agree: the hash stream's variant
        // bytes and string ends keep them apart.
        let moved = |f: fn(&mut EventKey)| {
            let mut k = base.clone();
            f(&mut k);
            k
        };
        let variants = [
            moved(|k| {
                k.reason = "Synce".into();
                k.action = "dReconcile".into();
            }),
            moved(|k| {
                k.reason = "SyncedReconcile".into();
                k.action = String::new();
            }),
            moved(|k| k.regarding.field_path = Some(String::new())),
            moved(|k| {
                k.regarding.namespace = Some("nsa".into());
                k.regarding.name = Some(String::new());
            }),
            moved(|k| k.related = Some(RefKey::from(&reference("a", "1")))),
            moved(|k| k.event_type = EventType::Warning),
            moved(|k| k.note = "x".repeat(127)),
            moved(|k| k.note = "x".repeat(16_384)),
            moved(|k| {
                k.action = "x".repeat(128);
                k.note = String::new();
            }),
        ];
        for (i, a) in variants.iter().enumerate() {
            assert_ne!(cache.id(a), cache.id(&base), "variant {i}");
            for (j, b) in variants.iter().enumerate() {
                assert_eq!(a == b, cache.id(a) == cache.id(b), "variants {i} and {j}");
            }
        }
    }

    #[test]
    fn each_cache_hashes_with_its_own_secret_keys() {
        let window = Duration::from_secs(60);
        let (one, other) = (SeriesCache::new(window, 1), SeriesCache::new(window, 1));
        let key = key("a", "1", "n");
        assert_eq!(one.id(&key), one.id(&key));
        assert_ne!(one.id(&key), other.id(&key));
        // The two halves come from independent keys.
        let id = one.id(&key).0;
        assert_ne!(id as u64, (id >> 64) as u64);
    }

    /// What a publish does: an occurrence, then the write's result.
    fn publish(cache: &mut SeriesCache, key: &EventKey, at: Instant) -> SeriesState {
        let id = cache.id(key);
        let seen = cache.occur(id, at);
        let wrote = SeriesState {
            count: seen.count + 1,
            suffix: if seen.count == 0 {
                at.elapsed().as_nanos() + 1
            } else {
                seen.suffix
            },
        };
        cache.written(id, wrote);
        seen
    }

    #[test]
    fn repeats_within_the_window_continue_the_series() {
        let t0 = Instant::now();
        let mut cache = SeriesCache::new(Duration::from_secs(60), 10);
        let secs = |s| t0 + Duration::from_secs(s);
        assert_eq!(publish(&mut cache, &key("a", "1", "n"), t0).count, 0);
        let repeat = publish(&mut cache, &key("a", "7", "n"), secs(59));
        assert_eq!(repeat.count, 1);
        // The window counts from the last occurrence, not the first.
        let later = publish(&mut cache, &key("a", "7", "n"), secs(118));
        assert_eq!((later.count, later.suffix), (2, repeat.suffix));
        assert_eq!(
            publish(&mut cache, &key("a", "1", "different"), t0).count,
            0
        );
        // After a silent window, a new series starts.
        assert_eq!(publish(&mut cache, &key("a", "1", "n"), secs(179)).count, 0);
        assert_eq!(publish(&mut cache, &key("a", "1", "n"), secs(180)).count, 1);
    }

    #[test]
    fn memory_is_bounded_by_expiry_and_lru() {
        let t0 = Instant::now();
        let mut cache = SeriesCache::new(Duration::from_secs(60), 3);
        for name in ["a", "b", "c"] {
            publish(&mut cache, &key(name, "1", ""), t0);
        }
        // Touch a, so b is the least recently used.
        assert_eq!(publish(&mut cache, &key("a", "1", ""), t0).count, 1);
        publish(&mut cache, &key("d", "1", ""), t0);
        assert_eq!(cache.len(), 3);
        assert_eq!(publish(&mut cache, &key("a", "1", ""), t0).count, 2);
        // b was evicted: it starts over, evicting c.
        assert_eq!(publish(&mut cache, &key("b", "1", ""), t0).count, 0);
        assert_eq!(cache.len(), 3);
        assert_eq!(publish(&mut cache, &key("c", "1", ""), t0).count, 0);
        // Everything expires after the window.
        let later = t0 + Duration::from_secs(120);
        publish(&mut cache, &key("e", "1", ""), later);
        assert_eq!(cache.len(), 1);
        assert_eq!(publish(&mut cache, &key("b", "1", ""), later).count, 0);
        for i in 0..1000 {
            publish(&mut cache, &key(&format!("k{i}"), "1", ""), later);
        }
        assert_eq!(cache.len(), 3);
        // Freed slots are reused: the table never grew beyond the bound.
        assert_eq!(cache.entries.len(), 3);
    }

    #[test]
    fn a_series_evicted_while_written_is_not_brought_back() {
        let t0 = Instant::now();
        let mut cache = SeriesCache::new(Duration::from_secs(60), 1);
        let (a, b) = (cache.id(&key("a", "1", "")), cache.id(&key("b", "1", "")));
        cache.occur(a, t0);
        cache.occur(b, t0);
        cache.written(
            a,
            SeriesState {
                count: 1,
                suffix: 5,
            },
        );
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.occur(b, t0), SeriesState::default());
        assert_eq!(cache.occur(a, t0), SeriesState::default());
    }

    #[test]
    fn ids_sharing_an_index_slot_evict_each_other() {
        let t0 = Instant::now();
        let mut cache = SeriesCache::new(Duration::from_secs(60), 10);
        let (one, other) = (SeriesId(7), SeriesId((1 << 64) | 7));
        cache.occur(one, t0);
        cache.written(
            one,
            SeriesState {
                count: 3,
                suffix: 9,
            },
        );
        // The other id is a new series, and no series of the first.
        assert_eq!(cache.occur(other, t0), SeriesState::default());
        cache.written(
            other,
            SeriesState {
                count: 1,
                suffix: 2,
            },
        );
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.occur(one, t0), SeriesState::default());
        assert_eq!(cache.occur(one, t0).count, 0);
    }

    proptest::proptest! {
        /// The cache against a plain model of it: a list of series in use
        /// order, each with its last occurrence and state, where expired
        /// series go first and then the least recently used beyond the
        /// capacity.
        #[test]
        fn the_cache_keeps_what_a_plain_lru_keeps(
            capacity in 1usize..5,
            steps in proptest::collection::vec((0u8..8, 0u64..50, proptest::bool::ANY), 1..200),
        ) {
            let window = Duration::from_secs(60);
            let mut cache = SeriesCache::new(window, capacity);
            let mut model: Vec<(u8, Instant, SeriesState)> = Vec::new();
            let mut now = Instant::now();
            for (step, (name, advance, write)) in steps.into_iter().enumerate() {
                now += Duration::from_secs(advance);
                let id = SeriesId(u128::from(name) << 70 | u128::from(name));
                let got = cache.occur(id, now);
                let expected = match model.iter().position(|(n, ..)| *n == name) {
                    Some(at) => {
                        let (_, last, state) = model.remove(at);
                        let state = if now.saturating_duration_since(last) > window {
                            SeriesState::default()
                        } else {
                            state
                        };
                        model.push((name, now, state));
                        state
                    }
                    None => {
                        model.retain(|(_, last, _)| now.saturating_duration_since(*last) <= window);
                        while model.len() >= capacity {
                            model.remove(0);
                        }
                        model.push((name, now, SeriesState::default()));
                        SeriesState::default()
                    }
                };
                proptest::prop_assert_eq!(got, expected, "step {}", step);
                if write {
                    let state = SeriesState { count: got.count + 1, suffix: step as u128 };
                    cache.written(id, state);
                    if let Some(entry) = model.iter_mut().find(|(n, ..)| *n == name) {
                        entry.2 = state;
                    }
                }
                proptest::prop_assert_eq!(cache.len(), model.len());
            }
        }
    }
}

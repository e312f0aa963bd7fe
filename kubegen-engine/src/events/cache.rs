//! The bounded cache that turns repeats of an event into a series: one slot
//! per event key, dropped after the series window without a repeat, and
//! least-recently-used slots evicted beyond the capacity. The cache holds
//! each key once, flattened into one shared allocation ([`SeriesId`]): an
//! operator records a few events per object it reconciles, so the keys of
//! thousands of series are live at once.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use tokio::time::Instant;

use super::event_type::EventType;

/// The identity of an object reference for deduplication: everything but
/// its `resourceVersion`, which changes with every write of the object and
/// would split a series.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EventKey {
    pub(crate) regarding: RefKey,
    pub(crate) related: Option<RefKey>,
    pub(crate) event_type: EventType,
    pub(crate) reason: String,
    pub(crate) action: String,
    pub(crate) note: String,
}

impl RefKey {
    fn encode(&self, out: &mut Vec<u8>) {
        for field in [
            &self.api_version,
            &self.kind,
            &self.namespace,
            &self.name,
            &self.uid,
            &self.field_path,
        ] {
            encode_opt(field.as_deref(), out);
        }
    }
}

impl EventKey {
    /// The key flattened: every field in a fixed order, each string
    /// preceded by its length and each optional one by a presence byte, so
    /// that two keys have equal ids exactly when they are equal.
    pub(crate) fn id(&self) -> SeriesId {
        let mut out = Vec::with_capacity(128);
        self.regarding.encode(&mut out);
        match &self.related {
            None => out.push(0),
            Some(related) => {
                out.push(1);
                related.encode(&mut out);
            }
        }
        out.push(self.event_type as u8);
        for field in [&self.reason, &self.action, &self.note] {
            encode_str(field, &mut out);
        }
        SeriesId(out.into())
    }
}

fn encode_opt(value: Option<&str>, out: &mut Vec<u8>) {
    match value {
        None => out.push(0),
        Some(value) => {
            out.push(1);
            encode_str(value, out);
        }
    }
}

/// `value` preceded by its length in LEB128 (seven bits a byte, the high
/// bit set on all but the last): self-delimiting, so the flattened key
/// still reads back one way only, and one byte for any string under 128
/// bytes instead of eight (a key has up to fifteen strings; the cache
/// holds thousands of keys).
fn encode_str(value: &str, out: &mut Vec<u8>) {
    let mut len = value.len();
    while len >= 0x80 {
        out.push((len & 0x7f) as u8 | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
    out.extend_from_slice(value.as_bytes());
}

/// An [`EventKey`] as the cache holds it: one allocation, shared by the
/// slot table and the use order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct SeriesId(Arc<[u8]>);

/// The server-side Event of a series and how often it was observed.
#[derive(Debug, Default)]
pub(crate) struct SeriesState {
    /// `namespace/name` of the Event written for the first occurrence.
    pub(crate) event: Option<(String, String)>,
    /// Occurrences so far.
    pub(crate) count: i32,
}

/// A slot: locked while its Event is written, so repeats of one key are
/// written in order.
pub(crate) type Slot = Arc<tokio::sync::Mutex<SeriesState>>;

struct Entry {
    slot: Slot,
    last_seen: Instant,
    stamp: u64,
}

/// The series cache.
pub(crate) struct SeriesCache {
    window: Duration,
    capacity: usize,
    entries: HashMap<SeriesId, Entry>,
    /// Use stamps, oldest first, for LRU eviction.
    order: BTreeMap<u64, SeriesId>,
    next_stamp: u64,
}

impl SeriesCache {
    /// A cache keeping series alive for `window` after their last
    /// occurrence, with at most `capacity` series (at least one).
    pub(crate) fn new(window: Duration, capacity: usize) -> Self {
        SeriesCache {
            window,
            capacity: capacity.max(1),
            entries: HashMap::new(),
            order: BTreeMap::new(),
            next_stamp: 0,
        }
    }

    /// The slot of `key` at `now`: the existing one if its last occurrence
    /// is within the window, else a fresh one (a new series).
    pub(crate) fn slot(&mut self, key: &EventKey, now: Instant) -> Slot {
        let key = key.id();
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        if let Some(entry) = self.entries.get_mut(&key) {
            self.order.remove(&entry.stamp);
            if now.saturating_duration_since(entry.last_seen) > self.window {
                entry.slot = Slot::default();
            }
            entry.last_seen = now;
            entry.stamp = stamp;
            self.order.insert(stamp, key);
            return entry.slot.clone();
        }
        self.evict(now);
        let slot = Slot::default();
        self.order.insert(stamp, key.clone());
        self.entries.insert(
            key,
            Entry {
                slot: slot.clone(),
                last_seen: now,
                stamp,
            },
        );
        slot
    }

    /// Drops expired series, then the least recently used ones until there
    /// is room for one more. Use stamps follow time, so expired series are
    /// all at the front of the use order.
    fn evict(&mut self, now: Instant) {
        while let Some((_, key)) = self.order.first_key_value() {
            let Some(entry) = self.entries.get(key) else {
                break;
            };
            let expired = now.saturating_duration_since(entry.last_seen) > self.window;
            if !expired && self.entries.len() < self.capacity {
                break;
            }
            if let Some((_, key)) = self.order.pop_first() {
                self.entries.remove(&key);
            }
        }
    }

    /// The number of live series.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
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
        let base = key("a", "1", "n");
        assert_eq!(base.id(), key("a", "9", "n").id());
        // Strings whose concatenations agree: the length prefixes and
        // presence bytes keep them apart.
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
            // Lengths of one, two and three LEB128 bytes.
            moved(|k| k.note = "x".repeat(127)),
            moved(|k| k.note = "x".repeat(128)),
            moved(|k| k.note = "x".repeat(16_384)),
            moved(|k| {
                k.action = "x".repeat(128);
                k.note = String::new();
            }),
        ];
        for (i, a) in variants.iter().enumerate() {
            assert_ne!(a.id(), base.id(), "variant {i}");
            for (j, b) in variants.iter().enumerate() {
                assert_eq!(a == b, a.id() == b.id(), "variants {i} and {j}");
            }
        }
    }

    #[test]
    fn an_id_is_its_strings_and_a_byte_for_each() {
        let key = key("web-1234", "1", "created Deployment web-1234");
        let strings = ["v1", "ConfigMap", "ns", "web-1234", "uid-web-1234"];
        let text: usize = strings.iter().map(|s| s.len()).sum::<usize>()
            + "Synced".len()
            + "Reconcile".len()
            + "created Deployment web-1234".len();
        // Five present strings (presence byte and length byte each), the
        // absent field path, the absent related object, the type, and
        // three strings with a length byte.
        assert_eq!(key.id().0.len(), text + 5 * 2 + 1 + 1 + 1 + 3);
    }

    #[test]
    fn repeats_within_the_window_share_a_slot() {
        let t0 = Instant::now();
        let mut cache = SeriesCache::new(Duration::from_secs(60), 10);
        let first = cache.slot(&key("a", "1", "n"), t0);
        let repeat = cache.slot(&key("a", "7", "n"), t0 + Duration::from_secs(59));
        assert!(Arc::ptr_eq(&first, &repeat));
        // The window counts from the last occurrence, not the first.
        let later = cache.slot(&key("a", "7", "n"), t0 + Duration::from_secs(118));
        assert!(Arc::ptr_eq(&first, &later));
        let other = cache.slot(&key("a", "1", "different"), t0);
        assert!(!Arc::ptr_eq(&first, &other));
        // After a silent window, a new series starts.
        let fresh = cache.slot(&key("a", "1", "n"), t0 + Duration::from_secs(179));
        assert!(!Arc::ptr_eq(&first, &fresh));
    }

    #[test]
    fn memory_is_bounded_by_expiry_and_lru() {
        let t0 = Instant::now();
        let mut cache = SeriesCache::new(Duration::from_secs(60), 3);
        let a = cache.slot(&key("a", "1", ""), t0);
        cache.slot(&key("b", "1", ""), t0);
        cache.slot(&key("c", "1", ""), t0);
        // Touch a, so b is the least recently used.
        assert!(Arc::ptr_eq(&a, &cache.slot(&key("a", "1", ""), t0)));
        cache.slot(&key("d", "1", ""), t0);
        assert_eq!(cache.len(), 3);
        assert!(Arc::ptr_eq(&a, &cache.slot(&key("a", "1", ""), t0)));
        let b = cache.slot(&key("b", "1", ""), t0);
        assert_eq!(cache.len(), 3);
        // Everything expires after the window.
        cache.slot(&key("e", "1", ""), t0 + Duration::from_secs(120));
        assert_eq!(cache.len(), 1);
        assert!(!Arc::ptr_eq(
            &b,
            &cache.slot(&key("b", "1", ""), t0 + Duration::from_secs(120))
        ));
        for i in 0..1000 {
            cache.slot(
                &key(&format!("k{i}"), "1", ""),
                t0 + Duration::from_secs(120),
            );
        }
        assert_eq!(cache.len(), 3);
    }
}

//! Unit tests of the indexed cache.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::*;
use crate::store::{WorkingSet, by_label, by_owner_uid};

fn cm(ns: &str, name: &str, rv: &str, labels: &[(&str, &str)]) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            namespace: Some(ns.into()),
            name: Some(name.into()),
            resource_version: Some(rv.into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>(),
            ),
            ..Default::default()
        },
        ..Default::default()
    })
}

/// Replaces the store's contents, asking for the notifications.
fn replace(store: &Store<ConfigMap>, objects: Vec<Arc<ConfigMap>>) -> Vec<Notification<ConfigMap>> {
    store.replace(objects.iter().map(|o| store.stage(o)).collect(), true)
}

/// A store of each kind, for tests that hold for all: decoded, compact
/// with the default working set, compact with a working set of two (which
/// most objects miss) and compact decoding every read.
fn both() -> [Store<ConfigMap>; 4] {
    [
        Store::new(),
        Store::compact(),
        Store::compact_with(WorkingSet::Fixed(2)),
        Store::compact_with(WorkingSet::Fixed(0)),
    ]
}

/// A compact rendering of changes: `+ns/name@rv`, `~ns/name@old->new`,
/// `-ns/name@rv` (known) or `?ns/name@rv` (final state unknown).
fn render(changes: &[Notification<ConfigMap>]) -> Vec<String> {
    let rv = |c: &ConfigMap| c.metadata.resource_version.clone().unwrap_or_default();
    changes
        .iter()
        .map(|c| match c {
            Notification::Add(o) => format!("+{}@{}", ObjectKey::of(&**o), rv(o)),
            Notification::Update(a, b) => {
                format!("~{}@{}->{}", ObjectKey::of(&**b), rv(a), rv(b))
            }
            Notification::Delete(DeletedObject::Known(o)) => {
                format!("-{}@{}", ObjectKey::of(&**o), rv(o))
            }
            Notification::Delete(DeletedObject::FinalStateUnknown { key, last_known }) => {
                format!("?{key}@{}", rv(last_known))
            }
        })
        .collect()
}

#[test]
fn apply_adds_then_updates_and_skips_repeats() {
    for store in both() {
        let add = store.apply(cm("a", "x", "1", &[]));
        assert_eq!(render(&[add.unwrap()]), ["+a/x@1"]);
        assert!(
            store.apply(cm("a", "x", "1", &[])).is_none(),
            "same resourceVersion is a repeat"
        );
        let update = store.apply(cm("a", "x", "2", &[]));
        assert_eq!(render(&[update.unwrap()]), ["~a/x@1->2"]);
        assert_eq!(store.len(), 1);
        assert_eq!(
            store
                .get(&ObjectKey::namespaced("a", "x"))
                .unwrap()
                .metadata
                .resource_version
                .as_deref(),
            Some("2")
        );
    }
}

#[test]
fn delete_reports_final_state_once() {
    for store in both() {
        store.apply(cm("a", "x", "1", &[]));
        let gone = store.delete(cm("a", "x", "5", &[]));
        assert_eq!(render(&[gone.unwrap()]), ["-a/x@5"]);
        assert!(
            store.delete(cm("a", "x", "5", &[])).is_none(),
            "no second delete"
        );
        assert!(store.is_empty());
        assert!(store.index_values(NAMESPACE_INDEX).unwrap().is_empty());
    }
}

#[test]
fn replace_diffs_against_the_cache() {
    for store in both() {
        let initial = replace(
            &store,
            vec![
                cm("a", "same", "1", &[]),
                cm("a", "changed", "1", &[]),
                cm("b", "gone", "1", &[]),
            ],
        );
        assert_eq!(render(&initial), ["+a/same@1", "+a/changed@1", "+b/gone@1"]);
        let cached_same = store.get(&ObjectKey::namespaced("a", "same")).unwrap();

        let changes = replace(
            &store,
            vec![
                cm("a", "changed", "7", &[]),
                cm("a", "same", "1", &[]),
                cm("c", "new", "8", &[]),
            ],
        );
        assert_eq!(
            render(&changes),
            ["~a/changed@1->7", "+c/new@8", "?b/gone@1"]
        );
        let mut keys = store.keys();
        keys.sort();
        assert_eq!(
            keys,
            [
                ObjectKey::namespaced("a", "changed"),
                ObjectKey::namespaced("a", "same"),
                ObjectKey::namespaced("c", "new")
            ]
        );
        // An unchanged object keeps its cached entry (no copy, no event):
        // the same Arc (in a compact store, from its working set), or in a
        // compact store without one the same content.
        let now_same = store.get(&ObjectKey::namespaced("a", "same")).unwrap();
        assert_eq!(
            Arc::ptr_eq(&cached_same, &now_same),
            !store.is_compact() || store.working_set_len() > 0
        );
        assert_eq!(cached_same, now_same);
        assert_eq!(store.index_values(NAMESPACE_INDEX).unwrap(), ["a", "c"]);
        assert!(
            replace(&store, Vec::new())
                .iter()
                .all(|c| matches!(c, Notification::Delete(d) if d.is_final_state_unknown()))
        );
        assert!(store.is_empty());
        assert!(store.index_values(NAMESPACE_INDEX).unwrap().is_empty());
    }
}

#[test]
fn replace_without_notifications_still_indexes() {
    for store in both() {
        store.add_indexer("app", by_label("app")).unwrap();
        let stage = |objects: &[Arc<ConfigMap>]| objects.iter().map(|o| store.stage(o)).collect();
        let first = [
            cm("a", "x", "1", &[("app", "web")]),
            cm("b", "y", "1", &[("app", "web")]),
        ];
        assert!(store.replace(stage(&first), false).is_empty());
        assert_eq!(store.index_values(NAMESPACE_INDEX).unwrap(), ["a", "b"]);
        assert_eq!(store.index_keys("app", "web").unwrap().len(), 2);
        // x relabelled, y gone, z new.
        let second = [
            cm("a", "x", "2", &[("app", "db")]),
            cm("c", "z", "1", &[("app", "web")]),
        ];
        assert!(store.replace(stage(&second), false).is_empty());
        assert_eq!(store.index_values(NAMESPACE_INDEX).unwrap(), ["a", "c"]);
        assert_eq!(
            store.index_keys("app", "web").unwrap(),
            [ObjectKey::namespaced("c", "z")]
        );
        assert_eq!(
            store.index_keys("app", "db").unwrap(),
            [ObjectKey::namespaced("a", "x")]
        );
        assert_eq!(
            store.get(&ObjectKey::namespaced("a", "x")).unwrap(),
            second[0]
        );
    }
}

#[test]
fn replace_with_a_key_listed_twice_keeps_the_later_entry() {
    for store in both() {
        let changes = replace(&store, vec![cm("a", "x", "1", &[]), cm("a", "x", "2", &[])]);
        assert_eq!(render(&changes), ["+a/x@1", "~a/x@1->2"]);
        assert_eq!(store.len(), 1);
    }
}

#[test]
fn indexes_follow_updates_and_deletes() {
    for store in both() {
        store.add_indexer("app", by_label("app")).unwrap();
        assert!(
            store.add_indexer("app", by_label("app")).unwrap_err()
                == CacheError::IndexExists {
                    index: "app".into()
                }
        );
        store.apply(cm("a", "x", "1", &[("app", "web")]));
        store.apply(cm("b", "y", "1", &[("app", "web")]));
        store.apply(cm("b", "z", "1", &[("app", "db")]));
        assert_eq!(
            store.index_keys("app", "web").unwrap(),
            [
                ObjectKey::namespaced("a", "x"),
                ObjectKey::namespaced("b", "y")
            ]
        );
        assert_eq!(store.by_index(NAMESPACE_INDEX, "b").unwrap().len(), 2);

        // Relabelling moves the object out of its old index value.
        store.apply(cm("a", "x", "2", &[("app", "db")]));
        assert_eq!(
            store.index_keys("app", "web").unwrap(),
            [ObjectKey::namespaced("b", "y")]
        );
        assert_eq!(store.index_values("app").unwrap(), ["db", "web"]);
        // Dropping the label removes it from the index entirely.
        store.apply(cm("b", "y", "2", &[]));
        assert_eq!(store.index_values("app").unwrap(), ["db"]);
        store.delete(cm("b", "z", "2", &[]));
        assert_eq!(
            store.index_keys("app", "db").unwrap(),
            [ObjectKey::namespaced("a", "x")]
        );
        assert_eq!(store.index_values(NAMESPACE_INDEX).unwrap(), ["a", "b"]);
        assert!(
            store.by_index("nope", "x").unwrap_err()
                == CacheError::IndexNotFound {
                    index: "nope".into()
                }
        );
    }
}

#[test]
fn indexer_added_late_indexes_cached_objects() {
    for store in both() {
        let mut owned = (*cm("a", "x", "1", &[])).clone();
        owned.metadata.owner_references = Some(vec![
            k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                uid: "u-1".into(),
                ..Default::default()
            },
        ]);
        store.apply(Arc::new(owned));
        store.apply(cm("a", "y", "1", &[]));
        store.add_indexer("owner", by_owner_uid()).unwrap();
        assert_eq!(
            store.index_keys("owner", "u-1").unwrap(),
            [ObjectKey::namespaced("a", "x")]
        );
        assert_eq!(store.index_names(), ["namespace", "owner"]);
    }
}

#[test]
fn multi_valued_indexes_deduplicate() {
    for store in both() {
        let keys = crate::store::by_field(|c: &ConfigMap| {
            c.data
                .iter()
                .flat_map(|d| d.values().cloned())
                .collect::<Vec<_>>()
        });
        store.add_indexer("values", keys).unwrap();
        let mut obj = (*cm("a", "x", "1", &[])).clone();
        obj.data = Some(BTreeMap::from([
            ("k1".into(), "v".into()),
            ("k2".into(), "v".into()),
            ("k3".into(), "w".into()),
        ]));
        store.apply(Arc::new(obj.clone()));
        assert_eq!(store.index_values("values").unwrap(), ["v", "w"]);
        obj.metadata.resource_version = Some("2".into());
        obj.data = Some(BTreeMap::from([("k1".into(), "w".into())]));
        store.apply(Arc::new(obj));
        assert_eq!(store.index_values("values").unwrap(), ["w"]);
    }
}

#[test]
fn a_compact_store_reads_back_equal_objects_as_fresh_arcs() {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry};
    let store = Store::<ConfigMap>::compact_with(WorkingSet::Fixed(0));
    assert!(store.is_compact() && !Store::<ConfigMap>::new().is_compact());
    let mut obj = (*cm("a", "x", "1", &[("app", "web")])).clone();
    obj.data = Some(BTreeMap::from([("k".into(), "v \"quoted\" \u{e9}".into())]));
    obj.metadata.managed_fields = Some(vec![ManagedFieldsEntry {
        manager: Some("kubectl".into()),
        fields_v1: Some(FieldsV1(serde_json::json!({"f:data": {"f:k": {}}}))),
        ..Default::default()
    }]);
    let applied = Arc::new(obj.clone());
    store.apply(applied.clone());
    let key = ObjectKey::namespaced("a", "x");
    let first = store.get(&key).unwrap();
    let second = store.get(&key).unwrap();
    assert_eq!(*first, obj);
    assert!(!Arc::ptr_eq(&first, &applied) && !Arc::ptr_eq(&first, &second));
    assert_eq!(store.list(), [Arc::new(obj.clone())]);
    assert_eq!(store.by_index(NAMESPACE_INDEX, "a").unwrap().len(), 1);
    // The previous state of an update is the cached one, decoded.
    let mut next = obj.clone();
    next.metadata.resource_version = Some("2".into());
    next.data = None;
    match store.apply(Arc::new(next.clone())) {
        Some(Notification::Update(old, new)) => {
            assert_eq!((&*old, &*new), (&obj, &next));
        }
        other => panic!("expected an update, got {other:?}"),
    }
}

/// A resource whose `Serialize` leaves out a field its `Deserialize`
/// requires: its JSON cannot be decoded back.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct OneWay {
    metadata: ObjectMeta,
    #[serde(skip_serializing)]
    token: String,
}

impl Resource for OneWay {
    type DynamicType = ();
    type Scope = k8s_openapi::NamespaceResourceScope;

    fn kind(_: &()) -> std::borrow::Cow<'_, str> {
        "OneWay".into()
    }

    fn group(_: &()) -> std::borrow::Cow<'_, str> {
        "example.com".into()
    }

    fn version(_: &()) -> std::borrow::Cow<'_, str> {
        "v1".into()
    }

    fn plural(_: &()) -> std::borrow::Cow<'_, str> {
        "oneways".into()
    }

    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[test]
fn a_compact_store_keeps_decoded_what_its_json_cannot_hold() {
    let store = Store::<OneWay>::compact();
    let obj = Arc::new(OneWay {
        metadata: ObjectMeta {
            namespace: Some("a".into()),
            name: Some("x".into()),
            resource_version: Some("1".into()),
            ..Default::default()
        },
        token: "kept".into(),
    });
    store.apply(obj.clone());
    let cached = store.get(&ObjectKey::namespaced("a", "x")).unwrap();
    assert!(Arc::ptr_eq(&cached, &obj), "kept as the decoded object");
    assert_eq!(cached.token, "kept");
    // Kept decoded anyway, it takes no place in the working set.
    assert_eq!(store.working_set_len(), 0);
}

/// The resourceVersion of the object under `name` in namespace `a`.
fn version(store: &Store<ConfigMap>, name: &str) -> Option<String> {
    store
        .get(&ObjectKey::namespaced("a", name))
        .map(|cm| cm.metadata.resource_version.clone().unwrap_or_default())
}

#[test]
fn the_working_set_hands_out_kept_objects_and_follows_every_change() {
    let store = Store::<ConfigMap>::compact_with(WorkingSet::Fixed(4));
    let key = ObjectKey::namespaced("a", "x");
    // A delivered object is kept: reads share it.
    let applied = cm("a", "x", "1", &[]);
    store.apply(applied.clone());
    assert!(Arc::ptr_eq(&store.get(&key).unwrap(), &applied));
    // An update replaces what is kept, and the update's old state is it.
    match store.apply(cm("a", "x", "2", &[])) {
        Some(Notification::Update(old, _)) => assert!(Arc::ptr_eq(&old, &applied)),
        other => panic!("expected an update, got {other:?}"),
    }
    assert_eq!(version(&store, "x").as_deref(), Some("2"));
    // A relist with a new version: the kept copy goes with the old entry.
    let first = store.get(&key).unwrap();
    replace(&store, vec![cm("a", "x", "3", &[])]);
    assert_eq!(version(&store, "x").as_deref(), Some("3"));
    assert!(!Arc::ptr_eq(&first, &store.get(&key).unwrap()));
    // A delete forgets it.
    store.delete(cm("a", "x", "3", &[]));
    assert_eq!(version(&store, "x"), None);
    assert_eq!(store.working_set_len(), 0);
}

#[test]
fn the_working_set_stays_within_its_bound_and_keeps_what_is_read_again() {
    // Reads cycling through exactly the bound's number of objects always
    // find them once they have been read.
    let store = Store::<ConfigMap>::compact_with(WorkingSet::Fixed(10));
    replace(
        &store,
        (0..10)
            .map(|i| cm("a", &format!("o{i}"), "1", &[]))
            .collect(),
    );
    let first: Vec<_> = (0..10)
        .map(|i| {
            store
                .get(&ObjectKey::namespaced("a", format!("o{i}")))
                .unwrap()
        })
        .collect();
    for (i, obj) in first.iter().enumerate() {
        let again = store
            .get(&ObjectKey::namespaced("a", format!("o{i}")))
            .unwrap();
        assert!(Arc::ptr_eq(obj, &again), "o{i} dropped");
    }

    let store = Store::<ConfigMap>::compact_with(WorkingSet::Fixed(4));
    replace(
        &store,
        (0..100)
            .map(|i| cm("a", &format!("o{i}"), "1", &[]))
            .collect(),
    );
    // A relist keeps nothing decoded, and a list keeps nothing either (a
    // scan does not flush what reconcilers read).
    assert_eq!(store.working_set_len(), 0);
    assert_eq!(store.list().len(), 100);
    assert_eq!(store.working_set_len(), 0);
    let hot = store.get(&ObjectKey::namespaced("a", "o7")).unwrap();
    for i in 0..100 {
        version(&store, &format!("o{i}"));
        // o7, read after every other read, is never dropped.
        let again = store.get(&ObjectKey::namespaced("a", "o7")).unwrap();
        assert!(Arc::ptr_eq(&hot, &again), "o7 dropped after o{i}");
        assert!(store.working_set_len() <= 4);
    }
    // A list hands out what is kept.
    assert!(store.list().iter().any(|obj| Arc::ptr_eq(obj, &hot)));
}

#[test]
fn the_default_working_set_is_a_tenth_of_the_cache_and_at_least_64() {
    assert_eq!(WorkingSet::Auto.capacity(10), 64);
    assert_eq!(WorkingSet::Auto.capacity(10_000), 1_000);
    assert_eq!(WorkingSet::Fixed(3).capacity(10_000), 3);
    let store = Store::<ConfigMap>::compact();
    for i in 0..1_000 {
        store.apply(cm("a", &format!("o{i}"), "1", &[]));
    }
    // Filled up to the bound the last object count gives.
    assert_eq!(store.working_set_len(), 100);
    // Without a working set, every read decodes afresh.
    let store = Store::<ConfigMap>::compact_with(WorkingSet::Fixed(0));
    store.apply(cm("a", "x", "1", &[]));
    let key = ObjectKey::namespaced("a", "x");
    assert!(!Arc::ptr_eq(
        &store.get(&key).unwrap(),
        &store.get(&key).unwrap()
    ));
}

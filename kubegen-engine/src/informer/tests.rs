//! Unit tests of the informer's event handling, fed with synthetic watcher
//! events (no cluster).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::watcher::Event;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use kubegen_client::api::ObjectMeta;
use kubegen_client::{Api, Client};
use parking_lot::Mutex;

use super::watch::{self, Relist};
use super::*;
use crate::store::ObjectKey;

fn client() -> Client {
    let config = kubegen_client::Config::new("http://127.0.0.1:9".parse().unwrap());
    Client::try_from(config).unwrap()
}

fn informer(config: InformerConfig<ConfigMap>) -> Informer<ConfigMap> {
    let informer = Informer::new(Api::all(client()), config);
    // Run the handler tasks without starting the watch.
    informer
        .shared()
        .processor
        .lock()
        .start(tokio::runtime::Handle::current());
    informer
}

fn cm(name: &str, rv: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            namespace: Some("ns".into()),
            name: Some(name.into()),
            resource_version: Some(rv.into()),
            managed_fields: Some(vec![ManagedFieldsEntry {
                manager: Some("test".into()),
                ..Default::default()
            }]),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Records what a handler saw as `+name@rv`, `~name@old->new`, `-name@rv`
/// and `?name@rv` (final state unknown).
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

fn rv(c: &ConfigMap) -> String {
    c.metadata.resource_version.clone().unwrap_or_default()
}

fn name(c: &ConfigMap) -> String {
    c.metadata.name.clone().unwrap_or_default()
}

impl EventHandler<ConfigMap> for Recorder {
    fn on_add(&self, obj: Arc<ConfigMap>) {
        self.0.lock().push(format!("+{}@{}", name(&obj), rv(&obj)));
    }
    fn on_update(&self, old: Arc<ConfigMap>, new: Arc<ConfigMap>) {
        self.0
            .lock()
            .push(format!("~{}@{}->{}", name(&new), rv(&old), rv(&new)));
    }
    fn on_delete(&self, obj: DeletedObject<ConfigMap>) {
        let sign = if obj.is_final_state_unknown() {
            '?'
        } else {
            '-'
        };
        self.0
            .lock()
            .push(format!("{sign}{}@{}", name(obj.object()), rv(obj.object())));
    }
}

impl Recorder {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock())
    }
}

fn feed(
    informer: &Informer<ConfigMap>,
    relist: &mut Relist<ConfigMap>,
    events: Vec<Event<ConfigMap>>,
) {
    for event in events {
        informer.shared().on_event(event, relist);
    }
}

fn list(objects: &[ConfigMap]) -> Vec<Event<ConfigMap>> {
    let mut events = vec![Event::Init];
    events.extend(objects.iter().cloned().map(Event::InitApply));
    events.push(Event::InitDone);
    events
}

#[tokio::test]
async fn list_then_watch_events_reach_handlers_in_order() {
    let informer = informer(InformerConfig::default());
    let recorder = Recorder::default();
    let registration = informer.add_event_handler(recorder.clone());
    let mut relist = Relist::default();
    assert!(!informer.has_synced());
    feed(&informer, &mut relist, list(&[cm("a", "1"), cm("b", "1")]));
    assert!(informer.has_synced());
    assert!(informer.wait_for_cache_sync().await);
    feed(
        &informer,
        &mut relist,
        vec![
            Event::Apply(cm("a", "2")),
            Event::Apply(cm("c", "3")),
            Event::Apply(cm("a", "2")), // a repeat: no event
            Event::Delete(cm("b", "4")),
            Event::Delete(cm("b", "4")), // already gone: no event
            Event::Apply(cm("a", "5")),
        ],
    );
    informer.shutdown().await;
    assert!(registration.has_synced());
    assert_eq!(
        recorder.take(),
        ["+a@1", "+b@1", "~a@1->2", "+c@3", "-b@4", "~a@2->5"]
    );
    let lister = informer.lister();
    assert_eq!(rv(&lister.namespace("ns").get("a").unwrap()), "5");
    assert!(lister.namespace("ns").get("b").unwrap_err().is_not_found());
}

#[tokio::test]
async fn relist_emits_only_the_difference() {
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = InformerMetrics::register(&mut registry);
    let informer = informer(InformerConfig::default().metrics(metrics.clone()));
    let recorder = Recorder::default();
    informer.add_event_handler(recorder.clone());
    let mut relist = Relist::default();
    feed(
        &informer,
        &mut relist,
        list(&[cm("same", "1"), cm("changed", "1"), cm("gone", "1")]),
    );
    assert_eq!(metrics.relists("v1/ConfigMap"), 0);
    // The watch broke; meanwhile `changed` changed, `gone` was deleted and
    // `new` created. An aborted list (Init without InitDone) is discarded.
    feed(
        &informer,
        &mut relist,
        vec![Event::Init, Event::InitApply(cm("junk", "9"))],
    );
    feed(
        &informer,
        &mut relist,
        list(&[cm("changed", "7"), cm("same", "1"), cm("new", "8")]),
    );
    informer.shutdown().await;
    assert_eq!(
        recorder.take(),
        [
            "+same@1",
            "+changed@1",
            "+gone@1",
            "~changed@1->7",
            "+new@8",
            "?gone@1"
        ]
    );
    assert_eq!(metrics.relists("v1/ConfigMap"), 2);
    assert_eq!(metrics.store_objects("v1/ConfigMap"), 3);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    assert!(
        text.contains("kubegen_informer_store_objects{resource=\"v1/ConfigMap\"} 3"),
        "{text}"
    );
    assert!(
        text.contains("kubegen_informer_relists_total{resource=\"v1/ConfigMap\"} 2"),
        "{text}"
    );
}

#[tokio::test]
async fn late_handler_gets_the_cache_then_later_changes() {
    let informer = informer(InformerConfig::default());
    let early = Recorder::default();
    informer.add_event_handler(early.clone());
    let mut relist = Relist::default();
    feed(&informer, &mut relist, list(&[cm("a", "1"), cm("b", "1")]));
    feed(&informer, &mut relist, vec![Event::Apply(cm("a", "2"))]);
    let late = Recorder::default();
    let registration = informer.add_event_handler(late.clone());
    feed(
        &informer,
        &mut relist,
        vec![Event::Delete(cm("b", "3")), Event::Apply(cm("c", "4"))],
    );
    informer.shutdown().await;
    assert!(registration.has_synced());
    let mut initial = late.take();
    let later = initial.split_off(2);
    initial.sort();
    assert_eq!(initial, ["+a@2", "+b@1"]);
    assert_eq!(later, ["-b@3", "+c@4"]);
    assert_eq!(early.take(), ["+a@1", "+b@1", "~a@1->2", "-b@3", "+c@4"]);
}

/// Handlers registered while another thread changes the cache each see a
/// consistent history: replaying it gives exactly the final cache, with no
/// add of a known object and no update or delete of an unknown one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_added_concurrently_lose_and_repeat_nothing() {
    let informer = informer(InformerConfig::default());
    let mut relist = Relist::default();
    feed(&informer, &mut relist, list(&[cm("seed", "1")]));
    let feeder = {
        let informer = informer.clone();
        std::thread::spawn(move || {
            let mut relist = Relist::default();
            for i in 0..4000u32 {
                let name = format!("o{}", i % 37);
                let rv = (i + 10).to_string();
                let event = match i % 5 {
                    3 => Event::Delete(cm(&name, &rv)),
                    _ => Event::Apply(cm(&name, &rv)),
                };
                informer.shared().on_event(event, &mut relist);
                if i % 1000 == 999 {
                    let objects: Vec<ConfigMap> = (0..20)
                        .map(|j| cm(&format!("o{j}"), &(i + 10 + j).to_string()))
                        .collect();
                    for event in list(&objects) {
                        informer.shared().on_event(event, &mut relist);
                    }
                }
            }
        })
    };
    let mut recorders = Vec::new();
    for _ in 0..20 {
        let recorder = Recorder::default();
        informer.add_event_handler(recorder.clone());
        recorders.push(recorder);
        tokio::time::sleep(std::time::Duration::from_micros(300)).await;
    }
    feeder.join().unwrap();
    informer.shutdown().await;
    let mut expected: Vec<(String, String)> = informer
        .store()
        .list()
        .iter()
        .map(|c| (name(c), rv(c)))
        .collect();
    expected.sort();
    for recorder in recorders {
        let mut state = std::collections::BTreeMap::<String, String>::new();
        for event in recorder.take() {
            let (kind, rest) = event.split_at(1);
            let (obj, versions) = rest.split_once('@').unwrap();
            let latest = versions.rsplit("->").next().unwrap().to_string();
            match kind {
                "+" => assert!(
                    state.insert(obj.into(), latest).is_none(),
                    "add of known {obj}"
                ),
                "~" => assert!(
                    state.insert(obj.into(), latest).is_some(),
                    "update of unknown {obj}"
                ),
                _ => assert!(state.remove(obj).is_some(), "delete of unknown {obj}"),
            }
        }
        let replayed: Vec<(String, String)> = state.into_iter().collect();
        assert_eq!(replayed, expected);
    }
}

#[tokio::test]
async fn transforms_apply_before_caching() {
    let mut relist = Relist::default();
    let stripped = informer(InformerConfig::default());
    feed(&stripped, &mut relist, list(&[cm("a", "1")]));
    let cached = stripped
        .store()
        .get(&ObjectKey::namespaced("ns", "a"))
        .unwrap();
    assert!(
        cached.metadata.managed_fields.is_none(),
        "managedFields dropped by default"
    );

    let mut relist = Relist::default();
    let kept = informer(InformerConfig::default().no_transform());
    feed(&kept, &mut relist, list(&[cm("a", "1")]));
    let cached = kept.store().get(&ObjectKey::namespaced("ns", "a")).unwrap();
    assert_eq!(
        cached.metadata.managed_fields.as_ref().map(Vec::len),
        Some(1)
    );

    let mut relist = Relist::default();
    let custom = informer(InformerConfig::default().transform(|c: &mut ConfigMap| {
        c.metadata.labels = Some([("seen".to_string(), "yes".to_string())].into());
    }));
    let recorder = Recorder::default();
    custom.add_event_handler(HandlerFns::new().on_delete({
        let recorder = recorder.clone();
        move |gone: DeletedObject<ConfigMap>| {
            let labels = gone.object().metadata.labels.clone().unwrap_or_default();
            recorder
                .0
                .lock()
                .push(format!("deleted seen={}", labels["seen"]));
        }
    }));
    feed(&custom, &mut relist, list(&[cm("a", "1")]));
    feed(&custom, &mut relist, vec![Event::Delete(cm("a", "2"))]);
    custom.shutdown().await;
    assert_eq!(recorder.take(), ["deleted seen=yes"]);
}

#[tokio::test]
async fn resync_redelivers_every_cached_object() {
    let informer = informer(InformerConfig::default());
    let recorder = Recorder::default();
    let mut relist = Relist::default();
    informer.shared().resync(); // not synced yet: nothing
    feed(&informer, &mut relist, list(&[cm("a", "1"), cm("b", "2")]));
    informer.add_event_handler(recorder.clone());
    informer.shared().resync();
    informer.shutdown().await;
    let mut seen = recorder.take();
    seen.sort();
    assert_eq!(seen, ["+a@1", "+b@2", "~a@1->1", "~b@2->2"]);
}

#[tokio::test]
async fn a_panicking_handler_keeps_receiving_events() {
    let informer = informer(InformerConfig::default());
    let calls = Arc::new(AtomicUsize::new(0));
    informer.add_event_handler(HandlerFns::new().on_add({
        let calls = calls.clone();
        move |_obj: Arc<ConfigMap>| {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                panic!("first add panics");
            }
        }
    }));
    let mut relist = Relist::default();
    feed(
        &informer,
        &mut relist,
        list(&[cm("a", "1"), cm("b", "1"), cm("c", "1")]),
    );
    informer.shutdown().await;
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn wait_for_cache_sync_ends_false_on_shutdown() {
    let informer = informer(InformerConfig::default());
    let waiter = tokio::spawn({
        let informer = informer.clone();
        async move { informer.wait_for_cache_sync().await }
    });
    informer.shutdown().await;
    assert!(!waiter.await.unwrap());
    assert!(!informer.has_synced());
    informer.start(); // after shutdown: nothing
    assert!(!informer.is_started());
}

#[test]
fn resource_names() {
    assert_eq!(resource_name::<ConfigMap>(&()), "v1/ConfigMap");
    assert_eq!(
        resource_name::<k8s_openapi::api::apps::v1::Deployment>(&()),
        "apps/v1/Deployment"
    );
    assert_eq!(
        resource_name::<PartialObjectMeta<ConfigMap>>(&()),
        "v1/ConfigMap#metadata"
    );
}

/// Tells initial adds (`*`) from later ones (`+`).
#[derive(Clone, Default)]
struct InitialRecorder(Arc<Mutex<Vec<String>>>);

impl EventHandler<ConfigMap> for InitialRecorder {
    fn on_add(&self, obj: Arc<ConfigMap>) {
        self.0.lock().push(format!("+{}@{}", name(&obj), rv(&obj)));
    }
    fn on_initial_add(&self, obj: Arc<ConfigMap>) {
        self.0.lock().push(format!("*{}@{}", name(&obj), rv(&obj)));
    }
}

/// client-go's `isInInitialList`: the first list's adds, and the cache
/// replayed to a handler registered late, are initial; watch events and
/// the adds of a later relist are not.
#[tokio::test]
async fn initial_adds_are_told_from_later_ones() {
    let informer = informer(InformerConfig::default());
    let early = InitialRecorder::default();
    informer.add_event_handler(early.clone());
    let mut relist = Relist::default();
    feed(&informer, &mut relist, list(&[cm("a", "1"), cm("b", "1")]));
    feed(&informer, &mut relist, vec![Event::Apply(cm("c", "2"))]);
    let late = InitialRecorder::default();
    informer.add_event_handler(late.clone());
    feed(&informer, &mut relist, vec![Event::Apply(cm("d", "3"))]);
    // The watch broke; the relist finds `e` created meanwhile.
    feed(
        &informer,
        &mut relist,
        list(&[
            cm("a", "1"),
            cm("b", "1"),
            cm("c", "2"),
            cm("d", "3"),
            cm("e", "4"),
        ]),
    );
    informer.shutdown().await;
    assert_eq!(
        std::mem::take(&mut *early.0.lock()),
        ["*a@1", "*b@1", "+c@2", "+d@3", "+e@4"]
    );
    let mut replayed = std::mem::take(&mut *late.0.lock());
    replayed[..3].sort();
    assert_eq!(replayed, ["*a@1", "*b@1", "*c@2", "+d@3", "+e@4"]);
}

#[test]
fn only_a_refused_watch_start_means_no_streaming_lists() {
    use crate::informer::watcher::Error;
    use kubegen_client::core::Status;
    let api = |code: u16| {
        let mut status = Status::failure("refused", "Invalid");
        status.code = code;
        kubegen_client::Error::Api(status.boxed())
    };
    let status = |code: u16| {
        let mut status = Status::failure("gone", "Expired");
        status.code = code;
        status.boxed()
    };
    assert!(watch::rejects_streaming_list(&Error::WatchStartFailed(
        api(422)
    )));
    assert!(watch::rejects_streaming_list(&Error::WatchStartFailed(
        api(400)
    )));
    for code in [403, 410, 429, 500, 503] {
        assert!(
            !watch::rejects_streaming_list(&Error::WatchStartFailed(api(code))),
            "{code}"
        );
    }
    // A list or a running watch failing says nothing about streaming.
    assert!(!watch::rejects_streaming_list(&Error::InitialListFailed(
        api(422)
    )));
    assert!(!watch::rejects_streaming_list(&Error::WatchFailed(api(
        422
    ))));
    assert!(!watch::rejects_streaming_list(&Error::WatchError(status(
        410
    ))));
    assert!(!watch::rejects_streaming_list(&Error::NoResourceVersion));
}

#[test]
fn only_a_406_at_the_start_sends_the_informer_back_to_json() {
    use crate::informer::watcher::Error;
    use kubegen_client::core::Status;
    let api = |code| {
        kubegen_client::Error::Api(
            Status::failure("no", "NotAcceptable")
                .with_code(code)
                .boxed(),
        )
    };
    assert!(watch::rejects_protobuf(&Error::WatchStartFailed(api(406))));
    assert!(watch::rejects_protobuf(&Error::InitialListFailed(api(406))));
    for code in [400, 403, 410, 415, 422, 500] {
        assert!(
            !watch::rejects_protobuf(&Error::WatchStartFailed(api(code))),
            "{code}"
        );
        assert!(
            !watch::rejects_protobuf(&Error::InitialListFailed(api(code))),
            "{code}"
        );
    }
    assert!(!watch::rejects_protobuf(&Error::WatchFailed(api(406))));
    assert!(!watch::rejects_protobuf(&Error::WatchError(
        Status::failure("no", "NotAcceptable")
            .with_code(406)
            .boxed()
    )));
}

//! End-to-end tests of informers, listers and the shared informer factory
//! against a real control plane (kubegen-testenv).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen::ResourceExt;
use kubegen::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kubegen::core::PartialObjectMeta;
use kubegen::factory::SharedInformerFactory;
use kubegen::informer::{DeletedObject, EventHandler, Informer, InformerConfig, InformerMetrics};
use kubegen::lister::parse_selector;
use kubegen::store::{NAMESPACE_INDEX, ObjectKey, WorkingSet, by_label};
use kubegen_testenv::{TestEnv, eventually};
use parking_lot::Mutex;
use serde_json::json;

const LABEL: &str = "kubegen-test=informer";
const WAIT: Duration = Duration::from_secs(90);

fn configmap(name: &str, value: &str, labels: &[(&str, &str)]) -> ConfigMap {
    let mut all_labels: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    all_labels.insert("kubegen-test".into(), "informer".into());
    serde_json::from_value(json!({
        "metadata": { "name": name, "labels": all_labels },
        "data": { "v": value },
    }))
    .unwrap()
}

fn value(cm: &ConfigMap) -> String {
    cm.data
        .as_ref()
        .and_then(|d| d.get("v"))
        .cloned()
        .unwrap_or_default()
}

fn name(cm: &ConfigMap) -> String {
    cm.metadata.name.clone().unwrap_or_default()
}

/// Records every notification as `+name:v`, `~name:old->new`, `-name:v`
/// (delete seen by the watch) or `?name:v` (delete found by a relist).
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl EventHandler<ConfigMap> for Recorder {
    fn on_add(&self, obj: Arc<ConfigMap>) {
        self.0
            .lock()
            .push(format!("+{}:{}", name(&obj), value(&obj)));
    }
    fn on_update(&self, old: Arc<ConfigMap>, new: Arc<ConfigMap>) {
        self.0
            .lock()
            .push(format!("~{}:{}->{}", name(&new), value(&old), value(&new)));
    }
    fn on_delete(&self, obj: DeletedObject<ConfigMap>) {
        let sign = if obj.is_final_state_unknown() {
            '?'
        } else {
            '-'
        };
        let obj = obj.object();
        self.0
            .lock()
            .push(format!("{sign}{}:{}", name(obj), value(obj)));
    }
}

impl Recorder {
    fn events(&self) -> Vec<String> {
        self.0.lock().clone()
    }

    /// The events of one object, in order.
    fn events_of(&self, object: &str) -> Vec<String> {
        self.events()
            .into_iter()
            .filter(|e| e[1..].split(':').next() == Some(object))
            .collect()
    }

    /// Replays the events into name -> value, failing on an add of a known
    /// object or an update or delete of an unknown one.
    fn replay(&self) -> Result<BTreeMap<String, String>> {
        let mut state = BTreeMap::new();
        for event in self.events() {
            let (kind, rest) = event.split_at(1);
            let (obj, values) = rest.split_once(':').context("malformed event")?;
            let latest = values.rsplit("->").next().unwrap_or_default().to_string();
            let known = match kind {
                "+" => state.insert(obj.to_string(), latest).is_some(),
                "~" => state.insert(obj.to_string(), latest).is_none(),
                _ => state.remove(obj).is_none(),
            };
            ensure!(!known, "inconsistent event {event} in {:?}", self.events());
        }
        Ok(state)
    }
}

/// A namespaced ConfigMap informer restricted to the test label.
fn informer(
    client: kubegen::Client,
    ns: &str,
    config: InformerConfig<ConfigMap>,
) -> Informer<ConfigMap> {
    Informer::new(Api::namespaced(client, ns), config.labels(LABEL))
}

async fn synced(informer: &Informer<ConfigMap>) -> Result<()> {
    informer.start();
    ensure!(
        tokio::time::timeout(WAIT, informer.wait_for_cache_sync()).await?,
        "informer stopped before it synced"
    );
    Ok(())
}

/// The API's view: name -> value of the labelled ConfigMaps.
async fn api_state(api: &Api<ConfigMap>) -> Result<BTreeMap<String, String>> {
    let list = api.list(&ListParams::default().labels(LABEL)).await?;
    Ok(list.items.iter().map(|c| (name(c), value(c))).collect())
}

fn cache_state(informer: &Informer<ConfigMap>) -> BTreeMap<String, String> {
    informer
        .store()
        .list()
        .iter()
        .map(|c| (name(c), value(c)))
        .collect()
}

async fn set_value(api: &Api<ConfigMap>, name: &str, value: &str) -> Result<()> {
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({ "data": { "v": value } })),
    )
    .await?;
    Ok(())
}

#[tokio::test]
async fn syncs_5000_configmaps() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-bulk").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let begun = Instant::now();
    futures::stream::iter(0..5000)
        .map(|i| {
            let api = api.clone();
            async move {
                api.create(
                    &PostParams::default(),
                    &configmap(&format!("cm-{i:04}"), &i.to_string(), &[]),
                )
                .await
            }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<_>>()
        .await?;
    eprintln!("created 5000 ConfigMaps in {:?}", begun.elapsed());

    let informer = informer(client, &ns, InformerConfig::default());
    let recorder = Recorder::default();
    let registration = informer.add_event_handler(recorder.clone());
    let begun = Instant::now();
    synced(&informer).await?;
    eprintln!("informer synced 5000 ConfigMaps in {:?}", begun.elapsed());
    assert_eq!(informer.store().len(), 5000);
    let lister = informer.lister();
    assert_eq!(
        lister.namespace(&ns).list(&parse_selector(LABEL)?).len(),
        5000
    );
    let cm = lister.namespace(&ns).get("cm-4321")?;
    assert_eq!(value(&cm), "4321");
    eventually(WAIT, "the handler to receive the initial list", || async {
        Ok(registration.has_synced().then_some(()))
    })
    .await?;
    let events = recorder.events();
    assert_eq!(events.len(), 5000);
    assert!(events.iter().all(|e| e.starts_with('+')));
    assert_eq!(
        events.iter().collect::<BTreeSet<_>>().len(),
        5000,
        "no add twice"
    );
    informer.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn preserves_per_object_event_order() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-order").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let informer = informer(client, &ns, InformerConfig::default());
    let recorder = Recorder::default();
    informer.add_event_handler(recorder.clone());
    synced(&informer).await?;

    let objects: Vec<String> = (0..8).map(|i| format!("obj-{i}")).collect();
    // Each object goes through its own life cycle; the objects interleave.
    futures::future::try_join_all(objects.iter().map(|obj| {
        let api = api.clone();
        async move {
            api.create(&PostParams::default(), &configmap(obj, "1", &[]))
                .await?;
            for v in 2..=5 {
                set_value(&api, obj, &v.to_string()).await?;
            }
            api.delete(obj, &DeleteParams::default()).await?;
            anyhow::Ok(())
        }
    }))
    .await?;
    eventually(WAIT, "every object's delete", || async {
        let done = objects.iter().all(|o| {
            recorder
                .events_of(o)
                .last()
                .is_some_and(|e| e.starts_with('-'))
        });
        Ok(done.then_some(()))
    })
    .await?;
    for obj in &objects {
        assert_eq!(
            recorder.events_of(obj),
            [
                format!("+{obj}:1"),
                format!("~{obj}:1->2"),
                format!("~{obj}:2->3"),
                format!("~{obj}:3->4"),
                format!("~{obj}:4->5"),
                format!("-{obj}:5"),
            ]
        );
    }
    assert!(informer.store().is_empty());
    informer.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn late_handler_receives_everything_cached() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-late").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    for i in 0..50 {
        api.create(
            &PostParams::default(),
            &configmap(&format!("early-{i}"), "1", &[]),
        )
        .await?;
    }
    let informer = informer(client, &ns, InformerConfig::default());
    synced(&informer).await?;

    // A handler added once synced gets an add for every cached object.
    let late = Recorder::default();
    let registration = informer.add_event_handler(late.clone());
    eventually(WAIT, "the late handler to sync", || async {
        Ok(registration.has_synced().then_some(()))
    })
    .await?;
    let mut adds = late.events();
    adds.sort();
    let expected: Vec<String> = {
        let mut e: Vec<String> = (0..50).map(|i| format!("+early-{i}:1")).collect();
        e.sort();
        e
    };
    assert_eq!(adds, expected);

    // Handlers added while objects change see each change exactly once.
    let writer = tokio::spawn({
        let api = api.clone();
        async move {
            for i in 0..60 {
                api.create(
                    &PostParams::default(),
                    &configmap(&format!("during-{i}"), "1", &[]),
                )
                .await?;
                set_value(&api, &format!("early-{}", i % 50), &format!("{}", i + 2)).await?;
                if i % 3 == 0 {
                    api.delete(&format!("during-{}", i / 3), &DeleteParams::default())
                        .await?;
                }
            }
            anyhow::Ok(())
        }
    });
    let mut recorders = vec![late];
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let recorder = Recorder::default();
        informer.add_event_handler(recorder.clone());
        recorders.push(recorder);
    }
    writer.await??;
    let expected = api_state(&api).await?;
    eventually(WAIT, "all handlers to agree with the API", || async {
        for recorder in &recorders {
            if recorder.replay()? != expected {
                return Ok(None);
            }
        }
        Ok(Some(()))
    })
    .await?;
    assert_eq!(cache_state(&informer), expected);
    informer.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn indexes_stay_consistent_through_updates_and_deletes() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-index").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let informer = informer(
        client,
        &ns,
        InformerConfig::default().index("tier", by_label("tier")),
    );
    synced(&informer).await?;
    for (obj, tier) in [("a", "web"), ("b", "web"), ("c", "db"), ("d", "cache")] {
        api.create(
            &PostParams::default(),
            &configmap(obj, "1", &[("tier", tier)]),
        )
        .await?;
    }
    let keys = |tier: &str| -> Vec<String> {
        informer
            .store()
            .index_keys("tier", tier)
            .unwrap()
            .into_iter()
            .map(|k| k.name)
            .collect()
    };
    eventually(WAIT, "4 objects cached", || async {
        Ok((informer.store().len() == 4).then_some(()))
    })
    .await?;
    assert_eq!(keys("web"), ["a", "b"]);

    // Relabel a (web -> db), unlabel b, delete c.
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"tier": "db"}}})),
    )
    .await?;
    api.patch(
        "b",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"tier": null}}})),
    )
    .await?;
    api.delete("c", &DeleteParams::default()).await?;
    eventually(WAIT, "index changes", || async {
        Ok((informer.store().len() == 3 && keys("web").is_empty()).then_some(()))
    })
    .await?;
    assert_eq!(keys("db"), ["a"]);
    assert_eq!(keys("cache"), ["d"]);
    assert_eq!(informer.store().index_values("tier")?, ["cache", "db"]);
    let lister = informer.lister();
    assert_eq!(lister.by_index("tier", "db")?.len(), 1);
    assert_eq!(lister.index_keys(NAMESPACE_INDEX, &ns)?.len(), 3);
    let selected = lister
        .namespace(&ns)
        .list(&parse_selector("tier in (db,cache)")?);
    assert_eq!(
        selected.iter().map(|c| name(c)).collect::<BTreeSet<_>>(),
        BTreeSet::from(["a".into(), "d".into()])
    );
    let missing = lister.namespace(&ns).get("c").unwrap_err();
    assert!(missing.is_not_found());
    informer.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn transform_drops_managed_fields() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-transform").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    api.create(&PostParams::default(), &configmap("x", "1", &[]))
        .await?;
    let from_api = api.get("x").await?;
    assert!(
        from_api
            .metadata
            .managed_fields
            .is_some_and(|m| !m.is_empty()),
        "the API records managed fields"
    );

    let stripped = informer(client.clone(), &ns, InformerConfig::default());
    let untouched = informer(
        client.clone(),
        &ns,
        InformerConfig::default().no_transform(),
    );
    let custom = informer(
        client,
        &ns,
        InformerConfig::default().transform(|cm: &mut ConfigMap| {
            cm.metadata.managed_fields = None;
            cm.data = None;
        }),
    );
    for informer in [&stripped, &untouched, &custom] {
        synced(informer).await?;
    }
    let key = ObjectKey::namespaced(ns.clone(), "x");
    assert!(
        stripped
            .store()
            .get(&key)
            .unwrap()
            .metadata
            .managed_fields
            .is_none()
    );
    assert!(
        untouched
            .store()
            .get(&key)
            .unwrap()
            .metadata
            .managed_fields
            .is_some()
    );
    let custom_cached = custom.store().get(&key).unwrap();
    assert!(custom_cached.data.is_none() && custom_cached.metadata.managed_fields.is_none());
    // Changes arriving through the watch are transformed too.
    set_value(&api, "x", "2").await?;
    eventually(WAIT, "the update", || async {
        let obj = stripped.store().get(&key).unwrap();
        Ok((value(&obj) == "2").then_some(obj))
    })
    .await
    .map(|obj| assert!(obj.metadata.managed_fields.is_none()))?;
    for informer in [stripped, untouched, custom] {
        informer.shutdown().await;
    }
    Ok(())
}

/// A compact cache hands out what the API holds (managed fields dropped
/// by the default transform, kept by `no_transform`), through the watch's
/// updates and deletes, label selectors and indexes — the default one
/// (received bytes, a decoded working set) read by key before the update
/// included, and one decoding every read.
#[tokio::test]
async fn compact_caches_read_back_what_the_api_holds() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-compact").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    for (name, tier) in [("a", "web"), ("b", "web"), ("c", "db")] {
        let mut cm = configmap(name, "1", &[("tier", tier)]);
        cm.binary_data = Some(BTreeMap::from([(
            "blob".to_string(),
            k8s_openapi::ByteString(vec![0, 159, 255]),
        )]));
        api.create(&PostParams::default(), &cm).await?;
    }
    let stripped = informer(
        client.clone(),
        &ns,
        InformerConfig::default()
            .compact()
            .index("tier", by_label("tier")),
    );
    let untouched = informer(
        client.clone(),
        &ns,
        InformerConfig::default().no_transform().compact(),
    );
    let default = informer(client.clone(), &ns, InformerConfig::default());
    let cold = informer(
        client,
        &ns,
        InformerConfig::default().working_set(WorkingSet::Fixed(0)),
    );
    for informer in [&stripped, &untouched, &default, &cold] {
        synced(informer).await?;
        assert!(informer.store().is_compact());
    }
    // Every cached object equals the API's, field for field.
    let same_as_api = || async {
        for name in ["a", "b", "c"] {
            let from_api = api.get_opt(name).await?;
            let key = ObjectKey::namespaced(ns.clone(), name);
            let without_managed = from_api.clone().map(|mut cm| {
                cm.metadata.managed_fields = None;
                cm
            });
            let read = |informer: &Informer<ConfigMap>| informer.store().get(&key);
            if read(&untouched).map(|c| (*c).clone()) != from_api
                || [&stripped, &default, &cold]
                    .into_iter()
                    .any(|i| read(i).map(|c| (*c).clone()) != without_managed)
            {
                return Ok(None);
            }
        }
        Ok(Some(()))
    };
    eventually(WAIT, "the caches to equal the API", same_as_api).await?;
    let web = parse_selector("tier=web")?;
    assert_eq!(stripped.lister().namespace(&ns).list(&web).len(), 2);
    assert_eq!(stripped.store().index_keys("tier", "db")?.len(), 1);

    set_value(&api, "a", "2").await?;
    api.delete("c", &DeleteParams::default()).await?;
    eventually(WAIT, "the update and the delete", || async {
        let gone = stripped
            .store()
            .get(&ObjectKey::namespaced(ns.clone(), "c"));
        let a = stripped
            .store()
            .get(&ObjectKey::namespaced(ns.clone(), "a"));
        Ok((gone.is_none() && a.is_some_and(|a| value(&a) == "2")).then_some(()))
    })
    .await?;
    eventually(WAIT, "the caches to equal the API again", same_as_api).await?;
    assert!(stripped.store().index_keys("tier", "db")?.is_empty());
    for informer in [stripped, untouched, default, cold] {
        informer.shutdown().await;
    }
    Ok(())
}

#[tokio::test]
async fn factory_shares_one_informer_per_type() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-factory").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    api.create(
        &PostParams::default(),
        &configmap("x", "1", &[("app", "web")]),
    )
    .await?;
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = InformerMetrics::register(&mut registry);
    let factory = SharedInformerFactory::builder(client)
        .namespace(ns.clone())
        .tweak_list_params(|config| config.label_selector = Some(LABEL.into()))
        .metrics(metrics.clone())
        .decoded_for::<PartialObjectMeta<ConfigMap>>()
        .build();
    let first = factory.informer::<ConfigMap>();
    assert!(first.store().is_compact(), "caches are compact by default");
    let second = factory.informer::<ConfigMap>();
    assert!(
        Arc::ptr_eq(&first.store(), &second.store()),
        "one cache for both requests"
    );
    factory.start();
    factory.start(); // idempotent
    assert!(first.is_started());
    let report = factory.wait_for_cache_sync().await;
    assert_eq!(report, BTreeMap::from([("v1/ConfigMap".to_string(), true)]));
    assert_eq!(
        second.lister().namespace(&ns).get("x").map(|c| value(&c))?,
        "1"
    );
    assert_eq!(metrics.store_objects("v1/ConfigMap"), 1);

    // Requested after start: started by the next start(), also shared.
    let meta = factory.informer::<PartialObjectMeta<ConfigMap>>();
    assert!(!meta.is_started());
    assert!(
        !meta.store().is_compact(),
        "decoded_for keeps its type decoded"
    );
    factory.start();
    let report = factory.wait_for_cache_sync().await;
    assert_eq!(report.len(), 2);
    assert!(report.values().all(|s| *s), "{report:?}");
    let cached_meta = meta.lister().namespace(&ns).get("x")?;
    assert_eq!(
        cached_meta
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("app"))
            .map(String::as_str),
        Some("web")
    );
    assert!(cached_meta.metadata.managed_fields.is_none());
    assert!(Arc::ptr_eq(
        &meta.store(),
        &factory.informer::<PartialObjectMeta<ConfigMap>>().store()
    ));

    // Different selectors make a different informer.
    let narrowed = factory.informer_with::<ConfigMap>(|c| c.label_selector = Some("app=db".into()));
    assert!(!Arc::ptr_eq(&narrowed.store(), &first.store()));

    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry)?;
    assert!(
        text.contains("kubegen_informer_store_objects{resource=\"v1/ConfigMap\"} 1"),
        "{text}"
    );

    factory.shutdown().await;
    factory.start(); // after shutdown: nothing
    assert!(!narrowed.is_started());
    assert!(!narrowed.wait_for_cache_sync().await);
    Ok(())
}

#[tokio::test]
async fn factory_resync_and_transform_options() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-factory-opts").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    api.create(&PostParams::default(), &configmap("x", "1", &[]))
        .await?;
    let factory = SharedInformerFactory::builder(client)
        .namespace(ns.clone())
        .tweak_list_params(|config| config.label_selector = Some(LABEL.into()))
        .default_resync(Duration::from_secs(3600))
        .resync_for::<ConfigMap>(Duration::from_millis(300))
        .transform_for::<ConfigMap>(|cm| {
            cm.metadata.managed_fields = None;
            cm.metadata.annotations = Some(BTreeMap::from([(
                "transformed".to_string(),
                "yes".to_string(),
            )]));
        })
        .build();
    let informer = factory.informer::<ConfigMap>();
    let recorder = Recorder::default();
    informer.add_event_handler(recorder.clone());
    factory.start();
    assert!(factory.wait_for_cache_sync().await.values().all(|s| *s));
    let cached = informer.lister().namespace(&ns).get("x")?;
    assert_eq!(
        cached.annotations().get("transformed").map(String::as_str),
        Some("yes")
    );
    // The per-type period (300 ms) wins over the default (1 h).
    let resyncs = eventually(WAIT, "three resyncs", || async {
        let events = recorder.events_of("x");
        Ok((events.iter().filter(|e| *e == "~x:1->1").count() >= 3).then_some(events))
    })
    .await?;
    assert_eq!(resyncs[0], "+x:1");
    factory.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn dynamic_object_informer() -> Result<()> {
    use kubegen::core::{ApiResource, DynamicObject, GroupVersionKind};
    let env = TestEnv::shared().await?;
    let ns = env.namespace("inf-dynamic").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    api.create(&PostParams::default(), &configmap("x", "1", &[]))
        .await?;
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("", "v1", "ConfigMap"));
    let informer = Informer::with_name(
        Api::<DynamicObject>::namespaced_with(client, &ns, &resource),
        kubegen::informer::resource_name::<DynamicObject>(&resource),
        InformerConfig::default().labels(LABEL),
    );
    assert_eq!(informer.name(), "v1/ConfigMap");
    informer.start();
    assert!(tokio::time::timeout(WAIT, informer.wait_for_cache_sync()).await?);
    let cached = informer.lister().namespace(&ns).get("x")?;
    assert_eq!(cached.data["data"]["v"], "1");
    assert!(cached.metadata.managed_fields.is_none());
    informer.shutdown().await;
    Ok(())
}

// ---- Fault tests, each on a private control plane ----

fn etcd_key(ns: &str, name: &str) -> String {
    format!("/registry/configmaps/{ns}/{name}")
}

#[tokio::test]
async fn relists_after_apiserver_restart_without_lost_or_phantom_events() -> Result<()> {
    let env = TestEnv::start().await?;
    let ns = env.namespace("inf-restart").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    for obj in ["keep", "change", "gone"] {
        api.create(&PostParams::default(), &configmap(obj, "1", &[]))
            .await?;
    }
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = InformerMetrics::register(&mut registry);
    let informer = informer(
        client,
        &ns,
        InformerConfig::default().metrics(metrics.clone()),
    );
    let recorder = Recorder::default();
    informer.add_event_handler(recorder.clone());
    synced(&informer).await?;
    let mut changed = api.get("change").await?;

    // Down: change and delete objects behind the apiserver's back, in etcd
    // (a JSON-encoded object is readable by the apiserver), and create one.
    env.kill_apiserver();
    changed.metadata.resource_version = None;
    changed.metadata.managed_fields = None;
    changed.data = Some(BTreeMap::from([("v".to_string(), "2".to_string())]));
    let mut created = changed.clone();
    created.metadata.name = Some("born".into());
    created.metadata.uid = Some("00000000-0000-0000-0000-00000000b0b0".into());
    created.data = Some(BTreeMap::from([("v".to_string(), "1".to_string())]));
    for (name, obj) in [("change", &changed), ("born", &created)] {
        let mut body = serde_json::to_value(obj)?;
        body["apiVersion"] = json!("v1");
        body["kind"] = json!("ConfigMap");
        let body = serde_json::to_vec(&body)?;
        env.etcd_put(&etcd_key(&ns, name), &body).await?;
    }
    env.etcd_delete(&etcd_key(&ns, "gone")).await?;
    tokio::time::sleep(Duration::from_secs(2)).await; // the informer retries meanwhile
    env.start_apiserver().await?;

    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let expected = BTreeMap::from([
        ("born".to_string(), "1".to_string()),
        ("change".to_string(), "2".to_string()),
        ("keep".to_string(), "1".to_string()),
    ]);
    assert_eq!(
        api_state(&api).await?,
        expected,
        "the apiserver reads the etcd changes"
    );
    eventually(WAIT, "the cache to catch up", || async {
        Ok((cache_state(&informer) == expected).then_some(()))
    })
    .await?;
    // Then changes through the API still arrive.
    set_value(&api, "keep", "3").await?;
    eventually(WAIT, "a later update", || async {
        Ok(recorder.events_of("keep").len().eq(&2).then_some(()))
    })
    .await?;

    assert_eq!(
        recorder.events_of("keep"),
        ["+keep:1", "~keep:1->3"],
        "unchanged: no event while down"
    );
    assert_eq!(recorder.events_of("change"), ["+change:1", "~change:1->2"]);
    assert_eq!(recorder.events_of("born"), ["+born:1"]);
    let gone = recorder.events_of("gone");
    assert_eq!(gone.len(), 2, "exactly one delete: {gone:?}");
    assert!(gone[1] == "?gone:1" || gone[1] == "-gone:1", "{gone:?}");
    assert!(
        metrics.watch_restarts("v1/ConfigMap") >= 1,
        "the broken watch was restarted"
    );
    assert!(
        metrics.relists("v1/ConfigMap") >= 1,
        "a relist after the restart"
    );
    eprintln!(
        "relists={} watch_restarts={} events={:?}",
        metrics.relists("v1/ConfigMap"),
        metrics.watch_restarts("v1/ConfigMap"),
        recorder.events()
    );
    informer.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn relists_after_410_gone_from_etcd_compaction() -> Result<()> {
    let env = TestEnv::start().await?;
    let ns = env.namespace("inf-gone").await?;
    let client = env.client().await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    for i in 0..20 {
        api.create(
            &PostParams::default(),
            &configmap(&format!("cm-{i}"), "1", &[]),
        )
        .await?;
    }
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = InformerMetrics::register(&mut registry);
    let informer = informer(
        client,
        &ns,
        InformerConfig::default().metrics(metrics.clone()),
    );
    let recorder = Recorder::default();
    informer.add_event_handler(recorder.clone());
    synced(&informer).await?;
    let old_version = api
        .list(&ListParams::default().labels(LABEL))
        .await?
        .metadata
        .resource_version
        .unwrap();

    // Change objects, stop the apiserver, compact etcd past everything the
    // informer has seen, then start it again: the informer's watch resumes
    // from a compacted resourceVersion and gets 410 Gone.
    for i in 0..5 {
        set_value(&api, &format!("cm-{i}"), "2").await?;
    }
    env.stop_apiserver();
    for i in 5..10 {
        env.etcd_delete(&etcd_key(&ns, &format!("cm-{i}"))).await?;
    }
    let compacted = env.etcd_compact().await?;
    env.start_apiserver().await?;
    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);

    // A watch from the old resourceVersion is refused with 410 Gone.
    let mut stream = api
        .watch(&WatchParams::default().labels(LABEL), &old_version)
        .await?
        .boxed();
    let gone = match stream.next().await {
        Some(Ok(WatchEvent::Error(status))) => status.code,
        Some(Err(kubegen::Error::Api(status))) => status.code,
        other => bail!(
            "expected 410 Gone for resourceVersion {old_version} (etcd compacted at {compacted}), got {other:?}"
        ),
    };
    assert_eq!(gone, 410);

    let expected = api_state(&api).await?;
    assert_eq!(expected.len(), 15);
    eventually(WAIT, "the cache to relist", || async {
        Ok(
            (cache_state(&informer) == expected && metrics.relists("v1/ConfigMap") >= 1)
                .then_some(()),
        )
    })
    .await?;
    assert_eq!(
        recorder.replay()?,
        expected,
        "handlers saw a consistent history"
    );
    for i in 5..10 {
        let events = recorder.events_of(&format!("cm-{i}"));
        assert_eq!(
            events,
            [format!("+cm-{i}:1"), format!("?cm-{i}:1")],
            "one delete, found by the relist"
        );
    }
    // Still watching after the relist.
    api.create(&PostParams::default(), &configmap("after", "1", &[]))
        .await?;
    eventually(WAIT, "a post-relist add", || async {
        Ok((recorder.events_of("after") == ["+after:1"]).then_some(()))
    })
    .await?;
    informer.shutdown().await;
    Ok(())
}

/// Lets every ServiceAccount of `ns` list and watch ConfigMaps there.
async fn allow_reading_configmaps(admin: &kubegen::Client, ns: &str) -> Result<()> {
    use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
    let role: Role = serde_json::from_value(json!({
        "metadata": { "name": "read-configmaps" },
        "rules": [{ "apiGroups": [""], "resources": ["configmaps"], "verbs": ["list", "watch"] }],
    }))?;
    Api::<Role>::namespaced(admin.clone(), ns)
        .create(&PostParams::default(), &role)
        .await?;
    let binding: RoleBinding = serde_json::from_value(json!({
        "metadata": { "name": "read-configmaps" },
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "read-configmaps" },
        "subjects": [{ "kind": "Group", "name": format!("system:serviceaccounts:{ns}") }],
    }))?;
    Api::<RoleBinding>::namespaced(admin.clone(), ns)
        .create(&PostParams::default(), &binding)
        .await?;
    Ok(())
}

/// The verbs `account` used on ConfigMaps, as the audit log recorded them.
fn configmap_verbs(env: &TestEnv, ns: &str, account: &str) -> Result<BTreeSet<String>> {
    Ok(env
        .audit_records(ns, account)?
        .into_iter()
        .filter(|r| r.resource == "configmaps")
        .map(|r| r.verb)
        .collect())
}

/// The default initial list is a streaming one (a watch, no LIST request),
/// as client-go's since 1.35; an apiserver that rejects streaming lists
/// (`WatchList` off) gets paginated LISTs instead and the informer still
/// syncs.
#[tokio::test]
async fn streams_the_initial_list_and_falls_back_to_paginated_lists() -> Result<()> {
    let env = TestEnv::start().await?;
    let ns = env.namespace("inf-stream").await?;
    let admin = env.client().await?;
    allow_reading_configmaps(&admin, &ns).await?;
    let api = Api::<ConfigMap>::namespaced(admin.clone(), &ns);
    for i in 0..30 {
        api.create(
            &PostParams::default(),
            &configmap(&format!("cm-{i}"), "1", &[]),
        )
        .await?;
    }
    let expected = api_state(&api).await?;

    let streaming = informer(
        env.client_for_service_account(&ns, "streaming").await?,
        &ns,
        InformerConfig::default(),
    );
    synced(&streaming).await?;
    assert_eq!(cache_state(&streaming), expected);
    let verbs = configmap_verbs(&env, &ns, "streaming")?;
    assert!(verbs.contains("watch"), "{verbs:?}");
    assert!(
        !verbs.contains("list"),
        "a streaming list sends no LIST: {verbs:?}"
    );
    streaming.shutdown().await;

    env.stop_apiserver();
    env.start_apiserver_with_flags(&["--feature-gates=WatchList=false"])
        .await?;
    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let refused = api
        .watch(&WatchParams::streaming_lists(), "0")
        .await
        .err()
        .context("the apiserver should refuse sendInitialEvents with WatchList off")?;
    assert!(
        matches!(&refused, kubegen::Error::Api(s) if s.code == 422),
        "{refused:?}"
    );

    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = InformerMetrics::register(&mut registry);
    let fallback = informer(
        env.client_for_service_account(&ns, "fallback").await?,
        &ns,
        InformerConfig::default().metrics(metrics.clone()),
    );
    synced(&fallback).await?;
    assert_eq!(cache_state(&fallback), expected);
    let verbs = configmap_verbs(&env, &ns, "fallback")?;
    assert!(
        verbs.contains("list") && verbs.contains("watch"),
        "{verbs:?}"
    );
    // Later changes arrive through the watch that follows the LIST.
    set_value(&api, "cm-0", "2").await?;
    eventually(WAIT, "the update after the fallback", || async {
        Ok((cache_state(&fallback).get("cm-0").map(String::as_str) == Some("2")).then_some(()))
    })
    .await?;
    assert_eq!(metrics.watch_restarts("v1/ConfigMap"), 1, "one fallback");
    fallback.shutdown().await;
    Ok(())
}

//! kubegen's watchers and the informers built on them, against a real API
//! server: its JSON `watcher` and `protobuf_watcher` must give exactly the
//! events kube's JSON watcher gives (streaming and paginated lists,
//! updates, deletes; the JSON one also for metadata only);
//! informers must ask for protobuf for built-in kinds unless told
//! otherwise, and cache what a JSON informer caches; a custom resource,
//! which has no protobuf encoding, gets `406 Not Acceptable`.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kubegen::config::{KubeConfigOptions, Kubeconfig};
use kubegen::core::PartialObjectMeta;
use kubegen::factory::SharedInformerFactory;
use kubegen::informer::watcher::{self, Event};
use kubegen::informer::{Informer, InformerConfig, protobuf_watcher};
use kubegen::{Client, ResourceExt};
use kubegen_testenv::TestEnv;
use parking_lot::Mutex;

const WAIT: Duration = Duration::from_secs(30);
const LABEL: &str = "kubegen.test/protobuf-watch=yes";

fn configmap(name: &str, value: &str) -> ConfigMap {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": {"kubegen.test/protobuf-watch": "yes"}},
        "data": {"v": value},
    }))
    .expect("a ConfigMap")
}

/// The next event of `events` that is not `Init`, within [`WAIT`].
async fn next<K, E: std::error::Error + Send + Sync + 'static>(
    events: &mut (impl Stream<Item = Result<Event<K>, E>> + Unpin),
) -> Result<Event<K>> {
    loop {
        match tokio::time::timeout(WAIT, events.next()).await? {
            Some(Ok(Event::Init)) => {}
            Some(event) => return Ok(event?),
            None => bail!("the watcher ended"),
        }
    }
}

/// The objects of the initial list, sorted by name, up to `InitDone`.
async fn initial<K: ResourceExt, E: std::error::Error + Send + Sync + 'static>(
    events: &mut (impl Stream<Item = Result<Event<K>, E>> + Unpin),
) -> Result<Vec<K>> {
    let mut objects = Vec::new();
    loop {
        match next(events).await? {
            Event::InitApply(obj) => objects.push(obj),
            Event::InitDone => break,
            other => bail!(
                "{:?} during the initial list",
                std::mem::discriminant(&other)
            ),
        }
    }
    objects.sort_by_key(|o| o.name_any());
    Ok(objects)
}

/// A kube-rs client of the plane, for kube's watcher.
async fn kube_rs_client(env: &TestEnv) -> Result<kube::Client> {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig())?;
    let options = kube::config::KubeConfigOptions::default();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options).await?;
    Ok(kube::Client::try_from(config)?)
}

/// kube's watcher (over kube-rs's own client), the reference: its events
/// as kubegen's.
fn kubes<K>(
    api: kube::Api<K>,
    config: &watcher::Config,
) -> impl Stream<Item = Result<Event<K>, kube::runtime::watcher::Error>> + Unpin + use<K>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    use kube::runtime::watcher as kube_watcher;
    let strategy = match config.initial_list_strategy {
        watcher::InitialListStrategy::ListWatch => kube_watcher::InitialListStrategy::ListWatch,
        watcher::InitialListStrategy::StreamingList => {
            kube_watcher::InitialListStrategy::StreamingList
        }
    };
    let config = kube_watcher::Config {
        label_selector: config.label_selector.clone(),
        field_selector: config.field_selector.clone(),
        timeout: config.timeout,
        page_size: config.page_size,
        bookmarks: config.bookmarks,
        initial_list_strategy: strategy,
        ..kube_watcher::Config::default()
    };
    kube_watcher::watcher(api, config)
        .map(|event| {
            event.map(|event| match event {
                kube_watcher::Event::Apply(obj) => Event::Apply(obj),
                kube_watcher::Event::Delete(obj) => Event::Delete(obj),
                kube_watcher::Event::Init => Event::Init,
                kube_watcher::Event::InitApply(obj) => Event::InitApply(obj),
                kube_watcher::Event::InitDone => Event::InitDone,
            })
        })
        .boxed()
}

/// Creates five ConfigMaps in `ns`, then, for a streaming and a paginated
/// list in turn, checks that each of `watchers` (built from the same
/// config) gives the events kube's watcher gives on `api_of(client)`: the
/// same initial list, then the same create, update and delete.
async fn same_events_as_kubes<K, W, S>(
    client: Client,
    reference_client: kube::Client,
    ns: &str,
    api_of: impl Fn(Client) -> Api<K>,
    reference_api_of: impl Fn(kube::Client) -> kube::Api<K>,
    watchers: W,
) -> Result<()>
where
    K: kube::Resource + ResourceExt + Clone + std::fmt::Debug,
    K: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
    W: Fn(Api<K>, watcher::Config) -> Vec<S>,
    S: Stream<Item = Result<Event<K>, watcher::Error>> + Unpin,
{
    let api = Api::<ConfigMap>::namespaced(client.clone(), ns);
    for i in 0..5 {
        api.create(&PostParams::default(), &configmap(&format!("cm-{i}"), "1"))
            .await?;
    }
    let streaming = watcher::Config::default().labels(LABEL).streaming_lists();
    let paginated = watcher::Config::default().labels(LABEL).page_size(2);
    for (round, config) in [streaming, paginated].into_iter().enumerate() {
        let mut reference = kubes(reference_api_of(reference_client.clone()), &config);
        let mut ours = watchers(api_of(client.clone()), config);
        let expected = initial(&mut reference).await?;
        assert_eq!(expected.len(), 5 + round);
        assert!(
            expected.iter().all(|o| o.meta().managed_fields.is_some()),
            "kube keeps managed fields"
        );
        let expected = serde_json::to_value(&expected)?;
        for events in &mut ours {
            let listed = serde_json::to_value(initial(events).await?)?;
            assert_eq!(listed, expected, "the initial lists differ");
        }

        let name = format!("new-{round}");
        api.create(&PostParams::default(), &configmap(&name, "1"))
            .await?;
        let patch = Patch::Merge(serde_json::json!({"data": {"v": "2"}}));
        api.patch("cm-0", &PatchParams::default(), &patch).await?;
        api.delete("cm-1", &DeleteParams::default()).await?;
        for _ in 0..3 {
            let expected = next(&mut reference).await?;
            for events in &mut ours {
                match (&expected, next(events).await?) {
                    (Event::Apply(a), Event::Apply(b)) | (Event::Delete(a), Event::Delete(b)) => {
                        assert_eq!(serde_json::to_value(a)?, serde_json::to_value(&b)?)
                    }
                    (a, b) => bail!(
                        "different events: {:?} against {:?}",
                        std::mem::discriminant(a),
                        std::mem::discriminant(&b)
                    ),
                }
            }
        }
        api.create(&PostParams::default(), &configmap("cm-1", "1"))
            .await?;
        api.patch(
            "cm-0",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"data": {"v": "1"}})),
        )
        .await?;
    }
    Ok(())
}

#[tokio::test]
async fn protobuf_and_json_watchers_give_the_events_kubes_watcher_gives() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("pb-watcher").await?;
    let client = env.client().await?;
    same_events_as_kubes(
        client,
        kube_rs_client(env).await?,
        &ns,
        |client| Api::<ConfigMap>::namespaced(client, &ns),
        |client| kube::Api::<ConfigMap>::namespaced(client, &ns),
        |api, config| {
            vec![
                watcher::watcher(api.clone(), config.clone()).boxed(),
                protobuf_watcher(api, config).boxed(),
            ]
        },
    )
    .await
}

#[tokio::test]
async fn the_json_watcher_reads_metadata_only_as_kubes_does() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("meta-watcher").await?;
    let client = env.client().await?;
    same_events_as_kubes(
        client,
        kube_rs_client(env).await?,
        &ns,
        |client| Api::<PartialObjectMeta<ConfigMap>>::namespaced(client, &ns),
        |client| kube::Api::<PartialObjectMeta<ConfigMap>>::namespaced(client, &ns),
        |api, config| vec![watcher::watcher(api, config).boxed()],
    )
    .await
}

#[tokio::test]
async fn a_custom_resource_is_not_acceptable_as_protobuf() -> Result<()> {
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    let crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "widgets.pbwatch.kubegen.test"},
        "spec": {
            "group": "pbwatch.kubegen.test",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}],
        },
    }))?;
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    if let Err(error) = crds.create(&PostParams::default(), &crd).await {
        ensure!(
            matches!(&error, kubegen::Error::Api(s) if s.code == 409),
            "{error}"
        );
    }
    let resource = ApiResource {
        group: "pbwatch.kubegen.test".into(),
        version: "v1".into(),
        api_version: "pbwatch.kubegen.test/v1".into(),
        kind: "Widget".into(),
        plural: "widgets".into(),
    };
    let widgets = Api::<DynamicObject>::all_with(client, &resource);
    let deadline = tokio::time::Instant::now() + WAIT;
    while widgets.list(&Default::default()).await.is_err() {
        ensure!(
            tokio::time::Instant::now() < deadline,
            "the CRD is not served"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let streaming = watcher::Config::default().streaming_lists();
    let paginated = watcher::Config::default();
    for config in [streaming, paginated] {
        let mut events = protobuf_watcher(widgets.clone(), config).boxed();
        match tokio::time::timeout(WAIT, events.next()).await? {
            Some(Err(
                watcher::Error::WatchStartFailed(kubegen::Error::Api(status))
                | watcher::Error::InitialListFailed(kubegen::Error::Api(status)),
            )) => assert_eq!(status.code, 406, "{status:?}"),
            Some(Ok(Event::Init)) => match tokio::time::timeout(WAIT, events.next()).await? {
                Some(Err(watcher::Error::InitialListFailed(kubegen::Error::Api(status)))) => {
                    assert_eq!(status.code, 406, "{status:?}")
                }
                other => bail!("not a 406: {other:?}"),
            },
            other => bail!("not a 406: {other:?}"),
        }
    }
    Ok(())
}

/// A client whose requests' `Accept` headers are recorded.
async fn recording_client(env: &TestEnv) -> Result<(Client, Arc<Mutex<Vec<String>>>)> {
    let kubeconfig = Kubeconfig::read_from(env.kubeconfig())?;
    let config = kubegen::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .context("kubeconfig")?;
    let accepts = Arc::new(Mutex::new(Vec::new()));
    let log = accepts.clone();
    let inner = Client::try_from(config)?;
    let recording = tower::service_fn(move |request: http::Request<kubegen::client::Body>| {
        let accept = request
            .headers()
            .get(http::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        log.lock()
            .push(format!("{} {accept}", request.uri().path()));
        let inner = inner.clone();
        async move { inner.send(request).await }
    });
    Ok((Client::new(recording, "default"), accepts))
}

#[tokio::test]
async fn informers_read_built_in_kinds_as_protobuf_and_cache_what_json_gives() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("pb-informer").await?;
    let (client, accepts) = recording_client(env).await?;
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    for i in 0..4 {
        api.create(&PostParams::default(), &configmap(&format!("cm-{i}"), "1"))
            .await?;
    }
    let watches = |wanted: &str| {
        accepts
            .lock()
            .iter()
            .filter(|a| a.contains(&format!("/namespaces/{ns}/configmaps ")) && a.contains(wanted))
            .count()
    };

    let proto = Informer::new(api.clone(), InformerConfig::default().labels(LABEL));
    proto.start();
    ensure!(tokio::time::timeout(WAIT, proto.wait_for_cache_sync()).await?);
    ensure!(
        watches("protobuf") >= 1,
        "no protobuf request: {:?}",
        accepts.lock()
    );
    let before = watches("protobuf");

    let json = Informer::new(api.clone(), InformerConfig::default().labels(LABEL).json());
    json.start();
    ensure!(tokio::time::timeout(WAIT, json.wait_for_cache_sync()).await?);
    assert_eq!(
        watches("protobuf"),
        before,
        "the JSON informer asked for protobuf"
    );

    // Compact caches keep what the protobuf watch received (the envelope,
    // managed fields cut unless kept) and must read back as JSON's do.
    let compact = |config: InformerConfig<ConfigMap>| {
        let informer = Informer::new(api.clone(), config.labels(LABEL).compact());
        informer.start();
        informer
    };
    let proto_compact = compact(InformerConfig::default());
    let proto_compact_kept = compact(InformerConfig::default().no_transform());
    let json_kept = compact(InformerConfig::default().no_transform().json());
    for informer in [&proto_compact, &proto_compact_kept, &json_kept] {
        ensure!(tokio::time::timeout(WAIT, informer.wait_for_cache_sync()).await?);
    }

    let factory = SharedInformerFactory::builder(client.clone())
        .namespace(&ns)
        .build();
    let shared = factory.informer::<ConfigMap>();
    factory.start();
    ensure!(tokio::time::timeout(WAIT, shared.wait_for_cache_sync()).await?);
    ensure!(
        watches("protobuf") > before,
        "the factory's informer read JSON"
    );

    api.patch(
        "cm-0",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"data": {"v": "2"}})),
    )
    .await?;
    api.delete("cm-3", &DeleteParams::default()).await?;
    let cached = |informer: &Informer<ConfigMap>| {
        let mut objects: Vec<ConfigMap> = informer
            .store()
            .list()
            .iter()
            .map(|o| (**o).clone())
            .collect();
        objects.sort_by_key(|o| o.name_any());
        objects
    };
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (a, b) = (cached(&proto), cached(&json));
        let (c, d, e) = (
            cached(&proto_compact),
            cached(&proto_compact_kept),
            cached(&json_kept),
        );
        let settled = a.len() == 3
            && a.iter()
                .any(|cm| cm.data.as_ref().is_some_and(|d| d["v"] == "2"));
        if settled && a == b && a == c && d == e {
            assert!(a.iter().all(|cm| cm.metadata.managed_fields.is_none()));
            assert!(d.iter().all(|cm| cm.metadata.managed_fields.is_some()));
            break;
        }
        ensure!(
            tokio::time::Instant::now() < deadline,
            "the caches differ or lag: {a:?} against {b:?}, {c:?}, {d:?} against {e:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for informer in [proto, json, proto_compact, proto_compact_kept, json_kept] {
        informer.shutdown().await;
    }
    factory.shutdown().await;
    Ok(())
}

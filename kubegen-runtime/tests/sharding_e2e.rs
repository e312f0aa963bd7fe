//! Sharded managers (`kubegen::sharding`) against a real control plane:
//! replicas split the partitions of a shard set through Leases, each
//! caches and reconciles only its share, and partitions change hands —
//! on a graceful stop, a join and a crash — without any object being
//! reconciled by two replicas at once. Run on a plane with the
//! `ShardedListAndWatch` feature gate (the informers' lists and watches
//! carry a `shardSelector`) and on the shared plane without it (the
//! informers filter themselves).
//!
//! Lease timings are client-go's ratios scaled down (3 s / 2 s / 0.4 s).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kubegen::SharedInformerFactory;
use kubegen::api::{Api, ListParams, PostParams};
use kubegen::controller::{Action, Controller};
use kubegen::informer::{Informer, InformerMetrics};
use kubegen::logging::{LogFormat, init};
use kubegen::manager::Manager;
use kubegen::sharding::{
    OWNER_PARTITION_LABEL, PartitionSet, Partitions, SHARD_SET_LABEL, ServerSideFiltering, ShardBy,
    ShardingConfig, Shards,
};
use kubegen::{Client, ResourceExt};
use kubegen_testenv::{Options, TestEnv, eventually};
use parking_lot::Mutex;
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const SET: &str = "sharded-test";
const PARTITIONS: u32 = 8;
const LABEL: &str = "kubegen-test=sharding";
const WAIT: Duration = Duration::from_secs(90);

/// Who is reconciling what, across every replica of a test.
#[derive(Default)]
struct Journal {
    /// uid → the replica reconciling it now.
    in_flight: Mutex<HashMap<String, String>>,
    /// Reconciles that started while another replica's were running.
    overlaps: Mutex<Vec<String>>,
    /// uid → replica → reconciles.
    done: Mutex<BTreeMap<String, BTreeMap<String, usize>>>,
    /// The deleted hook's calls: (replica, object name).
    deleted: Mutex<Vec<(String, String)>>,
}

impl Journal {
    fn reconciled_by(&self, uid: &str) -> Vec<String> {
        self.done
            .lock()
            .get(uid)
            .map(|by| by.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// One replica running in the background.
struct Replica {
    name: String,
    shards: Shards,
    registry: kubegen::server::SharedRegistry,
    informer: Informer<ConfigMap>,
    stop: CancellationToken,
    task: JoinHandle<Result<(), kubegen::ManagerError>>,
}

impl Replica {
    async fn start(
        client: &Client,
        ns: &str,
        name: &str,
        journal: &Arc<Journal>,
        server_side: ServerSideFiltering,
    ) -> Result<Replica> {
        let ns_owned = ns.to_string();
        let mut manager = Manager::builder(client.clone())
            .sharding(ShardingConfig {
                identity: Some(name.to_string()),
                partitions: PARTITIONS,
                lease_duration: Duration::from_secs(3),
                renew_deadline: Duration::from_secs(2),
                retry_period: Duration::from_millis(400),
                handover_timeout: Duration::from_secs(1),
                server_side,
                ..ShardingConfig::new(ns, SET)
            })
            .informer_factory(move |factory| {
                factory
                    .namespace(ns_owned)
                    .tweak_list_params(|w| w.label_selector = Some(LABEL.into()))
            })
            .drain_timeout(Duration::from_secs(5))
            .build()
            .await?;
        let shards = manager.shards().cloned().context("sharding is on")?;
        let informer = manager.factory().informer::<ConfigMap>();
        let registry = manager.registry().clone();
        let me = name.to_string();
        let (hook_journal, hook_me) = (journal.clone(), name.to_string());
        let controller = Controller::builder(informer.clone())
            .shards(&shards)
            .workers(4)
            .on_deleted(move |key| {
                hook_journal
                    .deleted
                    .lock()
                    .push((hook_me.clone(), key.name.clone()));
                async {}
            })
            .reconcile(
                move |cm: Arc<ConfigMap>, journal: Arc<Journal>| {
                    let me = me.clone();
                    async move {
                        let uid = cm.uid().unwrap_or_default();
                        {
                            let mut in_flight = journal.in_flight.lock();
                            if let Some(other) = in_flight.insert(uid.clone(), me.clone()) {
                                journal
                                    .overlaps
                                    .lock()
                                    .push(format!("{uid}: {me} while {other}"));
                            }
                        }
                        // Removed again even if the reconcile is abandoned.
                        let _leave = Leave(journal.clone(), uid.clone(), me.clone());
                        tokio::time::sleep(Duration::from_millis(30)).await;
                        *journal
                            .done
                            .lock()
                            .entry(uid)
                            .or_default()
                            .entry(me)
                            .or_default() += 1;
                        Ok::<_, std::convert::Infallible>(Action::requeue_after(
                            Duration::from_millis(300),
                        ))
                    }
                },
                journal.clone(),
            );
        manager.add(controller);
        let stop = CancellationToken::new();
        let task = tokio::spawn(manager.run_until(stop.clone().cancelled_owned()));
        Ok(Replica {
            name: name.to_string(),
            shards,
            registry,
            informer,
            stop,
            task,
        })
    }

    /// Stops it gracefully: drain, release, return.
    async fn stop(self) -> Result<()> {
        self.stop.cancel();
        self.task.await??;
        Ok(())
    }

    /// Kills it: its task is aborted, nothing is released.
    async fn crash(self) {
        self.task.abort();
        let _ = self.task.await;
    }

    /// The value of informer counter `name` for ConfigMaps (0 before its
    /// first increment, which an empty family does not show; the informer
    /// must have counted received objects, so that its metrics are known
    /// to be recorded).
    fn counter(&self, name: &str) -> Result<u64> {
        let text = self.registry.encode()?;
        ensure!(
            text.contains("kubegen_informer_objects_received_total{resource=\"v1/ConfigMap\"}"),
            "the informer's metrics are not recorded:\n{text}"
        );
        let prefix = format!("{name}_total{{resource=\"v1/ConfigMap\"}} ");
        match text.lines().find_map(|line| line.strip_prefix(&prefix)) {
            Some(value) => value.trim().parse().context("a counter"),
            None => Ok(0),
        }
    }

    /// The uids in its cache.
    fn cached(&self) -> Vec<String> {
        self.informer
            .store()
            .list()
            .iter()
            .filter_map(|cm| cm.uid())
            .collect()
    }
}

/// `client`, whose requests never answer once `cut` is set.
fn hanging(client: Client, cut: Arc<AtomicBool>) -> Client {
    let namespace = client.default_namespace().to_owned();
    let service = tower::service_fn(move |request: http::Request<kubegen::client::Body>| {
        let (client, cut) = (client.clone(), cut.clone());
        async move {
            if cut.load(Ordering::SeqCst) {
                std::future::pending::<()>().await;
            }
            client.send(request).await
        }
    });
    Client::new(service, namespace)
}

/// Takes `uid` out of the in-flight map when dropped.
struct Leave(Arc<Journal>, String, String);

impl Drop for Leave {
    fn drop(&mut self) {
        let mut in_flight = self.0.in_flight.lock();
        if in_flight.get(&self.1) == Some(&self.2) {
            in_flight.remove(&self.1);
        }
    }
}

async fn create_configmaps(client: &Client, ns: &str, count: usize) -> Result<Vec<String>> {
    let api = Api::<ConfigMap>::namespaced(client.clone(), ns);
    let mut uids = Vec::new();
    for i in 0..count {
        let cm: ConfigMap = serde_json::from_value(json!({
            "metadata": { "name": format!("cm-{i:03}"), "labels": { "kubegen-test": "sharding" } },
        }))?;
        let created = api.create(&PostParams::default(), &cm).await?;
        uids.push(created.uid().context("uid")?);
    }
    Ok(uids)
}

/// The partition Leases' holders, by partition.
async fn holders(client: &Client, ns: &str) -> Result<BTreeMap<String, String>> {
    let leases = Api::<Lease>::namespaced(client.clone(), ns)
        .list(&ListParams::default().labels(&format!(
            "{SHARD_SET_LABEL}={SET},kubegen.io/shard-role=partition"
        )))
        .await?;
    Ok(leases
        .items
        .into_iter()
        .filter_map(|lease| {
            let holder = lease.spec?.holder_identity.filter(|h| !h.is_empty())?;
            Some((lease.metadata.name?, holder))
        })
        .collect())
}

/// Waits until `replicas` hold disjoint sets covering every partition,
/// each caching exactly the objects of its partitions, and returns how
/// long it took.
async fn balanced(replicas: &[&Replica], uids: &[String]) -> Result<Duration> {
    let started = Instant::now();
    let all: PartitionSet = (0..PARTITIONS).collect();
    eventually(WAIT, "the partitions to be split and cached", || async {
        let mut union = PartitionSet::new();
        let mut total = 0;
        for replica in replicas {
            let held = replica.shards.held();
            if held.is_empty() || held != replica.shards.acting() {
                return Ok(None);
            }
            total += held.len();
            union = held.iter().chain(union.iter()).collect();
            let partitions = replica.shards.partitions();
            let mut expected: Vec<&String> = uids
                .iter()
                .filter(|uid| held.contains(partitions.of_uid(uid)))
                .collect();
            let mut cached = replica.cached();
            cached.sort();
            expected.sort();
            if cached.iter().collect::<Vec<_>>() != expected {
                return Ok(None);
            }
        }
        let sizes: Vec<usize> = replicas.iter().map(|r| r.shards.held().len()).collect();
        let even = sizes
            .iter()
            .max()
            .zip(sizes.iter().min())
            .is_some_and(|(max, min)| max - min <= 1);
        Ok((union == all && total == all.len() && even).then_some(()))
    })
    .await?;
    Ok(started.elapsed())
}

/// Waits until every object has been reconciled by the replica holding
/// its partition since `mark` (a count of its reconciles then).
async fn all_reconciled_by_holders(
    journal: &Journal,
    replicas: &[&Replica],
    uids: &[String],
) -> Result<()> {
    let before: BTreeMap<String, BTreeMap<String, usize>> = journal.done.lock().clone();
    eventually(
        WAIT,
        "every object to be reconciled by its holder",
        || async {
            let done = journal.done.lock();
            Ok(uids
                .iter()
                .all(|uid| {
                    replicas.iter().any(|r| {
                        let mine = r.shards.partitions().of_uid(uid);
                        let count = |map: &BTreeMap<String, BTreeMap<String, usize>>| {
                            map.get(uid)
                                .and_then(|by| by.get(&r.name))
                                .copied()
                                .unwrap_or(0)
                        };
                        r.shards.acting().contains(mine) && count(&done) > count(&before)
                    })
                })
                .then_some(()))
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_split_the_objects_and_hand_partitions_over_without_overlap() -> Result<()> {
    init(LogFormat::Human);
    let env = TestEnv::start_with(Options {
        nodes: 0,
        feature_gates: vec!["ShardedListAndWatch=true".into()],
        ..Options::default()
    })
    .await?;
    let ns = env.namespace("sharding").await?;
    let client = env.client().await?;
    let uids = create_configmaps(&client, &ns, 60).await?;
    let journal = Arc::new(Journal::default());
    let start_with = |client: Client, name: &'static str| {
        let (ns, journal) = (ns.clone(), journal.clone());
        async move { Replica::start(&client, &ns, name, &journal, ServerSideFiltering::Required).await }
    };
    let start = |name: &'static str| start_with(client.clone(), name);
    let a = start("replica-a").await?;
    let b = start("replica-b").await?;
    let c = start("replica-c").await?;
    let took = balanced(&[&a, &b, &c], &uids).await?;
    eprintln!("3 replicas balanced in {took:?}");
    for replica in [&a, &b, &c] {
        ensure!(
            replica.informer.filtered_by_server() == Some(true),
            "{}: the apiserver with ShardedListAndWatch should filter",
            replica.name
        );
        let not_held = replica.counter("kubegen_informer_objects_not_held")?;
        ensure!(
            not_held == 0,
            "{}: received {not_held} objects of other partitions",
            replica.name
        );
    }
    all_reconciled_by_holders(&journal, &[&a, &b, &c], &uids).await?;

    // Scale down: c stops gracefully; its partitions move after a drain.
    c.stop().await?;
    let took = balanced(&[&a, &b], &uids).await?;
    eprintln!("graceful stop: rebalanced over 2 replicas in {took:?}");
    all_reconciled_by_holders(&journal, &[&a, &b], &uids).await?;

    // Scale up: d joins; a and b drain what the assignment gives it.
    let d = start("replica-d").await?;
    let took = balanced(&[&a, &b, &d], &uids).await?;
    eprintln!("join: rebalanced over 3 replicas in {took:?}");
    all_reconciled_by_holders(&journal, &[&a, &b, &d], &uids).await?;

    // Crash: d's task is aborted without releasing anything; its
    // partitions are taken over once their Leases expired.
    let crashed_at = Instant::now();
    d.crash().await;
    let took = balanced(&[&a, &b], &uids).await?;
    ensure!(
        crashed_at.elapsed() >= Duration::from_secs(3),
        "partitions of a crashed replica were taken over before their Leases expired"
    );
    eprintln!("crash: taken over in {took:?}");
    all_reconciled_by_holders(&journal, &[&a, &b], &uids).await?;

    // Partitioned from the apiserver: e's requests stop being answered
    // (as behind a dead link). It must stop acting within the renew
    // deadline of its last renewal, before the others may take over.
    let cut = Arc::new(AtomicBool::new(false));
    let e = start_with(hanging(client.clone(), cut.clone()), "replica-e").await?;
    balanced(&[&a, &b, &e], &uids).await?;
    cut.store(true, Ordering::SeqCst);
    let cut_at = Instant::now();
    eventually(WAIT, "the cut-off replica to stop acting", || async {
        Ok(e.shards.acting().is_empty().then_some(()))
    })
    .await?;
    let stopped_acting = cut_at.elapsed();
    ensure!(
        stopped_acting <= Duration::from_millis(2000 + 500),
        "a replica cut off from the apiserver acted for {stopped_acting:?}, beyond its renew deadline"
    );
    let took = balanced(&[&a, &b], &uids).await?;
    eprintln!("cut off: stopped acting after {stopped_acting:?}, taken over after {took:?} more");
    e.crash().await;

    let overlaps = journal.overlaps.lock().clone();
    ensure!(
        overlaps.is_empty(),
        "reconciled by two replicas at once: {overlaps:?}"
    );
    // Objects that moved between replicas were not deleted: no hook ran.
    let hooked = journal.deleted.lock().clone();
    ensure!(
        hooked.is_empty(),
        "deleted hook called for objects that only moved: {hooked:?}"
    );
    // A real deletion runs it once, on the replica holding the object.
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    for i in 0..10 {
        api.delete(&format!("cm-{i:03}"), &Default::default())
            .await?;
    }
    eventually(WAIT, "the deleted hook for each deleted object", || async {
        Ok((journal.deleted.lock().len() >= 10).then_some(()))
    })
    .await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut hooked: Vec<String> = journal
        .deleted
        .lock()
        .iter()
        .map(|(_, name)| name.clone())
        .collect();
    hooked.sort();
    let expected: Vec<String> = (0..10).map(|i| format!("cm-{i:03}")).collect();
    ensure!(hooked == expected, "deleted hook calls: {hooked:?}");
    let multi = uids
        .iter()
        .filter(|uid| journal.reconciled_by(uid).len() > 1)
        .count();
    eprintln!(
        "{multi} of {} objects changed hands at least once",
        uids.len()
    );
    ensure!(
        multi > 0,
        "no object changed hands: the handovers were not exercised"
    );
    a.stop().await?;
    b.stop().await?;
    let left = holders(&client, &ns).await?;
    ensure!(
        left.is_empty(),
        "partitions still held after every replica stopped: {left:?}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_feature_gate_informers_filter_themselves() -> Result<()> {
    init(LogFormat::Human);
    let env = TestEnv::shared().await?;
    let ns = env.namespace("sharding-client").await?;
    let client = env.client().await?;
    let uids = create_configmaps(&client, &ns, 30).await?;
    // The member Lease of a replica that crashed an hour ago.
    let leases = Api::<Lease>::namespaced(client.clone(), &ns);
    let ghost: Lease = serde_json::from_value(json!({
        "metadata": {
            "name": format!("{SET}-member-ghost"),
            "labels": {
                SHARD_SET_LABEL: SET,
                "kubegen.io/shard-role": "member",
                "kubegen.io/shard-partitions": PARTITIONS.to_string(),
            },
        },
        "spec": {
            "holderIdentity": "ghost",
            "leaseDurationSeconds": 3,
            "renewTime": "2020-01-01T00:00:00.000000Z",
        },
    }))?;
    leases.create(&PostParams::default(), &ghost).await?;
    let journal = Arc::new(Journal::default());
    let a = Replica::start(
        &client,
        &ns,
        "replica-a",
        &journal,
        ServerSideFiltering::Auto,
    )
    .await?;
    let b = Replica::start(
        &client,
        &ns,
        "replica-b",
        &journal,
        ServerSideFiltering::Auto,
    )
    .await?;
    balanced(&[&a, &b], &uids).await?;
    for replica in [&a, &b] {
        ensure!(
            replica.informer.filtered_by_server() == Some(false),
            "{}: an apiserver without ShardedListAndWatch does not filter",
            replica.name
        );
        // Every replica received every object, and dropped the others'.
        let received = replica.counter("kubegen_informer_objects_received")?;
        let not_held = replica.counter("kubegen_informer_objects_not_held")?;
        ensure!(
            received >= uids.len() as u64 && not_held > 0,
            "{}: received {received}, dropped {not_held}",
            replica.name
        );
    }
    all_reconciled_by_holders(&journal, &[&a, &b], &uids).await?;
    ensure!(journal.overlaps.lock().is_empty());
    eventually(
        WAIT,
        "the member Lease of a replica long gone to be deleted",
        || async {
            Ok(leases
                .get_opt(&format!("{SET}-member-ghost"))
                .await?
                .is_none()
                .then_some(()))
        },
    )
    .await?;
    a.stop().await?;
    b.stop().await?;

    // Required, where the apiserver does not filter: the informer never
    // fills its cache, rather than fall back silently.
    let strict = Replica::start(
        &client,
        &ns,
        "replica-strict",
        &journal,
        ServerSideFiltering::Required,
    )
    .await?;
    tokio::time::sleep(Duration::from_secs(5)).await;
    ensure!(strict.informer.filtered_by_server().is_none());
    ensure!(
        !strict.informer.has_synced(),
        "a required server-side filter fell back"
    );
    strict.stop().await?;
    Ok(())
}

/// Children labelled with their owner's partition (`ShardBy::OwnerLabel`,
/// what `ControllerBuilder::owns_labelled` uses) are selected by label, on
/// the shared plane without `ShardedListAndWatch`: the informer receives
/// only the children of the partitions held — not one event of the
/// others', nor of a child without the label — and drops on the client
/// a child whose label and owner disagree. A child labelled later (an
/// apply adopting it) then arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owner_labelled_children_are_selected_by_the_apiserver() -> Result<()> {
    init(LogFormat::Human);
    let env = TestEnv::shared().await?;
    let ns = env.namespace("sharding-owner-label").await?;
    let client = env.client().await?;
    let owners = create_configmaps(&client, &ns, 24).await?;
    let partitions = Partitions::new(PARTITIONS).context("partitions")?;
    let held: PartitionSet = owners[..2]
        .iter()
        .map(|uid| partitions.of_uid(uid))
        .collect();
    let shards = Shards::fixed(partitions, held, ServerSideFiltering::Off);
    let is_held = |uid: &str| held.contains(partitions.of_uid(uid));
    ensure!(
        owners.iter().any(|uid| !is_held(uid)),
        "some owner elsewhere"
    );

    let secrets = Api::<Secret>::namespaced(client.clone(), &ns);
    let child = |name: String, owner: usize, label: Option<String>| -> Result<Secret> {
        let mut labels = BTreeMap::from([("kubegen-test".to_string(), "sharding".to_string())]);
        if let Some(value) = label {
            labels.insert(OWNER_PARTITION_LABEL.to_string(), value);
        }
        Ok(serde_json::from_value(json!({
            "metadata": {
                "name": name,
                "labels": labels,
                "ownerReferences": [{
                    "apiVersion": "v1", "kind": "ConfigMap", "name": format!("cm-{owner:03}"),
                    "uid": owners[owner], "controller": true,
                }],
            },
        }))?)
    };
    let mut expected = Vec::new();
    for (i, uid) in owners.iter().enumerate() {
        let (_, partition) = shards.owner_partition_label(uid);
        let name = format!("labelled-{i:03}");
        secrets
            .create(
                &PostParams::default(),
                &child(name.clone(), i, Some(partition))?,
            )
            .await?;
        secrets
            .create(
                &PostParams::default(),
                &child(format!("bare-{i:03}"), i, None)?,
            )
            .await?;
        if is_held(uid) {
            expected.push(name);
        }
    }
    // Labelled with a partition held, owned by an object of another.
    let elsewhere = owners
        .iter()
        .position(|uid| !is_held(uid))
        .context("elsewhere")?;
    let held_label = partitions.of_uid(&owners[0]).to_string();
    secrets
        .create(
            &PostParams::default(),
            &child("mislabelled".into(), elsewhere, Some(held_label))?,
        )
        .await?;

    let mut registry = prometheus_client::registry::Registry::default();
    let factory = SharedInformerFactory::builder(client.clone())
        .namespace(ns.clone())
        .tweak_list_params(|w| w.label_selector = Some(LABEL.into()))
        .metrics(InformerMetrics::register(&mut registry))
        .build();
    let informer = factory.informer::<Secret>();
    informer.shard(&shards, ShardBy::OwnerLabel)?;
    factory.start();
    ensure!(informer.wait_for_cache_sync().await, "the informer synced");
    let cached = |informer: &Informer<Secret>| {
        let mut names: Vec<String> = informer
            .store()
            .list()
            .iter()
            .map(|s| s.name_any())
            .collect();
        names.sort();
        names
    };
    ensure!(
        cached(&informer) == expected,
        "cached {:?}, expected {expected:?}",
        cached(&informer)
    );
    let counter = |name: &str| -> Result<u64> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry)?;
        let prefix = format!("{name}_total{{resource=\"v1/Secret\"}} ");
        Ok(
            match text.lines().find_map(|line| line.strip_prefix(&prefix)) {
                Some(value) => value.trim().parse()?,
                None => 0,
            },
        )
    };
    let (received, not_held) = (
        counter("kubegen_informer_objects_received")?,
        counter("kubegen_informer_objects_not_held")?,
    );
    ensure!(
        received == expected.len() as u64 + 1 && not_held == 1,
        "received {received} (expected {} and the mislabelled one), dropped {not_held}",
        expected.len()
    );

    // A bare child of a held owner, labelled now, arrives.
    let adopted = owners.iter().position(|uid| is_held(uid)).context("held")?;
    let (key, value) = shards.owner_partition_label(&owners[adopted]);
    secrets
        .patch(
            &format!("bare-{adopted:03}"),
            &kubegen::api::PatchParams::default(),
            &kubegen::api::Patch::Merge(json!({"metadata": {"labels": {key: value}}})),
        )
        .await?;
    let adopted_name = format!("bare-{adopted:03}");
    eventually(WAIT, "the labelled child to be cached", || async {
        Ok(cached(&informer).contains(&adopted_name).then_some(()))
    })
    .await?;
    factory.shutdown().await;
    Ok(())
}

//! What the sharded soak watches besides the audit log: every version of
//! the shard set's Leases (so that `shard_audit.rs` tells a released
//! partition Lease from one taken over after expiry), whether the
//! apiserver filtered the replicas' informers, and — once everything
//! converged — each running replica's caches against its partitions.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use futures::StreamExt as _;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::api::{Api, ListParams};
use kubegen::informer::watcher::{self, watcher};
use kubegen::sharding::{Partitions, SHARD_ROLE_LABEL, SHARD_SET_LABEL};
use my_application::api::MyApplication;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::replicas::{LEASE_NAME, Replicas};
use super::shard_audit::LeaseStates;

/// Watches the shard set's Leases (partitions and members) until
/// [`LeaseWatch::finish`], recording the holder of every version seen.
pub struct LeaseWatch {
    states: Arc<Mutex<LeaseStates>>,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl LeaseWatch {
    /// Starts watching the Leases of [`LEASE_NAME`]'s shard set in `ns`.
    pub fn start(admin: kubegen::Client, ns: &str) -> LeaseWatch {
        let api = Api::<Lease>::namespaced(admin, ns);
        let config = watcher::Config::default().labels(&format!("{SHARD_SET_LABEL}={LEASE_NAME}"));
        let states = Arc::new(Mutex::new(LeaseStates::new()));
        let stop = CancellationToken::new();
        let task = {
            let (states, stop) = (states.clone(), stop.clone());
            tokio::spawn(async move {
                // No backoff but a short pause after an error: back as soon
                // as the apiserver is, so as to miss few versions.
                let mut events = watcher(api, config).boxed();
                loop {
                    let event = tokio::select! {
                        () = stop.cancelled() => break,
                        event = events.next() => event,
                    };
                    match event {
                        Some(Err(_)) => tokio::time::sleep(Duration::from_millis(100)).await,
                        Some(Ok(
                            watcher::Event::Apply(lease) | watcher::Event::InitApply(lease),
                        )) => {
                            let Some(version) = lease.metadata.resource_version else {
                                continue;
                            };
                            let holder = lease
                                .spec
                                .and_then(|s| s.holder_identity)
                                .filter(|h| !h.is_empty());
                            lock(&states).insert(version, holder);
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
            })
        };
        LeaseWatch { states, stop, task }
    }

    /// Stops watching; the versions seen.
    pub async fn finish(self) -> LeaseStates {
        self.stop.cancel();
        let _ = self.task.await;
        std::mem::take(&mut *lock(&self.states))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The partitions each process holds (`a-3`, from the holder identity
/// `a-3_x7k2q`), from the partition Leases; `None` while the apiserver
/// does not answer.
pub async fn holders(leases: &Api<Lease>, partitions: Partitions) -> Option<BTreeMap<u32, String>> {
    let selector = format!("{SHARD_SET_LABEL}={LEASE_NAME},{SHARD_ROLE_LABEL}=partition");
    let list = tokio::time::timeout(
        Duration::from_secs(5),
        leases.list(&ListParams::default().labels(&selector)),
    )
    .await
    .ok()?
    .ok()?;
    Some(
        list.items
            .into_iter()
            .filter_map(|lease| {
                let name = lease.metadata.name?;
                let p: u32 = name.strip_prefix(&format!("{LEASE_NAME}-"))?.parse().ok()?;
                let holder = lease.spec?.holder_identity.filter(|h| !h.is_empty())?;
                let process = holder
                    .split_once('_')
                    .map_or(holder.as_str(), |(pod, _)| pod);
                (p < partitions.count()).then(|| (p, process.to_string()))
            })
            .collect(),
    )
}

/// The address of an operator's plain-HTTP /metrics, from the line its log
/// starts with (`my-application-controller started ... metrics=Some(127.0.0.1:PORT)`).
fn metrics_addr(log: &PathBuf) -> Option<std::net::SocketAddr> {
    let text = std::fs::read_to_string(log).ok()?;
    let line = text
        .lines()
        .find(|l| l.contains("my-application-controller started"))?;
    let after = &line[line.find("metrics")?..];
    let start = after.find("127.0.0.1:")?;
    let addr: String = after[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
        .collect();
    addr.parse().ok()
}

/// The informer cache sizes an operator reports
/// (`kubegen_informer_store_objects`), by resource.
async fn cache_sizes(addr: std::net::SocketAddr) -> Result<BTreeMap<String, i64>> {
    let (code, body) = tokio::time::timeout(
        Duration::from_secs(5),
        kubegen_testenv::http_get(addr, "/metrics"),
    )
    .await
    .context("scraping /metrics timed out")??;
    anyhow::ensure!(code == 200, "/metrics answered {code}");
    Ok(body
        .lines()
        .filter_map(|l| l.strip_prefix("kubegen_informer_store_objects{resource=\""))
        .filter_map(|l| {
            let (resource, rest) = l.split_once("\"}")?;
            Some((resource.to_string(), rest.trim().parse().ok()?))
        })
        .collect())
}

/// The resources whose caches are compared, as the informers label them.
const CACHED: [&str; 3] = [
    "stable.example.com/v1/MyApplication",
    "apps/v1/Deployment",
    "v1/Service",
];

/// What the cache check found.
#[derive(Debug, Default, Clone)]
pub struct CacheCheck {
    /// Per running replica: its partitions and cache sizes against the
    /// objects of those partitions.
    pub replicas: Vec<String>,
    /// Whether every replica's caches matched its partitions.
    pub matched: bool,
    /// Why not, when they never did within the time allowed.
    pub violations: Vec<String>,
}

/// Checks, for up to `within`, that every running replica caches exactly
/// the MyApplications of the partitions it holds, and the Deployments and
/// Services whose controller is one of them — counts from its
/// `kubegen_informer_store_objects` against the objects listed — and that
/// every partition is held by a running replica. Run once everything
/// converged, while nothing changes.
pub async fn check_caches(
    admin: &kubegen::Client,
    ns: &str,
    replicas: &Replicas,
    partitions: Partitions,
    within: Duration,
) -> CacheCheck {
    let leases = Api::<Lease>::namespaced(admin.clone(), ns);
    let apps = Api::<MyApplication>::namespaced(admin.clone(), ns);
    let deployments = Api::<Deployment>::namespaced(admin.clone(), ns);
    let services = Api::<Service>::namespaced(admin.clone(), ns);
    let deadline = Instant::now() + within;
    let mut last = CacheCheck::default();
    loop {
        match check_once(
            &leases,
            &apps,
            &deployments,
            &services,
            replicas,
            partitions,
        )
        .await
        {
            Ok((lines, mismatches)) => {
                last.replicas = lines;
                last.matched = mismatches.is_empty();
                last.violations = mismatches;
                if last.matched {
                    return last;
                }
            }
            Err(e) => last.violations = vec![format!("could not check the caches: {e:#}")],
        }
        if Instant::now() >= deadline {
            let within = within.as_secs_f64();
            last.violations = last
                .violations
                .iter()
                .map(|v| format!("caches not matching the partitions held for {within:.0} s: {v}"))
                .collect();
            return last;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The partition of an owned object: its controller's uid's.
fn owner_partition(meta: &ObjectMeta, partitions: Partitions) -> Option<u32> {
    let owner = meta
        .owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))?;
    Some(partitions.of_uid(&owner.uid))
}

async fn check_once(
    leases: &Api<Lease>,
    apps: &Api<MyApplication>,
    deployments: &Api<Deployment>,
    services: &Api<Service>,
    replicas: &Replicas,
    partitions: Partitions,
) -> Result<(Vec<String>, Vec<String>)> {
    let holders = holders(leases, partitions)
        .await
        .context("listing the partition Leases")?;
    let lp = ListParams::default();
    let (apps, deployments, services) = tokio::time::timeout(Duration::from_secs(5), async {
        futures::try_join!(apps.list(&lp), deployments.list(&lp), services.list(&lp))
    })
    .await??;
    // Objects per partition, per resource.
    let mut objects: BTreeMap<&str, Vec<Option<u32>>> = BTreeMap::new();
    objects.insert(
        CACHED[0],
        apps.iter()
            .map(|a| a.metadata.uid.as_deref().map(|u| partitions.of_uid(u)))
            .collect(),
    );
    objects.insert(
        CACHED[1],
        deployments
            .iter()
            .map(|d| owner_partition(&d.metadata, partitions))
            .collect(),
    );
    objects.insert(
        CACHED[2],
        services
            .iter()
            .map(|s| owner_partition(&s.metadata, partitions))
            .collect(),
    );
    let running = replicas.running();
    let mut lines = Vec::new();
    let mut mismatches = Vec::new();
    let unheld: Vec<u32> = (0..partitions.count())
        .filter(|p| {
            holders
                .get(p)
                .is_none_or(|h| !running.iter().any(|(name, _)| name == h))
        })
        .collect();
    if !unheld.is_empty() {
        mismatches.push(format!("partitions {unheld:?} held by no running replica"));
    }
    for (name, log) in &running {
        let held: Vec<u32> = holders
            .iter()
            .filter(|(_, h)| *h == name)
            .map(|(p, _)| *p)
            .collect();
        let addr = metrics_addr(log).context("no metrics address in the log")?;
        let sizes = cache_sizes(addr).await?;
        let mut cells = Vec::new();
        for resource in CACHED {
            let expected = objects[resource]
                .iter()
                .filter(|p| p.is_some_and(|p| held.contains(&p)))
                .count() as i64;
            let cached = sizes.get(resource).copied().unwrap_or(0);
            let kind = resource.rsplit('/').next().unwrap_or(resource);
            cells.push(format!("{kind} {cached}/{expected}"));
            if cached != expected {
                mismatches.push(format!(
                    "{name} (partitions {held:?}) caches {cached} {kind}s, its partitions hold {expected}"
                ));
            }
        }
        lines.push(format!(
            "{name}: partitions {held:?}, cached/in partitions: {}",
            cells.join(", ")
        ));
    }
    Ok((lines, mismatches))
}

/// How the apiserver filtered the replicas' MyApplication informers, from
/// the operators' logs: `(filtered, not filtered)` incarnations.
pub fn filtering(logs: &[PathBuf]) -> (usize, usize) {
    let mut filtered = 0;
    let mut unfiltered = 0;
    for log in logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains("the apiserver filters by shard; informer sends a shardSelector") {
            filtered += 1;
        }
        if text.contains("the apiserver does not filter by shard") {
            unfiltered += 1;
        }
    }
    (filtered, unfiltered)
}

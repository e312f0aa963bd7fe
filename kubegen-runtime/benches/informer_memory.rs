//! Informer cache memory and sync time: kubegen's `Informer` against
//! kube-runtime's reflector `Store` and client-go's shared informer, all
//! syncing the same 10,000 ConfigMaps (~1 KB of JSON each) from one private
//! control plane in the same run; each configuration is measured three
//! times after a warm-up and the medians are reported. kubegen reads
//! ConfigMaps in protobuf by default, as client-go does; the `JSON` rows
//! ask for JSON on both sides.
//!
//! Rust heap use is measured with a counting global allocator: bytes
//! requested and still live once the cache has synced (minus what was live
//! before), and the peak while syncing. client-go's side
//! (`bench/peer-client-go`, `cmd/informer-memory`, built from the Go module
//! proxy) reports the growth of Go's `HeapAlloc` after two GCs — live heap
//! objects, which like the Rust figure excludes allocator slack beyond the
//! size class. Once synced, each cache is read the way a reconciler reads
//! through a lister: one `get` by key for every object, in five passes;
//! the mean time of one `get` in the median pass is reported — over every
//! object, and over hot sets of the first 1,000 and 100 keys (client-go
//! reports the 1,000 too). kubegen's default cache is compact with a
//! decoded working set of a tenth of the objects: a get outside it decodes.
//! The `working set N` rows give the trade-off curve — memory against the
//! cost of a get, by working-set bound and by how many objects are read.
//! Memory is given once synced (`steady`) and again after the gets
//! (`after gets`, which holds a compact cache's filled working set; the
//! ratio and the `BENCH` lines use it). Without Go, the Rust rows are
//! printed alone. Lines starting with `BENCH` feed `bench/run_all.py`.
//! Run with `cargo bench -p kubegen-runtime --bench informer_memory`
//! (`INFORMER_BENCH_OBJECTS=N` changes the object count).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kubegen::api::{Api, ListParams, PostParams};
use kubegen::informer::{Informer, InformerConfig};
use kubegen::store::{ObjectKey, WorkingSet};
use kubegen::{Client, ResourceExt};
use kubegen_testenv::{Options, TestEnv};

#[path = "support/peer_client_go.rs"]
mod peer_client_go;

/// Forwards to the system allocator, counting live and peak bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Ordering::Relaxed);
}

// The one unsafe item of the benchmark: a global allocator must implement
// the unsafe `GlobalAlloc` trait. Every method forwards to `System` with the
// caller's arguments unchanged, so `System`'s guarantees carry over.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` with `layout`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

fn reset_peak() -> usize {
    let now = live();
    PEAK.store(now, Ordering::Relaxed);
    now
}

/// One configuration's figures.
#[derive(Clone)]
struct Row {
    name: String,
    sync: Duration,
    steady: usize,
    /// Live bytes after the gets: a compact cache's working set filled.
    after_gets: usize,
    /// Not measured for the Go program.
    peak: Option<usize>,
    /// Time of one `get` by key from the synced cache, as a reconciler
    /// reads its object through a lister (see [`time_gets`]): over every
    /// object, over the first [`HOT`] keys and (not measured for Go) over
    /// the first [`HOTTER`].
    get: Duration,
    get_hot: Duration,
    get_hotter: Option<Duration>,
    objects: usize,
}

/// A synced cache the benchmark can read from.
trait Cache {
    /// The key of every cached object.
    fn keys(&self) -> Vec<ObjectKey>;
    /// Reads the object at `key`; whether it was there.
    fn get(&self, key: &ObjectKey) -> bool;
}

impl Cache for Informer<ConfigMap> {
    fn keys(&self) -> Vec<ObjectKey> {
        self.store().keys()
    }

    fn get(&self, key: &ObjectKey) -> bool {
        self.store().get(key).is_some()
    }
}

/// kube-runtime's reader and the task feeding it.
type Reflector = (reflector::Store<ConfigMap>, AbortOnDrop);

impl Cache for Reflector {
    fn keys(&self) -> Vec<ObjectKey> {
        self.0
            .state()
            .iter()
            .map(|cm| ObjectKey::of(cm.as_ref()))
            .collect()
    }

    /// Builds the `ObjectRef` kube-runtime's `get` takes, as its users do.
    fn get(&self, key: &ObjectKey) -> bool {
        let reference = reflector::ObjectRef::<ConfigMap>::new(&key.name)
            .within(key.namespace.as_deref().unwrap_or_default());
        self.0.get(&reference).is_some()
    }
}

/// The hot sets: reads of the first this many keys in order.
const HOT: usize = 1_000;
const HOTTER: usize = 100;

/// The mean time of one `get` in the median of five passes over every key
/// of `cache`, over the first [`HOT`] keys in order and over the first
/// [`HOTTER`].
fn time_gets(cache: &impl Cache) -> [Duration; 3] {
    let mut keys = cache.keys();
    keys.sort();
    [
        time_gets_of(cache, &keys),
        time_gets_of(cache, &keys[..HOT.min(keys.len())]),
        time_gets_of(cache, &keys[..HOTTER.min(keys.len())]),
    ]
}

/// The mean time of one `get` in the median of five passes over `keys`.
fn time_gets_of(cache: &impl Cache, keys: &[ObjectKey]) -> Duration {
    let mut rounds: Vec<Duration> = (0..5)
        .map(|_| {
            let begun = Instant::now();
            let found = keys.iter().filter(|key| cache.get(key)).count();
            assert_eq!(found, keys.len(), "every listed key is found");
            begun.elapsed() / u32::try_from(keys.len().max(1)).unwrap_or(u32::MAX)
        })
        .collect();
    rounds.sort();
    rounds[rounds.len() / 2]
}

impl Row {
    fn per_object(bytes: usize, objects: usize) -> f64 {
        bytes as f64 / objects.max(1) as f64
    }
}

/// Measures one cache: `run` starts it and returns once it has synced,
/// handing back a guard that keeps the cache alive and its object count.
async fn measure<G: Cache, F, Fut>(name: &str, run: F) -> Result<Row>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<(G, usize)>>,
{
    // Let buffers of earlier measurements drain.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let baseline = reset_peak();
    let begun = Instant::now();
    let (guard, objects) = run().await?;
    let sync = begun.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(baseline);
    // Steady state: give the page buffers of the list time to be dropped.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let steady = live().saturating_sub(baseline);
    let [get, get_hot, get_hotter] = time_gets(&guard);
    let after_gets = live().saturating_sub(baseline);
    drop(guard);
    Ok(Row {
        name: name.to_string(),
        sync,
        steady,
        after_gets,
        peak: Some(peak),
        get,
        get_hot,
        get_hotter: Some(get_hotter),
        objects,
    })
}

/// A ConfigMap of about 1 KB of JSON once stored.
fn configmap(i: usize) -> ConfigMap {
    let data: BTreeMap<String, String> = (0..8)
        .map(|k| (format!("key-{k}"), format!("{i:06}-{k}-{}", "x".repeat(80))))
        .collect();
    ConfigMap {
        metadata: kubegen::api::ObjectMeta {
            name: Some(format!("bench-{i:05}")),
            labels: Some(BTreeMap::from([(
                "app".to_string(),
                "informer-bench".to_string(),
            )])),
            ..Default::default()
        },
        data: Some(data),
        ..Default::default()
    }
}

async fn ours(
    client: Client,
    ns: &str,
    config: InformerConfig<ConfigMap>,
) -> Result<(Informer<ConfigMap>, usize)> {
    let informer = Informer::new(Api::<ConfigMap>::namespaced(client, ns), config);
    informer.start();
    anyhow::ensure!(informer.wait_for_cache_sync().await, "informer stopped");
    let len = informer.store().len();
    Ok((informer, len))
}

/// kube-runtime's reflector; `strip` drops managed fields like our default.
async fn kube_runtime(client: kube::Client, ns: &str, strip: bool) -> Result<(Reflector, usize)> {
    let (reader, writer) = reflector::store::<ConfigMap>();
    let events = watcher(
        kube::Api::<ConfigMap>::namespaced(client, ns),
        watcher::Config::default(),
    )
    .default_backoff()
    .map_ok(move |event| {
        if strip {
            event.modify(|cm| cm.managed_fields_mut().clear())
        } else {
            event
        }
    });
    let task = tokio::spawn(reflector(writer, events).for_each(|_| async {}));
    reader
        .wait_until_ready()
        .await
        .context("reflector writer dropped")?;
    let len = reader.len();
    Ok(((reader, AbortOnDrop(task)), len))
}

/// Stops the reflector task when the measurement drops it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let count: usize = std::env::var("INFORMER_BENCH_OBJECTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let env = TestEnv::start_with(Options {
        nodes: 0,
        ..Options::default()
    })
    .await?;
    let ns = env.namespace("informer-bench").await?;
    let client = env.client().await?;
    // kube-runtime's reflector runs over kube-rs's own client.
    let kube_client = {
        let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig())?;
        let options = kube::config::KubeConfigOptions::default();
        kube::Client::try_from(kube::Config::from_custom_kubeconfig(kubeconfig, &options).await?)?
    };
    let api = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let begun = Instant::now();
    futures::stream::iter(0..count)
        .map(|i| {
            let api = api.clone();
            async move { api.create(&PostParams::default(), &configmap(i)).await }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<_>>()
        .await?;
    let sample = api.get("bench-00000").await?;
    let json = serde_json::to_vec(&sample)?.len();
    let mut stripped = sample.clone();
    stripped.metadata.managed_fields = None;
    let json_stripped = serde_json::to_vec(&stripped)?.len();
    // The namespace also holds kube-root-ca.crt.
    let listed = api.list(&ListParams::default()).await?.items.len();
    println!(
        "created {count} ConfigMaps in {:.1?}; one is {json} B of JSON ({json_stripped} B without managedFields); {listed} objects in the namespace",
        begun.elapsed()
    );

    // Warm-up: the first sync also pays for one-time allocations (TLS,
    // connection pool, tracing callsites), which are not cache memory.
    let _ = measure("warm-up", || {
        ours(client.clone(), &ns, InformerConfig::default())
    })
    .await?;
    let mut rows = vec![
        median_of(RUNS, "kube-runtime reflector Store", || {
            kube_runtime(kube_client.clone(), &ns, false)
        })
        .await?,
        median_of(RUNS, "kube-runtime Store, managedFields cleared", || {
            kube_runtime(kube_client.clone(), &ns, true)
        })
        .await?,
        median_of(RUNS, "kubegen Informer (default)", || {
            ours(client.clone(), &ns, InformerConfig::default())
        })
        .await?,
        median_of(RUNS, "kubegen Informer, decoded", || {
            ours(client.clone(), &ns, InformerConfig::default().decoded())
        })
        .await?,
        median_of(RUNS, "kubegen Informer, no transform", || {
            ours(
                client.clone(),
                &ns,
                InformerConfig::default().no_transform(),
            )
        })
        .await?,
        median_of(RUNS, "kubegen Informer, decoded, no transform", || {
            ours(
                client.clone(),
                &ns,
                InformerConfig::default().no_transform().decoded(),
            )
        })
        .await?,
        median_of(RUNS, "kubegen Informer, JSON", || {
            ours(client.clone(), &ns, InformerConfig::default().json())
        })
        .await?,
        median_of(RUNS, "kubegen Informer, decoded, JSON", || {
            ours(
                client.clone(),
                &ns,
                InformerConfig::default().decoded().json(),
            )
        })
        .await?,
        median_of(RUNS, "kubegen Informer, paginated list", || {
            ours(
                client.clone(),
                &ns,
                InformerConfig::default().paginated_list(),
            )
        })
        .await?,
    ];
    // The trade-off curve: the default with other working-set bounds.
    for bound in [0, 100, 4_000] {
        rows.push(
            median_of(
                RUNS,
                &format!("kubegen Informer, working set {bound}"),
                || {
                    ours(
                        client.clone(),
                        &ns,
                        InformerConfig::default().working_set(WorkingSet::Fixed(bound)),
                    )
                },
            )
            .await?,
        );
    }
    let go = client_go(&env, &ns);
    rows.extend(go.iter().cloned());

    let reference = Row::per_object(rows[0].after_gets, rows[0].objects);
    println!();
    println!(
        "| {:<52} | {:>7} | {:>9} | {:>14} | {:>12} | {:>12} | {:>14} | {:>9} | {:>9} | {:>9} |",
        "cache",
        "objects",
        "sync",
        "steady B/obj",
        "after gets",
        "peak B/obj",
        "steady ratio",
        "get, all",
        "get, 1000",
        "get, 100"
    );
    println!(
        "|{:-<54}|{:->9}|{:->11}|{:->16}|{:->14}|{:->14}|{:->16}|{:->11}|{:->11}|{:->11}|",
        "", "", "", "", "", "", "", "", "", ""
    );
    for row in &rows {
        let steady = Row::per_object(row.steady, row.objects);
        println!(
            "| {:<52} | {:>7} | {:>9.2?} | {:>14.0} | {:>12.0} | {:>12} | {:>13.2}x | {:>9.0?} | {:>9.0?} | {:>9} |",
            row.name,
            row.objects,
            row.sync,
            steady,
            Row::per_object(row.after_gets, row.objects),
            row.peak.map_or("-".to_string(), |p| format!(
                "{:.0}",
                Row::per_object(p, row.objects)
            )),
            Row::per_object(row.after_gets, row.objects) / reference,
            row.get,
            row.get_hot,
            row.get_hotter
                .map_or("-".to_string(), |g| format!("{g:.0?}")),
        );
    }
    report(&rows);
    Ok(())
}

/// Measured syncs per configuration (medians reported), as the client-go
/// program does after its own warm-up.
const RUNS: usize = 3;

/// `RUNS` measurements of one configuration; each figure is the median.
async fn median_of<G: Cache, F, Fut>(runs: usize, name: &str, run: F) -> Result<Row>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<(G, usize)>>,
{
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        samples.push(measure(name, &run).await?);
    }
    let median = |mut values: Vec<u128>| {
        values.sort_unstable();
        values[values.len() / 2]
    };
    Ok(Row {
        name: name.to_string(),
        sync: Duration::from_nanos(
            median(samples.iter().map(|r| r.sync.as_nanos()).collect()) as u64
        ),
        steady: median(samples.iter().map(|r| r.steady as u128).collect()) as usize,
        after_gets: median(samples.iter().map(|r| r.after_gets as u128).collect()) as usize,
        peak: Some(median(
            samples
                .iter()
                .filter_map(|r| r.peak)
                .map(|p| p as u128)
                .collect(),
        ) as usize),
        get: Duration::from_nanos(median(samples.iter().map(|r| r.get.as_nanos()).collect()) as u64),
        get_hot: Duration::from_nanos(
            median(samples.iter().map(|r| r.get_hot.as_nanos()).collect()) as u64,
        ),
        get_hotter: Some(Duration::from_nanos(median(
            samples
                .iter()
                .filter_map(|r| r.get_hotter)
                .map(|g| g.as_nanos())
                .collect(),
        ) as u64)),
        objects: samples[0].objects,
    })
}

/// client-go's shared informer over the same ConfigMaps, with and without
/// a managedFields-stripping transform (`bench/peer-client-go`,
/// `cmd/informer-memory`): Go heap in use after GC (`HeapAlloc`) per object
/// and sync time, medians of `RUNS`. Empty when Go is missing.
fn client_go(env: &TestEnv, ns: &str) -> Vec<Row> {
    let version = peer_client_go::client_go_version();
    let program = match peer_client_go::program("informer-memory") {
        Ok(program) => program,
        Err(why) => {
            println!("client-go comparison skipped: {why}");
            return Vec::new();
        }
    };
    let mut rows = Vec::new();
    for (strip, json) in [(false, false), (true, false), (true, true)] {
        let mut command = std::process::Command::new(&program);
        command
            .args(["-namespace", ns, "-runs", &RUNS.to_string()])
            .args(["-hot", &HOT.to_string()])
            .arg(format!("-strip={strip}"))
            .arg(format!("-json={json}"))
            .env("KUBECONFIG", env.kubeconfig());
        let line = match peer_client_go::json_lines(&mut command) {
            Ok(lines) if !lines.is_empty() => lines[0].clone(),
            Ok(_) => {
                println!("client-go printed nothing");
                continue;
            }
            Err(why) => {
                println!("client-go comparison failed: {why}");
                continue;
            }
        };
        let objects = line["objects"].as_u64().unwrap_or(0) as usize;
        let per_object = line["heap_alloc_bytes_per_object"].as_f64().unwrap_or(0.0);
        println!(
            "client-go {version} (strip={strip}, json={json}): list path {}, HeapInuse {:.0} B/object",
            line["list_path"].as_str().unwrap_or("?"),
            line["heap_inuse_bytes_per_object"].as_f64().unwrap_or(0.0)
        );
        rows.push(Row {
            name: match (strip, json) {
                (true, true) => format!("client-go {version} informer, stripped, JSON"),
                (true, false) => format!("client-go {version} informer, managedFields stripped"),
                _ => format!("client-go {version} informer (default)"),
            },
            sync: Duration::from_secs_f64(line["sync_ms"].as_f64().unwrap_or(0.0) / 1000.0),
            steady: (per_object * objects as f64) as usize,
            after_gets: (per_object * objects as f64) as usize,
            peak: None,
            get: Duration::from_secs_f64(line["get_ns"].as_f64().unwrap_or(0.0) / 1e9),
            get_hot: Duration::from_secs_f64(line["get_hot_ns"].as_f64().unwrap_or(0.0) / 1e9),
            get_hotter: None,
            objects,
        });
    }
    rows
}

/// The `BENCH` lines of `bench/run_all.py`: kubegen against client-go, the
/// informer users of Go pick.
fn report(rows: &[Row]) {
    let find = |prefix: &str| rows.iter().find(|r| r.name.starts_with(prefix));
    // Memory with the working set filled by the gets.
    let per_object = |r: &Row| Row::per_object(r.after_gets, r.objects);
    let version = peer_client_go::client_go_version();
    let pairs = [
        (
            "kubegen Informer (default)",
            "client-go v",
            "managedFields stripped",
            "informer cache, managedFields dropped: kubegen default vs client-go {v} with a stripping transform",
        ),
        (
            "kubegen Informer, no transform",
            "client-go v",
            "(default)",
            "informer cache, managedFields kept: kubegen no_transform vs client-go {v} default",
        ),
        (
            "kubegen Informer, decoded",
            "client-go v",
            "managedFields stripped",
            "informer cache, managedFields dropped: kubegen decoded vs client-go {v} with a stripping transform",
        ),
        (
            "kubegen Informer, decoded, no transform",
            "client-go v",
            "(default)",
            "informer cache, managedFields kept: kubegen decoded no_transform vs client-go {v} default",
        ),
        (
            "kubegen Informer, JSON",
            "client-go v",
            "stripped, JSON",
            "informer cache, managedFields dropped, both in JSON: kubegen json() vs client-go {v} stripping",
        ),
    ];
    for (ours, theirs_prefix, theirs_suffix, what) in pairs {
        let theirs = rows
            .iter()
            .find(|r| r.name.starts_with(theirs_prefix) && r.name.ends_with(theirs_suffix));
        if let (Some(a), Some(b)) = (find(ours), theirs) {
            let what = what.replace("{v}", &version);
            println!(
                "BENCH\t{what} (B/object)\t{:.0}\t{:.0}\tB/object",
                per_object(a),
                per_object(b)
            );
            println!(
                "BENCH\t{what} (sync of {} objects)\t{:.0}\t{:.0}\tms",
                a.objects,
                a.sync.as_secs_f64() * 1000.0,
                b.sync.as_secs_f64() * 1000.0
            );
            println!(
                "BENCH\t{what} (one get by key from the synced cache, every object)\t{}\t{}\tns",
                a.get.as_nanos(),
                b.get.as_nanos()
            );
            println!(
                "BENCH\t{what} (one get by key, the first {HOT} keys)\t{}\t{}\tns",
                a.get_hot.as_nanos(),
                b.get_hot.as_nanos()
            );
        }
    }
}

//! Informer cache memory and sync time: kubegen's `Informer` against
//! kube-runtime's reflector `Store`, both syncing the same 10,000 ConfigMaps
//! (~1 KB of JSON each) from a private control plane.
//!
//! Heap use is measured with a counting global allocator: bytes requested
//! and still live once the cache has synced (minus what was live before),
//! and the peak while syncing. Run with
//! `cargo bench -p kubegen --bench informer_memory`
//! (`INFORMER_BENCH_OBJECTS=N` changes the object count).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, PostParams};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kube::{Client, ResourceExt};
use kubegen::informer::{Informer, InformerConfig};
use kubegen_testenv::{Options, TestEnv};

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
struct Row {
    name: &'static str,
    sync: Duration,
    steady: usize,
    peak: usize,
    objects: usize,
}

impl Row {
    fn per_object(bytes: usize, objects: usize) -> f64 {
        bytes as f64 / objects.max(1) as f64
    }
}

/// Measures one cache: `run` starts it and returns once it has synced,
/// handing back a guard that keeps the cache alive and its object count.
async fn measure<G, F, Fut>(name: &'static str, run: F) -> Result<Row>
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
    drop(guard);
    Ok(Row {
        name,
        sync,
        steady,
        peak,
        objects,
    })
}

/// A ConfigMap of about 1 KB of JSON once stored.
fn configmap(i: usize) -> ConfigMap {
    let data: BTreeMap<String, String> = (0..8)
        .map(|k| (format!("key-{k}"), format!("{i:06}-{k}-{}", "x".repeat(80))))
        .collect();
    ConfigMap {
        metadata: kube::api::ObjectMeta {
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
async fn kube_runtime(
    client: Client,
    ns: &str,
    strip: bool,
) -> Result<((reflector::Store<ConfigMap>, AbortOnDrop), usize)> {
    let (reader, writer) = reflector::store::<ConfigMap>();
    let events = watcher(
        Api::<ConfigMap>::namespaced(client, ns),
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
    let env = TestEnv::start_with(Options { nodes: 0 }).await?;
    let ns = env.namespace("informer-bench").await?;
    let client = env.client().await?;
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

    let mut rows = Vec::new();
    // Warm-up: the first sync also pays for one-time allocations (TLS,
    // connection pool, tracing callsites), which are not cache memory.
    let _ = measure("warm-up", || {
        ours(client.clone(), &ns, InformerConfig::default())
    })
    .await?;
    rows.push(
        measure("kube-runtime reflector Store", || {
            kube_runtime(client.clone(), &ns, false)
        })
        .await?,
    );
    rows.push(
        measure("kube-runtime Store, managedFields cleared", || {
            kube_runtime(client.clone(), &ns, true)
        })
        .await?,
    );
    rows.push(
        measure("kubegen Informer (default)", || {
            ours(client.clone(), &ns, InformerConfig::default())
        })
        .await?,
    );
    rows.push(
        measure("kubegen Informer, no transform", || {
            ours(
                client.clone(),
                &ns,
                InformerConfig::default().no_transform(),
            )
        })
        .await?,
    );
    rows.push(
        measure("kubegen Informer, streaming list", || {
            ours(
                client.clone(),
                &ns,
                InformerConfig::default().streaming_list(),
            )
        })
        .await?,
    );

    let reference = Row::per_object(rows[0].steady, rows[0].objects);
    println!();
    println!(
        "| {:<42} | {:>7} | {:>9} | {:>14} | {:>12} | {:>14} |",
        "cache", "objects", "sync", "steady B/obj", "peak B/obj", "steady ratio"
    );
    println!(
        "|{:-<44}|{:->9}|{:->11}|{:->16}|{:->14}|{:->16}|",
        "", "", "", "", "", ""
    );
    for row in &rows {
        let steady = Row::per_object(row.steady, row.objects);
        println!(
            "| {:<42} | {:>7} | {:>9.2?} | {:>14.0} | {:>12.0} | {:>13.2}x |",
            row.name,
            row.objects,
            row.sync,
            steady,
            Row::per_object(row.peak, row.objects),
            steady / reference
        );
    }
    Ok(())
}

//! Throughput of the work queue: add → get → done cycles per second.
//!
//! A producer task adds `ITEMS` distinct items while 1 or 8 worker tasks take
//! them with `get` and finish them with `done`, all on Tokio's multi-thread
//! runtime (one worker thread per core, as GOMAXPROCS is for client-go's
//! goroutines); the run ends when the drained queue has handed out every
//! item.
//! Each configuration (1 or 8 workers, with and without metrics) is
//! measured in `RUNS` rounds. A round runs every configuration on kubegen's
//! side, then through client-go's typed rate-limiting queue
//! (`bench/peer-client-go`, `cmd/workqueue`: same items and worker counts,
//! goroutines instead of tasks), each time a warm-up run right before the
//! measured one, so both sides meet the machine in the same state; the
//! medians over the rounds and their ratios are printed, with `BENCH` lines
//! for `bench/run_all.py`. Without Go, kubegen is reported alone.
//! Run with `cargo bench -p kubegen-runtime --bench workqueue`.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use kubegen::workqueue::{WorkQueue, WorkQueueMetrics};
use prometheus_client::registry::Registry;

#[path = "support/peer_client_go.rs"]
mod peer_client_go;

/// Items per run.
const ITEMS: u64 = 200_000;
/// Measured rounds (each runs every configuration once per side).
const RUNS: usize = 9;
/// Concurrent workers per configuration.
const WORKERS: [usize; 2] = [1, 8];

/// Pushes `ITEMS` items through a queue with `workers` workers; returns the
/// elapsed time.
async fn run_once(workers: usize, metrics: Option<&WorkQueueMetrics>) -> Duration {
    let mut builder = WorkQueue::<u64>::builder("bench");
    if let Some(metrics) = metrics {
        builder = builder.metrics(metrics);
    }
    let queue = builder.build();
    let start = Instant::now();
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let queue = queue.clone();
            tokio::spawn(async move {
                let mut handled = 0u64;
                while let Some(item) = queue.get().await {
                    queue.done(&item);
                    handled += 1;
                }
                handled
            })
        })
        .collect();
    // The producer is a task on the runtime's worker threads too, as
    // client-go's runs in a goroutine on one of its GOMAXPROCS threads:
    // both sides then run everything on as many threads as cores.
    let producer = tokio::spawn({
        let queue = queue.clone();
        async move {
            for item in 0..ITEMS {
                queue.add(item);
                if item % 256 == 0 {
                    tokio::task::yield_now().await;
                }
            }
            queue.shutdown_with_drain().await;
        }
    });
    producer.await.expect("producer panicked");
    let mut handled = 0;
    for handle in handles {
        handled += handle.await.expect("worker panicked");
    }
    let elapsed = start.elapsed();
    assert_eq!(handled, ITEMS, "every item is handed out exactly once");
    elapsed
}

/// One configuration: worker count and whether metrics are recorded.
type Config = (usize, bool);

/// Every configuration, in the order the tables list them.
fn configs() -> Vec<Config> {
    [false, true]
        .into_iter()
        .flat_map(|metrics| WORKERS.map(|workers| (workers, metrics)))
        .collect()
}

/// Median, minimum and maximum of `rates`.
fn spread(rates: &[f64]) -> [f64; 3] {
    let mut sorted = rates.to_vec();
    sorted.sort_by(f64::total_cmp);
    [
        sorted[sorted.len() / 2],
        sorted[0],
        sorted[sorted.len() - 1],
    ]
}

/// client-go's side: the program and its version, or why it is skipped.
fn client_go() -> Result<(std::path::PathBuf, String), String> {
    peer_client_go::program("workqueue").map(|p| (p, peer_client_go::client_go_version()))
}

/// One round of client-go's program: a warm-up and one measured run per
/// configuration, in cycles/s.
fn client_go_round(program: &std::path::Path) -> Result<BTreeMap<Config, f64>, String> {
    let workers = WORKERS.map(|w| w.to_string()).join(",");
    let lines = peer_client_go::json_lines(Command::new(program).args([
        "-items",
        &ITEMS.to_string(),
        "-runs",
        "1",
        "-workers",
        &workers,
    ]))?;
    Ok(lines
        .iter()
        .filter_map(|line| {
            let workers = usize::try_from(line["workers"].as_u64()?).ok()?;
            Some((
                (workers, line["metrics"].as_bool()?),
                line["median_cycles_per_sec"].as_f64()?,
            ))
        })
        .collect())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut registry = Registry::default();
    let metrics = WorkQueueMetrics::register(&mut registry);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut peer = client_go();
    println!(
        "workqueue: {ITEMS} add/get/done cycles per run, {RUNS} rounds, \
         tokio multi-thread runtime on {threads} threads; each round runs \
         every configuration on kubegen's side, then on client-go's (a \
         fresh process), each time a warm-up run and a measured one"
    );
    // A warm-up run right before each measured one, as client-go's
    // program does, so that both sides are measured with warm threads.
    let run = |(workers, with_metrics): Config| {
        let m = with_metrics.then_some(&metrics);
        runtime.block_on(async {
            run_once(workers, m).await;
            let elapsed = run_once(workers, m).await;
            ITEMS as f64 / elapsed.as_secs_f64()
        })
    };
    let mut ours: BTreeMap<Config, Vec<f64>> = BTreeMap::new();
    let mut theirs: BTreeMap<Config, Vec<f64>> = BTreeMap::new();
    for _ in 0..RUNS {
        for config in configs() {
            ours.entry(config).or_default().push(run(config));
        }
        if let Ok((program, _)) = &peer {
            match client_go_round(program) {
                Ok(round) => {
                    for (config, rate) in round {
                        theirs.entry(config).or_default().push(rate);
                    }
                }
                Err(why) => peer = Err(format!("a round failed: {why}")),
            }
        }
    }
    println!();
    println!("| workers | metrics | median cycles/s | min cycles/s | max cycles/s |");
    println!("|--------:|:-------:|----------------:|-------------:|-------------:|");
    for config @ (workers, with_metrics) in configs() {
        let [median, min, max] = spread(&ours[&config]);
        println!(
            "| {workers:>7} | {:^7} | {:>15} | {:>12} | {:>12} |",
            on_off(with_metrics),
            group(median),
            group(min),
            group(max),
        );
    }
    match peer {
        Ok((_, version)) => compare(&ours, &theirs, &version),
        Err(why) => println!("\nclient-go comparison left out: {why}"),
    }
}

fn on_off(metrics: bool) -> &'static str {
    if metrics { "on" } else { "off" }
}

/// Prints the ratios of the medians and the `BENCH` lines.
fn compare(ours: &BTreeMap<Config, Vec<f64>>, theirs: &BTreeMap<Config, Vec<f64>>, version: &str) {
    println!();
    println!(
        "kubegen vs client-go {version} workqueue (GOMAXPROCS = cores), \
         median cycles/s over the same rounds:"
    );
    println!();
    println!(
        "| workers | metrics | kubegen | client-go | client-go min..max | kubegen / client-go |"
    );
    println!(
        "|--------:|:-------:|--------:|----------:|-------------------:|--------------------:|"
    );
    for config @ (w, metrics) in configs() {
        let (Some(mine), Some(peer)) = (ours.get(&config), theirs.get(&config)) else {
            continue;
        };
        let [mine, ..] = spread(mine);
        let [median, min, max] = spread(peer);
        let on = on_off(metrics);
        println!(
            "| {w:>7} | {on:^7} | {:>7} | {:>9} | {:>18} | {:>19.2}x |",
            group(mine),
            group(median),
            format!("{}..{}", group(min), group(max)),
            mine / median
        );
        // Throughput: a ratio above 1 means kubegen is faster. The table
        // of bench/run_all.py divides kubegen by the peer, so report time
        // per item, where below 1 is better, as everywhere else.
        println!(
            "BENCH\tworkqueue, {w} worker(s), metrics {on}: kubegen vs client-go {version} (ns per add/get/done)\t{:.1}\t{:.1}\tns",
            1e9 / mine,
            1e9 / median
        );
    }
}

/// `1234567.8` → `1 234 568`.
fn group(rate: f64) -> String {
    let digits = format!("{rate:.0}");
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(digit);
    }
    out
}

//! Throughput of the work queue: add → get → done cycles per second.
//!
//! A producer task adds `ITEMS` distinct items while 1 or 8 worker tasks take
//! them with `get` and finish them with `done`, on Tokio's multi-thread
//! runtime; the run ends when the drained queue has handed out every item.
//! Each configuration is measured `RUNS` times and the median is reported,
//! with and without metrics. Then, in the same run, client-go's typed
//! rate-limiting queue goes through the same pattern (`bench/peer-client-go`,
//! `cmd/workqueue`: same items, runs and worker counts, goroutines instead
//! of tasks) and the ratios are printed, with `BENCH` lines for
//! `bench/run_all.py`. Without Go, kubegen is reported alone.
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
/// Measured runs per configuration.
const RUNS: usize = 5;
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
    for item in 0..ITEMS {
        queue.add(item);
        if item % 256 == 0 {
            tokio::task::yield_now().await;
        }
    }
    queue.shutdown_with_drain().await;
    let mut handled = 0;
    for handle in handles {
        handled += handle.await.expect("worker panicked");
    }
    let elapsed = start.elapsed();
    assert_eq!(handled, ITEMS, "every item is handed out exactly once");
    elapsed
}

/// Median, minimum and maximum throughput over `RUNS` runs, in cycles/s.
async fn measure(workers: usize, metrics: Option<&WorkQueueMetrics>) -> [f64; 3] {
    run_once(workers, metrics).await; // warm-up
    let mut rates = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let elapsed = run_once(workers, metrics).await;
        rates.push(ITEMS as f64 / elapsed.as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    [rates[RUNS / 2], rates[0], rates[RUNS - 1]]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut registry = Registry::default();
    let metrics = WorkQueueMetrics::register(&mut registry);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "workqueue: {ITEMS} add/get/done cycles per run, median of {RUNS} runs, \
         tokio multi-thread runtime on {threads} threads"
    );
    println!();
    let mut ours = BTreeMap::new();
    println!("| workers | metrics | median cycles/s | min cycles/s | max cycles/s |");
    println!("|--------:|:-------:|----------------:|-------------:|-------------:|");
    for with_metrics in [false, true] {
        for workers in WORKERS {
            let m = with_metrics.then_some(&metrics);
            let [median, min, max] = runtime.block_on(measure(workers, m));
            ours.insert((workers, with_metrics), median);
            println!(
                "| {workers:>7} | {:^7} | {:>15} | {:>12} | {:>12} |",
                if with_metrics { "on" } else { "off" },
                group(median),
                group(min),
                group(max),
            );
        }
    }
    compare_with_client_go(&ours);
}

/// Runs client-go's queue through the same pattern and prints the ratios.
fn compare_with_client_go(ours: &BTreeMap<(usize, bool), f64>) {
    let version = peer_client_go::client_go_version();
    let program = match peer_client_go::program("workqueue") {
        Ok(program) => program,
        Err(why) => {
            println!("\nclient-go comparison skipped: {why}");
            return;
        }
    };
    let workers = WORKERS.map(|w| w.to_string()).join(",");
    let lines = peer_client_go::json_lines(Command::new(program).args([
        "-items",
        &ITEMS.to_string(),
        "-runs",
        &RUNS.to_string(),
        "-workers",
        &workers,
    ]));
    let lines = match lines {
        Ok(lines) => lines,
        Err(why) => {
            println!("\nclient-go comparison failed: {why}");
            return;
        }
    };
    println!();
    println!("kubegen vs client-go {version} workqueue (GOMAXPROCS = cores), median cycles/s:");
    println!();
    println!("| workers | metrics | kubegen | client-go | kubegen / client-go |");
    println!("|--------:|:-------:|--------:|----------:|--------------------:|");
    for line in lines {
        let (Some(w), Some(metrics), Some(theirs)) = (
            line["workers"].as_u64(),
            line["metrics"].as_bool(),
            line["median_cycles_per_sec"].as_f64(),
        ) else {
            continue;
        };
        let Some(&mine) = ours.get(&(w as usize, metrics)) else {
            continue;
        };
        let on = if metrics { "on" } else { "off" };
        println!(
            "| {w:>7} | {on:^7} | {:>7} | {:>9} | {:>19.2}x |",
            group(mine),
            group(theirs),
            mine / theirs
        );
        // Throughput: a ratio above 1 means kubegen is faster. The table
        // of bench/run_all.py divides kubegen by the peer, so report time
        // per item, where below 1 is better, as everywhere else.
        println!(
            "BENCH\tworkqueue, {w} worker(s), metrics {on}: kubegen vs client-go {version} (ns per add/get/done)\t{:.1}\t{:.1}\tns",
            1e9 / mine,
            1e9 / theirs
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

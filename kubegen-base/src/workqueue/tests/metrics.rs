//! Metric values after known sequences, read back from the text exposition.

use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;
use tokio::time::advance;

use crate::workqueue::{WorkQueue, WorkQueueMetrics};

const MS: Duration = Duration::from_millis(1);

/// The depth series of the queue `jobs`.
const DEPTH: &str = r#"workqueue_depth{name="jobs",controller="jobs",priority=""}"#;

/// The `le` bucket of the histogram `family` for the queue `jobs`.
fn bucket(family: &str, le: &str) -> String {
    format!(r#"{family}_bucket{{le="{le}",name="jobs",controller="jobs"}}"#)
}

/// The series of `family` for the queue `jobs`.
fn jobs(family: &str) -> String {
    format!(r#"{family}{{name="jobs",controller="jobs"}}"#)
}

/// The registry encoded as text.
fn scrape(registry: &Registry) -> String {
    let mut text = String::new();
    encode(&mut text, registry).unwrap();
    text
}

/// The value of the sample called exactly `series` (name and labels).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(series)?.strip_prefix(' ')?;
        Some(value.parse().unwrap())
    })
}

/// Asserts that `series` is exposed with a value within 1 ns of `want`.
#[track_caller]
fn assert_sample(text: &str, series: &str, want: f64) {
    let got = sample(text, series).unwrap_or_else(|| panic!("no sample {series} in\n{text}"));
    assert!(
        (got - want).abs() < 1e-9,
        "{series}: got {got}, want {want}\n{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn metrics_follow_a_known_sequence() {
    let mut registry = Registry::default();
    let metrics = WorkQueueMetrics::register(&mut registry);
    let q: WorkQueue<&str> = WorkQueue::builder("jobs").metrics(&metrics).build();

    q.add("a");
    q.add("b");
    q.add("a"); // duplicate: not counted
    let text = scrape(&registry);
    assert_sample(&text, &jobs("workqueue_adds_total"), 2.0);
    assert_sample(&text, DEPTH, 2.0);
    assert_sample(&text, &jobs("workqueue_unfinished_work_seconds"), 0.0);

    advance(10 * MS).await;
    assert_eq!(q.get().await, Some("a")); // waited 10 ms
    advance(20 * MS).await;
    let text = scrape(&registry);
    assert_sample(&text, DEPTH, 1.0);
    assert_sample(&text, &jobs("workqueue_unfinished_work_seconds"), 0.020);
    assert_sample(
        &text,
        &jobs("workqueue_longest_running_processor_seconds"),
        0.020,
    );

    assert_eq!(q.get().await, Some("b")); // waited 30 ms
    advance(5 * MS).await;
    let text = scrape(&registry);
    assert_sample(&text, DEPTH, 0.0);
    assert_sample(
        &text,
        r#"workqueue_unfinished_work_seconds{name="jobs",controller="jobs"}"#,
        0.025 + 0.005,
    );
    assert_sample(
        &text,
        &jobs("workqueue_longest_running_processor_seconds"),
        0.025,
    );

    q.add("a"); // added while processed: counted, queued on done
    advance(MS).await;
    q.done(&"a"); // worked 26 ms
    q.done(&"b"); // worked 6 ms
    q.add_rate_limited("c");
    q.add_rate_limited("c");
    let text = scrape(&registry);
    assert_sample(&text, &jobs("workqueue_adds_total"), 3.0);
    assert_sample(&text, DEPTH, 1.0);
    assert_sample(&text, &jobs("workqueue_retries_total"), 2.0);
    assert_sample(&text, &jobs("workqueue_unfinished_work_seconds"), 0.0);
    assert_sample(
        &text,
        &jobs("workqueue_longest_running_processor_seconds"),
        0.0,
    );

    let queue = "workqueue_queue_duration_seconds";
    assert_sample(&text, &jobs(&format!("{queue}_count")), 2.0);
    assert_sample(&text, &jobs(&format!("{queue}_sum")), 0.040);
    assert_sample(&text, &bucket(queue, "0.001"), 0.0);
    assert_sample(&text, &bucket(queue, "0.01"), 1.0);
    assert_sample(&text, &bucket(queue, "0.1"), 2.0);
    assert_sample(&text, &bucket(queue, "+Inf"), 2.0);

    let work = "workqueue_work_duration_seconds";
    assert_sample(&text, &jobs(&format!("{work}_count")), 2.0);
    assert_sample(&text, &jobs(&format!("{work}_sum")), 0.032);
    assert_sample(&text, &bucket(work, "0.01"), 1.0);
    assert_sample(&text, &bucket(work, "0.1"), 2.0);
    assert_sample(&text, &bucket(work, "1e-8"), 0.0);
    assert_sample(&text, &bucket(work, "10.0"), 2.0);
}

#[tokio::test(start_paused = true)]
async fn queues_are_labelled_by_name_and_leave_with_their_queue() {
    let mut registry = Registry::default();
    let metrics = WorkQueueMetrics::register(&mut registry);
    let foos: WorkQueue<u32> = WorkQueue::builder("foos").metrics(&metrics).build();
    let bars: WorkQueue<u32> = WorkQueue::builder("bars").metrics(&metrics).build();
    let unmetered: WorkQueue<u32> = WorkQueue::new("quiet");
    foos.add(1);
    bars.add(1);
    bars.add(2);
    unmetered.add(1);
    assert_eq!(foos.get().await, Some(1));
    advance(3 * MS).await;
    let text = scrape(&registry);
    assert_sample(
        &text,
        r#"workqueue_adds_total{name="foos",controller="foos"}"#,
        1.0,
    );
    assert_sample(
        &text,
        r#"workqueue_adds_total{name="bars",controller="bars"}"#,
        2.0,
    );
    assert!(!text.contains("quiet"), "{text}");
    assert_sample(
        &text,
        r#"workqueue_longest_running_processor_seconds{name="foos",controller="foos"}"#,
        0.003,
    );
    assert_sample(
        &text,
        r#"workqueue_longest_running_processor_seconds{name="bars",controller="bars"}"#,
        0.0,
    );

    drop(foos);
    let text = scrape(&registry);
    assert_eq!(
        sample(
            &text,
            r#"workqueue_unfinished_work_seconds{name="foos",controller="foos"}"#
        ),
        None
    );
    assert_eq!(
        sample(
            &text,
            r#"workqueue_depth{name="foos",controller="foos",priority=""}"#
        ),
        None
    );
    // Counters and histograms of a dropped queue stay: they never go back,
    // and a new queue of the same name counts on from them.
    assert_sample(
        &text,
        r#"workqueue_adds_total{name="foos",controller="foos"}"#,
        1.0,
    );
    assert_sample(
        &text,
        r#"workqueue_queue_duration_seconds_count{name="foos",controller="foos"}"#,
        1.0,
    );
    let again: WorkQueue<u32> = WorkQueue::builder("foos").metrics(&metrics).build();
    again.add(7);
    again.add(8);
    let text = scrape(&registry);
    assert_sample(
        &text,
        r#"workqueue_adds_total{name="foos",controller="foos"}"#,
        3.0,
    );
    assert_sample(
        &text,
        r#"workqueue_depth{name="foos",controller="foos",priority=""}"#,
        2.0,
    );
    assert_sample(
        &text,
        r#"workqueue_unfinished_work_seconds{name="bars",controller="bars"}"#,
        0.0,
    );
}

/// Every `add_after` of a running queue counts a retry, a zero delay too,
/// as client-go's delaying queue counts them (and controller-runtime's
/// dashboards read them); a queue shutting down counts none.
#[tokio::test(start_paused = true)]
async fn every_add_after_counts_a_retry() {
    let mut registry = Registry::default();
    let metrics = WorkQueueMetrics::register(&mut registry);
    let q: WorkQueue<&str> = WorkQueue::builder("jobs").metrics(&metrics).build();
    q.add("a");
    q.add_after("b", Duration::ZERO);
    q.add_after("c", 5 * MS);
    q.add_rate_limited("d");
    let retries = r#"workqueue_retries_total{name="jobs",controller="jobs"}"#;
    assert_sample(&scrape(&registry), retries, 3.0);
    q.shutdown();
    q.add_after("e", MS);
    assert_sample(&scrape(&registry), retries, 3.0);
}

//! The webhook server's metrics under controller-runtime's names and
//! labels: requests by webhook path and status code, latency, requests in
//! flight, and handler panics, which are answered `500` and counted in
//! `controller_runtime_webhook_panics_total` (reviews) or
//! `controller_runtime_conversion_webhook_panics_total` (conversions).

use anyhow::{Result, ensure};
use kubegen::server::SharedRegistry;

mod support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_and_panics_are_counted_as_controller_runtime_counts_them() -> Result<()> {
    let registry = SharedRegistry::default();
    let webhooks = support::serve(|b| {
        b.metrics(registry.clone())
            .route("/ok", |body| Ok(body.to_vec()))
            .route("/panics", |_| panic!("a handler bug"))
    })
    .await?;
    assert_eq!(webhooks.post("/ok", b"{}").await?, 200);
    assert_eq!(webhooks.post("/panics", b"{}").await?, 500);
    assert_eq!(webhooks.post("/panics", b"{}").await?, 500);
    let text = registry.encode()?;
    for series in [
        "controller_runtime_webhook_panics_total 2",
        "controller_runtime_conversion_webhook_panics_total 0",
        "controller_runtime_webhook_requests_total{webhook=\"/ok\",code=\"200\"} 1",
        "controller_runtime_webhook_requests_total{webhook=\"/panics\",code=\"500\"} 2",
        "controller_runtime_webhook_requests_in_flight{webhook=\"/panics\"} 0",
        "controller_runtime_webhook_latency_seconds_count{webhook=\"/ok\"} 1",
    ] {
        ensure!(
            text.lines().any(|l| l == series),
            "missing {series:?} in\n{text}"
        );
    }
    webhooks.running.shut().await
}

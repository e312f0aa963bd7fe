//! The manager's lifecycle without an API server: no leader election and
//! no informers, so every runnable starts once the (empty) caches synced.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::*;

fn client() -> kubegen_client::Client {
    // A client that is never used: no informer and no elector needs it.
    let config = kubegen_client::Config::new("http://127.0.0.1:9".parse().unwrap());
    kubegen_client::Client::try_from(config).unwrap()
}

async fn manager(drain_timeout: Duration) -> Manager {
    Manager::builder(client())
        .drain_timeout(drain_timeout)
        .build()
        .await
        .unwrap()
}

/// Sets its flag when dropped: proves a future was dropped (aborted).
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A runnable that records its start and returns once its token is
/// cancelled.
fn until_cancelled(
    name: &str,
    started: &Arc<AtomicBool>,
) -> RunnableFn<
    impl FnOnce(CancellationToken) -> BoxFuture<'static, Result<(), BoxError>> + Send + 'static,
> {
    let started = started.clone();
    runnable(
        name,
        move |shutdown: CancellationToken| -> BoxFuture<'static, Result<(), BoxError>> {
            Box::pin(async move {
                started.store(true, Ordering::SeqCst);
                shutdown.cancelled().await;
                Ok(())
            })
        },
    )
}

#[tokio::test]
async fn runnables_start_and_are_stopped_at_shutdown() {
    let mut manager = manager(Duration::from_secs(5)).await;
    let (leader, other) = (Arc::default(), Arc::default());
    manager.add(until_cancelled("leader-only", &leader));
    manager.add(until_cancelled("everywhere", &other).without_leader_election());
    let (stop, stopped) = oneshot::channel::<()>();
    let running = tokio::spawn(manager.run_until(async move {
        let _ = stopped.await;
    }));
    let until = Instant::now() + Duration::from_secs(5);
    while !(leader.load(Ordering::SeqCst) && other.load(Ordering::SeqCst)) {
        assert!(Instant::now() < until, "the runnables never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stop.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("the manager stopped")
        .unwrap();
    assert!(result.is_ok(), "{result:?}");
}

#[tokio::test(start_paused = true)]
async fn a_stuck_runnable_is_aborted_at_the_drain_deadline() {
    let drain = Duration::from_secs(3);
    let mut manager = manager(drain).await;
    let dropped = Arc::new(AtomicBool::new(false));
    let guard = DropFlag(dropped.clone());
    manager.add(runnable("stuck", move |_shutdown| async move {
        let _guard = guard;
        std::future::pending::<Result<(), BoxError>>().await
    }));
    let polite = Arc::default();
    manager.add(until_cancelled("polite", &polite));
    let started = Instant::now();
    let result = tokio::time::timeout(
        Duration::from_secs(60),
        manager.run_until(tokio::time::sleep(Duration::from_secs(1))),
    )
    .await
    .expect("the manager stopped");
    let took = started.elapsed();
    match result {
        Err(ManagerError::DrainTimeout { timeout, runnables }) => {
            assert_eq!(timeout, drain);
            assert_eq!(runnables, vec!["stuck".to_string()]);
        }
        other => panic!("expected a drain timeout, got {other:?}"),
    }
    assert!(
        dropped.load(Ordering::SeqCst),
        "the stuck runnable was not aborted"
    );
    assert!(
        took >= Duration::from_secs(1) + drain && took < Duration::from_secs(1) + drain * 2,
        "stopped after {took:?}"
    );
}

#[tokio::test]
async fn a_failing_runnable_stops_the_manager_and_drains_the_others() {
    let mut manager = manager(Duration::from_secs(5)).await;
    let other = Arc::new(AtomicBool::new(false));
    let drained = Arc::new(AtomicBool::new(false));
    let flag = drained.clone();
    let started = other.clone();
    manager.add(
        runnable("waiting", move |shutdown: CancellationToken| async move {
            started.store(true, Ordering::SeqCst);
            shutdown.cancelled().await;
            flag.store(true, Ordering::SeqCst);
            Ok::<_, BoxError>(())
        })
        .without_leader_election(),
    );
    manager.add(runnable("failing", |_shutdown| async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Err::<(), _>(std::io::Error::other("boom"))
    }));
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        manager.run_until(std::future::pending()),
    )
    .await
    .expect("the manager stopped by itself");
    match result {
        Err(ManagerError::Runnable { name, source }) => {
            assert_eq!(name, "failing");
            assert_eq!(source.to_string(), "boom");
        }
        other => panic!("expected the runnable's failure, got {other:?}"),
    }
    assert!(other.load(Ordering::SeqCst));
    assert!(
        drained.load(Ordering::SeqCst),
        "the other runnable was not stopped through its token"
    );
}

#[tokio::test]
async fn a_panicking_runnable_is_reported_by_name() {
    let mut manager = manager(Duration::from_secs(5)).await;
    manager.add(runnable("panicking", |_shutdown| async {
        if true {
            panic!("kaboom");
        }
        Ok::<_, BoxError>(())
    }));
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        manager.run_until(std::future::pending()),
    )
    .await
    .expect("the manager stopped by itself");
    match result {
        Err(ManagerError::Runnable { name, source }) => {
            assert_eq!(name, "panicking");
            assert!(source.to_string().contains("kaboom"), "{source}");
        }
        other => panic!("expected the panic, got {other:?}"),
    }
}

/// A runnable whose warm-up resolves when told to, and which records
/// whether it ran.
struct Warming {
    warmed: watch::Receiver<bool>,
    ran: Arc<AtomicBool>,
}

impl Runnable for Warming {
    fn name(&self) -> &str {
        "warming"
    }

    fn warm_up(&self) -> BoxFuture<'static, bool> {
        let mut warmed = self.warmed.clone();
        Box::pin(async move { warmed.wait_for(|w| *w).await.is_ok() })
    }

    fn run(
        self: Box<Self>,
        shutdown: CancellationToken,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        Box::pin(async move {
            self.ran.store(true, Ordering::SeqCst);
            shutdown.cancelled().await;
            Ok(())
        })
    }
}

/// A minimal HTTP/1.1 GET: status code and body.
async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1.to_string();
    (status, body)
}

#[tokio::test]
async fn readiness_and_the_runnables_wait_for_the_warm_ups() {
    let mut manager = Manager::builder(client())
        .health_probe_addr(SocketAddr::from(([127, 0, 0, 1], 0)))
        .metrics_addr(SocketAddr::from(([127, 0, 0, 1], 0)))
        .insecure_metrics()
        .build()
        .await
        .unwrap();
    let addr = manager.health_probe_addr().unwrap();
    let metrics_addr = manager.metrics_addr().unwrap();
    assert_ne!(addr, metrics_addr);
    assert_eq!(manager.controller_metrics().errors("probe"), 0);
    let (warm, warmed) = watch::channel(false);
    let ran = Arc::new(AtomicBool::new(false));
    manager.add(Warming {
        warmed,
        ran: ran.clone(),
    });
    let (stop, stopped) = oneshot::channel::<()>();
    let running = tokio::spawn(manager.run_until(async move {
        let _ = stopped.await;
    }));

    assert_eq!(http_get(addr, "/healthz").await, (200, "ok".into()));
    let (status, body) = http_get(addr, "/readyz").await;
    assert_eq!(
        (status, body.as_str()),
        (503, "[-]caches-synced failed\nreadyz check failed\n")
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!ran.load(Ordering::SeqCst), "ran before its caches synced");

    warm.send_replace(true);
    let until = Instant::now() + Duration::from_secs(5);
    while http_get(addr, "/readyz").await != (200, "ok".into()) {
        assert!(Instant::now() < until, "never ready");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    while !ran.load(Ordering::SeqCst) {
        assert!(Instant::now() < until, "never ran");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The controller metrics are in the served registry, with the process's.
    assert_eq!(
        http_get(addr, "/metrics").await.0,
        404,
        "probes serve no metrics"
    );
    let (_, metrics) = http_get(metrics_addr, "/metrics").await;
    for series in [
        "\ncontroller_runtime_reconcile_errors_total{controller=\"probe\"} 0\n",
        "process_start_time_seconds ",
    ] {
        assert!(metrics.contains(series), "{series} missing: {metrics}");
    }

    stop.send(()).unwrap();
    running.await.unwrap().unwrap();
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "still serving after the manager stopped"
    );
}

#[test]
fn closures_are_leader_only_unless_told_otherwise() {
    let leader = runnable("a", |_shutdown| async { Ok::<_, BoxError>(()) });
    assert!(Runnable::need_leader_election(&leader));
    let everywhere =
        runnable("b", |_shutdown| async { Ok::<_, BoxError>(()) }).without_leader_election();
    assert!(!Runnable::need_leader_election(&everywhere));
    assert_eq!(Runnable::name(&everywhere), "b");
}

/// The manager's futures are boxed here, not returned by `async fn`s: an
/// operator crate awaiting an `async fn` of this crate compiles its body,
/// and every body it awaits, again (see `Manager::run_until`). Each line
/// compiles only while the method returns a `BoxFuture`.
#[test]
fn the_managers_futures_are_boxed() {
    let _: fn(ManagerBuilder) -> BoxFuture<'static, Result<Manager, ManagerError>> =
        ManagerBuilder::build;
    let _: fn(Manager) -> BoxFuture<'static, Result<(), ManagerError>> = Manager::run;
    let _: fn(Manager, std::future::Pending<()>) -> BoxFuture<'static, Result<(), ManagerError>> =
        Manager::run_until;
}

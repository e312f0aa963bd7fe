//! The operator's HTTP endpoint: `/healthz` (the process is alive),
//! `/readyz` (every readiness check passes) and `/metrics` (the shared
//! Prometheus registry, plus process metrics), with graceful shutdown.
//!
//! Readiness follows Kubernetes' conventions: `200 ok` when every check
//! passes, else `503` with one `[+]name ok` / `[-]name failed` line per
//! check (all lines with `?verbose`). A leader-election state counts as
//! ready both when leading and when standing by: a standby replica is
//! healthy, it just does not act.
//!
//! ```no_run
//! use std::sync::Arc;
//! use kubegen::server::{OperatorServer, ReadyFlag, SharedRegistry};
//!
//! # async fn demo() -> std::io::Result<()> {
//! let registry = SharedRegistry::default();
//! let caches_synced = ReadyFlag::default();
//! let server = OperatorServer::builder()
//!     .registry(registry.clone())
//!     .readiness_flag("caches-synced", &caches_synced)
//!     .bind("0.0.0.0:8080")
//!     .await?;
//! let shutdown = async { let _ = tokio::signal::ctrl_c().await; };
//! tokio::spawn(server.serve(shutdown));
//! caches_synced.set(true);
//! # Ok(()) }
//! ```

mod process;

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::registry::Registry;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::leader_election::LeaderState;

pub use process::ProcessCollector;

/// The Prometheus registry shared by the runtime's components (work queues,
/// informers, leader election, ...) and served on `/metrics`.
#[derive(Clone, Default)]
pub struct SharedRegistry(Arc<parking_lot::RwLock<Registry>>);

impl fmt::Debug for SharedRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SharedRegistry").finish_non_exhaustive()
    }
}

impl SharedRegistry {
    /// Wraps `registry` for sharing.
    pub fn new(registry: Registry) -> Self {
        SharedRegistry(Arc::new(parking_lot::RwLock::new(registry)))
    }

    /// Runs `register` with the registry, e.g.
    /// `shared.register(|r| WorkQueueMetrics::register(r))`.
    pub fn register<T>(&self, register: impl FnOnce(&mut Registry) -> T) -> T {
        register(&mut self.0.write())
    }

    /// The registry in Prometheus text format (OpenMetrics 1.0).
    pub fn encode(&self) -> Result<String, fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.0.read())?;
        Ok(text)
    }
}

/// A readiness check that is set from code, e.g. once caches have synced.
/// Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct ReadyFlag(Arc<AtomicBool>);

impl ReadyFlag {
    /// Sets the flag.
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::SeqCst);
    }

    /// Reads the flag.
    pub fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

type Check = Arc<dyn Fn() -> bool + Send + Sync>;

/// The content type of `/metrics`.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// How long open connections may take to finish after shutdown.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client may take to send request headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Builds an [`OperatorServer`].
#[derive(Default)]
pub struct OperatorServerBuilder {
    registry: Option<SharedRegistry>,
    checks: Vec<(String, Check)>,
    without_process_metrics: bool,
}

impl fmt::Debug for OperatorServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OperatorServerBuilder")
            .field(
                "checks",
                &self.checks.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("process_metrics", &!self.without_process_metrics)
            .finish_non_exhaustive()
    }
}

impl OperatorServerBuilder {
    /// Serves `registry` on `/metrics` (default: a registry of its own).
    pub fn registry(mut self, registry: SharedRegistry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Whether to register the [`ProcessCollector`] into the registry
    /// (default true). Turn it off when another server already did.
    pub fn process_metrics(mut self, enabled: bool) -> Self {
        self.without_process_metrics = !enabled;
        self
    }

    /// Adds a readiness check: `/readyz` fails while it returns false. It
    /// runs on every request, so it must be cheap.
    pub fn readiness_check(
        mut self,
        name: impl Into<String>,
        check: impl Fn() -> bool + Send + Sync + 'static,
    ) -> Self {
        self.checks.push((name.into(), Arc::new(check)));
        self
    }

    /// Adds a readiness check reading `flag`.
    pub fn readiness_flag(self, name: impl Into<String>, flag: &ReadyFlag) -> Self {
        let flag = flag.clone();
        self.readiness_check(name, move || flag.get())
    }

    /// Adds the readiness check `leader-election`: ready while the elector
    /// leads or stands by, not once it stopped.
    pub fn leader_state(self, state: watch::Receiver<LeaderState>) -> Self {
        self.readiness_check("leader-election", move || state.borrow().is_ready())
    }

    /// Binds the listening socket (port 0 picks a free one).
    pub async fn bind(self, addr: impl ToSocketAddrs) -> std::io::Result<OperatorServer> {
        let listener = TcpListener::bind(addr).await?;
        let registry = self.registry.unwrap_or_default();
        if !self.without_process_metrics {
            registry.register(|r| r.register_collector(Box::new(ProcessCollector)));
        }
        Ok(OperatorServer {
            listener,
            state: Arc::new(State {
                registry,
                checks: self.checks,
            }),
        })
    }
}

struct State {
    registry: SharedRegistry,
    checks: Vec<(String, Check)>,
}

/// The health and metrics server; see the [module documentation](self).
pub struct OperatorServer {
    listener: TcpListener,
    state: Arc<State>,
}

impl fmt::Debug for OperatorServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OperatorServer")
            .field("local_addr", &self.listener.local_addr().ok())
            .finish_non_exhaustive()
    }
}

impl OperatorServer {
    /// Starts building a server.
    pub fn builder() -> OperatorServerBuilder {
        OperatorServerBuilder::default()
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves HTTP/1.1 until `shutdown` resolves, then stops accepting,
    /// lets requests in progress finish (for at most five seconds) and
    /// returns.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send) -> std::io::Result<()> {
        let (closing, closed) = watch::channel(false);
        let mut connections = JoinSet::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let state = self.state.clone();
                        connections.spawn(serve_connection(stream, state, closed.clone()));
                    }
                    Err(error) => {
                        // Out of file descriptors and the like: back off.
                        tracing::warn!(%error, "accepting a connection failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
        drop(self.listener);
        closing.send_replace(true);
        let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            connections.shutdown().await;
        }
        Ok(())
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    state: Arc<State>,
    mut closing: watch::Receiver<bool>,
) {
    let service = service_fn(move |request: Request<Incoming>| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(respond(&state, &request)) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended with an error");
            }
        }
        () = async { drop(closing.wait_for(|closing| *closing).await) } => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

fn respond<B>(state: &State, request: &Request<B>) -> Response<Full<Bytes>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed\n".into(),
        );
    }
    let verbose = request
        .uri()
        .query()
        .is_some_and(|q| q.split('&').any(|p| p == "verbose"));
    match request.uri().path() {
        "/healthz" | "/livez" => text(StatusCode::OK, "ok".into()),
        "/readyz" => {
            let (ready, body) = readiness(&state.checks, verbose);
            let status = if ready {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            text(status, body)
        }
        "/metrics" => match state.registry.encode() {
            Ok(body) => Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, OPENMETRICS)
                .body(Full::new(Bytes::from(body)))
                .unwrap_or_default(),
            Err(_) => text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "encoding metrics failed\n".into(),
            ),
        },
        _ => text(StatusCode::NOT_FOUND, "not found\n".into()),
    }
}

/// Runs the checks: whether all pass, and the body to send.
fn readiness(checks: &[(String, Check)], verbose: bool) -> (bool, String) {
    let results: Vec<(&str, bool)> = checks
        .iter()
        .map(|(name, check)| (name.as_str(), check()))
        .collect();
    let ready = results.iter().all(|(_, ok)| *ok);
    if ready && !verbose {
        return (true, "ok".into());
    }
    let mut body = String::new();
    for (name, ok) in results {
        body.push_str(&format!(
            "[{}]{name} {}\n",
            if ok { '+' } else { '-' },
            if ok { "ok" } else { "failed" }
        ));
    }
    body.push_str(if ready {
        "readyz check passed\n"
    } else {
        "readyz check failed\n"
    });
    (ready, body)
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(body)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::counter::Counter;

    fn get(path: &str) -> Request<()> {
        Request::get(path).body(()).unwrap()
    }

    fn body(response: Response<Full<Bytes>>) -> (StatusCode, String) {
        use http_body_util::BodyExt;
        let status = response.status();
        let bytes = futures::executor::block_on(response.into_body().collect())
            .unwrap()
            .to_bytes();
        (status, String::from_utf8(bytes.to_vec()).unwrap())
    }

    #[test]
    fn readiness_lists_failing_checks() {
        let flag = ReadyFlag::default();
        let (tx, rx) = watch::channel(LeaderState::Standby { leader: None });
        let builder = OperatorServer::builder()
            .readiness_flag("caches-synced", &flag)
            .leader_state(rx);
        let state = State {
            registry: SharedRegistry::default(),
            checks: builder.checks,
        };
        let (status, text) = body(respond(&state, &get("/readyz")));
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            text,
            "[-]caches-synced failed\n[+]leader-election ok\nreadyz check failed\n"
        );
        flag.set(true);
        assert_eq!(
            body(respond(&state, &get("/readyz"))),
            (StatusCode::OK, "ok".into())
        );
        let (status, text) = body(respond(&state, &get("/readyz?verbose")));
        assert_eq!(status, StatusCode::OK);
        assert!(text.contains("[+]caches-synced ok"));
        tx.send_replace(LeaderState::Leader);
        assert_eq!(body(respond(&state, &get("/readyz"))).0, StatusCode::OK);
        tx.send_replace(LeaderState::Stopped);
        assert_eq!(
            body(respond(&state, &get("/readyz"))).0,
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            body(respond(&state, &get("/healthz"))),
            (StatusCode::OK, "ok".into())
        );
        assert_eq!(
            body(respond(&state, &get("/nope"))).0,
            StatusCode::NOT_FOUND
        );
        let post = Request::post("/healthz").body(()).unwrap();
        assert_eq!(
            body(respond(&state, &post)).0,
            StatusCode::METHOD_NOT_ALLOWED
        );
    }

    #[test]
    fn metrics_include_the_shared_registry_and_the_process() {
        let registry = SharedRegistry::default();
        let counter: Counter = Counter::default();
        registry.register(|r| r.register("my_events", "Events seen.", counter.clone()));
        counter.inc();
        registry.register(|r| r.register_collector(Box::new(ProcessCollector)));
        let state = State {
            registry,
            checks: Vec::new(),
        };
        let (status, text) = body(respond(&state, &get("/metrics")));
        assert_eq!(status, StatusCode::OK);
        assert!(text.contains("my_events_total 1\n"), "{text}");
        for name in [
            "process_cpu_seconds_total ",
            "process_resident_memory_bytes ",
            "process_start_time_seconds ",
            "process_open_fds ",
            "process_max_fds ",
            "process_virtual_memory_bytes ",
        ] {
            assert!(text.contains(name), "{name} missing in {text}");
        }
        assert!(text.ends_with("# EOF\n"));
    }
}

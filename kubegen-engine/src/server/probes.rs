//! [`ProbeServer`]: `/healthz`, `/livez` and `/readyz` over plain HTTP, for
//! the kubelet's probes, which carry no credentials.
//!
//! Readiness follows Kubernetes' conventions: `200 ok` when every check
//! passes, else `503` with one `[+]name ok` / `[-]name failed` line per
//! check (all lines with `?verbose`). A leader-election state counts as
//! ready both when leading and when standing by: a standby replica is
//! healthy, it just does not act. The probes reveal nothing but the names
//! of the checks; metrics are served elsewhere, behind authentication
//! ([`MetricsServer`](super::MetricsServer)).

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::FutureExt;
use futures::future::BoxFuture;
use http::{Method, Request, StatusCode};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use super::serve::{Handler, Reply, serve, text};
use crate::leader_election::LeaderState;

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

/// Builds a [`ProbeServer`].
#[derive(Default)]
pub struct ProbeServerBuilder {
    checks: Vec<(String, Check)>,
}

impl fmt::Debug for ProbeServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProbeServerBuilder")
            .field(
                "checks",
                &self.checks.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ProbeServerBuilder {
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
    pub async fn bind(self, addr: impl ToSocketAddrs) -> std::io::Result<ProbeServer> {
        Ok(ProbeServer {
            listener: TcpListener::bind(addr).await?,
            checks: Arc::new(self.checks),
        })
    }
}

/// The health probe server: `/healthz` and `/livez` answer `ok`; `/readyz`
/// runs the readiness checks (`200 ok`, or `503` listing each check, all of
/// them with `?verbose`). Plain HTTP without credentials, as the kubelet's
/// probes need; it serves nothing else.
///
/// ```no_run
/// use kubegen::server::{ProbeServer, ReadyFlag};
///
/// # async fn demo() -> std::io::Result<()> {
/// let caches_synced = ReadyFlag::default();
/// let probes = ProbeServer::builder()
///     .readiness_flag("caches-synced", &caches_synced)
///     .bind("0.0.0.0:8081")
///     .await?;
/// let shutdown = async { let _ = tokio::signal::ctrl_c().await; };
/// tokio::spawn(probes.serve(shutdown));
/// caches_synced.set(true);
/// # Ok(()) }
/// ```
pub struct ProbeServer {
    listener: TcpListener,
    checks: Arc<Vec<(String, Check)>>,
}

impl fmt::Debug for ProbeServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProbeServer")
            .field("local_addr", &self.listener.local_addr().ok())
            .finish_non_exhaustive()
    }
}

impl ProbeServer {
    /// Starts building a probe server.
    pub fn builder() -> ProbeServerBuilder {
        ProbeServerBuilder::default()
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves HTTP/1.1 until `shutdown` resolves, then stops accepting,
    /// lets requests in progress finish (for at most five seconds) and
    /// returns.
    ///
    /// The future is boxed, as [`Manager::run_until`](crate::Manager::run_until)'s
    /// is, so that a crate awaiting it does not compile its body.
    pub fn serve<'a>(
        self,
        shutdown: impl Future<Output = ()> + Send + 'a,
    ) -> BoxFuture<'a, std::io::Result<()>> {
        let (listener, tls, handler) = self.into_parts();
        serve(listener, tls, handler, Box::pin(shutdown))
    }

    /// The listener, TLS and request handler [`serve`](Self::serve) runs.
    fn into_parts(self) -> (TcpListener, Option<TlsAcceptor>, Handler) {
        let checks = self.checks;
        let handler: Handler = Arc::new(move |request| {
            let reply = respond(&checks, &request);
            async move { reply }.boxed()
        });
        (self.listener, None, handler)
    }
}

fn respond<B>(checks: &[(String, Check)], request: &Request<B>) -> Reply {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
    }
    let verbose = request
        .uri()
        .query()
        .is_some_and(|q| q.split('&').any(|p| p == "verbose"));
    match request.uri().path() {
        "/healthz" | "/livez" => text(StatusCode::OK, "ok"),
        "/readyz" => {
            let (ready, body) = readiness(checks, verbose);
            let status = if ready {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            text(status, body)
        }
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::test_support::{body, get};

    /// Compiles only while `serve` returns a `BoxFuture` made here: as an
    /// `async fn` generic over `shutdown`, its accept loop would be
    /// compiled again in each crate serving with its own future.
    #[test]
    fn the_serve_future_is_boxed() {
        let _: fn(
            ProbeServer,
            std::future::Pending<()>,
        ) -> BoxFuture<'static, std::io::Result<()>> = ProbeServer::serve;
        let _: fn(
            crate::server::MetricsServer,
            std::future::Pending<()>,
        ) -> BoxFuture<'static, std::io::Result<()>> = crate::server::MetricsServer::serve;
        let _: fn(
            crate::server::WebhookServer,
            std::future::Pending<()>,
        ) -> BoxFuture<'static, std::io::Result<()>> = crate::server::WebhookServer::serve;
    }

    #[test]
    fn readiness_lists_failing_checks() {
        let flag = ReadyFlag::default();
        let (tx, rx) = watch::channel(LeaderState::Standby { leader: None });
        let checks = ProbeServer::builder()
            .readiness_flag("caches-synced", &flag)
            .leader_state(rx)
            .checks;
        let (status, text) = body(respond(&checks, &get("/readyz")));
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            text,
            "[-]caches-synced failed\n[+]leader-election ok\nreadyz check failed\n"
        );
        flag.set(true);
        assert_eq!(
            body(respond(&checks, &get("/readyz"))),
            (StatusCode::OK, "ok".into())
        );
        let (status, text) = body(respond(&checks, &get("/readyz?verbose")));
        assert_eq!(status, StatusCode::OK);
        assert!(text.contains("[+]caches-synced ok"));
        tx.send_replace(LeaderState::Leader);
        assert_eq!(body(respond(&checks, &get("/readyz"))).0, StatusCode::OK);
        tx.send_replace(LeaderState::Stopped);
        assert_eq!(
            body(respond(&checks, &get("/readyz"))).0,
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            body(respond(&checks, &get("/healthz"))),
            (StatusCode::OK, "ok".into())
        );
        let post = Request::post("/healthz").body(()).unwrap();
        assert_eq!(
            body(respond(&checks, &post)).0,
            StatusCode::METHOD_NOT_ALLOWED
        );
    }

    #[test]
    fn probes_do_not_serve_metrics() {
        assert_eq!(
            body(respond(&[], &get("/metrics"))).0,
            StatusCode::NOT_FOUND
        );
    }
}

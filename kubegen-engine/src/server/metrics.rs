//! [`MetricsServer`]: `/metrics` over HTTPS, for callers the apiserver
//! authenticates and authorizes ([`DelegatedAuth`]) — or, opted into for
//! local development, over plain HTTP to anyone.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use http::{Method, Request, Response, StatusCode, header};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_rustls::TlsAcceptor;

use super::auth::DelegatedAuth;
use super::auth::Refusal;
use super::limits::Budget;
use super::process::ProcessCollector;
use super::registry::SharedRegistry;
use super::serve::{Handler, Peer, Reply, serve, text, whole};
use super::tls::ServingCert;

/// The content type of `/metrics`.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// How `/metrics` is protected.
#[derive(Debug, Clone)]
enum Protection {
    /// TLS, and every request authenticated and authorized.
    Secure {
        cert: ServingCert,
        auth: DelegatedAuth,
    },
    /// Plain HTTP, no questions asked.
    Insecure,
}

/// Builds a [`MetricsServer`].
#[derive(Debug)]
pub struct MetricsServerBuilder {
    registry: SharedRegistry,
    protection: Protection,
    process_metrics: bool,
    budget: Budget,
}

impl MetricsServerBuilder {
    /// Whether to register the [`ProcessCollector`] into the registry
    /// (default true). Turn it off when another server already did.
    pub fn process_metrics(mut self, enabled: bool) -> Self {
        self.process_metrics = enabled;
        self
    }

    /// Shares `budget` (requests in flight) with the other servers given
    /// it; by default the server has a budget of its own.
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Binds the listening socket (port 0 picks a free one) and, when
    /// serving TLS, loads the certificate — an unusable one fails here.
    pub async fn bind(self, addr: impl ToSocketAddrs) -> std::io::Result<MetricsServer> {
        let (tls, auth) = match self.protection {
            Protection::Secure { cert, auth } => (Some(cert.acceptor()?), Some(auth)),
            Protection::Insecure => (None, None),
        };
        let listener = TcpListener::bind(addr).await?;
        if self.process_metrics {
            self.registry
                .register(|r| r.register_collector(Box::new(ProcessCollector)));
        }
        Ok(MetricsServer {
            listener,
            tls,
            auth,
            registry: self.registry,
            budget: self.budget,
        })
    }
}

/// The metrics server: `/metrics` over HTTPS to callers [`DelegatedAuth`]
/// admits, or (opted into with [`MetricsServer::insecure`], for local
/// development) over plain HTTP to anyone. Anything but `GET`/`HEAD` is
/// `405`; credentials are checked before the path, so unknown paths reveal
/// nothing to the unauthenticated.
///
/// ```no_run
/// use kubegen::server::{DelegatedAuth, MetricsServer, ServingCert, SharedRegistry};
///
/// # async fn demo(client: kubegen::Client) -> std::io::Result<()> {
/// let registry = SharedRegistry::default();
/// let metrics = MetricsServer::secure(
///     registry.clone(),
///     ServingCert::from_dir("/tmp/k8s-metrics-server/serving-certs"),
///     DelegatedAuth::new(client),
/// )
/// .bind("0.0.0.0:8443")
/// .await?;
/// let shutdown = async { let _ = tokio::signal::ctrl_c().await; };
/// tokio::spawn(metrics.serve(shutdown));
/// # Ok(()) }
/// ```
pub struct MetricsServer {
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    auth: Option<DelegatedAuth>,
    registry: SharedRegistry,
    budget: Budget,
}

impl fmt::Debug for MetricsServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetricsServer")
            .field("local_addr", &self.listener.local_addr().ok())
            .field("secure", &self.auth.is_some())
            .finish_non_exhaustive()
    }
}

impl MetricsServer {
    /// Serves `registry` over HTTPS with `cert`, to callers `auth` admits
    /// (`get` on the non-resource URL `/metrics`); others get `401`
    /// (no valid token) or `403` (not allowed).
    pub fn secure(
        registry: SharedRegistry,
        cert: ServingCert,
        auth: DelegatedAuth,
    ) -> MetricsServerBuilder {
        MetricsServerBuilder {
            registry,
            protection: Protection::Secure { cert, auth },
            process_metrics: true,
            budget: Budget::default(),
        }
    }

    /// Serves `registry` over plain HTTP to anyone who can connect: for
    /// local development only.
    pub fn insecure(registry: SharedRegistry) -> MetricsServerBuilder {
        MetricsServerBuilder {
            registry,
            protection: Protection::Insecure,
            process_metrics: true,
            budget: Budget::default(),
        }
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` resolves, then stops accepting, lets
    /// requests in progress finish (for at most five seconds) and returns.
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
        let registry = self.registry;
        let auth = self.auth;
        let budget = self.budget;
        let handler: Handler = Arc::new(move |request| {
            let registry = registry.clone();
            let auth = auth.clone();
            let budget = budget.clone();
            async move {
                let source = Peer::source(&request);
                match budget.admit(source) {
                    Ok(_held) => respond(&registry, auth.as_ref(), &budget, &request).await,
                    Err(refused) => *refused,
                }
            }
            .boxed()
        });
        (self.listener, self.tls, handler)
    }
}

async fn respond<B>(
    registry: &SharedRegistry,
    auth: Option<&DelegatedAuth>,
    budget: &Budget,
    request: &Request<B>,
) -> Reply {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
    }
    let path = request.uri().path();
    let source = Peer::source(request);
    if let Some(auth) = auth
        && let Err(refusal) = auth.check(request.headers(), path, "get", source).await
    {
        return match refusal {
            // The budget's 429, with its `Retry-After`.
            Refusal::Busy => budget.refusal("too many unknown tokens"),
            other => {
                let (status, body) = other.response();
                text(status, body)
            }
        };
    }
    if path != "/metrics" {
        return text(StatusCode::NOT_FOUND, "not found\n");
    }
    match registry.encode() {
        Ok(body) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, OPENMETRICS)
            .body(whole(body))
            .unwrap_or_default(),
        Err(_) => text(
            StatusCode::INTERNAL_SERVER_ERROR,
            "encoding metrics failed\n",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::test_support::{body, get};
    use prometheus_client::metrics::counter::Counter;

    fn registry() -> SharedRegistry {
        let registry = SharedRegistry::default();
        let counter: Counter = Counter::default();
        registry.register(|r| r.register("my_events", "Events seen.", counter.clone()));
        counter.inc();
        registry.register(|r| r.register_collector(Box::new(ProcessCollector)));
        registry
    }

    #[tokio::test]
    async fn metrics_include_the_shared_registry_and_the_process() {
        let reply = respond(&registry(), None, &Budget::default(), &get("/metrics")).await;
        let (status, text) = body(reply);
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
        let (status, _) =
            body(respond(&registry(), None, &Budget::default(), &get("/healthz")).await);
        assert_eq!(status, StatusCode::NOT_FOUND, "probes are served elsewhere");
    }

    #[tokio::test]
    async fn secure_metrics_refuse_before_routing() {
        let auth =
            DelegatedAuth::with_reviewer(Arc::new(crate::server::auth::tests::Fake::default()));
        let (status, _) = body(
            respond(
                &registry(),
                Some(&auth),
                &Budget::default(),
                &get("/metrics"),
            )
            .await,
        );
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let (status, _) = body(
            respond(
                &registry(),
                Some(&auth),
                &Budget::default(),
                &get("/nothing"),
            )
            .await,
        );
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "unknown paths reveal nothing"
        );
        let mut request = get("/metrics");
        request
            .headers_mut()
            .insert(header::AUTHORIZATION, "Bearer good".parse().unwrap());
        let (status, text) =
            body(respond(&registry(), Some(&auth), &Budget::default(), &request).await);
        assert_eq!(status, StatusCode::OK);
        assert!(text.contains("my_events_total 1\n"));
    }
}

//! [`WebhookServer`]: the operator's webhooks over HTTPS — conversion
//! (`/convert`, `ConversionReview` v1) and admission routes — with the
//! serving certificate reloaded from disk on change and per-webhook
//! request metrics.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;
use http::{Method, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::exponential_buckets;
use prometheus_client::registry::Registry;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_rustls::TlsAcceptor;

use super::limits::{Budget, Held, content_length, read_body};
use super::serve::{Handler, Peer, Reply, serve, text, whole};
use super::{ServingCert, SharedRegistry, convert};
use crate::conversion::Converter;
use crate::duration_histogram::DurationHistogram;

/// The path conversions are served on (kubebuilder's).
pub const CONVERT_PATH: &str = "/convert";

/// Answers one review: request body in, response body out.
pub type ReviewHandler = Arc<dyn Fn(Bytes) -> Result<Vec<u8>, String> + Send + Sync>;

/// What a path serves.
#[derive(Clone)]
enum Route {
    /// A review read whole (at most [`Limits::max_review_body`](super::Limits)).
    Review(ReviewHandler),
    /// Conversions, streamed object by object.
    Conversion(Arc<Converter>),
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WebhookLabels {
    webhook: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    webhook: String,
    code: String,
}

/// The panics of webhook handlers, as controller-runtime counts them:
/// `controller_runtime_webhook_panics_total` (admission reviews) and
/// `controller_runtime_conversion_webhook_panics_total` (conversions),
/// both without labels. controller-runtime registers them whether or not
/// it serves webhooks; the [`Manager`](crate::Manager) does too.
#[derive(Clone, Debug, Default)]
pub struct WebhookPanics {
    admission: Counter,
    conversion: Counter,
}

impl WebhookPanics {
    /// Creates the counters and registers them into `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let panics = Self::default();
        registry.register(
            "controller_runtime_webhook_panics",
            "Total number of webhook panics",
            panics.admission.clone(),
        );
        registry.register(
            "controller_runtime_conversion_webhook_panics",
            "Total number of conversion webhook panics",
            panics.conversion.clone(),
        );
        panics
    }

    /// The admission review handlers' panics so far.
    pub fn admission(&self) -> u64 {
        self.admission.get()
    }

    /// The conversions' panics so far.
    pub fn conversion(&self) -> u64 {
        self.conversion.get()
    }
}

/// controller-runtime's webhook metrics, under its names, labels and
/// buckets (`controller_runtime_webhook_*`).
#[derive(Clone)]
struct Metrics {
    latency: Family<WebhookLabels, DurationHistogram>,
    requests: Family<RequestLabels, Counter>,
    in_flight: Family<WebhookLabels, Gauge>,
    panics: WebhookPanics,
}

impl Metrics {
    fn new(panics: WebhookPanics) -> Metrics {
        Metrics {
            latency: Family::new_with_constructor(|| {
                DurationHistogram::new(exponential_buckets(10e-9, 10.0, 12))
            }),
            requests: Family::default(),
            in_flight: Family::default(),
            panics,
        }
    }

    fn register(&self, registry: &SharedRegistry) {
        registry.register(|r| {
            r.register(
                "controller_runtime_webhook_latency_seconds",
                "Histogram of the latency of processing admission requests",
                self.latency.clone(),
            );
            r.register(
                "controller_runtime_webhook_requests",
                "Total number of admission requests by HTTP status code.",
                self.requests.clone(),
            );
            r.register(
                "controller_runtime_webhook_requests_in_flight",
                "Current number of admission requests being served.",
                self.in_flight.clone(),
            );
        });
    }
}

/// Collects the webhooks to serve.
pub struct WebhookServerBuilder {
    cert: ServingCert,
    routes: BTreeMap<String, Route>,
    registry: Option<SharedRegistry>,
    panics: Option<WebhookPanics>,
    budget: Budget,
    client_ca: Option<PathBuf>,
}

impl fmt::Debug for WebhookServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookServerBuilder")
            .field("cert", &self.cert)
            .field("routes", &self.routes.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl WebhookServerBuilder {
    /// Serves `converter` on [`CONVERT_PATH`]: each `ConversionReview`
    /// decoded, converted and answered object by object
    /// ([`crate::conversion::stream`]), so one review holds one object's
    /// worth of memory whatever its size.
    ///
    /// # Panics
    /// When [`CONVERT_PATH`] is taken.
    #[must_use]
    pub fn conversion(mut self, converter: Converter) -> Self {
        let old = self.routes.insert(
            CONVERT_PATH.to_owned(),
            Route::Conversion(Arc::new(converter)),
        );
        assert!(old.is_none(), "webhook path {CONVERT_PATH} is served twice");
        self
    }

    /// Answers only callers presenting a client certificate signed by a CA
    /// of the PEM file `ca_file` (read when the server binds, and again
    /// when it changes, as the serving certificate is); others are
    /// refused in the TLS handshake. The apiserver presents one to
    /// admission webhooks when its `--admission-control-config-file` gives
    /// the webhook plugins a `kubeConfigFile` with a client certificate.
    /// It presents none to CRD conversion webhooks (Kubernetes 1.36's
    /// apiextensions-apiserver resolves their credentials from no
    /// kubeconfig at all): serve conversion from a second `WebhookServer`
    /// without this, and keep that one reachable only from the apiserver
    /// with a NetworkPolicy (the example's `deploy/webhook_network_policy.yaml`).
    #[must_use]
    pub fn require_client_cert(mut self, ca_file: impl Into<PathBuf>) -> Self {
        self.client_ca = Some(ca_file.into());
        self
    }

    /// Shares `budget` (requests and bytes in flight, body limits) with
    /// the other servers given it; by default the server has a budget of
    /// its own with [`Limits::default`](super::Limits).
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Serves `handler` on `path` (POST, JSON in and out): the building
    /// block of the conversion and admission webhooks.
    ///
    /// # Panics
    /// When `path` is taken or does not start with `/`.
    #[must_use]
    pub fn route(
        mut self,
        path: &str,
        handler: impl Fn(Bytes) -> Result<Vec<u8>, String> + Send + Sync + 'static,
    ) -> Self {
        assert!(
            path.starts_with('/'),
            "webhook path {path:?} must start with `/`"
        );
        let old = self
            .routes
            .insert(path.to_owned(), Route::Review(Arc::new(handler)));
        assert!(old.is_none(), "webhook path {path} is served twice");
        self
    }

    /// Records request counts and latencies into `registry`.
    #[must_use]
    pub fn metrics(mut self, registry: SharedRegistry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Counts handler panics into `panics`, already registered (by default
    /// they are registered with the other metrics).
    #[must_use]
    pub fn panics(mut self, panics: WebhookPanics) -> Self {
        self.panics = Some(panics);
        self
    }

    /// The paths served so far.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.routes.keys().map(String::as_str)
    }

    /// Binds the listening socket (port 0 picks a free one) and loads the
    /// certificate — an unusable one fails here.
    pub async fn bind(self, addr: impl ToSocketAddrs) -> std::io::Result<WebhookServer> {
        let tls = self.cert.acceptor_for(self.client_ca.as_deref())?;
        let listener = TcpListener::bind(addr).await?;
        let panics = match (self.panics, &self.registry) {
            (Some(panics), _) => panics,
            (None, Some(registry)) => registry.register(WebhookPanics::register),
            (None, None) => WebhookPanics::default(),
        };
        let metrics = Metrics::new(panics);
        if let Some(registry) = &self.registry {
            metrics.register(registry);
        }
        Ok(WebhookServer {
            listener,
            tls,
            routes: Arc::new(self.routes),
            metrics,
            budget: self.budget,
        })
    }
}

/// The webhook server: HTTPS only (the apiserver calls webhooks over TLS
/// and verifies the certificate against the `caBundle`), `POST` of JSON
/// reviews on the registered paths; anything else is `404`/`405`/`415`.
///
/// The apiserver authenticates to webhooks only if configured to; like
/// controller-runtime, the server does not ask for a client certificate
/// unless told to ([`WebhookServerBuilder::require_client_cert`], for
/// admission webhooks). Reviews reveal nothing but what the caller sent,
/// so an open port leaks no data, and what a caller may cost is bounded
/// ([`Limits`](super::Limits)); keep the port reachable only from the
/// apiserver with a NetworkPolicy where that matters.
///
/// ```no_run
/// use kubegen::conversion::Converter;
/// use kubegen::server::{ServingCert, WebhookServer};
///
/// # async fn demo(converter: Converter) -> std::io::Result<()> {
/// let server = WebhookServer::builder(ServingCert::from_dir("/tmp/k8s-webhook-server/serving-certs"))
///     .conversion(converter)
///     .bind("0.0.0.0:9443")
///     .await?;
/// server.serve(std::future::pending()).await
/// # }
/// ```
pub struct WebhookServer {
    listener: TcpListener,
    tls: TlsAcceptor,
    routes: Arc<BTreeMap<String, Route>>,
    metrics: Metrics,
    budget: Budget,
}

impl fmt::Debug for WebhookServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookServer")
            .field("local_addr", &self.listener.local_addr().ok())
            .field("routes", &self.routes.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl WebhookServer {
    /// A server presenting `cert`.
    pub fn builder(cert: ServingCert) -> WebhookServerBuilder {
        WebhookServerBuilder {
            cert,
            routes: BTreeMap::new(),
            registry: None,
            panics: None,
            budget: Budget::default(),
            client_ca: None,
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
        let routes = self.routes;
        let metrics = self.metrics;
        let budget = self.budget;
        let handler: Handler = Arc::new(move |request| {
            let routes = routes.clone();
            let metrics = metrics.clone();
            let budget = budget.clone();
            async move { respond(&routes, &metrics, &budget, request).await }.boxed()
        });
        (self.listener, Some(self.tls), handler)
    }
}

async fn respond(
    routes: &BTreeMap<String, Route>,
    metrics: &Metrics,
    budget: &Budget,
    request: Request<Incoming>,
) -> Reply {
    let path = request.uri().path().to_owned();
    let Some(route) = routes.get(&path) else {
        return text(StatusCode::NOT_FOUND, "no webhook here\n");
    };
    let labels = WebhookLabels {
        webhook: path.clone(),
    };
    let started = Instant::now();
    let in_flight = metrics.in_flight.get_or_create(&labels).clone();
    in_flight.inc();
    let source = Peer::source(&request);
    let reply = match budget.admit(source) {
        Ok(held) => answer(route, held, request, &metrics.panics).await,
        Err(refused) => *refused,
    };
    in_flight.dec();
    metrics
        .latency
        .get_or_create(&labels)
        .observe(started.elapsed());
    metrics
        .requests
        .get_or_create(&RequestLabels {
            webhook: path,
            code: reply.status().as_u16().to_string(),
        })
        .inc();
    reply
}

/// The answer to a request the budget admitted (`held` is released when
/// the answer, streamed or not, is done).
async fn answer(
    route: &Route,
    held: Held,
    request: Request<Incoming>,
    panics: &WebhookPanics,
) -> Reply {
    if request.method() != Method::POST {
        return text(StatusCode::METHOD_NOT_ALLOWED, "webhooks take POST\n");
    }
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json {
        return text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "expected application/json\n",
        );
    }
    match route {
        Route::Review(handler) => review(handler, held, request, &panics.admission).await,
        Route::Conversion(converter) => {
            convert::answer(converter.clone(), held, request, &panics.conversion).await
        }
    }
}

/// A review read whole, then answered off the reactor.
async fn review(
    handler: &ReviewHandler,
    mut held: Held,
    request: Request<Incoming>,
    panics: &Counter,
) -> Reply {
    let limit = held.budget().limits().max_review_body;
    let declared = content_length(request.headers());
    let body = match read_body(request.into_body(), declared, limit, &mut held).await {
        Ok(body) => body,
        Err(e) => return e.reply(held.budget()),
    };
    let handler = handler.clone();
    // Handlers run user code on possibly large objects: off the reactor.
    let answered = tokio::task::spawn_blocking(move || handler(body)).await;
    drop(held);
    match answered {
        Ok(Ok(bytes)) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .body(whole(bytes))
            .unwrap_or_default(),
        Ok(Err(message)) => text(StatusCode::BAD_REQUEST, format!("{message}\n")),
        Err(panic) => {
            panics.inc();
            tracing::error!(error = %panic, "a webhook handler panicked");
            text(StatusCode::INTERNAL_SERVER_ERROR, "the webhook failed\n")
        }
    }
}

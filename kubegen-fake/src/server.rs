//! [`ApiServer`]: the handle a test holds (a `kubegen::Client` for the code
//! under test, CRDs to install, faults to inject, the controllers to
//! settle), and the HTTP side: each request read, routed to its verb, and
//! answered with JSON or a stream of watch events.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::stream::{self, BoxStream, StreamExt};
use http::{HeaderMap, Request, Response};
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::controllers;
use crate::discovery;
use crate::request::{self, Call, ResourceCall, Verb};
use crate::resources::Resource;
use crate::state::{Shared, State};
use crate::status::ApiError;
use crate::verbs::{delete, patch, read, scale, watch, write};

/// The body of every answer: one JSON document, or a stream of watch
/// events.
pub type Body = StreamBody<BoxStream<'static, Result<Frame<Bytes>, Infallible>>>;

/// An in-process API server.
///
/// Cloning gives another handle to the same server. It must be created
/// inside a tokio runtime (it runs the control-plane controllers as a
/// task).
#[derive(Clone, Debug)]
pub struct ApiServer {
    shared: Shared,
    work: Arc<Notify>,
}

/// How to start an [`ApiServer`].
#[derive(Clone, Debug)]
pub struct Builder {
    start_unix: Option<i64>,
    seed: u64,
    history: usize,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            start_unix: None,
            seed: 0,
            history: 10_000,
        }
    }
}

impl Builder {
    /// Timestamps start at `unix` seconds (by default: the wall clock
    /// when the server starts).
    pub fn start_time(mut self, unix: i64) -> Builder {
        self.start_unix = Some(unix);
        self
    }

    /// The seed of generated uids and names (default 0).
    pub fn seed(mut self, seed: u64) -> Builder {
        self.seed = seed;
        self
    }

    /// How many writes stay readable at their revision before they are
    /// compacted (default 10,000). Watches and list continuations from
    /// an older revision get `410 Gone`.
    pub fn history(mut self, writes: usize) -> Builder {
        self.history = writes;
        self
    }

    /// Starts the server.
    pub fn build(self) -> ApiServer {
        let start = self.start_unix.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
        let shared: Shared = Arc::new(parking_lot::Mutex::new(State::new(
            start,
            self.seed,
            self.history,
        )));
        let work = Arc::new(Notify::new());
        tokio::spawn(run_controllers(Arc::downgrade(&shared), work.clone()));
        ApiServer { shared, work }
    }
}

async fn run_controllers(shared: Weak<parking_lot::Mutex<State>>, work: Arc<Notify>) {
    loop {
        work.notified().await;
        // After the request that caused the work has been answered.
        tokio::task::yield_now().await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        controllers::settle(&mut shared.lock());
    }
}

impl Default for ApiServer {
    fn default() -> ApiServer {
        ApiServer::new()
    }
}

impl ApiServer {
    /// A server with the built-in resources and the namespaces every
    /// cluster has (`default`, `kube-system`, `kube-public`,
    /// `kube-node-lease`).
    pub fn new() -> ApiServer {
        Builder::default().build()
    }

    /// Options for a server.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// A client of this server, whose default namespace is `default`.
    pub fn client(&self) -> kubegen_client::Client {
        kubegen_client::Client::new(self.service(), "default")
    }

    /// The server as a tower service, for a client built by hand.
    pub fn service(&self) -> Service {
        Service {
            server: self.clone(),
        }
    }

    /// Creates a CustomResourceDefinition and establishes it at once, as
    /// `kubectl apply` followed by waiting for `Established` would.
    pub fn install_crd(&self, crd: &impl serde::Serialize) -> Result<(), ApiError> {
        let mut crd = serde_json::to_value(crd)
            .map_err(|e| ApiError::bad_request(format!("not a CRD: {e}")))?;
        crd["apiVersion"] = json!("apiextensions.k8s.io/v1");
        crd["kind"] = json!("CustomResourceDefinition");
        let mut state = self.shared.lock();
        let r = state
            .resource("apiextensions.k8s.io", "v1", "customresourcedefinitions")
            .cloned()
            .ok_or_else(ApiError::no_route)?;
        let call = ResourceCall {
            verb: Verb::Create,
            group: r.group.clone(),
            version: r.version.clone(),
            namespace: None,
            resource: r.plural.clone(),
            name: None,
            subresource: None,
            query: Default::default(),
        };
        write::create(
            &mut state,
            &r,
            &call,
            crd,
            write::Fields::Update("kubegen-fake"),
        )?;
        controllers::settle(&mut state);
        Ok(())
    }

    /// Runs the controllers (garbage collector, namespace and CRD
    /// controllers) now, until they have nothing left to do. They also
    /// run on their own after each write; a test calls this to see their
    /// effect at a known point.
    pub fn settle(&self) {
        controllers::settle(&mut self.shared.lock());
    }

    /// The object `name` of `kind` in `api_version` (in `namespace`, for
    /// namespaced kinds), as stored.
    pub fn get(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        let state = self.shared.lock();
        let r = state.resource_of(api_version, kind)?;
        let k = crate::verbs::key(r, namespace, name);
        state.store.get(&k).map(|o| crate::state::as_version(r, o))
    }

    /// Plays the built-in controller of `kind` (`Deployment`,
    /// `StatefulSet`, `ReplicaSet`, `Job`): writes the status it would
    /// write for `rollout` of object `name` in `namespace`, through the
    /// status subresource as kube-controller-manager does.
    pub fn play(
        &self,
        kind: &str,
        namespace: &str,
        name: &str,
        rollout: crate::Rollout,
    ) -> Result<(), ApiError> {
        let result = crate::play::play(&mut self.shared.lock(), kind, namespace, name, rollout);
        self.work.notify_one();
        result
    }

    /// The newest `resourceVersion`.
    pub fn resource_version(&self) -> u64 {
        self.shared.lock().store.revision()
    }

    /// Refuses the next `n` writes (create, update, patch, delete) with
    /// HTTP `code` (409, 429, 500, 503 or 504 get the apiserver's reason).
    pub fn fail_next_writes(&self, n: usize, code: u16) {
        self.shared.lock().faults.fail_writes = (n > 0).then_some((n, code));
    }

    /// Refuses the next `n` reads (get, list, watch) with HTTP `code`.
    pub fn fail_next_reads(&self, n: usize, code: u16) {
        self.shared.lock().faults.fail_reads = (n > 0).then_some((n, code));
    }

    /// Delays every answer by `delay` (in tokio time), or no longer.
    pub fn set_delay(&self, delay: Option<Duration>) {
        self.shared.lock().faults.delay = delay;
    }

    /// Ends every open watch, as a dropped connection does; clients
    /// resume from their last `resourceVersion`.
    pub fn drop_watches(&self) {
        self.shared.lock().drop_watches();
    }

    /// Compacts history up to the newest revision: watches and list
    /// continuations from an older one get `410 Gone`.
    pub fn compact(&self) {
        let mut state = self.shared.lock();
        let rv = state.store.revision();
        state.store.compact(rv);
    }

    async fn handle<B>(&self, req: Request<B>) -> Response<Body>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let (parts, body) = req.into_parts();
        let bytes = match body.collect().await {
            Ok(c) => c.to_bytes(),
            Err(e) => return error(&ApiError::bad_request(format!("unreadable body: {e}"))),
        };
        let delay = self.shared.lock().faults.delay;
        if let Some(d) = delay {
            tokio::time::sleep(d).await;
        }
        let call = request::parse(&parts.method, parts.uri.path(), parts.uri.query());
        let state = self.shared.lock();
        let aggregated = parts
            .headers
            .get(http::header::ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(|a| a.contains("as=APIGroupDiscoveryList"));
        let answer = match call {
            Call::Resource(rc) => {
                drop(state);
                return self.resource(rc, &parts.headers, &bytes);
            }
            Call::Version => Some(discovery::version()),
            Call::Health => return text(200, "ok"),
            Call::CoreVersions if aggregated => Some(discovery::aggregated(&state.resources, true)),
            Call::CoreVersions => Some(discovery::core_versions()),
            Call::Groups if aggregated => Some(discovery::aggregated(&state.resources, false)),
            Call::Groups => Some(discovery::group_list(&state.resources)),
            Call::Group(g) => discovery::group(&state.resources, &g),
            Call::Resources(g, v) => discovery::resource_list(&state.resources, &g, &v),
            Call::Unknown => None,
        };
        match answer {
            Some(v) => json_response(200, &v),
            None => text(404, "404 page not found\n"),
        }
    }

    fn resource(&self, call: ResourceCall, headers: &HeaderMap, body: &[u8]) -> Response<Body> {
        let header = |h: http::header::HeaderName| {
            headers
                .get(h)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        let mut state = self.shared.lock();
        let Some(r) = state
            .resource(&call.group, &call.version, &call.resource)
            .cloned()
        else {
            return text(404, "404 page not found\n");
        };
        let sub_ok = match call.subresource.as_deref() {
            None => true,
            Some("status") => r.status,
            Some("scale") => r.scale.is_some(),
            _ => false,
        };
        if !sub_ok
            || (r.namespaced
                && call.namespace.is_none()
                && !matches!(call.verb, Verb::List | Verb::Watch))
            || (!r.namespaced && call.namespace.is_some())
        {
            return error(&ApiError::no_route());
        }
        let write = !matches!(call.verb, Verb::Get | Verb::List | Verb::Watch);
        if let Err(e) = state.injected(write) {
            return error(&e);
        }
        let result = match call.verb {
            Verb::Get if call.subresource.as_deref() == Some("scale") => {
                scale::get(&state, &r, &call).map(|v| (200, v))
            }
            Verb::Get => read::get(&state, &r, &call).map(|v| (200, v)),
            Verb::List => read::list(&state, &r, &call).map(|v| (200, v)),
            Verb::Watch => {
                return match watch::open(&mut state, &r, &call) {
                    Ok(opened) => {
                        drop(state);
                        self.watch_response(r, opened)
                    }
                    Err(e) => error(&e),
                };
            }
            Verb::Create if call.subresource.is_some() || call.name.is_some() => Err(
                ApiError::method_not_supported(&r.qualified(), &r.group, &r.plural, "create"),
            ),
            Verb::Create => {
                write::manager(&call, &header(http::header::USER_AGENT)).and_then(|m| {
                    let object = write::decode(&r, body)?;
                    write::create(&mut state, &r, &call, object, write::Fields::Update(&m))
                })
            }
            Verb::Update if call.subresource.as_deref() == Some("scale") => {
                write::manager(&call, &header(http::header::USER_AGENT)).and_then(|m| {
                    let scale: Value = serde_json::from_slice(body).map_err(|e| {
                        ApiError::bad_request(format!("couldn't decode Scale: {e}"))
                    })?;
                    scale::update(&mut state, &r, &call, &scale, &m)
                })
            }
            Verb::Update => {
                write::manager(&call, &header(http::header::USER_AGENT)).and_then(|m| {
                    let object = write::decode(&r, body)?;
                    write::update(&mut state, &r, &call, object, write::Fields::Update(&m))
                })
            }
            Verb::Patch => write::manager(&call, &header(http::header::USER_AGENT)).and_then(|m| {
                patch::patch(
                    &mut state,
                    &r,
                    &call,
                    &header(http::header::CONTENT_TYPE),
                    body,
                    &m,
                )
            }),
            Verb::Delete => {
                delete::options(&call, body).and_then(|o| delete::delete(&mut state, &r, &call, &o))
            }
            Verb::DeleteCollection => delete::options(&call, body)
                .and_then(|o| delete::delete_collection(&mut state, &r, &call, &o)),
        };
        drop(state);
        if write {
            self.work.notify_one();
        }
        match result {
            Ok((code, v)) => json_response(code, &v),
            Err(e) => error(&e),
        }
    }

    fn watch_response(&self, r: Resource, opened: watch::Opened) -> Response<Body> {
        let deadline = tokio::time::Instant::now() + opened.timeout;
        let shared = Arc::downgrade(&self.shared);
        let bookmarks = opened.bookmarks;
        let events = stream::unfold(opened.rx, move |mut rx| {
            let shared = shared.clone();
            let r = r.clone();
            async move {
                let tick = tokio::time::sleep(Duration::from_secs(60));
                tokio::select! {
                    e = rx.recv() => e.map(|e| (line(&e), rx)),
                    () = tokio::time::sleep_until(deadline) => None,
                    () = tick, if bookmarks => {
                        let rv = shared.upgrade()?.lock().store.revision();
                        Some((line(&watch::bookmark(&r, rv, false)), rx))
                    }
                }
            }
        });
        let body = events.map(|b| Ok(Frame::data(b))).boxed();
        Response::builder()
            .status(200)
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(StreamBody::new(body))
            .unwrap_or_else(|_| text(500, "response"))
    }
}

fn line(v: &Value) -> Bytes {
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

fn once(bytes: Bytes) -> Body {
    StreamBody::new(stream::once(async move { Ok(Frame::data(bytes)) }).boxed())
}

fn json_response(code: u16, v: &Value) -> Response<Body> {
    Response::builder()
        .status(code)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(once(Bytes::from(v.to_string())))
        .unwrap_or_else(|_| text(500, "response"))
}

fn text(code: u16, s: &'static str) -> Response<Body> {
    let mut r = Response::new(once(Bytes::from_static(s.as_bytes())));
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    *r.status_mut() =
        http::StatusCode::from_u16(code).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    r
}

fn error(e: &ApiError) -> Response<Body> {
    json_response(e.code, &e.to_status())
}

/// The server as a tower service of an API client's requests.
#[derive(Clone, Debug)]
pub struct Service {
    server: ApiServer,
}

/// Requests of any body: kubegen's client's, or kube-rs's (a
/// `kubegen_client::Client::new(server.service(), ns)` works too).
impl<B> tower::Service<Request<B>> for Service
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: std::fmt::Display,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let server = self.server.clone();
        Box::pin(async move { Ok(server.handle(req).await) })
    }
}

//! [`Client`]: sends requests to the apiserver through a transport — the
//! HTTPS one a [`Config`] builds, or any tower service (an in-process
//! apiserver in tests) — and reads answers, errors and watch events.
//!
//! Its request methods carry kube-client's names and meanings
//! (`send`, `request`, `request_text`, `request_status`,
//! `request_events`), so code written against `kube::Client` reads the
//! same.

use std::sync::Arc;

use either::Either;
use futures::TryStream;
use http::{Request, Response};
use kube_core::{Status, WatchEvent};
use serde::de::DeserializeOwned;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use crate::body::Body;
use crate::config::Config;
use crate::error::{BoxError, Error, Result};

/// A client of one apiserver: cheap to clone (clones share connections
/// and credentials).
#[derive(Clone)]
pub struct Client {
    service: BoxCloneSyncService<Request<Body>, Response<Body>, BoxError>,
    default_namespace: Arc<str>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("default_namespace", &self.default_namespace)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client over any transport: `service` gets requests whose URIs are
    /// the API paths (`/api/v1/...`), as an apiserver's handler does.
    /// Requests go to a clone of it, so it must be cheap to clone.
    pub fn new<S, B>(service: S, default_namespace: impl Into<String>) -> Self
    where
        S: tower::Service<Request<Body>, Response = Response<B>> + Clone + Send + Sync + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let service = service
            .map_response(|response: Response<B>| response.map(Body::wrap_body))
            .map_err(Into::into);
        Client {
            service: BoxCloneSyncService::new(service),
            default_namespace: Arc::from(default_namespace.into()),
        }
    }

    /// A client from the environment's configuration ([`Config::infer`]).
    pub async fn try_default() -> Result<Self> {
        Client::try_from(Config::infer().await?)
    }

    /// The namespace `Api::default_namespaced` uses: the kubeconfig
    /// context's, the pod's, or `default`.
    pub fn default_namespace(&self) -> &str {
        &self.default_namespace
    }

    /// Sends a request and returns the response as it came, whatever its
    /// status.
    ///
    /// A request without a `User-Agent` gets [`user_agent`]'s, whatever the
    /// transport (the apiserver names an update's field manager after it).
    pub async fn send(&self, mut request: Request<Body>) -> Result<Response<Body>> {
        if let Some(agent) = user_agent() {
            request
                .headers_mut()
                .entry(http::header::USER_AGENT)
                .or_insert(agent.clone());
        }
        self.service
            .clone()
            .oneshot(request)
            .await
            .map_err(|error| {
                error
                    .downcast::<Error>()
                    .map(|e| *e)
                    .or_else(|error| {
                        error
                            .downcast::<hyper::Error>()
                            .map(|e| Error::HyperError(*e))
                    })
                    .unwrap_or_else(Error::Service)
            })
    }

    /// Sends a request and decodes a successful answer as `T`.
    pub async fn request<T: DeserializeOwned>(&self, request: Request<Vec<u8>>) -> Result<T> {
        let text = self.request_text(request).await?;
        serde_json::from_str(&text).map_err(|error| {
            tracing::warn!(%error, "could not decode the apiserver's answer");
            Error::SerdeError(error)
        })
    }

    /// Sends a request and returns a successful answer's body as text.
    pub async fn request_text(&self, request: Request<Vec<u8>>) -> Result<String> {
        let response = self.send(request.map(Body::from)).await?;
        let response = api_errors(response).await?;
        let bytes = response.into_body().collect_bytes().await?;
        String::from_utf8(bytes.to_vec()).map_err(Error::FromUtf8)
    }

    /// Sends a request whose successful answer is either a `T` or a
    /// `Status` (a delete: the object while finalizers hold it, a `Status`
    /// once it is gone).
    pub async fn request_status<T: DeserializeOwned>(
        &self,
        request: Request<Vec<u8>>,
    ) -> Result<Either<T, Status>> {
        let text = self.request_text(request).await?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(Error::SerdeError)?;
        if value.get("kind").and_then(|k| k.as_str()) == Some("Status") {
            serde_json::from_value(value)
                .map(Either::Right)
                .map_err(Error::SerdeError)
        } else {
            serde_json::from_value(value)
                .map(Either::Left)
                .map_err(Error::SerdeError)
        }
    }

    /// Opens a watch and returns its events as they arrive; the stream
    /// ends when the apiserver closes the watch.
    pub async fn request_events<T: Clone + DeserializeOwned>(
        &self,
        mut request: Request<Vec<u8>>,
    ) -> Result<impl TryStream<Item = Result<WatchEvent<T>>> + use<T>> {
        request
            .headers_mut()
            .entry(http::header::ACCEPT_ENCODING)
            .or_insert(http::HeaderValue::from_static("identity"));
        let response = self.send(request.map(Body::from)).await?;
        let response = api_errors(response).await?;
        Ok(crate::watch::events(response.into_body()))
    }
}

/// The `User-Agent` requests carry, in client-go's form: the program's
/// name, then the client's version and platform
/// (`my-operator/kubegen-0.1.0 (linux/x86_64)`). The apiserver takes its
/// first word as the field manager of a create, update or patch that
/// names none, as it does for a Go operator's (`my-operator`).
pub fn user_agent() -> Option<&'static http::HeaderValue> {
    static AGENT: std::sync::OnceLock<Option<http::HeaderValue>> = std::sync::OnceLock::new();
    AGENT
        .get_or_init(|| {
            let program = std::env::args_os()
                .next()
                .and_then(|a| {
                    std::path::Path::new(&a)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                })
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "unknown".to_owned());
            let text = format!(
                "{program}/kubegen-{} ({}/{})",
                env!("CARGO_PKG_VERSION"),
                std::env::consts::OS,
                std::env::consts::ARCH
            );
            http::HeaderValue::from_str(&text).ok()
        })
        .as_ref()
}

impl TryFrom<Config> for Client {
    type Error = Error;

    /// The HTTPS client `config` describes.
    fn try_from(config: Config) -> Result<Self> {
        let namespace = config.default_namespace.clone();
        Ok(Client::new(
            crate::transport::Transport::new(config)?,
            namespace,
        ))
    }
}

/// Turns an error answer (4xx, 5xx) into [`Error::Api`]: the `Status` it
/// carries, or one made from its code and text.
async fn api_errors(response: Response<Body>) -> Result<Response<Body>> {
    let code = response.status();
    if !(code.is_client_error() || code.is_server_error()) {
        return Ok(response);
    }
    let bytes = response.into_body().collect_bytes().await?;
    if let Ok(mut status) = serde_json::from_slice::<Status>(&bytes) {
        if status.code == 0 {
            // A JSON body without a code (not an apiserver's `Status`).
            status.code = code.as_u16();
        }
        tracing::debug!(?status, "unsuccessful");
        return Err(Error::Api(Box::new(status)));
    }
    let text = String::from_utf8_lossy(&bytes);
    let status =
        Status::failure(text.trim(), "Failed to parse error data").with_code(code.as_u16());
    Err(Error::Api(Box::new(status)))
}

//! The operator's HTTP endpoints, secure by default:
//!
//! * [`ProbeServer`] — `/healthz`, `/livez` and `/readyz` over plain HTTP
//!   for the kubelet (probes carry no credentials and reveal nothing but
//!   check names);
//! * [`MetricsServer`] — `/metrics` (the [`SharedRegistry`] plus process
//!   metrics) over HTTPS ([`ServingCert`]: files reloaded on change, or
//!   self-signed), answering only callers the apiserver authenticates
//!   (`TokenReview`) and authorizes (`SubjectAccessReview` for `get` on
//!   `/metrics`) — [`DelegatedAuth`], kubebuilder v4's default. Plain,
//!   unauthenticated metrics exist for local development
//!   ([`MetricsServer::insecure`]).
//!
//! * [`WebhookServer`] — conversion (`/convert`) and admission webhooks
//!   over HTTPS, certificate reloaded on change ([`DevCa`] issues one for
//!   development and tests).
//!
//! What one caller may cost is bounded: body [`Limits`] (`413` past them,
//! before the body is read), a [`Budget`] of requests and bytes in flight
//! shared by the webhook and metrics servers (`429` with `Retry-After`
//! when spent), conversions streamed object by object.
//!
//! All stop gracefully. The [`Manager`](crate::manager::Manager) runs
//! them; use them directly only in a process without one.

mod admission;
mod auth;
mod client_ca;
mod convert;
mod dev_ca;
mod limits;
mod metrics;
mod probes;
mod process;
mod registry;
mod review_limit;
mod serve;
mod tls;
mod watched;
mod webhook;
mod x509;

pub use admission::{AdmissionRequest, Operation, paths as admission_paths};
pub use auth::DelegatedAuth;
pub use dev_ca::DevCa;
pub use limits::{APISERVER_MAX_OBJECT, Budget, Limits};
pub use metrics::{MetricsServer, MetricsServerBuilder};
pub use probes::{ProbeServer, ProbeServerBuilder, ReadyFlag};
pub use process::ProcessCollector;
pub use registry::SharedRegistry;
pub use tls::ServingCert;
pub use webhook::{
    CONVERT_PATH, ReviewHandler, WebhookPanics, WebhookServer, WebhookServerBuilder,
};

#[cfg(test)]
mod test_support {
    //! Requests and bodies for the servers' unit tests.

    use http::{Request, StatusCode};
    use http_body_util::BodyExt;

    /// A GET request for `path`.
    pub(super) fn get(path: &str) -> Request<()> {
        Request::get(path).body(()).unwrap()
    }

    /// A response's status and body text.
    pub(super) fn body(response: super::serve::Reply) -> (StatusCode, String) {
        let status = response.status();
        let bytes = futures::executor::block_on(response.into_body().collect())
            .unwrap()
            .to_bytes();
        (status, String::from_utf8(bytes.to_vec()).unwrap())
    }
}

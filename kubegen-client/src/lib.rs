//! kubegen-client: the API client of kubegen's runtime — where the
//! apiserver is and how to trust and authenticate to it ([`Config`], read
//! from a kubeconfig or from the pod as client-go reads them), requests,
//! errors and watches ([`Client`]), and the typed verbs on a resource type
//! ([`Api`]).
//!
//! Its names and meanings are kube-client's (`Client::try_default`,
//! `Api::namespaced`, `Api::get_opt`, `Error::Api`, …) and its requests
//! are kube-core's, so code written against `kube::Client` reads the same;
//! what it does not do, it refuses by name (a kubeconfig's `proxy-url` or
//! `auth-provider`, a credential plugin answering with a client
//! certificate) instead of ignoring.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen_client::{Api, Client};
//!
//! # async fn run() -> Result<(), kubegen_client::Error> {
//! let client = Client::try_default().await?;
//! let configmaps: Api<ConfigMap> = Api::default_namespaced(client);
//! if let Some(cm) = configmaps.get_opt("settings").await? {
//!     println!("{:?}", cm.data);
//! }
//! # Ok(())
//! # }
//! ```

pub mod api;
mod auth;
mod body;
mod client;
pub mod config;
mod error;
mod tls;
mod transport;
mod watch;

/// kube-core, whose types (`Resource`, `ObjectMeta`, the parameters, the
/// requests) this client's verbs take and return.
pub use kube_core as core;
pub use kube_core::{Resource, ResourceExt};

pub use api::Api;
pub use body::Body;
pub use client::{Client, user_agent};
pub use config::Config;
pub use error::{AuthError, BoxError, ConfigError, Error, Result};
pub use watch::MAX_EVENT_LINE;

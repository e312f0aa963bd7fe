//! The client's one error type, [`Error`], with the variants (and names)
//! kube-client's has for the failures this client can meet, and the errors
//! of reading a configuration ([`ConfigError`]) and of authenticating
//! ([`AuthError`]).

use std::path::PathBuf;

use kube_core::Status;

/// What a boxed transport error is.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A failed request, watch or client construction.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The apiserver answered with an error: its `Status`, or one made from
    /// the HTTP code and body when the body was not a `Status` (reason
    /// `Failed to parse error data`, as kube-client and client-go do).
    #[error("ApiError: {} ({})", .0.message, .0.reason)]
    Api(#[source] Box<Status>),
    /// The HTTP connection failed.
    #[error("HyperError: {0}")]
    HyperError(#[source] hyper::Error),
    /// The transport (connecting, TLS, a custom service) failed.
    #[error("ServiceError: {0}")]
    Service(#[source] BoxError),
    /// Reading a watch's events failed.
    #[error("error reading events stream: {0}")]
    ReadEvents(#[source] std::io::Error),
    /// A request could not be built (an invalid header or URI).
    #[error("HttpError: {0}")]
    HttpError(#[source] http::Error),
    /// A body could not be decoded into the type asked for.
    #[error("error deserializing response: {0}")]
    SerdeError(#[source] serde_json::Error),
    /// A response body was not UTF-8 where text was expected.
    #[error("response body is not UTF-8: {0}")]
    FromUtf8(#[source] std::string::FromUtf8Error),
    /// kube-core refused to build the request (its parameters).
    #[error("failed to build request: {0}")]
    BuildRequest(#[source] kube_core::request::Error),
    /// No configuration could be read (kubeconfig or in-cluster).
    #[error("failed to infer config: {0}")]
    InferConfig(#[source] ConfigError),
    /// Credentials could not be obtained (token file, exec plugin).
    #[error("auth error: {0}")]
    Auth(#[source] AuthError),
    /// The TLS configuration could not be built from the configuration's
    /// certificates.
    #[error("TLS configuration: {0}")]
    Tls(String),
    /// A watch event's line exceeded [`MAX_EVENT_LINE`](crate::MAX_EVENT_LINE)
    /// bytes.
    #[error("a watch event's line exceeded the maximum length")]
    LinesCodecMaxLineLengthExceeded,
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A configuration that could not be read or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Neither `KUBECONFIG`, the pod's service account nor
    /// `~/.kube/config` gave a configuration.
    #[error(
        "no configuration: KUBECONFIG is not set, this is not a pod (KUBERNETES_SERVICE_HOST unset) and {0} does not exist"
    )]
    NotFound(String),
    /// A file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A kubeconfig is not valid YAML or not a kubeconfig.
    #[error("kubeconfig {origin}: {message}")]
    Kubeconfig {
        /// The file (or `<string>`).
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A context, cluster or user the configuration names is missing.
    #[error("kubeconfig names {what} {name:?}, which it does not define")]
    Missing {
        /// `context`, `cluster` or `user`.
        what: &'static str,
        /// Its name.
        name: String,
    },
    /// The kubeconfig has no current context and none was asked for.
    #[error("kubeconfig has no current-context; pass a context")]
    NoContext,
    /// A value (server URL, base64 data, environment variable) is invalid.
    #[error("{0}")]
    Invalid(String),
    /// A kubeconfig field this client does not support (`proxy-url`,
    /// `auth-provider`), named so that nothing is silently ignored.
    #[error("kubeconfig: {0} is not supported by kubegen's client")]
    Unsupported(String),
}

/// Credentials that could not be obtained.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The token file could not be read.
    #[error("reading token file {path}: {source}")]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The exec plugin could not be run, failed or printed no usable
    /// `ExecCredential`.
    #[error("exec plugin {command:?}: {message}")]
    Exec {
        /// The plugin's command.
        command: String,
        /// What went wrong (its stderr when it failed).
        message: String,
    },
    /// A credential is not a valid HTTP header value.
    #[error("credential is not a valid header value")]
    InvalidHeader,
}

impl From<ConfigError> for Error {
    fn from(error: ConfigError) -> Self {
        Error::InferConfig(error)
    }
}

impl From<AuthError> for Error {
    fn from(error: AuthError) -> Self {
        Error::Auth(error)
    }
}

//! The HTTPS transport a [`Config`] describes: connections (TCP, then TLS
//! for `https`) pooled by hyper-util's client, and on every request the
//! cluster URL's prefix, the credentials and the user agent.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http::header::{AUTHORIZATION, HeaderName, HeaderValue};
use http::{Request, Response, Uri};
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tower::ServiceExt;

use crate::auth::Auth;
use crate::body::Body;
use crate::config::Config;
use crate::error::{BoxError, ConfigError, Error, Result};

/// Requests to one apiserver over pooled HTTP/1.1 connections.
#[derive(Clone)]
pub(crate) struct Transport {
    client: hyper_util::client::legacy::Client<Connector, Body>,
    scheme: http::uri::Scheme,
    authority: http::uri::Authority,
    /// The cluster URL's path, without its trailing `/`.
    prefix: String,
    auth: Auth,
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl Transport {
    pub(crate) fn new(config: Config) -> Result<Self> {
        let parts = config.cluster_url.clone().into_parts();
        let (Some(scheme), Some(authority)) = (parts.scheme, parts.authority) else {
            return Err(ConfigError::Invalid(format!(
                "cluster URL {} has no scheme or host",
                config.cluster_url
            ))
            .into());
        };
        if scheme != http::uri::Scheme::HTTPS && scheme != http::uri::Scheme::HTTP {
            return Err(ConfigError::Invalid(format!(
                "cluster URL {}: only https and http",
                config.cluster_url
            ))
            .into());
        }
        let prefix = parts
            .path_and_query
            .map(|p| p.path().trim_end_matches('/').to_owned())
            .unwrap_or_default();
        let mut tcp = HttpConnector::new();
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        // A peer gone without a word (a partition, a dead node) is found by
        // TCP keepalive, as client-go finds it (30 s): a watch or a request
        // on such a connection fails instead of waiting forever.
        tcp.set_keepalive(Some(Duration::from_secs(30)));
        let connector = Connector {
            tcp,
            tls: std::sync::Arc::new(crate::tls::client_config(&config)?),
            server_name: crate::tls::server_name(&config)?,
            timeout: config.connect_timeout,
        };
        let mut headers = Vec::new();
        if let Some(user) = &config.auth_info.impersonate {
            headers.push((HeaderName::from_static("impersonate-user"), header(user)?));
        }
        for group in config.auth_info.impersonate_groups.iter().flatten() {
            headers.push((HeaderName::from_static("impersonate-group"), header(group)?));
        }
        if let Some(uid) = &config.auth_info.impersonate_uid {
            headers.push((HeaderName::from_static("impersonate-uid"), header(uid)?));
        }
        for (key, values) in config.auth_info.impersonate_extra.iter().flatten() {
            let name = HeaderName::try_from(format!("impersonate-extra-{}", extra_key(key)))
                .map_err(|_| Error::Auth(crate::error::AuthError::InvalidHeader))?;
            for value in values {
                headers.push((name.clone(), header(value)?));
            }
        }
        Ok(Transport {
            client: hyper_util::client::legacy::Client::builder(TokioExecutor::new())
                .build(connector),
            scheme,
            authority,
            prefix,
            auth: Auth::new(&config)?,
            headers,
        })
    }

    async fn send(self, request: Request<Body>) -> Result<Response<Incoming>, BoxError> {
        let (mut parts, body) = request.into_parts();
        let path = parts
            .uri
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/");
        parts.uri = Uri::builder()
            .scheme(self.scheme.clone())
            .authority(self.authority.clone())
            .path_and_query(format!("{}{path}", self.prefix))
            .build()
            .map_err(Error::HttpError)?;
        if !parts.headers.contains_key(AUTHORIZATION)
            && let Some(value) = self.auth.header().await.map_err(Error::Auth)?
        {
            parts.headers.insert(AUTHORIZATION, value);
        }
        for (name, value) in &self.headers {
            parts.headers.append(name, value.clone());
        }
        Ok(self
            .client
            .request(Request::from_parts(parts, body))
            .await?)
    }
}

/// An extra field's key as client-go writes it into a header name: the
/// characters a header name may not hold percent-encoded.
fn extra_key(key: &str) -> String {
    let mut out = String::new();
    for byte in key.bytes() {
        if byte.is_ascii_alphanumeric() || b"!#$&'*+-.^_`|~".contains(&byte) {
            out.push(byte.to_ascii_lowercase() as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn header(value: &str) -> Result<HeaderValue> {
    HeaderValue::from_str(value).map_err(|_| Error::Auth(crate::error::AuthError::InvalidHeader))
}

impl tower::Service<Request<Body>> for Transport {
    type Response = Response<Incoming>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Incoming>, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        Box::pin(self.clone().send(request))
    }
}

/// Opens connections: TCP, then TLS for `https`.
#[derive(Clone)]
pub(crate) struct Connector {
    tcp: HttpConnector,
    tls: std::sync::Arc<rustls::ClientConfig>,
    server_name: Option<ServerName<'static>>,
    timeout: Option<Duration>,
}

impl tower::Service<Uri> for Connector {
    type Response = TokioIo<Stream>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<TokioIo<Stream>, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            let connect = this.connect(uri);
            match this.timeout {
                Some(limit) => tokio::time::timeout(limit, connect).await.map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("connecting took longer than {limit:?}"),
                    )
                })?,
                None => connect.await,
            }
        })
    }
}

impl Connector {
    async fn connect(&self, uri: Uri) -> Result<TokioIo<Stream>, BoxError> {
        let https = uri.scheme() == Some(&http::uri::Scheme::HTTPS);
        let host = uri.host().ok_or("the cluster URL has no host")?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let tcp = self.tcp.clone().oneshot(uri.clone()).await?.into_inner();
        if !https {
            return Ok(TokioIo::new(Stream::Plain(tcp)));
        }
        let name = match &self.server_name {
            Some(name) => name.clone(),
            None => ServerName::try_from(host.to_owned())?,
        };
        let tls = tokio_rustls::TlsConnector::from(self.tls.clone())
            .connect(name, tcp)
            .await?;
        Ok(TokioIo::new(Stream::Tls(Box::new(tls))))
    }
}

/// A connection to the apiserver.
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl Connection for Stream {
    fn connected(&self) -> Connected {
        Connected::new()
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_keys_are_lowercased_and_escaped_as_client_go_escapes_them() {
        assert_eq!(extra_key("scopes"), "scopes");
        assert_eq!(
            extra_key("Example.com/Team Name"),
            "example.com%2Fteam%20name"
        );
    }

    #[test]
    fn a_cluster_url_without_a_host_or_with_another_scheme_is_refused() {
        for url in ["/just/a/path", "ftp://h:21"] {
            let config = Config::new(url.parse().unwrap());
            assert!(Transport::new(config).is_err(), "{url}");
        }
    }
}

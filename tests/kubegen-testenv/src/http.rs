//! Minimal HTTP clients for what a test talks to beside the apiserver:
//! etcd's health endpoint, an operator's probe server (plain HTTP) and its
//! metrics server (HTTPS, certificate returned, not verified).

use std::time::Duration;

use anyhow::{Context, Result};

use crate::tls;

/// A minimal HTTP/1.0 GET over plain TCP (etcd's health endpoint).
pub(crate) async fn http_get_plain(url: &str) -> Result<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").context("not an http URL")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream =
        tokio::time::timeout(Duration::from_secs(2), tokio::net::TcpStream::connect(host))
            .await??;
    stream
        .write_all(format!("GET /{path} HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await?;
    let mut body = String::new();
    tokio::time::timeout(Duration::from_secs(2), stream.read_to_string(&mut body)).await??;
    Ok(body)
}

/// A minimal HTTP/1.1 GET against a plain-HTTP server on this machine (an
/// operator's probe server): the status code and the body.
pub async fn http_get(addr: std::net::SocketAddr, path: &str) -> Result<(u16, String)> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    exchange(stream, path, None).await
}

/// What [`https_get`] got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpsResponse {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: String,
    /// The server's leaf certificate (DER), to check which one it served.
    pub certificate: Vec<u8>,
}

/// A minimal HTTP/1.1 GET over TLS against a server on this machine (an
/// operator's metrics server), with `Authorization: Bearer <token>` when a
/// token is given. The server's certificate is **not verified** — such
/// servers are often self-signed — but returned, so a test can check it.
pub async fn https_get(
    addr: std::net::SocketAddr,
    path: &str,
    token: Option<&str>,
) -> Result<HttpsResponse> {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(std::sync::Arc::new(tls::AnyCertificate(provider)))
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await?;
    let stream = connector
        .connect(rustls::pki_types::ServerName::try_from("localhost")?, tcp)
        .await?;
    let certificate = stream
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .context("the server sent no certificate")?
        .to_vec();
    let (status, body) = exchange(stream, path, token).await?;
    Ok(HttpsResponse {
        status,
        body,
        certificate,
    })
}

/// Sends one GET on `stream` and reads the response to its end.
async fn exchange<S>(mut stream: S, path: &str, token: Option<&str>) -> Result<(u16, String)>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authorization = token
        .map(|token| format!("Authorization: Bearer {token}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: localhost\r\n{authorization}Connection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::new();
    // A TLS peer may close without close_notify after the body.
    if let Err(error) = stream.read_to_end(&mut response).await
        && (response.is_empty() || error.kind() != std::io::ErrorKind::UnexpectedEof)
    {
        return Err(error.into());
    }
    let response = String::from_utf8(response)?;
    let status = response
        .split_whitespace()
        .nth(1)
        .context("no status line")?
        .parse()?;
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

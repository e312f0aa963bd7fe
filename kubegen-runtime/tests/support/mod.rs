//! Shared by the webhook tests and the conversion bench: the Cart kind at
//! two versions, and a `WebhookServer` on a loopback port with a
//! development CA's certificate.

#![allow(dead_code)]

pub mod carts;

use std::net::SocketAddr;
use std::path::Path;

use anyhow::Result;
use kubegen::server::{DevCa, ServingCert, WebhookServer, WebhookServerBuilder};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A webhook server running until [`Running::shut`].
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Stops the server and waits for it.
    pub async fn shut(self) -> Result<()> {
        self.stop.cancel();
        self.task.await??;
        Ok(())
    }
}

/// Serves what `configure` registers on `addr` with the certificate in
/// `certs` (`tls.crt`/`tls.key`, reloaded when they change).
pub async fn serve_at(
    addr: SocketAddr,
    certs: &Path,
    configure: impl FnOnce(WebhookServerBuilder) -> WebhookServerBuilder,
) -> Result<Running> {
    let server = configure(WebhookServer::builder(ServingCert::from_dir(certs)))
        .bind(addr)
        .await?;
    let addr = server.local_addr()?;
    let stop = CancellationToken::new();
    let token = stop.clone();
    let task = tokio::spawn(server.serve(async move { token.cancelled().await }));
    Ok(Running { addr, stop, task })
}

/// A development CA, a certificate it issued for 127.0.0.1 (and
/// localhost) in a temporary directory, and a server presenting it on a
/// free loopback port.
pub struct Webhooks {
    /// The CA: its PEM is the `caBundle`; issue again to rotate.
    pub ca: DevCa,
    /// The certificate directory.
    pub certs: tempfile::TempDir,
    /// The running server.
    pub running: Running,
}

/// Starts [`Webhooks`] serving what `configure` registers.
pub async fn serve(
    configure: impl FnOnce(WebhookServerBuilder) -> WebhookServerBuilder,
) -> Result<Webhooks> {
    let certs = tempfile::tempdir()?;
    let ca = DevCa::new("kubegen-test-ca")?;
    ca.issue(certs.path(), &["127.0.0.1", "localhost"])?;
    let running = serve_at("127.0.0.1:0".parse()?, certs.path(), configure).await?;
    Ok(Webhooks { ca, certs, running })
}

impl Webhooks {
    /// POSTs `body` as JSON to `path` over TLS (trusting [`Webhooks::ca`])
    /// and returns the answer's status code.
    pub async fn post(&self, path: &str, body: &[u8]) -> Result<u16> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, ServerName};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(self.ca.pem().as_bytes()) {
            roots.add(cert?)?;
        }
        let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let tcp = tokio::net::TcpStream::connect(self.running.addr).await?;
        let mut tls = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
            .connect(ServerName::try_from("127.0.0.1")?.to_owned(), tcp)
            .await?;
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        tls.write_all(head.as_bytes()).await?;
        tls.write_all(body).await?;
        let mut answer = Vec::new();
        let _ = tls.read_to_end(&mut answer).await;
        let text = String::from_utf8_lossy(&answer);
        Ok(text
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0))
    }
}

//! [`DevCa`]: a throw-away certificate authority for development and
//! tests, so the apiserver can trust a webhook without cert-manager.

use std::path::{Path, PathBuf};

use super::x509::Certificate;

/// A self-signed CA that issues serving certificates into a directory in
/// the layout [`ServingCert::from_dir`](super::ServingCert::from_dir) reads
/// (`tls.crt`, `tls.key`, plus `ca.crt` for the `caBundle`).
///
/// In a cluster, cert-manager (or the platform) issues the certificate and
/// injects the bundle; `DevCa` is for `make demo`, tests and local runs.
///
/// ```no_run
/// use kubegen::server::{DevCa, ServingCert};
///
/// let ca = DevCa::new("my-operator-dev-ca").unwrap();
/// ca.issue("/tmp/certs", &["localhost", "127.0.0.1"]).unwrap();
/// let cert = ServingCert::from_dir("/tmp/certs");
/// let ca_bundle = ca.pem(); // for the CRD's or webhook configuration's caBundle
/// ```
pub struct DevCa {
    ca: Certificate,
    pem: String,
}

impl std::fmt::Debug for DevCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevCa").finish_non_exhaustive()
    }
}

impl DevCa {
    /// A new CA with a fresh key, named `common_name`.
    pub fn new(common_name: &str) -> std::io::Result<DevCa> {
        let ca = Certificate::ca(common_name)?;
        Ok(DevCa { pem: ca.pem(), ca })
    }

    /// The CA certificate, PEM: the `caBundle` clients trust.
    pub fn pem(&self) -> String {
        self.pem.clone()
    }

    /// Issues a serving certificate for `names` (DNS names or IP
    /// addresses) with a fresh key and writes `tls.crt`, `tls.key` and
    /// `ca.crt` into `dir` (created if missing). Each file is written to a
    /// temporary name and renamed into place, key first, so a server that
    /// reloads on change never reads half a file; issuing again rotates the
    /// certificate under the same CA.
    pub fn issue(&self, dir: impl AsRef<Path>, names: &[&str]) -> std::io::Result<PathBuf> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir)?;
        let cert = Certificate::server(names, Some(&self.ca))?;
        write_atomic(&dir.join("ca.crt"), self.pem.as_bytes())?;
        write_atomic(&dir.join("tls.key"), cert.key_pem().as_bytes())?;
        write_atomic(&dir.join("tls.crt"), cert.pem().as_bytes())?;
        Ok(dir.to_owned())
    }

    /// Issues a client certificate for `common_name` (extended key usage
    /// `clientAuth`) with a fresh key and writes `client.crt` and
    /// `client.key` into `dir`: what a caller presents to a server that
    /// requires client certificates of this CA
    /// ([`WebhookServerBuilder::require_client_cert`](super::WebhookServerBuilder::require_client_cert)).
    pub fn issue_client(
        &self,
        dir: impl AsRef<Path>,
        common_name: &str,
    ) -> std::io::Result<PathBuf> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir)?;
        let cert = Certificate::client(common_name, &self.ca)?;
        write_atomic(&dir.join("client.key"), cert.key_pem().as_bytes())?;
        write_atomic(&dir.join("client.crt"), cert.pem().as_bytes())?;
        Ok(dir.to_owned())
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

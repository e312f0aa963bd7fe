//! [`ServingCert`]: the certificate a TLS server presents — PEM files that
//! are re-read when they change (cert-manager and Secret volumes rotate
//! them in place), or a self-signed certificate made at start-up.
//!
//! Only HTTP/1.1 is offered (ALPN `http/1.1`): like kubebuilder's default,
//! which turns HTTP/2 off since the 2023 "rapid reset" attacks, the servers
//! here have no use for it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

use super::client_ca::ClientCa;
use super::watched::Watched;
use super::x509::Certificate;

/// Where a TLS server's certificate comes from.
///
/// ```
/// use kubegen::server::ServingCert;
///
/// // What cert-manager mounts from a Secret: tls.crt and tls.key.
/// let mounted = ServingCert::from_dir("/tmp/k8s-metrics-server/serving-certs");
/// // For development: a fresh self-signed certificate for these names.
/// let local = ServingCert::self_signed(["localhost"]);
/// # let _ = (mounted, local);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub enum ServingCert {
    /// A certificate and key in PEM files (the certificate file may hold
    /// the chain after the leaf). They are read when the server binds —
    /// failing then if they cannot be used — and re-read when either file
    /// changes; a change that does not parse (a half-written file) keeps
    /// the previous pair in service and is logged.
    Files {
        /// The certificate (chain), PEM.
        cert: PathBuf,
        /// The private key (PKCS#8, PKCS#1 or SEC1), PEM.
        key: PathBuf,
    },
    /// A certificate signed by its own key for these DNS names or IP
    /// addresses, made when the server binds. Clients cannot verify it
    /// against a trusted CA: use it for development, or where scrapers
    /// are configured to skip verification (kubebuilder's default).
    SelfSigned {
        /// The subject alternative names.
        names: Vec<String>,
    },
}

impl fmt::Debug for ServingCert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServingCert::Files { cert, key } => f
                .debug_struct("Files")
                .field("cert", cert)
                .field("key", key)
                .finish(),
            ServingCert::SelfSigned { names } => {
                f.debug_struct("SelfSigned").field("names", names).finish()
            }
        }
    }
}

impl ServingCert {
    /// The certificate in `cert` and the key in `key`, PEM.
    pub fn files(cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        ServingCert::Files {
            cert: cert.into(),
            key: key.into(),
        }
    }

    /// `tls.crt` and `tls.key` in `dir`: a `kubernetes.io/tls` Secret
    /// mounted as a volume.
    pub fn from_dir(dir: impl AsRef<Path>) -> Self {
        let dir = dir.as_ref();
        Self::files(dir.join("tls.crt"), dir.join("tls.key"))
    }

    /// A self-signed certificate for `names`.
    pub fn self_signed(names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        ServingCert::SelfSigned {
            names: names.into_iter().map(Into::into).collect(),
        }
    }

    /// A TLS acceptor presenting this certificate.
    pub(super) fn acceptor(&self) -> std::io::Result<TlsAcceptor> {
        self.acceptor_for(None)
    }

    /// The acceptor, demanding of every client a certificate signed by a
    /// CA in the PEM file `client_ca` when given: a client without one is
    /// refused in the handshake, before any HTTP.
    pub(super) fn acceptor_for(&self, client_ca: Option<&Path>) -> std::io::Result<TlsAcceptor> {
        let resolver: Arc<dyn ResolvesServerCert> = match self {
            ServingCert::Files { cert, key } => Arc::new(file_cert(cert, key)?),
            ServingCert::SelfSigned { names } => Arc::new(Fixed(Arc::new(self_signed(names)?))),
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(std::io::Error::other)?;
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(file) => builder.with_client_cert_verifier(Arc::new(ClientCa::load(file)?)),
        };
        let mut config = builder.with_cert_resolver(resolver);
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsAcceptor::from(Arc::new(config)))
    }
}

/// Makes a self-signed certificate and its key.
fn self_signed(names: &[String]) -> std::io::Result<CertifiedKey> {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let made = Certificate::server(&names, None)?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.key_der().to_vec()));
    certified(vec![CertificateDer::from(made.der().to_vec())], &key)
}

/// Pairs a chain with its signing key, checking that they belong together.
fn certified(
    chain: Vec<CertificateDer<'static>>,
    key: &PrivateKeyDer<'_>,
) -> std::io::Result<CertifiedKey> {
    let signer =
        rustls::crypto::ring::sign::any_supported_type(key).map_err(std::io::Error::other)?;
    let certified = CertifiedKey::new(chain, signer);
    certified.keys_match().map_err(std::io::Error::other)?;
    Ok(certified)
}

/// Always the same certificate.
#[derive(Debug)]
struct Fixed(Arc<CertifiedKey>);

impl ResolvesServerCert for Fixed {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// The certificate in two files (chain, key), re-read after they change.
type FileCert = Watched<CertifiedKey>;

impl ResolvesServerCert for FileCert {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// Loads `cert` and `key` as a [`FileCert`].
fn file_cert(cert: &Path, key: &Path) -> std::io::Result<FileCert> {
    Watched::load("serving certificate", &[cert, key], |paths| {
        read_pair(&paths[0], &paths[1])
    })
}

fn read_pair(cert: &Path, key: &Path) -> std::io::Result<CertifiedKey> {
    let context = |path: &Path, error: &dyn fmt::Display| {
        std::io::Error::other(format!("{}: {error}", path.display()))
    };
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| context(cert, &e))?;
    if chain.is_empty() {
        return Err(context(cert, &"no CERTIFICATE block"));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| context(key, &e))?;
    certified(chain, &private).map_err(|e| context(cert, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_pair(dir: &Path, name: &str) {
        let made = Certificate::server(&[name], None).unwrap();
        std::fs::write(dir.join("tls.crt"), made.pem()).unwrap();
        std::fs::write(dir.join("tls.key"), made.key_pem()).unwrap();
    }

    /// The leaf certificate a handshake would get now, as if the last
    /// check were long enough ago.
    fn leaf(resolver: &FileCert) -> Vec<u8> {
        resolver.check_next(true);
        resolver.current().cert[0].to_vec()
    }

    #[test]
    fn unusable_files_fail_at_bind() {
        let dir = tempfile::tempdir().unwrap();
        let Err(missing) = ServingCert::from_dir(dir.path()).acceptor() else {
            panic!("missing files accepted");
        };
        assert!(missing.to_string().contains("tls.crt"), "{missing}");
        write_pair(dir.path(), "a.example");
        assert!(ServingCert::from_dir(dir.path()).acceptor().is_ok());
        // A key that does not belong to the certificate.
        let other = Certificate::server(&["b.example"], None).unwrap();
        std::fs::write(dir.path().join("tls.key"), other.key_pem()).unwrap();
        assert!(ServingCert::from_dir(dir.path()).acceptor().is_err());
    }

    #[test]
    fn self_signed_certificates_name_their_names() {
        use rustls::client::danger::ServerCertVerifier as _;

        let names = ["localhost".to_owned(), "::1".to_owned()];
        let made = self_signed(&names).unwrap();
        let leaf = made.cert[0].clone();
        // A client that trusts this very certificate (webpki).
        let mut roots = rustls::RootCertStore::empty();
        roots.add(leaf.clone()).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier =
            rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .unwrap();
        let verify = |name: &str| {
            let name = rustls::pki_types::ServerName::try_from(name.to_owned()).unwrap();
            verifier.verify_server_cert(&leaf, &[], &name, &[], rustls::pki_types::UnixTime::now())
        };
        assert!(verify("localhost").is_ok());
        assert!(verify("::1").is_ok());
        assert!(verify("example.com").is_err());
        assert!(ServingCert::self_signed(["localhost"]).acceptor().is_ok());
        let Err(e) = ServingCert::self_signed(["bücher.example"]).acceptor() else {
            panic!("a name that is no DNS name bound");
        };
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    }

    #[test]
    fn changed_files_are_reloaded_and_broken_ones_ignored() {
        let dir = tempfile::tempdir().unwrap();
        write_pair(dir.path(), "first.example");
        let resolver = file_cert(&dir.path().join("tls.crt"), &dir.path().join("tls.key")).unwrap();
        let first = leaf(&resolver);
        assert_eq!(leaf(&resolver), first, "unchanged files");
        // A half-written certificate keeps the old pair in service.
        std::fs::write(
            dir.path().join("tls.crt"),
            "-----BEGIN CERTIFICATE-----\nAAA",
        )
        .unwrap();
        assert_eq!(leaf(&resolver), first);
        write_pair(dir.path(), "second.example");
        let second = leaf(&resolver);
        assert_ne!(second, first);
        // Checks are rate-limited: a change within RECHECK waits.
        write_pair(dir.path(), "third.example");
        resolver.check_next(false);
        assert_eq!(resolver.current().cert[0].to_vec(), second);
    }
}

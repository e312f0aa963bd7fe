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

#[cfg(test)]
mod tests {
    use std::process::Command;
    use std::sync::Arc;

    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
    use tokio_rustls::{TlsAcceptor, TlsConnector};

    use super::*;
    use crate::server::ServingCert;

    /// A client trusting the CAs of `ca_pem`, presenting the certificate
    /// and key `client.crt`/`client.key` of `client_dir` when given.
    fn connector(ca_pem: &str, client_dir: Option<&Path>) -> TlsConnector {
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(cert.unwrap()).unwrap();
        }
        let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
        let config = match client_dir {
            Some(dir) => builder
                .with_client_auth_cert(
                    vec![CertificateDer::from_pem_file(dir.join("client.crt")).unwrap()],
                    PrivateKeyDer::from_pem_file(dir.join("client.key")).unwrap(),
                )
                .unwrap(),
            None => builder.with_no_client_auth(),
        };
        TlsConnector::from(Arc::new(config))
    }

    /// A handshake over an in-memory pipe, the client asking for `name`:
    /// the server's outcome and the client's (errors as text).
    async fn handshake(
        server: &TlsAcceptor,
        client: &TlsConnector,
        name: &str,
    ) -> (Result<(), String>, Result<(), String>) {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        let name = ServerName::try_from(name.to_owned()).unwrap();
        let (accepted, connected) =
            tokio::join!(server.accept(server_end), client.connect(name, client_end));
        (
            accepted.map(drop).map_err(|e| format!("{e:?}")),
            connected.map(drop).map_err(|e| format!("{e:?}")),
        )
    }

    #[tokio::test]
    async fn rustls_trusts_issued_serving_certificates_for_their_names_only() {
        let dir = tempfile::tempdir().unwrap();
        let ca = DevCa::new("handshake-ca").unwrap();
        ca.issue(dir.path(), &["localhost", "127.0.0.1", "::1", "svc.ns.svc"])
            .unwrap();
        let server = ServingCert::from_dir(dir.path()).acceptor().unwrap();
        let client = connector(&ca.pem(), None);
        for name in ["localhost", "127.0.0.1", "::1", "svc.ns.svc"] {
            let (accepted, connected) = handshake(&server, &client, name).await;
            assert_eq!((&accepted, &connected), (&Ok(()), &Ok(())), "{name}");
        }
        for name in ["other.example", "127.0.0.2", "::2", "ns.svc"] {
            let (_, connected) = handshake(&server, &client, name).await;
            let error = connected.unwrap_err();
            assert!(error.contains("NotValidForName"), "{name}: {error}");
        }
        // A CA of the same name but another key is not the issuer.
        let impostor = DevCa::new("handshake-ca").unwrap();
        let (_, connected) =
            handshake(&server, &connector(&impostor.pem(), None), "localhost").await;
        let error = connected.unwrap_err();
        assert!(
            error.contains("BadSignature") || error.contains("UnknownIssuer"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_server_requiring_client_certificates_accepts_issued_ones() {
        let dir = tempfile::tempdir().unwrap();
        let serving = DevCa::new("serving-ca").unwrap();
        serving
            .issue(dir.path().join("serving"), &["localhost"])
            .unwrap();
        let clients = DevCa::new("client-ca").unwrap();
        std::fs::write(dir.path().join("client-ca.crt"), clients.pem()).unwrap();
        let server = ServingCert::from_dir(dir.path().join("serving"))
            .acceptor_for(Some(&dir.path().join("client-ca.crt")))
            .unwrap();
        let caller = clients
            .issue_client(dir.path().join("caller"), "caller")
            .unwrap();
        let (accepted, connected) = handshake(
            &server,
            &connector(&serving.pem(), Some(&caller)),
            "localhost",
        )
        .await;
        assert_eq!((accepted, connected), (Ok(()), Ok(())));

        // Another CA's client certificate, none, and a serving certificate
        // of the right CA (extKeyUsage serverAuth only) are refused.
        let stranger = DevCa::new("client-ca").unwrap();
        let foreign = stranger
            .issue_client(dir.path().join("foreign"), "caller")
            .unwrap();
        let wrong_usage = dir.path().join("wrong-usage");
        clients.issue(&wrong_usage, &["localhost"]).unwrap();
        std::fs::rename(wrong_usage.join("tls.crt"), wrong_usage.join("client.crt")).unwrap();
        std::fs::rename(wrong_usage.join("tls.key"), wrong_usage.join("client.key")).unwrap();
        for (what, presented) in [
            ("another CA's", Some(foreign.as_path())),
            ("no certificate", None),
            ("a serving certificate", Some(wrong_usage.as_path())),
        ] {
            let client = connector(&serving.pem(), presented);
            let (accepted, _) = handshake(&server, &client, "localhost").await;
            assert!(accepted.is_err(), "{what} accepted");
        }
    }

    /// `openssl args…` in `dir`: whether it succeeded, and its output.
    fn openssl(dir: &Path, args: &[&str]) -> (bool, String) {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text.into_owned())
    }

    #[test]
    fn openssl_verifies_and_reads_what_dev_ca_writes() {
        if Command::new("openssl").arg("version").output().is_err() {
            eprintln!("skipped: no `openssl` on PATH to check the certificates with");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let ca = DevCa::new("kubegen-openssl-ca").unwrap();
        ca.issue(dir, &["localhost", "svc.ns.svc", "127.0.0.1", "::1"])
            .unwrap();
        ca.issue_client(dir, "kubegen-caller").unwrap();
        DevCa::new("kubegen-openssl-ca")
            .unwrap()
            .issue(dir.join("impostor"), &["localhost"])
            .unwrap();
        let verify = |purpose: &str, cert: &str| {
            let purpose = format!("-purpose={purpose}");
            openssl(
                dir,
                &[
                    "verify",
                    "-x509_strict",
                    &purpose,
                    "-CAfile",
                    "ca.crt",
                    cert,
                ],
            )
        };
        for (purpose, cert) in [("sslserver", "tls.crt"), ("sslclient", "client.crt")] {
            let (ok, text) = verify(purpose, cert);
            assert!(
                ok && text.contains(&format!("{cert}: OK")),
                "{cert}: {text}"
            );
        }
        for (purpose, cert) in [
            ("sslclient", "tls.crt"),
            ("sslserver", "client.crt"),
            ("sslserver", "impostor/tls.crt"),
        ] {
            assert!(!verify(purpose, cert).0, "{cert} verified for {purpose}");
        }

        let text = |file: &str| {
            let (ok, text) = openssl(dir, &["x509", "-noout", "-text", "-in", file]);
            assert!(ok, "{file}: {text}");
            text
        };
        let expect = |text: &str, lines: &[&str]| {
            for line in lines {
                assert!(text.contains(line), "no {line:?} in\n{text}");
            }
        };
        let common = [
            "Version: 3 (0x2)",
            "Signature Algorithm: ecdsa-with-SHA256",
            "Public Key Algorithm: id-ecPublicKey",
            "NIST CURVE: P-256",
            "X509v3 Subject Key Identifier",
            "X509v3 Authority Key Identifier",
        ];
        let ca_text = text("ca.crt");
        expect(&ca_text, &common);
        expect(
            &ca_text,
            &[
                "CN = kubegen-openssl-ca",
                "X509v3 Basic Constraints: critical\n                CA:TRUE",
                "X509v3 Key Usage: critical\n                Certificate Sign, CRL Sign",
            ],
        );
        let server_text = text("tls.crt");
        expect(&server_text, &common);
        expect(
            &server_text,
            &[
                "Issuer: CN = kubegen-openssl-ca",
                "Subject: CN = localhost",
                "DNS:localhost, DNS:svc.ns.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
                "CA:FALSE",
                "X509v3 Key Usage: critical\n                Digital Signature",
                "TLS Web Server Authentication",
            ],
        );
        let client_text = text("client.crt");
        expect(&client_text, &common);
        expect(
            &client_text,
            &[
                "Subject: CN = kubegen-caller",
                "TLS Web Client Authentication",
            ],
        );
        assert!(!client_text.contains("Alternative Name"), "{client_text}");
        // Each key is the one its certificate names.
        for (cert, key) in [("tls.crt", "tls.key"), ("client.crt", "client.key")] {
            let from_cert = openssl(dir, &["x509", "-noout", "-pubkey", "-in", cert]);
            let from_key = openssl(dir, &["pkey", "-pubout", "-in", key]);
            assert!(from_cert.0 && from_key.0, "{from_cert:?} {from_key:?}");
            assert_eq!(from_cert.1, from_key.1, "{cert}");
        }
    }
}

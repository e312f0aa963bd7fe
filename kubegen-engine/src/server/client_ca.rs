//! The client certificate check of a server that requires one
//! ([`WebhookServerBuilder::require_client_cert`](super::WebhookServerBuilder::require_client_cert)):
//! certificates signed by a CA of a PEM file, the file re-read when it
//! changes (at most once a second), as the serving certificate is — a CA
//! rotated in its Secret volume is trusted without a restart.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};

use super::watched::Watched;

/// Verifies client certificates against the CAs of a file.
#[derive(Debug)]
pub(super) struct ClientCa(Watched<Arc<dyn ClientCertVerifier>>);

/// A verifier of the CAs in `paths[0]`.
fn read(paths: &[PathBuf]) -> std::io::Result<Arc<dyn ClientCertVerifier>> {
    let file = &paths[0];
    let context =
        |e: &dyn fmt::Display| std::io::Error::other(format!("client CA {}: {e}", file.display()));
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(file).map_err(|e| context(&e))? {
        roots
            .add(cert.map_err(|e| context(&e))?)
            .map_err(|e| context(&e))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .map_err(|e| context(&e))
}

impl ClientCa {
    /// Reads `file`; an unusable one fails here.
    pub(super) fn load(file: &Path) -> std::io::Result<ClientCa> {
        Watched::load("client CA", &[file], read).map(ClientCa)
    }

    /// The verifier of the file as it is now.
    fn current(&self) -> Arc<dyn ClientCertVerifier> {
        Arc::clone(&self.0.current())
    }
}

impl ClientCertVerifier for ClientCa {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        // The CAs change with the file; clients (Go's and rustls's among
        // them) send their certificate when the server names none.
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.current()
            .verify_client_cert(end_entity, intermediates, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.current().verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.current().verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.current().supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::DevCa;

    fn client_cert(ca: &DevCa, dir: &Path) -> CertificateDer<'static> {
        ca.issue_client(dir, "caller").unwrap();
        CertificateDer::from_pem_file(dir.join("client.crt")).unwrap()
    }

    #[test]
    fn a_rotated_ca_is_trusted_without_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new) = (DevCa::new("old").unwrap(), DevCa::new("new").unwrap());
        let file = dir.path().join("ca.crt");
        std::fs::write(&file, old.pem()).unwrap();
        let verifier = ClientCa::load(&file).unwrap();
        let (by_old, by_new) = (
            client_cert(&old, &dir.path().join("a")),
            client_cert(&new, &dir.path().join("b")),
        );
        let verify =
            |cert: &CertificateDer<'_>| verifier.verify_client_cert(cert, &[], UnixTime::now());
        assert!(verify(&by_old).is_ok());
        assert!(verify(&by_new).is_err());
        std::fs::write(&file, new.pem()).unwrap();
        verifier.0.check_next(true);
        assert!(verify(&by_new).is_ok(), "the new CA is trusted");
        assert!(verify(&by_old).is_err(), "the old one no longer");
        std::fs::write(&file, "not a certificate").unwrap();
        verifier.0.check_next(true);
        assert!(
            verify(&by_new).is_ok(),
            "a broken file keeps the previous CAs"
        );
    }
}

//! The TLS client configuration (rustls with ring) a [`Config`] asks for:
//! the CAs it trusts (or the system's), its client certificate, or — only
//! when the kubeconfig says `insecure-skip-tls-verify` — no verification.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::config::{Config, decode_base64, read};
use crate::error::{Error, Result};

/// The rustls configuration for `config`.
pub(crate) fn client_config(config: &Config) -> Result<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls(e.to_string()))?;
    let builder = if config.accept_invalid_certs {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoVerification(provider)))
    } else {
        builder.with_root_certificates(roots(config)?)
    };
    let mut tls = match identity(config)? {
        Some((chain, key)) => builder
            .with_client_auth_cert(chain, key)
            .map_err(|e| Error::Tls(e.to_string()))?,
        None => builder.with_no_client_auth(),
    };
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tls)
}

fn roots(config: &Config) -> Result<RootCertStore> {
    let mut roots = RootCertStore::empty();
    match &config.root_cert {
        Some(certs) => {
            for der in certs {
                roots
                    .add(CertificateDer::from(der.clone()))
                    .map_err(|e| Error::Tls(format!("a CA certificate: {e}")))?;
            }
        }
        None => {
            let native = rustls_native_certs::load_native_certs();
            for error in &native.errors {
                tracing::warn!(%error, "loading the system's CA certificates");
            }
            roots.add_parsable_certificates(native.certs);
        }
    }
    Ok(roots)
}

/// The client certificate chain and key, from `*-data` or files (data
/// first, as client-go).
fn identity(
    config: &Config,
) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>> {
    let info = &config.auth_info;
    let pem =
        |data: &Option<String>, file: &Option<String>, what: &str| -> Result<Option<Vec<u8>>> {
            Ok(
                match (
                    data.as_deref().filter(|d| !d.is_empty()),
                    file.as_deref().filter(|f| !f.is_empty()),
                ) {
                    (Some(data), _) => Some(decode_base64(data, what)?),
                    (None, Some(file)) => Some(read(std::path::Path::new(file))?),
                    (None, None) => None,
                },
            )
        };
    let cert = pem(
        &info.client_certificate_data,
        &info.client_certificate,
        "client-certificate-data",
    )?;
    let key = pem(&info.client_key_data, &info.client_key, "client-key-data")?;
    match (cert, key) {
        (None, None) => Ok(None),
        (Some(cert), Some(key)) => {
            let chain = CertificateDer::pem_slice_iter(&cert)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| Error::Tls(format!("the client certificate: {e}")))?;
            if chain.is_empty() {
                return Err(Error::Tls(
                    "the client certificate holds no PEM certificate".to_owned(),
                ));
            }
            let key = PrivateKeyDer::from_pem_slice(&key)
                .map_err(|e| Error::Tls(format!("the client key: {e}")))?;
            Ok(Some((chain, key)))
        }
        _ => Err(Error::Tls(
            "a client certificate needs its key, and a key its certificate".to_owned(),
        )),
    }
}

/// The name the server's certificate is verified against.
pub(crate) fn server_name(config: &Config) -> Result<Option<ServerName<'static>>> {
    config
        .tls_server_name
        .as_deref()
        .map(|name| {
            ServerName::try_from(name.to_owned())
                .map_err(|e| Error::Tls(format!("tls-server-name {name:?}: {e}")))
        })
        .transpose()
}

/// `insecure-skip-tls-verify`: any certificate is accepted.
#[derive(Debug)]
struct NoVerification(Arc<CryptoProvider>);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

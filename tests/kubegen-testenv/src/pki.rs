//! The control plane's PKI, generated in Rust at start-up: a CA, the
//! apiserver's serving certificate, client certificates and the
//! service-account signing key.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};

/// A certificate and its private key, both written as PEM files.
#[derive(Debug, Clone)]
pub struct CertFiles {
    /// Path of the PEM certificate.
    pub cert: PathBuf,
    /// Path of the PEM (PKCS#8) private key.
    pub key: PathBuf,
}

/// The certificate authority of one control plane, able to issue more
/// certificates while the plane runs (for per-user clients in RBAC tests).
pub(crate) struct Pki {
    dir: PathBuf,
    ca: CertifiedIssuer<'static, KeyPair>,
    /// Path of the CA certificate (the apiserver's `--client-ca-file`, and the
    /// `certificate-authority` of every kubeconfig).
    pub ca_cert: PathBuf,
    /// The service-account signing key (PKCS#8 private key).
    pub service_account_key: PathBuf,
    /// The public half of the service-account key, which the apiserver
    /// verifies tokens with.
    pub service_account_pub: PathBuf,
    /// The apiserver's serving certificate, valid for 127.0.0.1 and localhost.
    pub serving: CertFiles,
    /// A client certificate for `kubegen-admin` in `system:masters`.
    pub admin: CertFiles,
}

impl Pki {
    /// Generates a fresh PKI into `dir`.
    pub(crate) fn generate(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir)?;
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "kubegen-testenv-ca");
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = CertifiedIssuer::self_signed(params, KeyPair::generate()?)?;
        let ca_cert = dir.join("ca.crt");
        std::fs::write(&ca_cert, ca.pem())?;

        let service_account_key = dir.join("service-account.key");
        let service_account_pub = dir.join("service-account.pub");
        let sa_key = KeyPair::generate()?;
        std::fs::write(&service_account_key, sa_key.serialize_pem())?;
        std::fs::write(&service_account_pub, sa_key.public_key_pem())?;

        let mut pki = Pki {
            dir: dir.to_path_buf(),
            ca,
            ca_cert,
            service_account_key,
            service_account_pub,
            serving: CertFiles {
                cert: PathBuf::new(),
                key: PathBuf::new(),
            },
            admin: CertFiles {
                cert: PathBuf::new(),
                key: PathBuf::new(),
            },
        };
        pki.serving = pki.issue_serving("kube-apiserver")?;
        pki.admin = pki.issue_client("kubegen-admin", Some("system:masters"))?;
        Ok(pki)
    }

    /// Issues a serving certificate with SANs 127.0.0.1, ::1 and localhost.
    fn issue_serving(&self, name: &str) -> Result<CertFiles> {
        let mut params = CertificateParams::new(vec!["localhost".to_string()])?;
        params
            .subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
        params
            .subject_alt_names
            .push(SanType::IpAddress(std::net::Ipv6Addr::LOCALHOST.into()));
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        self.write(name, &params)
    }

    /// Issues a client certificate authenticating as `user`, member of
    /// `group` when given (the apiserver reads CN as the user name and O as
    /// the group).
    pub(crate) fn issue_client(&self, user: &str, group: Option<&str>) -> Result<CertFiles> {
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        params.distinguished_name.push(DnType::CommonName, user);
        if let Some(group) = group {
            params
                .distinguished_name
                .push(DnType::OrganizationName, group);
        }
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let file_stem = format!(
            "client-{}",
            user.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.write(&file_stem, &params)
    }

    fn write(&self, stem: &str, params: &CertificateParams) -> Result<CertFiles> {
        let key = KeyPair::generate()?;
        let cert = params
            .signed_by(&key, &self.ca)
            .with_context(|| format!("signing certificate {stem}"))?;
        let files = CertFiles {
            cert: self.dir.join(format!("{stem}.crt")),
            key: self.dir.join(format!("{stem}.key")),
        };
        crate::files::replace(&files.cert, cert.pem().as_bytes())?;
        crate::files::replace(&files.key, key.serialize_pem().as_bytes())?;
        Ok(files)
    }
}

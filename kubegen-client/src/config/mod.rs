//! [`Config`]: where the apiserver is and how to reach and authenticate to
//! it — read from a kubeconfig ([`Kubeconfig`]) or from the pod the
//! operator runs in, the way client-go reads them.

mod kubeconfig;
mod yaml;

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;

use crate::error::ConfigError;

pub use kubeconfig::{
    AuthInfo, Cluster, Context, ExecConfig, ExecEnvVar, Kubeconfig, NamedAuthInfo, NamedCluster,
    NamedContext,
};

/// Where a pod finds its service account's token, CA and namespace.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// How to reach one apiserver.
#[derive(Clone, Debug)]
pub struct Config {
    /// The apiserver's URL; requests' paths are appended to its path.
    pub cluster_url: http::Uri,
    /// The namespace `Api::default_namespaced` uses.
    pub default_namespace: String,
    /// The CA certificates (DER) to trust; `None` trusts the system's.
    pub root_cert: Option<Vec<Vec<u8>>>,
    /// How long connecting (TCP and TLS) may take.
    pub connect_timeout: Option<Duration>,
    /// Accept any server certificate (insecure; a kubeconfig's
    /// `insecure-skip-tls-verify`).
    pub accept_invalid_certs: bool,
    /// The name to verify the server certificate against, instead of the
    /// URL's host.
    pub tls_server_name: Option<String>,
    /// The credentials.
    pub auth_info: AuthInfo,
}

/// Which of a kubeconfig's contexts, clusters and users to use; `None`
/// takes the current context's.
#[derive(Clone, Debug, Default)]
pub struct KubeConfigOptions {
    /// The context.
    pub context: Option<String>,
    /// The cluster, instead of the context's.
    pub cluster: Option<String>,
    /// The user, instead of the context's.
    pub user: Option<String>,
}

impl Config {
    /// A configuration for `cluster_url`, trusting the system's CAs, with
    /// no credentials, in namespace `default`.
    pub fn new(cluster_url: http::Uri) -> Self {
        Config {
            cluster_url,
            default_namespace: "default".to_owned(),
            root_cert: None,
            connect_timeout: Some(Duration::from_secs(30)),
            accept_invalid_certs: false,
            tls_server_name: None,
            auth_info: AuthInfo::default(),
        }
    }

    /// The configuration of the environment, in controller-runtime's order
    /// (`ctrl.GetConfig`): the kubeconfig files `KUBECONFIG` lists, else
    /// the pod's service account (`KUBERNETES_SERVICE_HOST` set), else
    /// `~/.kube/config`.
    pub async fn infer() -> Result<Self, ConfigError> {
        if std::env::var_os("KUBECONFIG").is_some_and(|v| !v.is_empty()) {
            return Self::from_kubeconfig(&KubeConfigOptions::default()).await;
        }
        if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
            return Self::incluster();
        }
        let path = kubeconfig::default_path()?;
        if !path.exists() {
            return Err(ConfigError::NotFound(path.display().to_string()));
        }
        Self::from_custom_kubeconfig(Kubeconfig::read_from(&path)?, &KubeConfigOptions::default())
            .await
    }

    /// The pod's configuration: the apiserver at `KUBERNETES_SERVICE_HOST`
    /// and `_PORT`, the service account's CA and token (the token file
    /// re-read as the kubelet rotates it) and namespace.
    pub fn incluster() -> Result<Self, ConfigError> {
        Self::incluster_from(
            std::env::var("KUBERNETES_SERVICE_HOST").ok(),
            std::env::var("KUBERNETES_SERVICE_PORT").ok(),
            Path::new(SERVICE_ACCOUNT_DIR),
        )
    }

    fn incluster_from(
        host: Option<String>,
        port: Option<String>,
        dir: &Path,
    ) -> Result<Self, ConfigError> {
        let (Some(host), Some(port)) = (
            host.filter(|h| !h.is_empty()),
            port.filter(|p| !p.is_empty()),
        ) else {
            return Err(ConfigError::Invalid(
                "not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set".to_owned(),
            ));
        };
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host
        };
        let url = format!("https://{host}:{port}");
        let mut config = Config::new(
            url.parse()
                .map_err(|e| ConfigError::Invalid(format!("{url}: {e}")))?,
        );
        let ca = dir.join("ca.crt");
        config.root_cert = Some(certificates(&read(&ca)?, &ca.display().to_string())?);
        config.auth_info.token_file = Some(dir.join("token").display().to_string());
        let namespace = dir.join("namespace");
        if let Ok(ns) = std::fs::read_to_string(&namespace)
            && !ns.trim().is_empty()
        {
            config.default_namespace = ns.trim().to_owned();
        }
        Ok(config)
    }

    /// The configuration of a context of the environment's kubeconfig
    /// ([`Kubeconfig::read`]).
    pub async fn from_kubeconfig(options: &KubeConfigOptions) -> Result<Self, ConfigError> {
        Self::from_custom_kubeconfig(Kubeconfig::read()?, options).await
    }

    /// The configuration of a context of `kubeconfig`.
    pub async fn from_custom_kubeconfig(
        kubeconfig: Kubeconfig,
        options: &KubeConfigOptions,
    ) -> Result<Self, ConfigError> {
        let context_name = match (&options.context, &kubeconfig.current_context) {
            (Some(name), _) => name.clone(),
            (None, Some(name)) if !name.is_empty() => name.clone(),
            _ => return Err(ConfigError::NoContext),
        };
        let context = kubeconfig.context(&context_name)?;
        let cluster = kubeconfig.cluster(options.cluster.as_ref().unwrap_or(&context.cluster))?;
        let user_name = options.user.as_ref().unwrap_or(&context.user);
        let auth_info = if user_name.is_empty() {
            AuthInfo::default()
        } else {
            kubeconfig.auth_info(user_name)?.clone()
        };
        if cluster.proxy_url.as_deref().is_some_and(|p| !p.is_empty()) {
            return Err(ConfigError::Unsupported("a cluster's proxy-url".to_owned()));
        }
        if auth_info.auth_provider.is_some() {
            return Err(ConfigError::Unsupported(
                "a user's auth-provider (use an exec credential plugin instead, as kubectl does)"
                    .to_owned(),
            ));
        }
        let server = cluster
            .server
            .as_deref()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "kubeconfig context {context_name:?}: its cluster has no server"
                ))
            })?;
        let mut config = Config::new(
            server
                .parse()
                .map_err(|e| ConfigError::Invalid(format!("server {server:?}: {e}")))?,
        );
        if let Some(ns) = context.namespace.as_deref().filter(|ns| !ns.is_empty()) {
            config.default_namespace = ns.to_owned();
        }
        config.root_cert = match (
            &cluster.certificate_authority_data,
            &cluster.certificate_authority,
        ) {
            (Some(data), _) if !data.is_empty() => Some(certificates(
                &decode_base64(data, "certificate-authority-data")?,
                "certificate-authority-data",
            )?),
            (_, Some(file)) if !file.is_empty() => {
                Some(certificates(&read(Path::new(file))?, file)?)
            }
            _ => None,
        };
        config.accept_invalid_certs = cluster.insecure_skip_tls_verify;
        config.tls_server_name = cluster.tls_server_name.clone().filter(|n| !n.is_empty());
        config.auth_info = auth_info;
        Ok(config)
    }
}

pub(crate) fn read(path: &Path) -> Result<Vec<u8>, ConfigError> {
    std::fs::read(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })
}

pub(crate) fn decode_base64(data: &str, what: &str) -> Result<Vec<u8>, ConfigError> {
    base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| ConfigError::Invalid(format!("{what} is not base64: {e}")))
}

/// The DER certificates of a PEM bundle (at least one).
pub(crate) fn certificates(pem: &[u8], origin: &str) -> Result<Vec<Vec<u8>>, ConfigError> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let certs = CertificateDer::pem_slice_iter(pem)
        .map(|c| c.map(|c| c.to_vec()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ConfigError::Invalid(format!("{origin}: not PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(ConfigError::Invalid(format!(
            "{origin}: no PEM certificate in it"
        )));
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ca_pem() -> String {
        let key = rcgen::KeyPair::generate().unwrap();
        rcgen::CertificateParams::new(vec!["ca".to_owned()])
            .unwrap()
            .self_signed(&key)
            .unwrap()
            .pem()
    }

    #[test]
    fn incluster_reads_the_service_account_and_brackets_ipv6_hosts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.crt"), ca_pem()).unwrap();
        std::fs::write(dir.path().join("namespace"), "operators\n").unwrap();
        let config =
            Config::incluster_from(Some("fd00::1".into()), Some("443".into()), dir.path()).unwrap();
        assert_eq!(config.cluster_url.to_string(), "https://[fd00::1]:443/");
        assert_eq!(config.default_namespace, "operators");
        assert_eq!(config.root_cert.as_ref().unwrap().len(), 1);
        assert_eq!(
            config.auth_info.token_file,
            Some(dir.path().join("token").display().to_string())
        );
    }

    #[test]
    fn incluster_outside_a_pod_says_so() {
        let error = Config::incluster_from(None, Some("443".into()), Path::new("/nonexistent"))
            .unwrap_err();
        assert!(error.to_string().contains("not in a pod"), "{error}");
    }

    #[tokio::test]
    async fn a_context_picks_its_cluster_user_namespace_and_ca_data() {
        let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem());
        let text = format!(
            "clusters: [{{name: c, cluster: {{server: 'https://10.0.0.1:6443/prefix', certificate-authority-data: {ca}, tls-server-name: api}}}}]
users: [{{name: u, user: {{token: abc}}}}, {{name: other, user: {{token: def}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u, namespace: team}}}}]
current-context: x
"
        );
        let kubeconfig = Kubeconfig::from_yaml(&text).unwrap();
        let config =
            Config::from_custom_kubeconfig(kubeconfig.clone(), &KubeConfigOptions::default())
                .await
                .unwrap();
        assert_eq!(
            config.cluster_url.to_string(),
            "https://10.0.0.1:6443/prefix"
        );
        assert_eq!(config.default_namespace, "team");
        assert_eq!(config.tls_server_name.as_deref(), Some("api"));
        assert_eq!(config.auth_info.token.as_deref(), Some("abc"));
        assert_eq!(config.root_cert.unwrap().len(), 1);
        let options = KubeConfigOptions {
            user: Some("other".into()),
            ..Default::default()
        };
        let config = Config::from_custom_kubeconfig(kubeconfig, &options)
            .await
            .unwrap();
        assert_eq!(config.auth_info.token.as_deref(), Some("def"));
    }

    #[tokio::test]
    async fn unsupported_and_missing_settings_are_errors_not_silently_ignored() {
        let with = |cluster: &str, user: &str| {
            Kubeconfig::from_yaml(&format!(
                "clusters: [{{name: c, cluster: {cluster}}}]\nusers: [{{name: u, user: {user}}}]\ncontexts: [{{name: x, context: {{cluster: c, user: u}}}}]\ncurrent-context: x\n"
            ))
            .unwrap()
        };
        let options = KubeConfigOptions::default();
        let proxy = with("{server: 'https://h', proxy-url: 'http://p:3128'}", "{}");
        assert!(matches!(
            Config::from_custom_kubeconfig(proxy, &options).await,
            Err(ConfigError::Unsupported(_))
        ));
        let provider = with("{server: 'https://h'}", "{auth-provider: {name: gcp}}");
        assert!(matches!(
            Config::from_custom_kubeconfig(provider, &options).await,
            Err(ConfigError::Unsupported(_))
        ));
        let no_server = with("{}", "{}");
        assert!(matches!(
            Config::from_custom_kubeconfig(no_server, &options).await,
            Err(ConfigError::Invalid(_))
        ));
        let bad_ca = with(
            "{server: 'https://h', certificate-authority-data: '!!'}",
            "{}",
        );
        assert!(matches!(
            Config::from_custom_kubeconfig(bad_ca, &options).await,
            Err(ConfigError::Invalid(_))
        ));
        let none = Kubeconfig::from_yaml("contexts: []\n").unwrap();
        assert!(matches!(
            Config::from_custom_kubeconfig(none, &options).await,
            Err(ConfigError::NoContext)
        ));
    }
}

//! Kubeconfig files for the local control plane and `kubegen_client::Client`s built
//! from them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use kubegen_client::config::{KubeConfigOptions, Kubeconfig};

/// How a kubeconfig user authenticates.
pub(crate) enum Credentials<'a> {
    /// A client certificate and its key (PEM files).
    ClientCert { cert: &'a Path, key: &'a Path },
    /// A bearer token (e.g. a ServiceAccount token).
    Token(&'a str),
}

/// Writes a kubeconfig with one cluster, user and context, named `kubegen`.
pub(crate) fn write(
    path: &Path,
    server: &str,
    ca_cert: &Path,
    credentials: Credentials<'_>,
) -> Result<PathBuf> {
    let user = match credentials {
        Credentials::ClientCert { cert, key } => serde_json::json!({
            "client-certificate": cert,
            "client-key": key,
        }),
        Credentials::Token(token) => serde_json::json!({ "token": token }),
    };
    let config = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{
            "name": "kubegen",
            "cluster": { "server": server, "certificate-authority": ca_cert },
        }],
        "users": [{ "name": "kubegen", "user": user }],
        "contexts": [{
            "name": "kubegen",
            "context": { "cluster": "kubegen", "user": "kubegen", "namespace": "default" },
        }],
        "current-context": "kubegen",
    });
    crate::files::replace(path, serde_yaml::to_string(&config)?.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path.to_path_buf())
}

/// Builds a client from a kubeconfig file.
pub(crate) async fn client(path: &Path) -> Result<kubegen_client::Client> {
    let kubeconfig = Kubeconfig::read_from(path)
        .with_context(|| format!("reading kubeconfig {}", path.display()))?;
    let config =
        kubegen_client::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
            .await
            .with_context(|| format!("loading kubeconfig {}", path.display()))?;
    Ok(kubegen_client::Client::try_from(config)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader never finds the file half-written while it is rewritten
    /// over and over (the file was truncated, then written, before).
    #[test]
    fn a_rewritten_kubeconfig_always_reads_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kubeconfig");
        let ca = dir.path().join("ca.crt");
        let token = "t".repeat(4096);
        let rewrite = || {
            write(
                &path,
                "https://127.0.0.1:1",
                &ca,
                Credentials::Token(&token),
            )
            .unwrap();
        };
        rewrite();
        std::thread::scope(|scope| {
            let writer = scope.spawn(|| (0..300).for_each(|_| rewrite()));
            let mut reads = 0;
            while !writer.is_finished() || reads < 100 {
                let config = Kubeconfig::read_from(&path).expect("a whole kubeconfig");
                assert_eq!(config.current_context.as_deref(), Some("kubegen"));
                reads += 1;
            }
        });
    }
}

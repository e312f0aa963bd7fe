//! [`Kubeconfig`]: the kubeconfig file format (client-go's
//! `clientcmd/api/v1`), read from files and merged as client-go merges the
//! files `KUBECONFIG` lists.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// A kubeconfig: clusters, users and contexts by name, and the current
/// context. Paths in it are absolute once read from a file (relative ones
/// are resolved against the file's directory, as client-go does).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Kubeconfig {
    /// The clusters.
    #[serde(default, deserialize_with = "null_is_empty")]
    pub clusters: Vec<NamedCluster>,
    /// The users (credentials).
    #[serde(default, rename = "users", deserialize_with = "null_is_empty")]
    pub auth_infos: Vec<NamedAuthInfo>,
    /// The contexts (a cluster, a user, a namespace).
    #[serde(default, deserialize_with = "null_is_empty")]
    pub contexts: Vec<NamedContext>,
    /// The context used when none is asked for.
    #[serde(default)]
    pub current_context: Option<String>,
}

/// A named cluster.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct NamedCluster {
    /// Its name.
    pub name: String,
    /// The cluster.
    #[serde(default)]
    pub cluster: Cluster,
}

/// Where an apiserver is and how to trust it.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Cluster {
    /// The apiserver's URL (`https://host:port`, maybe with a path).
    #[serde(default)]
    pub server: Option<String>,
    /// Skip verifying the apiserver's certificate (insecure).
    #[serde(default)]
    pub insecure_skip_tls_verify: bool,
    /// A PEM file of the CA certificates to trust.
    #[serde(default)]
    pub certificate_authority: Option<String>,
    /// The CA certificates, PEM, base64-encoded.
    #[serde(default)]
    pub certificate_authority_data: Option<String>,
    /// The name to verify the apiserver's certificate against, instead of
    /// the server URL's host.
    #[serde(default)]
    pub tls_server_name: Option<String>,
    /// A proxy (not supported: an error if set).
    #[serde(default)]
    pub proxy_url: Option<String>,
}

/// A named user.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct NamedAuthInfo {
    /// Its name.
    pub name: String,
    /// The credentials.
    #[serde(default)]
    pub user: AuthInfo,
}

/// Credentials, as a kubeconfig's `user` gives them.
#[derive(Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct AuthInfo {
    /// A PEM file of the client certificate (chain).
    #[serde(default)]
    pub client_certificate: Option<String>,
    /// The client certificate, PEM, base64-encoded.
    #[serde(default)]
    pub client_certificate_data: Option<String>,
    /// A PEM file of the client certificate's key.
    #[serde(default)]
    pub client_key: Option<String>,
    /// The client key, PEM, base64-encoded.
    #[serde(default)]
    pub client_key_data: Option<String>,
    /// A bearer token.
    #[serde(default)]
    pub token: Option<String>,
    /// A file holding a bearer token, re-read as it changes.
    #[serde(default, rename = "tokenFile")]
    pub token_file: Option<String>,
    /// Basic authentication's user name.
    #[serde(default)]
    pub username: Option<String>,
    /// Basic authentication's password.
    #[serde(default)]
    pub password: Option<String>,
    /// The user to impersonate.
    #[serde(default, rename = "as")]
    pub impersonate: Option<String>,
    /// The groups to impersonate.
    #[serde(default, rename = "as-groups")]
    pub impersonate_groups: Option<Vec<String>>,
    /// The UID to impersonate.
    #[serde(default, rename = "as-uid")]
    pub impersonate_uid: Option<String>,
    /// Extra fields of the impersonated user.
    #[serde(default, rename = "as-user-extra")]
    pub impersonate_extra: Option<std::collections::BTreeMap<String, Vec<String>>>,
    /// A credential plugin to run for a token.
    #[serde(default)]
    pub exec: Option<ExecConfig>,
    /// A legacy auth provider (not supported: an error if set).
    #[serde(default)]
    pub auth_provider: Option<serde_json::Value>,
}

impl std::fmt::Debug for AuthInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |v: &Option<String>| v.as_ref().map(|_| "<redacted>");
        f.debug_struct("AuthInfo")
            .field("client_certificate", &self.client_certificate)
            .field(
                "client_certificate_data",
                &hidden(&self.client_certificate_data),
            )
            .field("client_key", &self.client_key)
            .field("client_key_data", &hidden(&self.client_key_data))
            .field("token", &hidden(&self.token))
            .field("token_file", &self.token_file)
            .field("username", &self.username)
            .field("password", &hidden(&self.password))
            .field("impersonate", &self.impersonate)
            .field("impersonate_groups", &self.impersonate_groups)
            .field("impersonate_uid", &self.impersonate_uid)
            .field("impersonate_extra", &self.impersonate_extra)
            .field("exec", &self.exec)
            .finish_non_exhaustive()
    }
}

/// A client-go credential plugin (`client.authentication.k8s.io`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExecConfig {
    /// The `ExecCredential` version the plugin speaks
    /// (`client.authentication.k8s.io/v1` or `v1beta1`).
    #[serde(default)]
    pub api_version: Option<String>,
    /// The program.
    pub command: String,
    /// Its arguments.
    #[serde(default, deserialize_with = "null_is_empty")]
    pub args: Vec<String>,
    /// Environment variables added to the client's.
    #[serde(default, deserialize_with = "null_is_empty")]
    pub env: Vec<ExecEnvVar>,
    /// Whether the plugin gets the cluster's details in
    /// `KUBERNETES_EXEC_INFO`.
    #[serde(default)]
    pub provide_cluster_info: bool,
    /// `Never`, `IfAvailable` or `Always` (this client never has a
    /// terminal to offer: `Always` is an error).
    #[serde(default)]
    pub interactive_mode: Option<String>,
}

/// An environment variable for an exec plugin.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct ExecEnvVar {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// A named context.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct NamedContext {
    /// Its name.
    pub name: String,
    /// The context.
    #[serde(default)]
    pub context: Context,
}

/// A cluster, a user and a default namespace.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct Context {
    /// The cluster's name.
    #[serde(default)]
    pub cluster: String,
    /// The user's name.
    #[serde(default)]
    pub user: String,
    /// The namespace requests default to.
    #[serde(default)]
    pub namespace: Option<String>,
}

fn null_is_empty<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

impl Kubeconfig {
    /// Parses a kubeconfig's text (YAML or JSON). Relative paths stay as
    /// they are.
    pub fn from_yaml(text: &str) -> Result<Self, ConfigError> {
        Self::parse(text, "<string>")
    }

    fn parse(text: &str, origin: &str) -> Result<Self, ConfigError> {
        let invalid = |message: String| ConfigError::Kubeconfig {
            origin: origin.to_owned(),
            message,
        };
        let value = super::yaml::to_json(text).map_err(invalid)?;
        if value.is_null() {
            return Ok(Kubeconfig::default());
        }
        serde_json::from_value(value).map_err(|e| invalid(e.to_string()))
    }

    /// Reads one kubeconfig file, its relative paths resolved against the
    /// file's directory.
    pub fn read_from(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let mut config = Self::parse(&text, &path.display().to_string())?;
        config.resolve_paths(path.parent().unwrap_or(Path::new(".")));
        Ok(config)
    }

    /// Reads the kubeconfig client-go would: the files `KUBECONFIG` lists
    /// (merged; missing ones skipped), else `~/.kube/config`.
    pub fn read() -> Result<Self, ConfigError> {
        match std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
            Some(list) => Self::read_list(std::env::split_paths(&list)),
            None => Self::read_from(default_path()?),
        }
    }

    /// Reads and merges a list of kubeconfig files as client-go does: the
    /// first file to define a cluster, user or context by a name wins, and
    /// the first current-context set wins; files that do not exist are
    /// skipped (if none exists, that is an error).
    pub fn read_list(paths: impl IntoIterator<Item = PathBuf>) -> Result<Self, ConfigError> {
        let mut merged: Option<Kubeconfig> = None;
        let mut tried = Vec::new();
        for path in paths {
            if path.as_os_str().is_empty() {
                continue;
            }
            if !path.exists() {
                tried.push(path.display().to_string());
                continue;
            }
            let next = Self::read_from(&path)?;
            merged = Some(match merged {
                None => next,
                Some(first) => first.merge(next),
            });
        }
        merged.ok_or_else(|| {
            ConfigError::NotFound(format!("none of KUBECONFIG's files ({})", tried.join(", ")))
        })
    }

    /// `self` with what `later` adds: names `self` lacks, and the current
    /// context if `self` has none.
    pub fn merge(mut self, later: Kubeconfig) -> Kubeconfig {
        fn add<T>(into: &mut Vec<T>, from: Vec<T>, name: impl Fn(&T) -> &str) {
            for item in from {
                if !into.iter().any(|have| name(have) == name(&item)) {
                    into.push(item);
                }
            }
        }
        add(&mut self.clusters, later.clusters, |c| &c.name);
        add(&mut self.auth_infos, later.auth_infos, |u| &u.name);
        add(&mut self.contexts, later.contexts, |c| &c.name);
        if self.current_context.as_deref().unwrap_or("").is_empty() {
            self.current_context = later.current_context;
        }
        self
    }

    /// Makes the file paths in it absolute, relative ones taken from `dir`
    /// (an exec plugin's command only if it names a path: `./plugin`, not
    /// `gcloud`, as client-go does).
    fn resolve_paths(&mut self, dir: &Path) {
        let resolve = |p: &mut Option<String>| {
            if let Some(path) = p.as_mut()
                && !path.is_empty()
                && Path::new(path.as_str()).is_relative()
            {
                *path = dir.join(&*path).display().to_string();
            }
        };
        for cluster in &mut self.clusters {
            resolve(&mut cluster.cluster.certificate_authority);
        }
        for user in &mut self.auth_infos {
            let user = &mut user.user;
            resolve(&mut user.client_certificate);
            resolve(&mut user.client_key);
            resolve(&mut user.token_file);
            if let Some(exec) = user.exec.as_mut()
                && exec.command.contains(std::path::MAIN_SEPARATOR)
                && Path::new(&exec.command).is_relative()
            {
                exec.command = dir.join(&exec.command).display().to_string();
            }
        }
    }

    pub(crate) fn context(&self, name: &str) -> Result<&Context, ConfigError> {
        find(&self.contexts, name, |c| &c.name, "context").map(|c| &c.context)
    }

    pub(crate) fn cluster(&self, name: &str) -> Result<&Cluster, ConfigError> {
        find(&self.clusters, name, |c| &c.name, "cluster").map(|c| &c.cluster)
    }

    pub(crate) fn auth_info(&self, name: &str) -> Result<&AuthInfo, ConfigError> {
        find(&self.auth_infos, name, |u| &u.name, "user").map(|u| &u.user)
    }
}

fn find<'a, T>(
    items: &'a [T],
    name: &str,
    name_of: impl Fn(&T) -> &String,
    what: &'static str,
) -> Result<&'a T, ConfigError> {
    items
        .iter()
        .find(|item| name_of(item) == name)
        .ok_or_else(|| ConfigError::Missing {
            what,
            name: name.to_owned(),
        })
}

/// `~/.kube/config`.
pub(crate) fn default_path() -> Result<PathBuf, ConfigError> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .ok_or_else(|| ConfigError::NotFound("~/.kube/config (HOME is not set)".to_owned()))?;
    Ok(PathBuf::from(home).join(".kube").join("config"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIND: &str = r#"apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: Q0E=
    server: https://127.0.0.1:40000
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    user: kind-kind
  name: kind-kind
current-context: kind-kind
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate: certs/client.crt
    client-key: /abs/client.key
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: null
      env: null
"#;

    #[test]
    fn a_kind_kubeconfig_reads_with_paths_resolved_against_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(&path, KIND).unwrap();
        let config = Kubeconfig::read_from(&path).unwrap();
        assert_eq!(config.current_context.as_deref(), Some("kind-kind"));
        let cluster = config.cluster("kind-kind").unwrap();
        assert_eq!(cluster.server.as_deref(), Some("https://127.0.0.1:40000"));
        assert_eq!(cluster.certificate_authority_data.as_deref(), Some("Q0E="));
        let user = config.auth_info("kind-kind").unwrap();
        let certs = dir.path().join("certs/client.crt").display().to_string();
        assert_eq!(user.client_certificate.as_deref(), Some(certs.as_str()));
        assert_eq!(user.client_key.as_deref(), Some("/abs/client.key"));
        let exec = user.exec.as_ref().unwrap();
        assert_eq!(
            exec.command,
            dir.path().join("./bin/plugin").display().to_string()
        );
        assert!(exec.args.is_empty() && exec.env.is_empty());
    }

    #[test]
    fn merged_files_keep_the_first_definition_of_each_name_and_the_first_current_context() {
        let first = Kubeconfig::from_yaml(
            "clusters: [{name: a, cluster: {server: 'https://first'}}]\ncurrent-context: ''\n",
        )
        .unwrap();
        let second = Kubeconfig::from_yaml(
            "clusters: [{name: a, cluster: {server: 'https://second'}}, {name: b, cluster: {server: 'https://b'}}]\ncurrent-context: ctx\n",
        )
        .unwrap();
        let merged = first.merge(second);
        assert_eq!(
            merged.cluster("a").unwrap().server.as_deref(),
            Some("https://first")
        );
        assert_eq!(
            merged.cluster("b").unwrap().server.as_deref(),
            Some("https://b")
        );
        assert_eq!(merged.current_context.as_deref(), Some("ctx"));
    }

    #[test]
    fn a_list_skips_missing_files_and_fails_when_all_are_missing() {
        let dir = tempfile::tempdir().unwrap();
        let present = dir.path().join("present");
        std::fs::write(&present, "current-context: here\n").unwrap();
        let missing = dir.path().join("missing");
        let config = Kubeconfig::read_list([missing.clone(), present]).unwrap();
        assert_eq!(config.current_context.as_deref(), Some("here"));
        assert!(matches!(
            Kubeconfig::read_list([missing]),
            Err(ConfigError::NotFound(_))
        ));
    }

    #[test]
    fn a_missing_name_is_an_error_naming_it() {
        let config = Kubeconfig::from_yaml("contexts: []\n").unwrap();
        let error = config.context("prod").unwrap_err();
        assert_eq!(
            error.to_string(),
            "kubeconfig names context \"prod\", which it does not define"
        );
    }

    #[test]
    fn secrets_are_not_in_debug_output() {
        let user = AuthInfo {
            token: Some("s3cret".into()),
            password: Some("pw".into()),
            ..AuthInfo::default()
        };
        let shown = format!("{user:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("pw\""),
            "{shown}"
        );
    }
}

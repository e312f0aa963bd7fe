//! The `Authorization` header each request carries: a static token or
//! basic credentials, a token file re-read as it rotates (a pod's bound
//! service account token), or a credential plugin's token
//! (`ExecCredential`), cached until it expires.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use base64::Engine as _;
use http::HeaderValue;
use serde::Deserialize;

use crate::config::{AuthInfo, Config, ExecConfig};
use crate::error::AuthError;

/// How often a token file is re-read (client-go's cached file token
/// source re-reads it every minute).
const TOKEN_FILE_PERIOD: Duration = Duration::from_secs(60);

/// How long before its expiry a plugin's token is renewed.
const EXPIRY_MARGIN: Duration = Duration::from_secs(10);

/// What gives a request its `Authorization`.
#[derive(Clone)]
pub(crate) enum Auth {
    None,
    Static(HeaderValue),
    TokenFile(Arc<TokenFile>),
    Exec(Arc<Exec>),
}

impl Auth {
    pub(crate) fn new(config: &Config) -> Result<Self, AuthError> {
        let info = &config.auth_info;
        if let Some(exec) = &info.exec {
            if exec.interactive_mode.as_deref() == Some("Always") {
                return Err(AuthError::Exec {
                    command: exec.command.clone(),
                    message: "interactiveMode is Always, and this client has no terminal to offer"
                        .to_owned(),
                });
            }
            return Ok(Auth::Exec(Arc::new(Exec {
                config: exec.clone(),
                cluster: exec.provide_cluster_info.then(|| cluster_info(config)),
                cached: tokio::sync::Mutex::new(None),
            })));
        }
        if let Some(path) = info.token_file.as_deref().filter(|p| !p.is_empty()) {
            return Ok(Auth::TokenFile(Arc::new(TokenFile {
                path: PathBuf::from(path),
                fallback: bearer(info),
                cached: parking_lot::Mutex::new(None),
            })));
        }
        if let Some(header) = bearer(info) {
            return Ok(Auth::Static(header?));
        }
        if let (Some(user), Some(password)) = (&info.username, &info.password) {
            let encoded =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            return Ok(Auth::Static(sensitive(&format!("Basic {encoded}"))?));
        }
        Ok(Auth::None)
    }

    /// The header for the next request, if any.
    pub(crate) async fn header(&self) -> Result<Option<HeaderValue>, AuthError> {
        match self {
            Auth::None => Ok(None),
            Auth::Static(header) => Ok(Some(header.clone())),
            Auth::TokenFile(file) => file.header().map(Some),
            Auth::Exec(exec) => exec.header().await.map(Some),
        }
    }
}

fn bearer(info: &AuthInfo) -> Option<Result<HeaderValue, AuthError>> {
    info.token
        .as_deref()
        .filter(|t| !t.is_empty())
        .map(|t| sensitive(&format!("Bearer {}", t.trim())))
}

fn sensitive(value: &str) -> Result<HeaderValue, AuthError> {
    let mut header = HeaderValue::from_str(value).map_err(|_| AuthError::InvalidHeader)?;
    header.set_sensitive(true);
    Ok(header)
}

/// A token file, re-read every [`TOKEN_FILE_PERIOD`]; a failed re-read
/// keeps the last token (as client-go does), a first one falls back to
/// the configuration's `token` if any.
pub(crate) struct TokenFile {
    path: PathBuf,
    fallback: Option<Result<HeaderValue, AuthError>>,
    cached: parking_lot::Mutex<Option<(HeaderValue, Instant)>>,
}

impl TokenFile {
    fn header(&self) -> Result<HeaderValue, AuthError> {
        let mut cached = self.cached.lock();
        if let Some((header, read)) = cached.as_ref()
            && read.elapsed() < TOKEN_FILE_PERIOD
        {
            return Ok(header.clone());
        }
        match std::fs::read_to_string(&self.path) {
            Ok(token) => {
                let header = sensitive(&format!("Bearer {}", token.trim()))?;
                *cached = Some((header.clone(), Instant::now()));
                Ok(header)
            }
            Err(source) => {
                if let Some((header, _)) = cached.as_ref() {
                    tracing::warn!(path = %self.path.display(), error = %source, "re-reading the token file failed; keeping the last token");
                    return Ok(header.clone());
                }
                match &self.fallback {
                    Some(Ok(header)) => Ok(header.clone()),
                    _ => Err(AuthError::TokenFile {
                        path: self.path.clone(),
                        source,
                    }),
                }
            }
        }
    }
}

/// A credential plugin and its last token.
pub(crate) struct Exec {
    config: ExecConfig,
    cluster: Option<serde_json::Value>,
    cached: tokio::sync::Mutex<Option<(HeaderValue, Option<SystemTime>)>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExecCredential {
    api_version: Option<String>,
    kind: Option<String>,
    status: Option<ExecCredentialStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExecCredentialStatus {
    token: Option<String>,
    expiration_timestamp: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    client_certificate_data: Option<String>,
}

impl Exec {
    async fn header(&self) -> Result<HeaderValue, AuthError> {
        let mut cached = self.cached.lock().await;
        if let Some((header, expires)) = cached.as_ref() {
            let fresh = expires.is_none_or(|at| SystemTime::now() + EXPIRY_MARGIN < at);
            if fresh {
                return Ok(header.clone());
            }
        }
        let (header, expires) = self.run().await?;
        *cached = Some((header.clone(), expires));
        Ok(header)
    }

    fn fail(&self, message: impl Into<String>) -> AuthError {
        AuthError::Exec {
            command: self.config.command.clone(),
            message: message.into(),
        }
    }

    /// Runs the plugin as client-go does: `KUBERNETES_EXEC_INFO` holds an
    /// `ExecCredential` request (not interactive; the cluster if asked);
    /// its stdout must be an `ExecCredential` of the same version with a
    /// token.
    async fn run(&self) -> Result<(HeaderValue, Option<SystemTime>), AuthError> {
        let version = self
            .config
            .api_version
            .clone()
            .unwrap_or_else(|| "client.authentication.k8s.io/v1".to_owned());
        let mut spec = serde_json::json!({ "interactive": false });
        if let Some(cluster) = &self.cluster {
            spec["cluster"] = cluster.clone();
        }
        let info =
            serde_json::json!({ "apiVersion": version, "kind": "ExecCredential", "spec": spec });
        let mut command = tokio::process::Command::new(&self.config.command);
        command
            .args(&self.config.args)
            .envs(self.config.env.iter().map(|e| (&e.name, &e.value)))
            .env("KUBERNETES_EXEC_INFO", info.to_string())
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        let output = command
            .output()
            .await
            .map_err(|e| self.fail(format!("could not run it: {e}")))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(self.fail(format!("{}: {}", output.status, stderr.trim())));
        }
        let credential: ExecCredential = serde_json::from_slice(&output.stdout)
            .map_err(|e| self.fail(format!("its output is not an ExecCredential: {e}")))?;
        if credential.kind.as_deref() != Some("ExecCredential")
            || credential.api_version.as_deref() != Some(version.as_str())
        {
            return Err(self.fail(format!(
                "it answered {:?} {:?}, not ExecCredential {version}",
                credential.api_version, credential.kind
            )));
        }
        let status = credential
            .status
            .ok_or_else(|| self.fail("its ExecCredential has no status"))?;
        let Some(token) = status.token.filter(|t| !t.is_empty()) else {
            let what = if status.client_certificate_data.is_some() {
                "it gave a client certificate, which kubegen's client does not take from a plugin; it needs a token"
            } else {
                "its ExecCredential has no token"
            };
            return Err(self.fail(what));
        };
        let expires = status.expiration_timestamp.map(|t| SystemTime::from(t.0));
        Ok((sensitive(&format!("Bearer {token}"))?, expires))
    }
}

/// The cluster as an exec plugin's `spec.cluster` describes it.
fn cluster_info(config: &Config) -> serde_json::Value {
    let mut cluster = serde_json::json!({
        "server": config.cluster_url.to_string().trim_end_matches('/'),
        "insecure-skip-tls-verify": config.accept_invalid_certs,
    });
    if let Some(certs) = &config.root_cert {
        let pem: String = certs.iter().map(|der| pem_certificate(der)).collect();
        cluster["certificate-authority-data"] =
            base64::engine::general_purpose::STANDARD.encode(pem).into();
    }
    if let Some(name) = &config.tls_server_name {
        cluster["tls-server-name"] = name.clone().into();
    }
    cluster
}

fn pem_certificate(der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect();
    format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with(auth_info: AuthInfo) -> Config {
        let mut config = Config::new("https://h:6443".parse().unwrap());
        config.auth_info = auth_info;
        config
    }

    async fn header_of(auth_info: AuthInfo) -> Result<Option<String>, AuthError> {
        let auth = Auth::new(&config_with(auth_info))?;
        Ok(auth.header().await?.map(|h| h.to_str().unwrap().to_owned()))
    }

    #[tokio::test]
    async fn token_basic_and_none() {
        let token = AuthInfo {
            token: Some("abc\n".into()),
            ..Default::default()
        };
        assert_eq!(
            header_of(token).await.unwrap().as_deref(),
            Some("Bearer abc")
        );
        let basic = AuthInfo {
            username: Some("u".into()),
            password: Some("p".into()),
            ..Default::default()
        };
        assert_eq!(
            header_of(basic).await.unwrap().as_deref(),
            Some("Basic dTpw")
        );
        assert_eq!(header_of(AuthInfo::default()).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_token_file_is_read_and_a_missing_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "first\n").unwrap();
        let info = AuthInfo {
            token_file: Some(path.display().to_string()),
            ..Default::default()
        };
        assert_eq!(
            header_of(info).await.unwrap().as_deref(),
            Some("Bearer first")
        );
        let missing = AuthInfo {
            token_file: Some(dir.path().join("nope").display().to_string()),
            ..Default::default()
        };
        assert!(matches!(
            header_of(missing).await,
            Err(AuthError::TokenFile { .. })
        ));
    }

    #[tokio::test(start_paused = false)]
    async fn a_token_file_is_re_read_after_its_period_and_kept_if_it_vanishes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "first").unwrap();
        let file = TokenFile {
            path: path.clone(),
            fallback: None,
            cached: parking_lot::Mutex::new(None),
        };
        assert_eq!(file.header().unwrap(), "Bearer first");
        std::fs::write(&path, "second").unwrap();
        assert_eq!(
            file.header().unwrap(),
            "Bearer first",
            "cached within the period"
        );
        let stale = Instant::now()
            .checked_sub(TOKEN_FILE_PERIOD + Duration::from_secs(1))
            .unwrap();
        file.cached.lock().as_mut().unwrap().1 = stale;
        assert_eq!(
            file.header().unwrap(),
            "Bearer second",
            "re-read after the period"
        );
        std::fs::remove_file(&path).unwrap();
        file.cached.lock().as_mut().unwrap().1 = stale;
        assert_eq!(
            file.header().unwrap(),
            "Bearer second",
            "the last token kept"
        );
    }

    fn plugin(dir: &std::path::Path, script: &str) -> ExecConfig {
        let path = dir.join("plugin.sh");
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        ExecConfig {
            api_version: Some("client.authentication.k8s.io/v1".into()),
            command: "/bin/sh".into(),
            args: vec![path.display().to_string()],
            env: vec![crate::config::ExecEnvVar {
                name: "GREETING".into(),
                value: "hi".into(),
            }],
            provide_cluster_info: true,
            interactive_mode: Some("Never".into()),
        }
    }

    #[tokio::test]
    async fn an_exec_plugin_gets_its_request_and_env_and_its_token_is_cached_until_expiry() {
        let dir = tempfile::tempdir().unwrap();
        let count = dir.path().join("count");
        let script = format!(
            r#"echo x >> {count}
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "bad info $KUBERNETES_EXEC_INFO" >&2; exit 1;; esac
case "$KUBERNETES_EXEC_INFO" in *'"server":"https://h:6443"'*) ;; *) echo "no cluster $KUBERNETES_EXEC_INFO" >&2; exit 1;; esac
test "$GREETING" = hi || exit 2
echo '{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{{"token":"from-plugin","expirationTimestamp":"2999-01-01T00:00:00Z"}}}}'"#,
            count = count.display()
        );
        let info = AuthInfo {
            exec: Some(plugin(dir.path(), &script)),
            ..Default::default()
        };
        let auth = Auth::new(&config_with(info)).unwrap();
        assert_eq!(auth.header().await.unwrap().unwrap(), "Bearer from-plugin");
        assert_eq!(auth.header().await.unwrap().unwrap(), "Bearer from-plugin");
        assert_eq!(
            std::fs::read_to_string(&count).unwrap().lines().count(),
            1,
            "cached until it expires"
        );
    }

    #[tokio::test]
    async fn an_expired_exec_token_is_renewed() {
        let dir = tempfile::tempdir().unwrap();
        let count = dir.path().join("count");
        let script = format!(
            r#"echo x >> {}
echo '{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{{"token":"t","expirationTimestamp":"2000-01-01T00:00:00Z"}}}}'"#,
            count.display()
        );
        let info = AuthInfo {
            exec: Some(plugin(dir.path(), &script)),
            ..Default::default()
        };
        let auth = Auth::new(&config_with(info)).unwrap();
        auth.header().await.unwrap();
        auth.header().await.unwrap();
        assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 2);
    }

    #[tokio::test]
    async fn exec_failures_say_what_the_plugin_did() {
        let dir = tempfile::tempdir().unwrap();
        let failing = AuthInfo {
            exec: Some(plugin(dir.path(), "echo denied >&2; exit 3")),
            ..Default::default()
        };
        let error = header_of(failing).await.unwrap_err().to_string();
        assert!(error.contains("denied"), "{error}");
        let wrong_version = AuthInfo {
            exec: Some(plugin(
                dir.path(),
                r#"echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}}'"#,
            )),
            ..Default::default()
        };
        let error = header_of(wrong_version).await.unwrap_err().to_string();
        assert!(
            error.contains("not ExecCredential client.authentication.k8s.io/v1"),
            "{error}"
        );
        let certificate = AuthInfo {
            exec: Some(plugin(
                dir.path(),
                r#"echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"x","clientKeyData":"y"}}'"#,
            )),
            ..Default::default()
        };
        let error = header_of(certificate).await.unwrap_err().to_string();
        assert!(error.contains("client certificate"), "{error}");
        let mut always = plugin(dir.path(), "true");
        always.interactive_mode = Some("Always".into());
        let error = Auth::new(&config_with(AuthInfo {
            exec: Some(always),
            ..Default::default()
        }))
        .err()
        .unwrap();
        assert!(error.to_string().contains("no terminal"), "{error}");
    }
}

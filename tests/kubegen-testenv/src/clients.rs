//! Clients of a running plane: the admin, a user with a fresh client
//! certificate, a ServiceAccount by token (as a client, a kubeconfig file or
//! a bare token), and a fresh namespace per test.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use anyhow::{Context, Result};
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kubegen_client::api::{Api, PostParams};

use crate::TestEnv;
use crate::kubeconfig::{self, Credentials};

impl TestEnv {
    /// A client authenticated as `kubegen-admin` in `system:masters`.
    ///
    /// Build a client per test (per tokio runtime): a client's connections
    /// belong to the runtime that opened them.
    pub async fn client(&self) -> Result<kubegen_client::Client> {
        kubeconfig::client(&self.kubeconfig).await
    }

    /// A client authenticated by a fresh client certificate as `user`,
    /// member of `group` when given. It has only the permissions RBAC grants
    /// to that user or group.
    pub async fn client_for_user(
        &self,
        user: &str,
        group: Option<&str>,
    ) -> Result<kubegen_client::Client> {
        let cert = self.pki.issue_client(user, group)?;
        let path = kubeconfig::write(
            &self.dir.join(format!("kubeconfig-{}", sanitize(user))),
            &self.apiserver_url,
            &self.pki.ca_cert,
            Credentials::ClientCert {
                cert: &cert.cert,
                key: &cert.key,
            },
        )?;
        kubeconfig::client(&path).await
    }

    /// A client authenticated with a token of the ServiceAccount
    /// `namespace/name` (created when missing), obtained through the
    /// TokenRequest API; it has exactly that ServiceAccount's permissions.
    pub async fn client_for_service_account(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<kubegen_client::Client> {
        let path = self.kubeconfig_for_service_account(namespace, name).await?;
        kubeconfig::client(&path).await
    }

    /// Like [`TestEnv::client_for_service_account`], but returns the path of
    /// a kubeconfig file, for processes started by a test (e.g. an operator
    /// binary run as that ServiceAccount).
    pub async fn kubeconfig_for_service_account(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<PathBuf> {
        let token = self.service_account_token(namespace, name).await?;
        kubeconfig::write(
            &self.dir.join(format!(
                "kubeconfig-sa-{}-{}",
                sanitize(namespace),
                sanitize(name)
            )),
            &self.apiserver_url,
            &self.pki.ca_cert,
            Credentials::Token(&token),
        )
    }

    /// A bearer token (valid for an hour) of the ServiceAccount
    /// `namespace/name`, created when missing, obtained through the
    /// TokenRequest API — what a scraper or another client would present.
    pub async fn service_account_token(&self, namespace: &str, name: &str) -> Result<String> {
        let accounts = Api::<ServiceAccount>::namespaced(self.client().await?, namespace);
        if accounts.get_opt(name).await?.is_none() {
            let account = ServiceAccount {
                metadata: kubegen_client::api::ObjectMeta {
                    name: Some(name.to_string()),
                    ..Default::default()
                },
                ..Default::default()
            };
            accounts.create(&PostParams::default(), &account).await?;
        }
        let request = TokenRequest {
            spec: TokenRequestSpec {
                expiration_seconds: Some(3600),
                ..Default::default()
            }
            .into(),
            ..Default::default()
        };
        accounts
            .create_token_request(name, &PostParams::default(), &request)
            .await?
            .status
            .and_then(|s| s.token)
            .context("TokenRequest returned no token")
    }

    /// Creates a namespace with a unique name starting with `prefix` and
    /// returns its name.
    pub async fn namespace(&self, prefix: &str) -> Result<String> {
        let n = self.namespaces.fetch_add(1, Ordering::Relaxed);
        let prefix: String = sanitize(prefix).chars().take(40).collect();
        let name = format!("{prefix}-{}-{n}", std::process::id());
        let ns = Namespace {
            metadata: kubegen_client::api::ObjectMeta {
                name: Some(name.clone()),
                ..Default::default()
            },
            ..Default::default()
        };
        Api::<Namespace>::all(self.client().await?)
            .create(&PostParams::default(), &ns)
            .await
            .with_context(|| format!("creating namespace {name}"))?;
        Ok(name)
    }
}

fn sanitize(s: &str) -> String {
    s.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

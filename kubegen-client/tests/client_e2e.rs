//! kubegen-client against the real control plane: the admin's kubeconfig
//! (client certificate, CA file), a ServiceAccount's token as a kubeconfig
//! `token`, a `tokenFile` and an exec plugin; every verb, the apiserver's
//! errors as `Error::Api` with their codes and reasons, watches, metadata
//! reads, subresources, and a CA the server's certificate does not chain to.

use std::time::Duration;

use anyhow::Result;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kubegen_client::api::{
    DeleteParams, ListParams, ObjectMeta, PartialObjectMeta, Patch, PatchParams, PostParams,
    WatchEvent, WatchParams,
};
use kubegen_client::config::{KubeConfigOptions, Kubeconfig};
use kubegen_client::{Api, Client, Config, Error};
use kubegen_testenv::TestEnv;

async fn client_from(path: &std::path::Path) -> Result<Client> {
    let config =
        Config::from_custom_kubeconfig(Kubeconfig::read_from(path)?, &KubeConfigOptions::default())
            .await?;
    Ok(Client::try_from(config)?)
}

fn configmap(name: &str, value: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some([("app".to_owned(), "e2e".to_owned())].into()),
            ..Default::default()
        },
        data: Some([("k".to_owned(), value.to_owned())].into()),
        ..Default::default()
    }
}

fn code(result: Result<impl std::fmt::Debug, Error>) -> (u16, String) {
    match result {
        Err(Error::Api(status)) => (status.code, status.reason),
        other => panic!("expected an apiserver error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_verbs_and_the_apiservers_errors() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-verbs").await?;
    let client = client_from(env.kubeconfig()).await?;
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let pp = PostParams::default();

    let created = api.create(&pp, &configmap("a", "1")).await?;
    assert_eq!(created.metadata.namespace.as_deref(), Some(ns.as_str()));
    // The apiserver names the field manager after the User-Agent's first
    // word: this program's name, as for a Go operator.
    let agent = kubegen_client::user_agent().unwrap().to_str()?.to_owned();
    let program = agent.split('/').next().unwrap().to_owned();
    assert!(program.starts_with("client_e2e"), "{agent}");
    let manager = created
        .metadata
        .managed_fields
        .as_ref()
        .and_then(|m| m[0].manager.clone());
    assert_eq!(manager.as_deref(), Some(program.as_str()));
    assert_eq!(api.get("a").await?.data, created.data);
    assert!(api.get_opt("missing").await?.is_none());
    assert_eq!(code(api.get("missing").await), (404, "NotFound".to_owned()));
    assert_eq!(
        code(api.create(&pp, &configmap("a", "again")).await),
        (409, "AlreadyExists".to_owned())
    );

    // A stale resourceVersion loses the optimistic-concurrency race.
    let mut stale = created.clone();
    let mut fresh = created.clone();
    fresh.data = Some([("k".to_owned(), "2".to_owned())].into());
    api.replace("a", &pp, &fresh).await?;
    stale.data = Some([("k".to_owned(), "3".to_owned())].into());
    assert_eq!(
        code(api.replace("a", &pp, &stale).await),
        (409, "Conflict".to_owned())
    );

    // Invalid names are 422s, with the apiserver's message.
    match api.create(&pp, &configmap("Not_A_Name", "x")).await {
        Err(Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
            assert!(status.message.contains("Not_A_Name"), "{}", status.message);
        }
        other => panic!("expected 422, got {other:?}"),
    }

    // Merge patch, then server-side apply with a field manager.
    let merged = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"data": {"m": "merged"}})),
        )
        .await?;
    assert_eq!(merged.data.unwrap()["m"], "merged");
    let apply = PatchParams::apply("kubegen-client-e2e").force();
    let applied = api
        .patch("b", &apply, &Patch::Apply(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}, "data": {"k": "applied"}})))
        .await?;
    let managers: Vec<_> = applied
        .metadata
        .managed_fields
        .unwrap()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert_eq!(managers, vec!["kubegen-client-e2e".to_owned()]);

    // Lists select by label; metadata reads carry no data.
    let listed = api.list(&ListParams::default().labels("app=e2e")).await?;
    assert_eq!(
        listed
            .items
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect::<Vec<_>>(),
        vec!["a".to_owned()]
    );
    let metadata: Api<PartialObjectMeta<ConfigMap>> = Api::namespaced(client.clone(), &ns);
    let names: Vec<_> = metadata
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .filter_map(|m| m.metadata.name)
        .collect();
    assert!(
        names.contains(&"a".to_owned()) && names.contains(&"b".to_owned()),
        "{names:?}"
    );
    assert_eq!(
        api.get_metadata("b").await?.metadata.name.as_deref(),
        Some("b")
    );

    // Delete: gone at once (no finalizer) is a Status; then 404.
    assert!(api.delete("b", &DeleteParams::default()).await?.is_right());
    assert_eq!(
        code(api.delete("b", &DeleteParams::default()).await),
        (404, "NotFound".to_owned())
    );
    // With a finalizer the object stays, returned as Left.
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"metadata": {"finalizers": ["kubegen.dev/hold"]}})),
    )
    .await?;
    assert!(api.delete("a", &DeleteParams::default()).await?.is_left());
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}})),
    )
    .await?;
    assert!(api.get_opt("a").await?.is_none());

    // Cluster-scoped, and a subresource (scale) of a Deployment.
    let namespaces: Api<Namespace> = Api::all(client.clone());
    assert_eq!(
        namespaces.get(&ns).await?.metadata.name.as_deref(),
        Some(ns.as_str())
    );
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    let deployment: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "d"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}
    }))?;
    deployments.create(&pp, &deployment).await?;
    deployments
        .patch_scale(
            "d",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"replicas": 3}})),
        )
        .await?;
    assert_eq!(
        deployments.get_scale("d").await?.spec.unwrap().replicas,
        Some(3)
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_watch_sees_every_change_in_order_and_ends_at_its_timeout() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-watch").await?;
    let api: Api<ConfigMap> = Api::namespaced(client_from(env.kubeconfig()).await?, &ns);
    let version = api
        .list(&ListParams::default())
        .await?
        .metadata
        .resource_version
        .unwrap();
    let events = api
        .watch(&WatchParams::default().timeout(5), &version)
        .await?;
    api.create(&PostParams::default(), &configmap("w", "1"))
        .await?;
    api.patch(
        "w",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"data": {"k": "2"}})),
    )
    .await?;
    api.delete("w", &DeleteParams::default()).await?;
    // Bookmarks (asked for by default) are skipped.
    let events =
        events.try_filter(|e| futures::future::ready(!matches!(e, WatchEvent::Bookmark(_))));
    let seen: Vec<String> = tokio::time::timeout(
        Duration::from_secs(30),
        events
            .map_ok(|e| match e {
                WatchEvent::Added(c) => format!("added {}", c.data.unwrap()["k"]),
                WatchEvent::Modified(c) => format!("modified {}", c.data.unwrap()["k"]),
                WatchEvent::Deleted(_) => "deleted".to_owned(),
                other => format!("{other:?}"),
            })
            .try_collect(),
    )
    .await??;
    assert_eq!(seen, vec!["added 1", "modified 2", "deleted"]);

    // Metadata watches decode PartialObjectMeta.
    let metadata: Api<PartialObjectMeta<ConfigMap>> =
        Api::namespaced(api.clone().into_client(), &ns);
    let version = metadata
        .list(&ListParams::default())
        .await?
        .metadata
        .resource_version
        .unwrap();
    let mut events = metadata
        .watch(&WatchParams::default().timeout(5), &version)
        .await?
        .boxed();
    api.create(&PostParams::default(), &configmap("m", "1"))
        .await?;
    match tokio::time::timeout(Duration::from_secs(30), events.next()).await? {
        Some(Ok(WatchEvent::Added(meta))) => assert_eq!(meta.metadata.name.as_deref(), Some("m")),
        other => panic!("expected the metadata of m, got {other:?}"),
    }

    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn token_token_file_and_exec_credentials_authenticate_as_the_service_account() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-auth").await?;
    let kubeconfig = env.kubeconfig_for_service_account(&ns, "reader").await?;
    // A token in the kubeconfig: the ServiceAccount has no RBAC, so 403.
    let client = client_from(&kubeconfig).await?;
    let api: Api<ConfigMap> = Api::namespaced(client, &ns);
    assert_eq!(
        code(api.list(&ListParams::default()).await),
        (403, "Forbidden".to_owned())
    );

    let token = env.service_account_token(&ns, "reader").await?;
    let base = Kubeconfig::read_from(&kubeconfig)?;
    let dir = tempfile::tempdir()?;
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, &token)?;
    let script = dir.path().join("plugin.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{token}\"}}}}'\n"
        ),
    )?;
    for (what, user) in [
        ("tokenFile", serde_json::json!({"tokenFile": token_file})),
        (
            "exec",
            serde_json::json!({"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "/bin/sh", "args": [script]}}),
        ),
    ] {
        let mut config = base.clone();
        config.auth_infos[0].user = serde_json::from_value(user)?;
        let config = Config::from_custom_kubeconfig(config, &KubeConfigOptions::default()).await?;
        let api: Api<ConfigMap> = Api::namespaced(Client::try_from(config)?, &ns);
        // Authenticated as the ServiceAccount (forbidden, not unauthorized).
        match api.list(&ListParams::default()).await {
            Err(Error::Api(status)) => {
                assert_eq!(status.code, 403, "{what}: {status:?}");
                assert!(
                    status
                        .message
                        .contains(&format!("system:serviceaccount:{ns}:reader")),
                    "{what}: {}",
                    status.message
                );
            }
            other => panic!("{what}: expected 403, got {other:?}"),
        }
    }

    // The admin impersonating the ServiceAccount gets its permissions.
    let mut admin = Config::from_custom_kubeconfig(
        Kubeconfig::read_from(env.kubeconfig())?,
        &KubeConfigOptions::default(),
    )
    .await?;
    admin.auth_info.impersonate = Some(format!("system:serviceaccount:{ns}:reader"));
    admin.auth_info.impersonate_groups = Some(vec!["system:serviceaccounts".to_owned()]);
    let api: Api<ConfigMap> = Api::namespaced(Client::try_from(admin)?, &ns);
    match api.list(&ListParams::default()).await {
        Err(Error::Api(status)) => {
            assert_eq!(status.code, 403, "{status:?}");
            assert!(
                status
                    .message
                    .contains(&format!("system:serviceaccount:{ns}:reader")),
                "{}",
                status.message
            );
        }
        other => panic!("impersonation: expected 403, got {other:?}"),
    }

    // No credentials at all: 401 from the apiserver's authentication... or
    // 403 for system:anonymous where anonymous auth is on; never a success.
    let mut anonymous = base.clone();
    anonymous.auth_infos[0].user = Default::default();
    let config = Config::from_custom_kubeconfig(anonymous, &KubeConfigOptions::default()).await?;
    let api: Api<ConfigMap> = Api::namespaced(Client::try_from(config)?, &ns);
    let (status, _) = code(api.list(&ListParams::default()).await);
    assert!(status == 401 || status == 403, "{status}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_certificate_that_does_not_chain_to_the_ca_is_refused() -> Result<()> {
    let env = TestEnv::shared().await?;
    let mut config = Config::from_custom_kubeconfig(
        Kubeconfig::read_from(env.kubeconfig())?,
        &KubeConfigOptions::default(),
    )
    .await?;
    let key = rcgen::KeyPair::generate()?;
    let other_ca = rcgen::CertificateParams::new(vec!["other".to_owned()])?.self_signed(&key)?;
    config.root_cert = Some(vec![other_ca.der().to_vec()]);
    let api: Api<Namespace> = Api::all(Client::try_from(config.clone())?);
    let error = api.get("default").await.unwrap_err();
    assert!(
        matches!(error, Error::Service(_) | Error::HyperError(_)),
        "{error:?}"
    );
    assert!(format!("{error:?}").contains("UnknownIssuer"), "{error:?}");

    // A name the certificate was not issued for is refused too, unless
    // tls-server-name names one it was.
    config.root_cert = Config::from_custom_kubeconfig(
        Kubeconfig::read_from(env.kubeconfig())?,
        &KubeConfigOptions::default(),
    )
    .await?
    .root_cert;
    config.tls_server_name = Some("not-the-apiserver.example".to_owned());
    let error = Api::<Namespace>::all(Client::try_from(config.clone())?)
        .get("default")
        .await
        .unwrap_err();
    assert!(
        format!("{error:?}").contains("NotValidForName"),
        "{error:?}"
    );
    config.tls_server_name = Some("localhost".to_owned());
    assert!(
        Api::<Namespace>::all(Client::try_from(config)?)
            .get("default")
            .await
            .is_ok()
    );
    Ok(())
}

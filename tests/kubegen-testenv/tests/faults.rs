//! Fault injection on a private control plane: the apiserver and etcd can be
//! stopped and restarted inside a test, and state survives both.

use std::time::Duration;

use anyhow::Result;
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen_client::api::{Api, PostParams};
use kubegen_testenv::{Part, TestEnv, eventually};

fn configmap(name: &str) -> ConfigMap {
    serde_json::from_value(serde_json::json!({
        "metadata": { "name": name },
        "data": { "k": "v" },
    }))
    .unwrap()
}

async fn readyz(client: &kubegen_client::Client) -> Result<String, kubegen_client::Error> {
    client
        .request_text(http::Request::get("/readyz").body(Vec::new()).unwrap())
        .await
}

#[tokio::test]
async fn apiserver_and_etcd_restart_keep_state() -> Result<()> {
    let env = TestEnv::start().await?;
    let ns = env.namespace("faults").await?;
    let configmaps = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    configmaps
        .create(&PostParams::default(), &configmap("before"))
        .await?;

    // Apiserver down: requests fail at the connection level.
    env.kill_apiserver();
    assert!(!env.pids().iter().any(|(p, _)| *p == Part::ApiServer));
    let down = configmaps.get("before").await;
    assert!(
        matches!(
            down,
            Err(kubegen_client::Error::HyperError(_)) | Err(kubegen_client::Error::Service(_))
        ),
        "expected a connection error, got {down:?}"
    );
    env.start_apiserver().await?;
    let configmaps = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    assert!(configmaps.get_opt("before").await?.is_some());

    // etcd down: the apiserver stays up but is not ready, and writes fail.
    env.stop_etcd();
    let client = env.client().await?;
    eventually(
        Duration::from_secs(60),
        "readyz to report etcd failure",
        || async { Ok(readyz(&client).await.is_err().then_some(())) },
    )
    .await?;
    env.start_etcd().await?;
    eventually(Duration::from_secs(60), "readyz to recover", || async {
        Ok(readyz(&client).await.ok().filter(|t| t.trim() == "ok"))
    })
    .await?;
    let configmaps = Api::<ConfigMap>::namespaced(client, &ns);
    configmaps
        .create(&PostParams::default(), &configmap("after"))
        .await?;
    assert!(
        configmaps.get_opt("before").await?.is_some(),
        "etcd lost data"
    );

    // Logs are kept per component.
    let log = std::fs::read_to_string(env.log_path(Part::ApiServer))?;
    assert!(log.contains("Version: v1.36"), "apiserver log: {log:.400}");
    Ok(())
}

#[tokio::test]
async fn processes_are_killed_on_drop() -> Result<()> {
    let env = TestEnv::start_with(kubegen_testenv::Options {
        nodes: 1,
        ..Default::default()
    })
    .await?;
    let pids: Vec<u32> = env.pids().into_iter().map(|(_, pid)| pid).collect();
    assert_eq!(pids.len(), 5, "all five components run");
    let dir = env.dir().to_path_buf();
    drop(env);
    for pid in pids {
        // Reaped children leave no /proc entry (or a different process).
        let alive = std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.contains("kube") || c.contains("etcd") || c.contains("kwok"));
        assert!(!alive, "process {pid} survived the drop");
    }
    assert!(!dir.exists(), "the environment's directory is removed");
    Ok(())
}

//! The in-process API server through kube-rs's own client machinery (a
//! `kube::Client` over `ApiServer::service`): its
//! watcher resumes after a dropped watch and re-lists after `410 Gone`,
//! paused tokio time drives the server's clock, and injected faults reach
//! the client as the apiserver's errors.

use std::time::Duration;

use anyhow::Result;
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube::runtime::watcher::{self, Event};
use kubegen_fake::ApiServer;
use serde_json::json;

fn cm(name: &str) -> Result<ConfigMap> {
    Ok(serde_json::from_value(
        json!({"metadata": {"name": name, "labels": {"t": "y"}}}),
    )?)
}

/// The next object the watcher applies; `gone` counts the 410s on the way.
async fn next_apply(
    stream: &mut (impl futures::Stream<Item = Result<Event<ConfigMap>, watcher::Error>> + Unpin),
    gone: &mut usize,
) -> Result<String> {
    loop {
        match stream.next().await {
            Some(Ok(Event::Apply(o) | Event::InitApply(o))) => {
                return Ok(o.metadata.name.unwrap_or_default());
            }
            Some(Ok(_)) => continue,
            // The watcher reports the 410 and lists again when polled.
            Some(Err(watcher::Error::WatchError(s))) if s.code == 410 => *gone += 1,
            Some(Err(e)) => return Err(e.into()),
            None => anyhow::bail!("the watch ended"),
        }
    }
}

#[tokio::test]
async fn kubes_watcher_resumes_after_a_dropped_watch_and_relists_after_410() -> Result<()> {
    let server = ApiServer::builder().history(3).build();
    let api: Api<ConfigMap> =
        Api::namespaced(kube::Client::new(server.service(), "default"), "default");
    api.create(&PostParams::default(), &cm("a")?).await?;
    // The controllers' writes (each namespace's ServiceAccount and root CA)
    // first: with three writes of history they would compact the list's
    // revision away.
    server.settle();
    let config = watcher::Config::default().labels("t=y");
    let mut stream = watcher::watcher(api.clone(), config).boxed();
    let mut gone = 0;
    assert_eq!(next_apply(&mut stream, &mut gone).await?, "a");

    // A dropped connection: the watcher resumes from its revision and
    // misses nothing.
    server.drop_watches();
    api.create(&PostParams::default(), &cm("b")?).await?;
    assert_eq!(next_apply(&mut stream, &mut gone).await?, "b");
    assert_eq!(gone, 0, "a resumed watch needs no relist");

    // Compaction past its revision: the resumed watch gets 410 Gone, and
    // the watcher lists again, seeing what it missed.
    server.drop_watches();
    for name in ["c", "d", "e", "f"] {
        api.create(&PostParams::default(), &cm(name)?).await?;
    }
    server.compact();
    let mut seen = Vec::new();
    while !seen.contains(&"f".to_string()) {
        seen.push(next_apply(&mut stream, &mut gone).await?);
    }
    for name in ["c", "d", "e", "f"] {
        assert!(seen.contains(&name.to_string()), "{seen:?}");
    }
    assert_eq!(gone, 1, "the compacted revision answered 410 Gone");
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn paused_time_drives_the_servers_clock() -> Result<()> {
    let server = ApiServer::builder().start_time(1_700_000_000).build();
    let api: Api<ConfigMap> =
        Api::namespaced(kube::Client::new(server.service(), "default"), "default");
    let first = api.create(&PostParams::default(), &cm("early")?).await?;
    tokio::time::advance(Duration::from_secs(3600)).await;
    let later = api.create(&PostParams::default(), &cm("late")?).await?;
    let at = |c: &ConfigMap| c.metadata.creation_timestamp.clone().unwrap().0.as_second();
    assert_eq!(at(&first), 1_700_000_000);
    assert_eq!(at(&later), 1_700_003_600);
    Ok(())
}

#[tokio::test]
async fn injected_faults_reach_the_client_as_the_apiservers_errors() -> Result<()> {
    let server = ApiServer::new();
    let api: Api<ConfigMap> =
        Api::namespaced(kube::Client::new(server.service(), "default"), "default");
    server.fail_next_writes(1, 429);
    let kube::Error::Api(status) = api
        .create(&PostParams::default(), &cm("x")?)
        .await
        .unwrap_err()
    else {
        anyhow::bail!("not a status");
    };
    assert_eq!(
        (status.code, status.reason.as_str()),
        (429, "TooManyRequests")
    );
    api.create(&PostParams::default(), &cm("x")?).await?;
    server.fail_next_reads(2, 500);
    assert!(api.get("x").await.is_err());
    assert!(api.list(&Default::default()).await.is_err());
    assert_eq!(api.get("x").await?.metadata.name.as_deref(), Some("x"));
    Ok(())
}

#[tokio::test]
async fn played_controllers_write_the_status_theirs_would() -> Result<()> {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::batch::v1::Job;
    use kubegen_fake::Rollout;
    let server = ApiServer::new();
    let deployments: Api<Deployment> =
        Api::namespaced(kube::Client::new(server.service(), "default"), "default");
    let d: Deployment = serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}))?;
    deployments.create(&PostParams::default(), &d).await?;
    server
        .play("Deployment", "default", "web", Rollout::Available(2))
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let status = deployments.get("web").await?.status.unwrap();
    assert_eq!(
        (status.available_replicas, status.observed_generation),
        (Some(2), Some(1))
    );
    let available = status.conditions.unwrap();
    assert!(
        available
            .iter()
            .any(|c| c.type_ == "Available" && c.status == "True")
    );

    let jobs: Api<Job> = Api::namespaced(kube::Client::new(server.service(), "default"), "default");
    let j: Job = serde_json::from_value(
        json!({"metadata": {"name": "once"}, "spec": {"completions": 3,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}),
    )?;
    jobs.create(&PostParams::default(), &j).await?;
    server
        .play("Job", "default", "once", Rollout::Complete)
        .map_err(|e| anyhow::anyhow!(e.message))?;
    assert_eq!(jobs.get("once").await?.status.unwrap().succeeded, Some(3));
    assert!(
        server
            .play("Job", "default", "once", Rollout::Available(1))
            .is_err()
    );
    assert_eq!(
        server
            .play("Deployment", "default", "nope", Rollout::Available(1))
            .unwrap_err()
            .code,
        404
    );
    Ok(())
}

#[tokio::test]
async fn a_rule_it_cannot_evaluate_refuses_the_request_naming_it() -> Result<()> {
    use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
    let server = ApiServer::new();
    server
        .install_crd(&json!({
            "metadata": {"name": "links.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Link", "plural": "links", "singular": "link"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object",
                        "x-kubernetes-validations": [{"rule": "url(self.a) != url(self.b)"}],
                        "properties": {"a": {"type": "string", "maxLength": 100}, "b": {"type": "string", "maxLength": 100}}}}}}}]}
        }))
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk("example.com", "v1", "Link"));
    let links: Api<DynamicObject> = Api::namespaced_with(
        kube::Client::new(server.service(), "default"),
        "default",
        &resource,
    );
    let link: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "example.com/v1", "kind": "Link",
        "metadata": {"name": "l"}, "spec": {"a": "https://example.com/x", "b": "https://example.com/y"}}))?;
    let kube::Error::Api(status) = links
        .create(&PostParams::default(), &link)
        .await
        .unwrap_err()
    else {
        anyhow::bail!("not a status");
    };
    assert_eq!(status.code, 500);
    assert!(
        status.message.contains("url(self.a) != url(self.b)"),
        "{}",
        status.message
    );
    Ok(())
}

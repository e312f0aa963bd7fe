//! The generic typed client against the real apiserver: every verb, and
//! errors that keep the apiserver's Status.

use std::time::Duration;

use anyhow::Result;
use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen::api::{DeleteParams, ListParams, Patch, WatchEvent, WatchParams};
use kubegen::client::ResourceClient;
use kubegen_testenv::TestEnv;
use serde_json::json;

fn configmap(name: &str, value: &str) -> ConfigMap {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": { "name": name, "labels": { "suite": "client" } },
        "data": { "key": value },
    }))
    .unwrap()
}

/// A Deployment `d` with no replicas.
fn deployment() -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": { "name": "d" },
        "spec": {
            "replicas": 0,
            "selector": { "matchLabels": { "app": "d" } },
            "template": { "metadata": { "labels": { "app": "d" } },
                          "spec": { "containers": [{ "name": "c", "image": "nginx" }] } },
        },
    }))
    .unwrap()
}

/// Writes Deployment `d` as read, with `replicas: 5` in its spec and
/// `observedGeneration: 43` in its status, through the status verb
/// `write`. The Deployment controller writes this status too, so a stale
/// read may conflict: re-read and retry, as controllers must.
async fn status_write_with_a_spec_change<T, F, Fut>(
    deployments: &ResourceClient<Deployment>,
    write: F,
) -> Result<T>
where
    F: Fn(Deployment) -> Fut,
    Fut: std::future::Future<Output = kubegen::client::Result<T>>,
{
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut current = deployments.get("d").await?;
        current.spec.as_mut().unwrap().replicas = Some(5);
        current
            .status
            .get_or_insert_with(Default::default)
            .observed_generation = Some(43);
        match write(current).await {
            Ok(done) => return Ok(done),
            Err(e) if e.is_conflict() && attempts < 10 => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

#[tokio::test]
async fn crud_verbs_and_status_errors() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-crud").await?;
    let cms = ResourceClient::<ConfigMap>::namespaced(env.client().await?, &ns)
        .with_field_manager("client-e2e");

    let created = cms.create(&configmap("a", "1")).await?;
    let again = cms.create(&configmap("a", "1")).await.unwrap_err();
    assert!(again.is_already_exists(), "{again}");

    let missing = cms.get("nope").await.unwrap_err();
    assert!(missing.is_not_found(), "{missing}");
    assert!(cms.get_opt("nope").await?.is_none());

    // update with the current resourceVersion succeeds; with a stale one it
    // is a Conflict, distinguishable from other 409s.
    let mut fresh = created.clone();
    fresh.data = Some([("key".to_string(), "2".to_string())].into());
    let updated = cms.update(&fresh).await?;
    assert_eq!(updated.data.as_ref().unwrap()["key"], "2");
    let stale = cms.update(&created).await.unwrap_err();
    assert!(stale.is_conflict() && !stale.is_already_exists(), "{stale}");

    let patched = cms
        .patch("a", &Patch::Merge(json!({ "data": { "other": "x" } })))
        .await?;
    assert_eq!(patched.data.as_ref().unwrap()["other"], "x");

    // Invalid: the causes name the field.
    let bad = cms.create(&configmap("Not_A_Name", "1")).await.unwrap_err();
    assert!(bad.is_invalid(), "{bad}");
    assert!(
        bad.invalid_fields()
            .iter()
            .any(|(f, _)| f == "metadata.name"),
        "{:?}",
        bad.invalid_fields()
    );

    cms.create(&configmap("b", "1")).await?;
    let listed = cms
        .list(&ListParams::default().labels("suite=client"))
        .await?;
    let mut names: Vec<_> = listed
        .items
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    names.sort();
    assert_eq!(names, ["a", "b"]);

    cms.delete("b", &DeleteParams::default()).await?;
    assert!(
        cms.delete("b", &DeleteParams::default())
            .await
            .unwrap_err()
            .is_not_found()
    );
    cms.delete_collection(
        &DeleteParams::default(),
        &ListParams::default().labels("suite=client"),
    )
    .await?;
    assert!(
        cms.list(&ListParams::default().labels("suite=client"))
            .await?
            .items
            .is_empty()
    );
    Ok(())
}

/// The `*_unread` writes make the same requests as the decoding ones
/// (same field manager, same subresource) and fail with the same Status.
#[tokio::test]
async fn unread_writes_write_and_fail_as_the_decoding_ones() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-unread").await?;
    let client = env.client().await?;
    let cms = ResourceClient::<ConfigMap>::namespaced(client.clone(), &ns)
        .with_field_manager("client-unread");

    cms.create_unread(&configmap("a", "1")).await?;
    let created = cms.get("a").await?;
    assert_eq!(created.data.as_ref().unwrap()["key"], "1");
    let managers: Vec<_> = created
        .metadata
        .managed_fields
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert_eq!(managers, ["client-unread"]);
    let again = cms.create_unread(&configmap("a", "1")).await.unwrap_err();
    assert!(again.is_already_exists(), "{again}");
    let bad = cms
        .create_unread(&configmap("Not_A_Name", "1"))
        .await
        .unwrap_err();
    assert!(bad.is_invalid(), "{bad}");

    let mut fresh = created.clone();
    fresh.data = Some([("key".to_string(), "2".to_string())].into());
    cms.update_unread(&fresh).await?;
    assert_eq!(cms.get("a").await?.data.unwrap()["key"], "2");
    let stale = cms.update_unread(&created).await.unwrap_err();
    assert!(stale.is_conflict(), "{stale}");
    let mut nameless = created.clone();
    nameless.metadata.name = None;
    assert!(matches!(
        cms.update_unread(&nameless).await,
        Err(kubegen::client::Error::MissingName)
    ));

    cms.patch_unread("a", &Patch::Merge(json!({ "data": { "other": "x" } })))
        .await?;
    assert_eq!(cms.get("a").await?.data.unwrap()["other"], "x");
    let missing = cms
        .patch_unread("nope", &Patch::Merge(json!({ "data": {} })))
        .await
        .unwrap_err();
    assert!(missing.is_not_found(), "{missing}");

    // The status verbs go to the status subresource: a spec change sent
    // with them is ignored. The Deployment controller rewrites the status
    // of `d` (observedGeneration 1) whenever it likes, so a later read may
    // no longer show what was written; the watch shows every version.
    let deployments = ResourceClient::<Deployment>::namespaced(client, &ns);
    deployments.create_unread(&deployment()).await?;
    let start = deployments
        .get("d")
        .await?
        .metadata
        .resource_version
        .unwrap();
    let mut versions = deployments
        .watch(
            &WatchParams::default().fields("metadata.name=d").timeout(60),
            &start,
        )
        .await?;
    deployments
        .patch_status_unread(
            "d",
            &Patch::Merge(
                json!({ "spec": { "replicas": 3 }, "status": { "observedGeneration": 42 } }),
            ),
        )
        .await?;
    status_written(&mut versions, 42).await?;
    let deployments = &deployments;
    status_write_with_a_spec_change(deployments, |current| async move {
        deployments.update_status_unread(&current).await
    })
    .await?;
    status_written(&mut versions, 43).await?;
    Ok(())
}

/// Reads Deployment versions from `versions` until one carries
/// `observedGeneration: generation`; every version up to it must keep
/// `replicas: 0`.
async fn status_written(
    versions: &mut kubegen::client::WatchStream<Deployment>,
    generation: i64,
) -> Result<()> {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), versions.next())
            .await?
            .expect("watch ended before the status write showed")?;
        let WatchEvent::Modified(d) = event else {
            continue;
        };
        assert_eq!(d.spec.as_ref().unwrap().replicas, Some(0));
        if d.status.and_then(|s| s.observed_generation) == Some(generation) {
            return Ok(());
        }
    }
}

#[tokio::test]
async fn server_side_apply_records_the_field_manager() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-apply").await?;
    let client = env.client().await?;
    let mine = ResourceClient::<ConfigMap>::namespaced(client.clone(), &ns)
        .with_field_manager("kubegen-owner");
    let theirs =
        ResourceClient::<ConfigMap>::namespaced(client, &ns).with_field_manager("someone-else");

    let applied = mine.apply_object(&configmap("applied", "1"), false).await?;
    let managers: Vec<_> = applied
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert_eq!(managers, ["kubegen-owner"]);

    // Another manager changing our field conflicts unless forced.
    let conflict = theirs
        .apply_object(&configmap("applied", "2"), false)
        .await
        .unwrap_err();
    assert!(conflict.is_conflict(), "{conflict}");
    let forced = theirs
        .apply_object(&configmap("applied", "2"), true)
        .await?;
    assert_eq!(forced.data.unwrap()["key"], "2");
    Ok(())
}

#[tokio::test]
async fn status_verbs_touch_only_the_status() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-status").await?;
    let deployments = ResourceClient::<Deployment>::namespaced(env.client().await?, &ns);
    deployments.create(&deployment()).await?;
    let patched = deployments
        .patch_status(
            "d",
            &Patch::Merge(json!({ "status": { "observedGeneration": 42 } })),
        )
        .await?;
    assert_eq!(patched.status.unwrap().observed_generation, Some(42));

    // A spec change through the status subresource is ignored.
    let deployments = &deployments;
    let after = status_write_with_a_spec_change(deployments, |current| async move {
        deployments.update_status(&current).await
    })
    .await?;
    assert_eq!(after.spec.unwrap().replicas, Some(0));
    assert_eq!(after.status.unwrap().observed_generation, Some(43));
    Ok(())
}

#[tokio::test]
async fn watch_streams_typed_events() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("client-watch").await?;
    let cms = ResourceClient::<ConfigMap>::namespaced(env.client().await?, &ns);
    let start = cms
        .list(&ListParams::default())
        .await?
        .metadata
        .resource_version
        .unwrap();
    // Only "w": the root-CA publisher may add kube-root-ca.crt to the new
    // namespace at any moment.
    let mut events = cms
        .watch(
            &WatchParams::default().fields("metadata.name=w").timeout(30),
            &start,
        )
        .await?;
    cms.create(&configmap("w", "1")).await?;
    cms.delete("w", &DeleteParams::default()).await?;
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(30), events.next())
            .await?
            .expect("watch ended early")?;
        match event {
            WatchEvent::Added(cm) => seen.push(("added", cm.metadata.name.unwrap())),
            WatchEvent::Deleted(cm) => seen.push(("deleted", cm.metadata.name.unwrap())),
            _ => {}
        }
    }
    assert_eq!(
        seen,
        [("added", "w".to_string()), ("deleted", "w".to_string())]
    );
    Ok(())
}

//! The operator binary under faults: SIGKILL mid-reconcile and restart, two
//! replicas with leader election and failover, SIGTERM draining, and an
//! apiserver restart — on the real control plane, under the generated RBAC.

mod support;

use std::time::{Duration, Instant};

use anyhow::Result;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Service;
use kubegen::api::{ListParams, Patch, PatchParams, PostParams};
use kubegen_testenv::{TestEnv, eventually};
use my_application::api::{MyApplication, MyApplicationSpec};
use my_application::operator::{self, Options};
use support::{Fixture, owner_uid};

fn app(name: &str, replicas: i32) -> MyApplication {
    MyApplication::new(
        name,
        MyApplicationSpec {
            image: "nginx".into(),
            replicas,
            port: 80,
        },
    )
}

async fn children(f: &Fixture, app: &str) -> Result<(Vec<Deployment>, Vec<Service>)> {
    let selector = ListParams::default().labels(&format!("myapplication_cr={app}"));
    Ok((
        f.deployments().list(&selector).await?.items,
        f.services().list(&selector).await?.items,
    ))
}

#[tokio::test]
async fn sigkill_mid_reconcile_then_restart_converges_without_duplicates() -> Result<()> {
    let f = Fixture::prepare(TestEnv::shared().await?, "proc-kill").await?;
    let mut first = f.spawn_operator("first").await?;
    eventually(
        Duration::from_secs(60),
        "the first operator to lead",
        || async { Ok(f.lease_holder().await?.filter(|h| first.owns(h))) },
    )
    .await?;
    let created = f
        .apps()
        .create(&PostParams::default(), &app("crash", 3))
        .await?;
    // Kill it as soon as its reconcile has started writing.
    eventually(Duration::from_secs(60), "the first write", || async {
        Ok(f.deployments()
            .get_opt("crash-deployment")
            .await?
            .map(|_| ()))
    })
    .await?;
    first.kill();

    let second = f.spawn_operator("second").await?;
    // A change only the restarted operator can act on.
    f.apps()
        .patch(
            "crash",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "replicas": 4 } })),
        )
        .await?;
    f.wait_ready("crash", 4).await?;
    let holder = f.lease_holder().await?.unwrap_or_default();
    assert!(
        second.owns(&holder),
        "the restarted operator leads: {holder}"
    );
    let (deployments, services) = children(&f, "crash").await?;
    assert_eq!(
        (deployments.len(), services.len()),
        (1, 1),
        "no duplicate children"
    );
    let uid = created.metadata.uid;
    assert_eq!(owner_uid(&deployments[0].metadata), uid);
    assert_eq!(owner_uid(&services[0].metadata), uid);
    Ok(())
}

#[tokio::test]
async fn two_replicas_one_leader_and_failover() -> Result<()> {
    let f = Fixture::prepare(TestEnv::shared().await?, "proc-ha").await?;
    let mut a = f.spawn_operator("replica-a").await?;
    let mut b = f.spawn_operator("replica-b").await?;
    let leader = eventually(Duration::from_secs(60), "a leader", || async {
        f.lease_holder().await
    })
    .await?;
    assert!(
        a.owns(&leader) ^ b.owns(&leader),
        "exactly one of the two leads: {leader}"
    );
    f.apps()
        .create(&PostParams::default(), &app("ha", 2))
        .await?;
    f.wait_ready("ha", 2).await?;

    let (leader_proc, standby) = if a.owns(&leader) {
        (&mut a, &b)
    } else {
        (&mut b, &a)
    };
    leader_proc.kill();
    let killed = Instant::now();
    f.apps()
        .patch(
            "ha",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "replicas": 3 } })),
        )
        .await?;
    f.wait_ready("ha", 3).await?;
    let holder = f.lease_holder().await?.unwrap_or_default();
    assert!(standby.owns(&holder), "the standby took over: {holder}");
    println!(
        "failover: the standby converged {:.1} s after the leader was killed (lease 3 s)",
        killed.elapsed().as_secs_f64()
    );
    let (deployments, services) = children(&f, "ha").await?;
    assert_eq!((deployments.len(), services.len()), (1, 1));
    Ok(())
}

#[tokio::test]
async fn sigterm_releases_the_lease_and_exits_cleanly() -> Result<()> {
    let f = Fixture::prepare(TestEnv::shared().await?, "proc-term").await?;
    let mut a = f.spawn_operator("term-a").await?;
    eventually(Duration::from_secs(60), "a to lead", || async {
        Ok(f.lease_holder().await?.filter(|h| a.owns(h)))
    })
    .await?;
    f.apps()
        .create(&PostParams::default(), &app("term", 1))
        .await?;
    f.wait_ready("term", 1).await?;
    assert!(
        a.terminate(),
        "exit status 0 on SIGTERM; log: {}",
        a.log.display()
    );
    assert_eq!(
        f.lease_holder().await?,
        None,
        "the Lease is released on shutdown"
    );
    Ok(())
}

#[tokio::test]
async fn converges_after_an_apiserver_restart() -> Result<()> {
    // A private control plane: this test restarts its apiserver.
    let env: &'static TestEnv = Box::leak(Box::new(TestEnv::start().await?));
    let f = Fixture::prepare(env, "proc-restart").await?;
    let running = operator::start(f.operator_client.clone(), Options::for_namespace(&f.ns)).await?;
    f.apps()
        .create(&PostParams::default(), &app("restart", 1))
        .await?;
    f.wait_ready("restart", 1).await?;

    env.kill_apiserver();
    tokio::time::sleep(Duration::from_secs(2)).await;
    env.start_apiserver().await?;

    f.apps()
        .patch(
            "restart",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "replicas": 2 } })),
        )
        .await?;
    f.wait_ready("restart", 2).await?;
    running.shutdown().await
}

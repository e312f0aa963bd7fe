//! The MyApplication operator's behaviour against the in-process API
//! server (`kubegen::testing`): no cluster, no Go, milliseconds per test.
//! The operator runs whole (Manager, leader election, informers, the
//! controller, events) on a `kubegen::Client` the fake serves. The fake has
//! no Deployment controller: these tests play it, writing the status it
//! would write. What only a real cluster proves — RBAC, Pod Security,
//! kwok-scheduled pods, quota admission — stays in `operator_e2e.rs`.

use std::future::Future;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Service;
use kubegen::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kubegen::conditions::find_condition;
use kubegen::testing::{ApiServer, Rollout};
use my_application::api::{MyApplication, MyApplicationSpec, MyApplicationStatus};
use my_application::operator::{self, Options, RunningOperator};
use serde_json::json;

const NS: &str = "apps";

/// One test's world: a fresh server with the CRD and a namespace, and the
/// operator running on it.
struct World {
    server: ApiServer,
    client: kubegen::Client,
    operator: Option<RunningOperator>,
    started: Instant,
}

impl World {
    async fn start() -> Result<World> {
        let started = Instant::now();
        let server = ApiServer::new();
        server
            .install_crd(&MyApplication::crd()?)
            .map_err(|e| anyhow::anyhow!("{}", e.message))?;
        let client = server.client();
        let ns: k8s_openapi::api::core::v1::Namespace =
            serde_json::from_value(json!({"metadata": {"name": NS}}))?;
        Api::all(client.clone())
            .create(&PostParams::default(), &ns)
            .await?;
        let operator = operator::start(client.clone(), Options::for_namespace(NS)).await?;
        Ok(World {
            server,
            client,
            operator: Some(operator),
            started,
        })
    }

    fn apps(&self) -> Api<MyApplication> {
        Api::namespaced(self.client.clone(), NS)
    }

    fn deployments(&self) -> Api<Deployment> {
        Api::namespaced(self.client.clone(), NS)
    }

    fn services(&self) -> Api<Service> {
        Api::namespaced(self.client.clone(), NS)
    }

    /// Plays the Deployment controller: `available` of the Deployment's
    /// replicas are up, at its current generation.
    fn deployment_available(&self, name: &str, available: i32) -> Result<()> {
        self.server
            .play("Deployment", NS, name, Rollout::Available(available))
            .map_err(|e| anyhow::anyhow!("{}", e.message))
    }

    async fn status(&self, name: &str) -> Result<MyApplicationStatus> {
        Ok(self.apps().get(name).await?.status.unwrap_or_default())
    }

    /// Stops the operator; reports how long the test took.
    async fn stop(mut self, test: &str) -> Result<()> {
        if let Some(operator) = self.operator.take() {
            operator.shutdown().await?;
        }
        eprintln!(
            "{test}: {:?} on the in-process API server",
            self.started.elapsed()
        );
        Ok(())
    }
}

fn spec(image: &str, replicas: i32, port: i32) -> MyApplicationSpec {
    MyApplicationSpec {
        image: image.into(),
        replicas,
        port,
    }
}

fn condition<'a>(status: &'a MyApplicationStatus, type_: &str) -> Option<&'a str> {
    find_condition(&status.conditions, type_).map(|c| c.status.as_str())
}

/// Polls `check` until it gives a value (every 2 ms, for up to 10 s).
async fn until<T, F, Fut>(what: &str, mut check: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>>>,
{
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(v) = check().await? {
            return Ok(v);
        }
        if Instant::now() > deadline {
            bail!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test]
async fn creates_children_and_reports_ready() -> Result<()> {
    let w = World::start().await?;
    let app = w
        .apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("web", spec("nginx:1.27", 3, 8080)),
        )
        .await?;
    let uid = app.metadata.uid.clone().unwrap();
    let deployment = until("the Deployment", || async {
        Ok(w.deployments().get_opt("web-deployment").await?)
    })
    .await?;
    let owner = &deployment.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.uid.as_str(), owner.controller),
        (uid.as_str(), Some(true))
    );
    let spec = deployment.spec.clone().unwrap();
    assert_eq!(spec.replicas, Some(3));
    let container = &spec.template.spec.unwrap().containers[0];
    assert_eq!(container.image.as_deref(), Some("nginx:1.27"));
    assert_eq!(container.ports.as_ref().unwrap()[0].container_port, 8080);
    // Written by server-side apply: the operator owns what it declared.
    let managers: Vec<_> = deployment
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            (
                m.manager.unwrap_or_default(),
                m.operation.unwrap_or_default(),
            )
        })
        .collect();
    assert!(
        managers.contains(&("my-application-controller".into(), "Apply".into())),
        "{managers:?}"
    );
    let service = until("the Service", || async {
        Ok(w.services().get_opt("web-service").await?)
    })
    .await?;
    assert_eq!(service.spec.unwrap().ports.unwrap()[0].port, 8080);

    // Not ready until the Deployment controller (played here) says so.
    let rolling = until("a status", || async {
        let s = w.status("web").await?;
        Ok((!s.conditions.is_empty()).then_some(s))
    })
    .await?;
    assert_eq!(condition(&rolling, "Ready"), Some("False"));
    w.deployment_available("web-deployment", 3)?;
    let ready = until("Ready", || async {
        let s = w.status("web").await?;
        Ok((condition(&s, "Ready") == Some("True")).then_some(s))
    })
    .await?;
    assert_eq!(ready.available_replicas, Some(3));
    assert_eq!(ready.observed_generation, Some(1));
    w.stop("creates_children_and_reports_ready").await
}

#[tokio::test]
async fn follows_spec_changes_and_reverts_drift() -> Result<()> {
    let w = World::start().await?;
    w.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("app", spec("nginx:1", 2, 8080)),
        )
        .await?;
    until("the Deployment", || async {
        Ok(w.deployments().get_opt("app-deployment").await?)
    })
    .await?;
    // A spec change reaches the child.
    let change = json!({"spec": {"replicas": 4, "image": "nginx:2"}});
    w.apps()
        .patch("app", &PatchParams::default(), &Patch::Merge(&change))
        .await?;
    until("4 replicas of nginx:2", || async {
        let d = w.deployments().get("app-deployment").await?.spec.unwrap();
        let image = d.template.spec.unwrap().containers[0].image.clone();
        Ok((d.replicas == Some(4) && image.as_deref() == Some("nginx:2")).then_some(()))
    })
    .await?;
    // Someone scales the Deployment by hand: the operator puts it back.
    let drift = json!({"spec": {"replicas": 1}});
    w.deployments()
        .patch(
            "app-deployment",
            &PatchParams::default(),
            &Patch::Merge(&drift),
        )
        .await?;
    until("the drift reverted", || async {
        let d = w.deployments().get("app-deployment").await?.spec.unwrap();
        Ok((d.replicas == Some(4)).then_some(()))
    })
    .await?;
    w.stop("follows_spec_changes_and_reverts_drift").await
}

#[tokio::test]
async fn deletion_garbage_collects_children() -> Result<()> {
    let w = World::start().await?;
    w.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("gone", spec("nginx", 1, 80)),
        )
        .await?;
    until("both children", || async {
        let d = w.deployments().get_opt("gone-deployment").await?;
        let s = w.services().get_opt("gone-service").await?;
        Ok((d.is_some() && s.is_some()).then_some(()))
    })
    .await?;
    w.apps().delete("gone", &DeleteParams::background()).await?;
    // The fake's garbage collector follows the owner references.
    until("the children collected", || async {
        let d = w.deployments().get_opt("gone-deployment").await?;
        let s = w.services().get_opt("gone-service").await?;
        Ok((d.is_none() && s.is_none()).then_some(()))
    })
    .await?;
    w.stop("deletion_garbage_collects_children").await
}

#[tokio::test]
async fn never_takes_over_a_foreign_deployment() -> Result<()> {
    let w = World::start().await?;
    let foreign: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "taken-deployment", "labels": {"owner": "someone-else"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "foreign"}},
            "template": {"metadata": {"labels": {"app": "foreign"}},
                         "spec": {"containers": [{"name": "x", "image": "busybox"}]}},
        },
    }))?;
    let foreign = w
        .deployments()
        .create(&PostParams::default(), &foreign)
        .await?;
    w.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("taken", spec("nginx", 2, 80)),
        )
        .await?;
    let status = until("the Failed condition", || async {
        let s = w.status("taken").await?;
        Ok((condition(&s, "Failed") == Some("True")).then_some(s))
    })
    .await?;
    assert_eq!(
        find_condition(&status.conditions, "Failed").unwrap().reason,
        "ErrResourceExists"
    );
    let after = w.deployments().get("taken-deployment").await?;
    assert_eq!(
        after.metadata.resource_version,
        foreign.metadata.resource_version
    );
    assert!(after.metadata.owner_references.is_none());
    w.stop("never_takes_over_a_foreign_deployment").await
}

#[tokio::test]
async fn invalid_applications_are_rejected_naming_the_field() -> Result<()> {
    let w = World::start().await?;
    let cases = [
        (
            json!({"image": "nginx", "replicas": 0, "port": 80}),
            "spec.replicas",
        ),
        (
            json!({"image": "", "replicas": 1, "port": 80}),
            "spec.image",
        ),
        (
            json!({"image": "nginx", "replicas": 1, "port": 70000}),
            "spec.port",
        ),
    ];
    for (spec, field) in cases {
        let app: MyApplication = serde_json::from_value(json!({
            "apiVersion": "stable.example.com/v1", "kind": "MyApplication",
            "metadata": {"name": "bad"}, "spec": spec,
        }))?;
        let err = w
            .apps()
            .create(&PostParams::default(), &app)
            .await
            .unwrap_err();
        let kubegen::Error::Api(status) = &err else {
            bail!("{err}");
        };
        assert_eq!(status.code, 422, "{status:?}");
        assert!(
            status.message.contains(field),
            "{field}: {}",
            status.message
        );
    }
    w.stop("invalid_applications_are_rejected_naming_the_field")
        .await
}

#[tokio::test]
async fn steady_state_makes_no_writes() -> Result<()> {
    let w = World::start().await?;
    w.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("calm", spec("nginx", 2, 80)),
        )
        .await?;
    until("the Deployment", || async {
        Ok(w.deployments().get_opt("calm-deployment").await?)
    })
    .await?;
    w.deployment_available("calm-deployment", 2)?;
    until("Ready", || async {
        let s = w.status("calm").await?;
        Ok((condition(&s, "Ready") == Some("True")).then_some(()))
    })
    .await?;
    let operator = w.operator.as_ref().unwrap();
    let writes = operator.writes();
    let revision = w.server.resource_version();
    // Resyncs and the watch events of its own writes come and go.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(operator.writes(), writes, "writes at steady state");
    let leases_only = w.server.resource_version() - revision;
    assert!(
        leases_only <= 2,
        "{leases_only} writes besides Lease renewals"
    );
    w.stop("steady_state_makes_no_writes").await
}

#[tokio::test]
async fn refused_writes_are_retried() -> Result<()> {
    let w = World::start().await?;
    // The next writes fail as an overloaded apiserver fails them, the
    // operator's (Lease renewals, children, status) and this test's alike.
    w.server.fail_next_writes(5, 503);
    let app = MyApplication::new("retry", spec("nginx", 1, 80));
    until("the create to go through", || async {
        match w.apps().create(&PostParams::default(), &app).await {
            Ok(_) => Ok(Some(())),
            Err(kubegen::Error::Api(s)) if s.code == 503 => Ok(None),
            Err(e) => Err(e.into()),
        }
    })
    .await?;
    until("the Deployment despite the failures", || async {
        Ok(w.deployments().get_opt("retry-deployment").await?)
    })
    .await?;
    w.stop("refused_writes_are_retried").await
}

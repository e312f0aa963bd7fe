//! Server-side apply with generated apply configurations, on the real
//! control plane: what `extract` reads back for a manager is what that
//! manager applied, for random configurations two managers share a
//! Deployment with; field conflicts name manager and field, and `force`
//! takes the field over; two managers own different containers of one
//! Deployment; a field left out of the next apply is removed; a status
//! applied to the custom kind reads back through `extract_status`.

use std::collections::BTreeMap;

use anyhow::{Result, ensure};
use k8s_openapi::api::apps::v1::Deployment;
use kubegen::ResourceClient;
use kubegen::api::{Api, DeleteParams, PostParams};
use kubegen::apply::{ApplyOptions, ObjectMetaApply, is_applied};
use kubegen_core::rng::Rng;
use kubegen_testenv::TestEnv;
use my_application::api::{MyApplication, MyApplicationSpec};
use my_application::generated::applyconfigurations::apps_v1::{
    DeploymentApply, DeploymentSpecApply,
};
use my_application::generated::applyconfigurations::core_v1::{
    ContainerApply, ContainerPortApply, EnvVarApply, PodSpecApply, PodTemplateSpecApply,
};
use my_application::generated::applyconfigurations::meta_v1::LabelSelectorApply;
use my_application::generated::applyconfigurations::stable_v1::{
    MyApplicationApply, MyApplicationStatusApply, MyApplicationStatusConditionsItemApply,
};
use serde_json::Value;

/// How many random pairs of configurations the property test applies.
const CASES: u64 = 40;

/// Who sets one piece of the Deployment in a generated case.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Owner {
    A,
    B,
    /// Both, with the same value: shared ownership, no conflict.
    Both,
    Nobody,
}

/// A generated case: each optional piece with its owner and value.
#[derive(Clone, Debug)]
struct Case {
    replicas: (Owner, i32),
    labels: Vec<(Owner, String, String)>,
    annotation: (Owner, String),
    env: Vec<(Owner, String, String)>,
    port: (Owner, i32),
    args: (Owner, Vec<String>),
    second_container: (Owner, String),
    min_ready: (Owner, i32),
    grace: (Owner, i64),
}

fn owner(rng: &mut Rng) -> Owner {
    *rng.pick(&[Owner::A, Owner::B, Owner::Both, Owner::Nobody])
}

impl Case {
    fn random(rng: &mut Rng) -> Case {
        Case {
            replicas: (owner(rng), rng.below(4) as i32),
            labels: (0..rng.below(4))
                .map(|i| (owner(rng), format!("l{i}"), format!("v{}", rng.below(9))))
                .collect(),
            annotation: (owner(rng), format!("note {}", rng.below(100))),
            env: (0..rng.below(4))
                .map(|i| (owner(rng), format!("E{i}"), format!("{}", rng.below(50))))
                .collect(),
            port: (owner(rng), 1000 + rng.below(1000) as i32),
            // Never empty: Go drops an empty `args` (omitempty) from the
            // stored object, so an applied `[]` cannot read back.
            args: (
                owner(rng),
                (0..=rng.below(3)).map(|i| format!("--a{i}")).collect(),
            ),
            second_container: (owner(rng), format!("sidecar:{}", rng.below(5))),
            // Never 0: Go drops a zero `minReadySeconds` (omitempty).
            min_ready: (owner(rng), 1 + rng.below(30) as i32),
            grace: (owner(rng), rng.below(60) as i64),
        }
    }

    /// What `manager` (A or B) applies: A always owns the selector, the
    /// template labels and container `app` with its image; every piece
    /// owned by `manager` or `Both` is added, in one fixed order. With
    /// `drop`, the pieces that index selects are left out (removal).
    fn config(
        &self,
        name: &str,
        ns: &str,
        manager: Owner,
        drop: &dyn Fn(usize) -> bool,
    ) -> DeploymentApply {
        let mine = |o: Owner, i: usize| (o == manager || o == Owner::Both) && !drop(i);
        let mut deployment = DeploymentApply::new(name, ns);
        let mut spec = DeploymentSpecApply::default();
        let mut pod = PodSpecApply::default();
        let mut app = ContainerApply::default().with_name("app");
        let mut template = PodTemplateSpecApply::default();
        if manager == Owner::A {
            spec = spec.with_selector(
                LabelSelectorApply::default().with_match_labels([("app", name.to_string())]),
            );
            template =
                template.with_metadata(ObjectMetaApply::default().with_labels([("app", name)]));
            app = app.with_image("registry.example/app:1");
        }
        if mine(self.replicas.0, 0) {
            spec = spec.with_replicas(self.replicas.1);
        }
        let labels: BTreeMap<&str, &str> = self
            .labels
            .iter()
            .enumerate()
            .filter(|(i, (o, _, _))| mine(*o, 10 + i))
            .map(|(_, (_, k, v))| (k.as_str(), v.as_str()))
            .collect();
        if !labels.is_empty() {
            deployment = deployment.with_labels(labels);
        }
        if mine(self.annotation.0, 1) {
            deployment = deployment.with_annotations([("note", self.annotation.1.as_str())]);
        }
        let env: Vec<EnvVarApply> = self
            .env
            .iter()
            .enumerate()
            .filter(|(i, (o, _, _))| mine(*o, 20 + i))
            .map(|(_, (_, k, v))| {
                EnvVarApply::default()
                    .with_name(k.as_str())
                    .with_value(v.as_str())
            })
            .collect();
        if !env.is_empty() {
            app = app.with_env(env);
        }
        if mine(self.port.0, 2) {
            app = app.with_ports([ContainerPortApply::default()
                .with_container_port(self.port.1)
                .with_protocol("TCP")]);
        }
        if mine(self.args.0, 3) {
            app = app.with_args(self.args.1.clone());
        }
        let mut containers = vec![app];
        if mine(self.second_container.0, 4) {
            containers.push(
                ContainerApply::default()
                    .with_name("sidecar")
                    .with_image(self.second_container.1.as_str()),
            );
        }
        if mine(self.grace.0, 5) {
            pod = pod.with_termination_grace_period_seconds(self.grace.1);
        }
        if mine(self.min_ready.0, 6) {
            spec = spec.with_min_ready_seconds(self.min_ready.1);
        }
        pod = pod.with_containers(containers);
        deployment.with_spec(spec.with_template(template.with_spec(pod)))
    }
}

fn json(config: &DeploymentApply) -> Value {
    serde_json::to_value(config).expect("serializable")
}

async fn deployments(env: &TestEnv, ns: &str, manager: &str) -> Result<ResourceClient<Deployment>> {
    Ok(ResourceClient::namespaced(env.client().await?, ns).with_field_manager(manager))
}

/// For random pairs of configurations: both apply without conflict, and
/// `extract` of the stored object gives back each manager's own
/// configuration; then A applies again without some of its pieces, and
/// reads back exactly the smaller configuration while B's pieces stay.
#[tokio::test]
async fn extract_reads_back_what_each_manager_applied() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("apply-prop").await?;
    let client = deployments(env, &ns, "unused").await?;
    let (a, b) = (
        ApplyOptions::new("manager-a"),
        ApplyOptions::new("manager-b"),
    );
    let seed = std::env::var("KUBEGEN_APPLY_SEED").map_or(0x5eed_0a11, |s| s.parse().unwrap_or(0));
    for case_number in 0..CASES {
        let mut rng = Rng::new(seed ^ case_number);
        let case = Case::random(&mut rng);
        let name = format!("prop-{case_number}");
        let keep = |_: usize| false;
        let (config_a, config_b) = (
            case.config(&name, &ns, Owner::A, &keep),
            case.config(&name, &ns, Owner::B, &keep),
        );
        client.apply(&config_a, &a).await?;
        let stored = client.apply(&config_b, &b).await?;
        let context = || format!("case {case_number} (seed {seed:#x}): {case:?}");
        let differs = |who: &str, got: &DeploymentApply, want: &DeploymentApply| {
            format!(
                "{who}'s extract {}\n  differs from {}",
                json(got),
                json(want)
            )
        };
        let (got_a, got_b) = (
            DeploymentApply::extract(&stored, "manager-a")?,
            DeploymentApply::extract(&stored, "manager-b")?,
        );
        ensure!(
            json(&got_a) == json(&config_a),
            "{}: {}",
            differs("A", &got_a, &config_a),
            context()
        );
        ensure!(
            json(&got_b) == json(&config_b),
            "{}: {}",
            differs("B", &got_b, &config_b),
            context()
        );
        ensure!(is_applied(&stored, &config_a, &a)?, "{}", context());

        // A leaves out a random half of its pieces: they go, unless B
        // owns them too.
        let dropped: Vec<bool> = (0..40).map(|_| rng.chance(1, 2)).collect();
        let smaller = case.config(&name, &ns, Owner::A, &|i| dropped[i]);
        let stored = client.apply(&smaller, &a).await?;
        let (got_a, got_b) = (
            DeploymentApply::extract(&stored, "manager-a")?,
            DeploymentApply::extract(&stored, "manager-b")?,
        );
        ensure!(
            json(&got_a) == json(&smaller),
            "after removal {}: {}",
            differs("A", &got_a, &smaller),
            context()
        );
        ensure!(
            json(&got_b) == json(&config_b),
            "B lost a field A dropped, {}: {}",
            differs("B", &got_b, &config_b),
            context()
        );
        let replicas = stored.spec.as_ref().and_then(|s| s.replicas);
        let a_dropped_replicas = case.replicas.0 == Owner::A && dropped[0];
        if a_dropped_replicas {
            // Defaulted back to 1 once nobody owns it.
            ensure!(replicas == Some(1), "{replicas:?}: {}", context());
        }
    }
    Ok(())
}

/// A field another manager owns with another value: the apply fails with
/// a conflict naming manager and field; with force it is taken over.
#[tokio::test]
async fn conflicts_name_manager_and_field_and_force_takes_over() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("apply-conflict").await?;
    let client = deployments(env, &ns, "unused").await?;
    let base = |replicas: i32| Case {
        replicas: (Owner::Both, replicas),
        labels: vec![],
        annotation: (Owner::Nobody, String::new()),
        env: vec![],
        port: (Owner::Nobody, 0),
        args: (Owner::Nobody, vec![]),
        second_container: (Owner::Nobody, String::new()),
        min_ready: (Owner::Nobody, 0),
        grace: (Owner::Nobody, 0),
    };
    let (a, b) = (ApplyOptions::new("owner"), ApplyOptions::new("intruder"));
    client
        .apply(&base(2).config("c", &ns, Owner::A, &|_| false), &a)
        .await?;
    let intruder = base(3).config("c", &ns, Owner::B, &|_| false);
    let error = client.apply(&intruder, &b).await.expect_err("a conflict");
    let conflicts = error.apply_conflicts();
    ensure!(
        conflicts
            .iter()
            .any(|c| c.manager == "owner" && c.field == ".spec.replicas"),
        "{conflicts:?}"
    );
    let stored = client.apply(&intruder, &b.clone().force()).await?;
    ensure!(stored.spec.as_ref().and_then(|s| s.replicas) == Some(3));
    let owner_now = DeploymentApply::extract(&stored, "owner")?;
    ensure!(
        owner_now.spec.as_ref().and_then(|s| s.replicas).is_none(),
        "the forced field left the first owner: {owner_now:?}"
    );
    Ok(())
}

/// Two managers each own one container of the same Deployment (a
/// list-map keyed by name): each reads back its own, and removing one
/// manager's container leaves the other's.
#[tokio::test]
async fn two_managers_own_different_containers() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("apply-items").await?;
    let client = deployments(env, &ns, "unused").await?;
    let mut case = Case::random(&mut Rng::new(7));
    case.second_container = (Owner::B, "sidecar:9".into());
    let (a, b) = (ApplyOptions::new("main"), ApplyOptions::new("injector"));
    client
        .apply(&case.config("items", &ns, Owner::A, &|_| false), &a)
        .await?;
    let sidecar = DeploymentApply::new("items", &ns).with_spec(
        DeploymentSpecApply::default().with_template(
            PodTemplateSpecApply::default().with_spec(
                PodSpecApply::default().with_containers([ContainerApply::default()
                    .with_name("sidecar")
                    .with_image("sidecar:9")]),
            ),
        ),
    );
    let stored = client.apply(&sidecar, &b).await?;
    let names = |d: &Deployment| -> Vec<String> {
        d.spec
            .iter()
            .flat_map(|s| s.template.spec.iter())
            .flat_map(|p| &p.containers)
            .map(|c| c.name.clone())
            .collect()
    };
    ensure!(names(&stored) == ["app", "sidecar"], "{:?}", names(&stored));
    ensure!(json(&DeploymentApply::extract(&stored, "injector")?) == json(&sidecar));
    let gone = DeploymentApply::new("items", &ns);
    let stored = client.apply(&gone, &b).await?;
    ensure!(names(&stored) == ["app"], "{:?}", names(&stored));
    Ok(())
}

/// The custom kind's status applied through the status subresource reads
/// back with `extract_status`, conditions keyed by type.
#[tokio::test]
async fn a_status_applied_reads_back_with_extract_status() -> Result<()> {
    let env = TestEnv::shared().await?;
    let admin = env.client().await?;
    kubegen_testenv::install_crd(&admin, &MyApplication::crd()?).await?;
    let ns = env.namespace("apply-status").await?;
    let apps: Api<MyApplication> = Api::namespaced(admin.clone(), &ns);
    let spec = MyApplicationSpec {
        image: "nginx".into(),
        replicas: 1,
        port: 80,
    };
    kubegen_testenv::eventually(
        std::time::Duration::from_secs(20),
        "the CRD to serve",
        || async {
            Ok(apps
                .create(
                    &PostParams::default(),
                    &MyApplication::new("s", spec.clone()),
                )
                .await
                .ok())
        },
    )
    .await?;
    let client: ResourceClient<MyApplication> = ResourceClient::namespaced(admin, &ns);
    let options = ApplyOptions::new("status-writer");
    let status = MyApplicationApply::new("s", &ns).with_status(
        MyApplicationStatusApply::default()
            .with_available_replicas(1)
            .with_conditions([MyApplicationStatusConditionsItemApply::default()
                .with_type("Ready")
                .with_status("True")
                .with_reason("Test")
                .with_message("")
                .with_last_transition_time(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                    k8s_openapi::jiff::Timestamp::from_second(1_700_000_000)?,
                ))]),
    );
    let stored = client.apply_status(&status, &options).await?;
    let back = MyApplicationApply::extract_status(&stored, "status-writer")?;
    ensure!(back == status, "{back:?}");
    ensure!(
        MyApplicationApply::extract(&stored, "status-writer")?
            .status
            .is_none(),
        "the main resource's entry is not the status subresource's"
    );
    apps.delete("s", &DeleteParams::default()).await?;
    Ok(())
}

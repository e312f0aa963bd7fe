//! MyApplication at two versions on the real control plane: v1 (storage,
//! the hub the controller works with) and v2 (named ports), converted by
//! the operator's own webhook. An application created at v2 with two
//! ports is reconciled through v1 and keeps both ports; an edit made at v1
//! keeps them too; a v1 object reads at v2 with its port named `http`.

mod support;

use std::time::Duration;

use anyhow::{Context as _, Result};
use kubegen::api::{Api, PostParams};
use kubegen::conversion::{WebhookEndpoint, inject_ca_bundle};
use kubegen::server::DevCa;
use kubegen_testenv::{TestEnv, eventually, install_crd};
use my_application::api::{self, v2};
use my_application::operator::{self, Options};
use support::Fixture;

const WAIT: Duration = Duration::from_secs(60);

fn ports(list: &[(&str, i32)]) -> Vec<v2::ApplicationPort> {
    list.iter()
        .map(|(name, port)| v2::ApplicationPort {
            name: (*name).into(),
            port: *port,
        })
        .collect()
}

#[tokio::test]
async fn v2_objects_keep_their_ports_through_the_v1_controller() -> Result<()> {
    let mut f = Fixture::prepare(TestEnv::shared().await?, "convert").await?;
    // The operator serves the webhook with a development CA's certificate.
    let certs = tempfile::tempdir()?;
    let ca = DevCa::new("my-application-test-ca")?;
    ca.issue(certs.path(), &["127.0.0.1"])?;
    let options = Options {
        webhook_cert_dir: Some(certs.path().to_owned()),
        ..Options::for_namespace(&f.ns)
    };
    let running = operator::start(f.operator_client.clone(), options).await?;
    let addr = running.webhook_addr().context("no webhook server")?;
    f.operator = Some(running);

    // The generated CRD (both versions, conversion through the Service),
    // pointed at this process the way `make demo` does.
    let yaml = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("config/crd/stable.example.com_myapplications.yaml"),
    )?;
    let crd: serde_json::Value = serde_yaml::from_str(&yaml)?;
    install_crd(&f.admin, &serde_json::from_value(crd)?).await?;
    inject_ca_bundle(
        &f.admin,
        "myapplications.stable.example.com",
        &ca.pem(),
        &WebhookEndpoint::Url(format!("https://{addr}/convert")),
    )
    .await?;

    let at_v2 = Api::<v2::MyApplication>::namespaced(f.admin.clone(), &f.ns);
    let at_v1 = Api::<api::MyApplication>::namespaced(f.admin.clone(), &f.ns);
    let two = v2::MyApplication::new(
        "web",
        v2::MyApplicationSpec {
            image: "nginx:latest".into(),
            replicas: 2,
            ports: ports(&[("http", 8080), ("metrics", 9090)]),
        },
    );
    eventually(WAIT, "a v2 create through the webhook", || async {
        match at_v2.create(&PostParams::default(), &two).await {
            Ok(_) => Ok(Some(())),
            Err(kubegen::Error::Api(e)) if e.code == 409 => Ok(Some(())),
            Err(e) => Err(e.into()),
        }
    })
    .await?;

    // The controller works at v1: the Service gets the first port.
    f.wait_ready("web", 2).await?;
    let service = f.services().get("web-service").await?;
    let service_ports: Vec<i32> = service
        .spec
        .and_then(|s| s.ports)
        .unwrap_or_default()
        .iter()
        .map(|p| p.port)
        .collect();
    assert_eq!(service_ports, [8080]);

    // Read at v1: the first port. Read at v2: both, after the controller's
    // status writes.
    assert_eq!(at_v1.get("web").await?.spec.port, 8080);
    let read = at_v2.get("web").await?;
    assert_eq!(read.spec.ports, two.spec.ports);
    assert!(read.status.is_some_and(|s| s.available_replicas == Some(2)));

    // An edit at v1 of a field both versions hold keeps the second port.
    // (The controller writes the status meanwhile: retry on conflicts.)
    eventually(WAIT, "an edit at v1", || async {
        let mut old = at_v1.get("web").await?;
        old.spec.replicas = 3;
        match at_v1.replace("web", &PostParams::default(), &old).await {
            Ok(_) => Ok(Some(())),
            Err(kubegen::Error::Api(e)) if e.code == 409 => Ok(None),
            Err(e) => Err(e.into()),
        }
    })
    .await?;
    let read = at_v2.get("web").await?;
    assert_eq!(read.spec.replicas, 3);
    assert_eq!(read.spec.ports, two.spec.ports);

    // A v1 object reads at v2 with its port named `http`.
    at_v1
        .create(
            &PostParams::default(),
            &api::MyApplication::new(
                "api",
                api::MyApplicationSpec {
                    image: "nginx:latest".into(),
                    replicas: 1,
                    port: 8081,
                },
            ),
        )
        .await?;
    assert_eq!(
        at_v2.get("api").await?.spec.ports,
        ports(&[(v2::DEFAULT_PORT_NAME, 8081)])
    );
    // v2's schema applies at v2: no ports at all is refused.
    let none = v2::MyApplication::new(
        "no-ports",
        v2::MyApplicationSpec {
            image: "nginx:latest".into(),
            replicas: 1,
            ports: vec![],
        },
    );
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    match at_v2.create(&dry_run, &none).await {
        Err(kubegen::Error::Api(e)) => assert_eq!(e.code, 422, "{e:?}"),
        other => anyhow::bail!("an application without ports was accepted: {other:?}"),
    }
    f.stop().await
}

//! The example's generated code: checked in and up to date, identical to
//! what the derive produces, and working against the real apiserver.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use kubegen::api::{Api, Patch, PatchParams, PostParams};
use kubegen::lister::parse_selector;
use kubegen_cli::generate::{self, Api as GenApi};
use kubegen_cli::source::CrateSource;
use kubegen_testenv::{TestEnv, eventually};
use my_application::api::{MyApplication, MyApplicationSpec};
use my_application::generated::clientset::Clientset;
use my_application::generated::informers::SharedInformerFactory;

fn example_api() -> GenApi {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let source = CrateSource::load(&manifest).unwrap_or_else(|e| panic!("{e:#?}"));
    GenApi::load(&source, source.manifest.settings.clone()).unwrap_or_else(|e| panic!("{e:#?}"))
}

#[test]
fn checked_in_generated_files_are_up_to_date() {
    let api = example_api();
    let set = generate::generate(&api).unwrap_or_else(|e| panic!("{e:#?}"));
    let drift = kubegen_cli::files::check(&api.root, &set).unwrap();
    assert!(drift.is_empty(), "run `make generate`: {drift:#?}");
    // Every output kind is there.
    let paths: Vec<String> = set.files().map(|(p, _)| p.display().to_string()).collect();
    for expected in [
        "config/crd/stable.example.com_myapplications.yaml",
        "config/rbac/role.yaml",
        "src/generated/clientset/stable_v1.rs",
        "src/generated/listers/apps_v1.rs",
        "src/generated/informers/mod.rs",
        "src/generated/applyconfigurations/apps_v1.rs",
        "src/generated/applyconfigurations/stable_v1.rs",
    ] {
        assert!(
            paths.iter().any(|p| p == expected),
            "{expected} not generated: {paths:?}"
        );
    }
}

#[test]
fn cli_crd_is_byte_identical_to_the_derive() {
    let api = example_api();
    let crds = api.crds().unwrap_or_else(|e| panic!("{e:#?}"));
    let from_cli = generate::crd_yaml(&crds["stable.example.com_myapplications.yaml"]);
    // Both versions, merged as an operator without the CLI would.
    let merged = kubegen::merge_crds(&[
        <MyApplication as kubegen::CustomResourceExt>::crd_json().unwrap(),
        <my_application::api::v2::MyApplication as kubegen::CustomResourceExt>::crd_json().unwrap(),
    ])
    .unwrap();
    let from_derive = kubegen_core::output::to_yaml(&merged);
    assert_eq!(from_cli, from_derive);
}

#[tokio::test]
async fn clientset_listers_and_informers_work_on_the_real_apiserver() -> Result<()> {
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    kubegen_testenv::install_crd(&client, &MyApplication::crd()?).await?;
    let ns = env.namespace("example-generated").await?;
    let clientset = Clientset::new(client.clone()).with_field_manager("example-test");
    let apps = clientset.stable_v1().my_applications(&ns);

    let spec = MyApplicationSpec {
        image: "nginx:latest".into(),
        replicas: 3,
        port: 8080,
    };
    let created = eventually(Duration::from_secs(30), "create to be accepted", || async {
        Ok(apps
            .create(&MyApplication::new("web", spec.clone()))
            .await
            .ok())
    })
    .await?;
    assert_eq!(created.spec.replicas, 3);

    // Defaults are applied by the apiserver from the generated schema.
    // Sent as raw JSON: the typed spec would serialize its serde defaults.
    let defaulted = serde_json::json!({
        "apiVersion": "stable.example.com/v1", "kind": "MyApplication",
        "metadata": { "name": "defaults" }, "spec": { "image": "busybox" },
    });
    let resource = kubegen::api::ApiResource::erase::<MyApplication>(&());
    let api = Api::<kubegen::api::DynamicObject>::namespaced_with(client.clone(), &ns, &resource);
    let raw = api
        .create(&PostParams::default(), &serde_json::from_value(defaulted)?)
        .await?;
    assert_eq!(raw.data["spec"]["replicas"], 1);
    assert_eq!(raw.data["spec"]["port"], 80);

    // Invalid objects are rejected through the schema, naming the field.
    let bad = apps
        .create(&MyApplication::new(
            "bad",
            MyApplicationSpec {
                image: "x".into(),
                replicas: 1,
                port: 79,
            },
        ))
        .await
        .unwrap_err();
    assert!(bad.is_invalid(), "{bad}");
    assert!(bad.to_string().contains("spec.port"), "{bad}");
    assert!(apps.get("missing").await.unwrap_err().is_not_found());

    // The shared informer factory serves the CRD and built-in kinds.
    let factory = SharedInformerFactory::new(client.clone());
    let informer = factory.stable().v1().my_applications();
    let deployments = factory.apps().v1().deployments();
    assert!(
        factory.stable().v1().my_applications().informer().name() == informer.informer().name()
    );
    factory.start();
    let synced = factory.wait_for_cache_sync().await;
    assert!(synced.values().all(|s| *s), "{synced:?}");
    let lister = informer.lister();
    eventually(
        Duration::from_secs(30),
        "the lister to see both objects",
        || async {
            let items = lister.namespace(&ns).list(&parse_selector("")?);
            Ok((items.len() == 2).then_some(()))
        },
    )
    .await?;
    assert_eq!(lister.namespace(&ns).get("web")?.spec.image, "nginx:latest");
    assert!(
        lister
            .namespace(&ns)
            .get("nope")
            .unwrap_err()
            .is_not_found()
    );
    assert!(
        deployments
            .lister()
            .namespace(&ns)
            .list(&parse_selector("")?)
            .is_empty()
    );

    // The scale subresource moves spec.replicas, as `kubectl scale` does.
    let typed = Api::<MyApplication>::namespaced(client, &ns);
    typed
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "replicas": 5 } })),
        )
        .await?;
    assert_eq!(apps.get("web").await?.spec.replicas, 5);
    factory.shutdown().await;
    Ok(())
}

//! Conversion and storage migration together on a real API server: Cart
//! stored at v1 while v2 (with quantities v1 cannot hold) is served through
//! the conversion webhook; the storage version moves to v2 and the
//! migration rewrites every object — etcd then holds v2 objects with the
//! quantities written at v2 back in their fields (from the stash), and
//! `status.storedVersions` is trimmed to v2.

mod support;

use std::time::Duration;

use anyhow::{Context, Result};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::api::{Api, PostParams};
use kubegen::conversion::{STASH_ANNOTATION, WebhookEndpoint, inject_ca_bundle};
use kubegen::storage_migration::StorageMigration;
use kubegen::{CustomResourceExt, merge_crds};
use kubegen_testenv::{TestEnv, eventually, install_crd};
use serde_json::{Value, json};

use support::carts::{converter, v1, v2};

const CRD: &str = "carts.shop.example.com";

/// The stored JSON of every cart in `ns`, by name.
async fn stored(env: &TestEnv, ns: &str) -> Result<Vec<(String, Value)>> {
    env.etcd_range(&format!("/registry/shop.example.com/carts/{ns}/"))
        .await?
        .into_iter()
        .map(|e| {
            let name = e.key.rsplit('/').next().unwrap_or_default().to_owned();
            Ok((name, e.json()?))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_moves_to_the_richer_version_without_loss() -> Result<()> {
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    let ns = env.namespace("migrate").await?;
    let webhooks = support::serve(|s| s.conversion(converter())).await?;
    let (addr, ca) = (webhooks.running.addr, &webhooks.ca);

    // Storage at v1 for now (the hub in code stays v2).
    let mut merged = merge_crds(&[v1::Cart::crd_json()?, v2::Cart::crd_json()?])?;
    for v in merged["spec"]["versions"]
        .as_array_mut()
        .context("versions")?
    {
        v["storage"] = json!(v["name"] == "v1");
    }
    install_crd(&client, &serde_json::from_value(merged)?).await?;
    inject_ca_bundle(
        &client,
        CRD,
        &ca.pem(),
        &WebhookEndpoint::Url(format!("https://{addr}/convert")),
    )
    .await?;
    let at_v2 = Api::<v2::Cart>::namespaced(client.clone(), &ns);
    let at_v1 = Api::<v1::Cart>::namespaced(client.clone(), &ns);
    let rich = v2::Cart::new(
        "rich",
        v2::CartSpec {
            lines: vec![
                v2::Line {
                    sku: "a".into(),
                    quantity: 3,
                },
                v2::Line {
                    sku: "b".into(),
                    quantity: 7,
                },
            ],
            note: None,
        },
    );
    eventually(
        Duration::from_secs(30),
        "a v2 create through the webhook",
        || async {
            match at_v2.create(&PostParams::default(), &rich).await {
                Ok(_) => Ok(Some(())),
                Err(kubegen::Error::Api(e)) if e.code == 409 => Ok(Some(())),
                Err(e) => Err(e.into()),
            }
        },
    )
    .await?;
    at_v1
        .create(
            &PostParams::default(),
            &v1::Cart::new(
                "plain",
                v1::CartSpec {
                    items: vec!["x".into()],
                    note: None,
                },
            ),
        )
        .await?;

    // Stored at v1: the quantities ride in the stash.
    let before = stored(env, &ns).await?;
    assert_eq!(before.len(), 2);
    for (name, object) in &before {
        assert_eq!(object["apiVersion"], "shop.example.com/v1", "{name}");
    }
    let rich_v1 = &before.iter().find(|(n, _)| n == "rich").context("rich")?.1;
    assert_eq!(rich_v1["spec"]["items"], json!(["a", "b"]));
    assert!(rich_v1["metadata"]["annotations"][STASH_ANNOTATION].is_string());

    // Storage moves to v2; the migration rewrites both.
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    let mut crd = crds.get(CRD).await?;
    for v in &mut crd.spec.versions {
        v.storage = v.name == "v2";
    }
    crds.replace(CRD, &PostParams::default(), &crd).await?;
    let report = StorageMigration::new(client.clone(), CRD).run().await?;
    assert_eq!(report.counters.rewritten, 2, "{report}");
    assert_eq!(report.stored_versions_after, ["v2"], "{report}");

    let after = stored(env, &ns).await?;
    for (name, object) in &after {
        assert_eq!(object["apiVersion"], "shop.example.com/v2", "{name}");
        let annotations = object["metadata"]["annotations"].as_object();
        assert!(
            annotations.is_none_or(|a| !a.contains_key(STASH_ANNOTATION)),
            "{name} still carries the stash: {object}"
        );
    }
    let rich_v2 = &after.iter().find(|(n, _)| n == "rich").context("rich")?.1;
    assert_eq!(
        rich_v2["spec"]["lines"],
        json!([{"sku": "a", "quantity": 3}, {"sku": "b", "quantity": 7}])
    );
    let plain_v2 = &after.iter().find(|(n, _)| n == "plain").context("plain")?.1;
    assert_eq!(
        plain_v2["spec"]["lines"],
        json!([{"sku": "x", "quantity": 1}])
    );
    assert_eq!(at_v2.get("rich").await?.spec, rich.spec);

    webhooks.running.shut().await
}

//! Conversion webhooks against a real API server: a kind served at v1 and
//! v2 (hub, storage) through the runtime's WebhookServer. Nothing is lost
//! crossing versions (create at v1 → read at v2 → update at v2 → read and
//! replace at v1 → read at v2), lists and watches work at either version,
//! a webhook that is down makes the apiserver fail requests (and nothing
//! is lost once it is back), a rotated certificate is served without a
//! restart, and each version's schema still validates.

mod support;

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use futures::{StreamExt, TryStreamExt};
use kubegen::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use kubegen::conversion::{STASH_ANNOTATION, WebhookEndpoint, inject_ca_bundle};
use kubegen::{CustomResourceExt, merge_crds};
use kubegen_testenv::{TestEnv, eventually, https_get, install_crd};
use serde_json::{Value, json};

use support::carts::{converter, v1, v2};
use support::serve_at;

const WAIT: Duration = Duration::from_secs(30);

fn cart_v1(name: &str, items: &[&str]) -> v1::Cart {
    v1::Cart::new(
        name,
        v1::CartSpec {
            items: items.iter().map(|s| (*s).to_owned()).collect(),
            note: Some("first".into()),
        },
    )
}

/// The object's data (everything but metadata) as JSON, for byte-level
/// comparisons.
fn data<T: serde::Serialize>(object: &T) -> Result<Value> {
    let mut v = serde_json::to_value(object)?;
    v.as_object_mut()
        .context("not an object")?
        .remove("metadata");
    Ok(v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_convert_through_the_webhook_without_loss() -> Result<()> {
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    let ns = env.namespace("convert").await?;
    let support::Webhooks { ca, certs, running } =
        support::serve(|s| s.conversion(converter())).await?;
    let addr = running.addr;

    // The CRD as generated (Service reference), then pointed at this
    // process the way `make demo` does.
    let merged = merge_crds(&[v1::Cart::crd_json()?, v2::Cart::crd_json()?])?;
    assert_eq!(merged["spec"]["conversion"]["strategy"], "Webhook");
    install_crd(&client, &serde_json::from_value(merged)?).await?;
    let endpoint = WebhookEndpoint::Url(format!("https://{addr}/convert"));
    inject_ca_bundle(&client, "carts.shop.example.com", &ca.pem(), &endpoint).await?;

    let old = Api::<v1::Cart>::namespaced(client.clone(), &ns);
    let new = Api::<v2::Cart>::namespaced(client.clone(), &ns);
    // The CRD update takes a moment to reach the apiserver's conversion.
    let created = eventually(WAIT, "a v1 create through the webhook", || async {
        match old
            .create(&PostParams::default(), &cart_v1("c", &["a", "b"]))
            .await
        {
            Ok(c) => Ok(Some(c)),
            Err(kubegen::Error::Api(e)) if e.code == 409 => Ok(Some(old.get("c").await?)),
            Err(e) => Err(e.into()),
        }
    })
    .await?;
    assert_eq!(created.spec.items, ["a", "b"]);

    // Read at v2: the items are lines.
    let mut at_v2 = new.get("c").await?;
    assert_eq!(
        data(&at_v2)?,
        json!({"apiVersion": "shop.example.com/v2", "kind": "Cart",
               "spec": {"lines": [{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": 1}], "note": "first"}})
    );
    // Update at v2 with what v1 cannot hold.
    at_v2.spec.lines[0].quantity = 3;
    let at_v2 = new.replace("c", &PostParams::default(), &at_v2).await?;
    let want_v2 = data(&at_v2)?;

    // Read at v1 (stash annotation set), replace at v1 with an edit of a
    // field both hold, read at v2: the quantity survived, the edit landed.
    let mut at_v1 = old.get("c").await?;
    assert_eq!(at_v1.spec.items, ["a", "b"]);
    let annotations = at_v1.metadata.annotations.clone().unwrap_or_default();
    ensure!(
        annotations.contains_key(STASH_ANNOTATION),
        "no stash: {annotations:?}"
    );
    at_v1.spec.note = Some("edited at v1".into());
    old.replace("c", &PostParams::default(), &at_v1).await?;
    let back = new.get("c").await?;
    let mut want = want_v2.clone();
    want["spec"]["note"] = json!("edited at v1");
    assert_eq!(data(&back)?, want);
    // The hub never carries the stash.
    let stored = back.metadata.annotations.unwrap_or_default();
    ensure!(
        !stored.contains_key(STASH_ANNOTATION),
        "stash reached storage: {stored:?}"
    );

    // Lists at either version.
    old.create(&PostParams::default(), &cart_v1("d", &["x"]))
        .await?;
    let names = |list: Vec<String>| {
        let mut l = list;
        l.sort();
        l
    };
    let listed_v1 = old.list(&ListParams::default()).await?;
    let listed_v2 = new.list(&ListParams::default()).await?;
    assert_eq!(
        names(
            listed_v1
                .iter()
                .map(|c| c.metadata.name.clone().unwrap_or_default())
                .collect()
        ),
        ["c", "d"]
    );
    assert_eq!(
        listed_v2
            .items
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some("c"))
            .map(|c| c.spec.lines[0].quantity),
        Some(3)
    );

    // Watch at the non-storage version sees a v2 update, converted.
    let rv = old
        .get("d")
        .await?
        .metadata
        .resource_version
        .unwrap_or_default();
    let mut watch = old
        .watch(&WatchParams::default().fields("metadata.name=d"), &rv)
        .await?
        .boxed();
    let mut d2 = new.get("d").await?;
    d2.spec.lines.push(v2::Line {
        sku: "y".into(),
        quantity: 5,
    });
    new.replace("d", &PostParams::default(), &d2).await?;
    let event = tokio::time::timeout(WAIT, watch.try_next())
        .await
        .context("no watch event")??
        .context("watch ended")?;
    match event {
        WatchEvent::Modified(c) => assert_eq!(c.spec.items, ["x", "y"]),
        other => anyhow::bail!("unexpected event {other:?}"),
    }

    // Each version validates with its own schema (v2: quantity >= 1).
    let mut bad = new.get("d").await?;
    bad.spec.lines[0].quantity = 0;
    let refused = new.replace("d", &PostParams::default(), &bad).await;
    match refused {
        Err(kubegen::Error::Api(e)) => {
            assert_eq!(e.code, 422, "{e:?}");
            assert!(
                e.message.contains("spec.lines[0].quantity"),
                "{}",
                e.message
            );
        }
        other => anyhow::bail!("a quantity of 0 was accepted: {other:?}"),
    }

    // A rotated certificate (same CA) is served without a restart.
    let before = https_get(addr, "/convert", None).await?.certificate;
    ca.issue(certs.path(), &["127.0.0.1", "localhost"])?;
    let rotated = std::fs::read_to_string(certs.path().join("tls.crt"))?;
    let rotated_der = pem_der(&rotated)?;
    ensure!(
        rotated_der != before,
        "the issued certificate did not change"
    );
    eventually(WAIT, "the rotated certificate to be served", || async {
        let now = https_get(addr, "/convert", None).await?.certificate;
        Ok((now == rotated_der).then_some(()))
    })
    .await?;
    assert_eq!(old.get("c").await?.spec.items, ["a", "b"]);

    // The webhook down: the apiserver fails reads at the other version…
    running.shut().await?;
    let failed = old.get("c").await;
    match failed {
        Err(kubegen::Error::Api(e)) => {
            assert!(e.code >= 500, "{e:?}");
            assert!(e.message.contains("conversion webhook"), "{}", e.message);
        }
        other => anyhow::bail!("read at v1 with the webhook down: {other:?}"),
    }
    // …and once it is back nothing is lost.
    let running = serve_at(addr, certs.path(), |s| s.conversion(converter())).await?;
    let again = eventually(WAIT, "reads at v1 after the webhook is back", || async {
        Ok(old.get("c").await.ok())
    })
    .await?;
    assert_eq!(again.spec.items, ["a", "b"]);
    assert_eq!(data(&new.get("c").await?)?, want);
    running.shut().await?;
    Ok(())
}

/// The DER of the first certificate in `pem`.
fn pem_der(pem: &str) -> Result<Vec<u8>> {
    let body: String = pem
        .lines()
        .skip_while(|l| !l.starts_with("-----BEGIN CERTIFICATE"))
        .skip(1)
        .take_while(|l| !l.starts_with("-----END"))
        .collect();
    let bytes: k8s_openapi::ByteString = serde_json::from_value(json!(body))?;
    Ok(bytes.0)
}

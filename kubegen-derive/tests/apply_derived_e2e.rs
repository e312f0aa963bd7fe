//! `#[kubegen(apply)]` configurations on the real control plane: two
//! managers apply parts of one custom resource through the typed client;
//! `extract` reads back exactly what each applied (list-map items by key,
//! status through the status subresource); a field both set is a conflict
//! naming the other manager and the field, and `force` takes it over; an
//! item left out of a manager's next apply is removed; `is_applied` holds
//! once applied.
//!
//! Run with `cargo test -p kubegen-derive --test apply_derived_e2e`.

#![allow(missing_docs)]

use anyhow::{Result, ensure};
use kubegen::apply::{ApplyOptions, is_applied, is_status_applied};
use kubegen::{CustomResource, KubeSchema, ResourceClient};
use kubegen_testenv::{TestEnv, install_crd};
use serde::{Deserialize, Serialize};

/// A shop.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "apply-derived.example.com",
    version = "v1",
    kind = "Store",
    namespaced,
    status = "StoreStatus",
    apply
)]
#[serde(rename_all = "camelCase")]
pub struct StoreSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    pub routes: Vec<Route>,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(apply)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_prefix: Option<String>,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kubegen(apply)]
#[serde(rename_all = "camelCase")]
pub struct StoreStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,
}

fn route(name: &str, prefix: &str) -> RouteApply {
    RouteApply::default()
        .with_name(name)
        .with_path_prefix(prefix)
}

#[tokio::test]
async fn two_managers_apply_extract_conflict_and_remove() -> Result<()> {
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    install_crd(&client, &Store::crd()?).await?;
    let ns = env.namespace("apply-derived").await?;
    let stores = ResourceClient::<Store>::namespaced(client, &ns);
    let (a, b) = (ApplyOptions::new("a"), ApplyOptions::new("b"));

    let mine = StoreApply::new("web", &ns).with_spec(
        StoreSpecApply::default()
            .with_image("nginx:1")
            .with_routes([route("api", "/api")]),
    );
    let theirs = StoreApply::new("web", &ns).with_spec(
        StoreSpecApply::default()
            .with_replicas(2)
            .with_routes([route("shop", "/shop")]),
    );
    stores.apply(&mine, &a).await?;
    let stored = stores.apply(&theirs, &b).await?;
    let routes: Vec<&str> = stored.spec.routes.iter().map(|r| r.name.as_str()).collect();
    ensure!(
        routes == ["api", "shop"],
        "routes merged by name: {routes:?}"
    );
    ensure!(StoreApply::extract(&stored, "a")? == mine, "a's fields");
    ensure!(StoreApply::extract(&stored, "b")? == theirs, "b's fields");
    ensure!(is_applied(&stored, &mine, &a)?, "a is applied");

    // b sets a's image: a conflict naming a and the field, then forced.
    let takeover =
        StoreApply::new("web", &ns).with_spec(StoreSpecApply::default().with_image("nginx:2"));
    let err = stores.apply(&takeover, &b).await.unwrap_err();
    let conflicts = err.apply_conflicts();
    ensure!(
        conflicts.len() == 1 && conflicts[0].manager == "a" && conflicts[0].field == ".spec.image",
        "{conflicts:?}"
    );
    let stored = stores.apply(&takeover, &b.clone().force()).await?;
    ensure!(stored.spec.image.as_deref() == Some("nginx:2"));
    let a_now = StoreApply::extract(&stored, "a")?;
    ensure!(
        a_now.spec.as_ref().and_then(|s| s.image.as_ref()).is_none(),
        "a lost the image: {a_now:?}"
    );
    // b no longer applies its route or replicas: both are removed.
    ensure!(
        stored.spec.routes.iter().all(|r| r.name != "shop") && stored.spec.replicas.is_none(),
        "b's earlier fields are gone: {:?}",
        stored.spec
    );

    // Status through the status subresource.
    let status =
        StoreApply::new("web", &ns).with_status(StoreStatusApply::default().with_ready_replicas(1));
    let stored = stores.apply_status(&status, &a).await?;
    ensure!(stored.status.as_ref().and_then(|s| s.ready_replicas) == Some(1));
    ensure!(StoreApply::extract_status(&stored, "a")? == status);
    ensure!(is_status_applied(&stored, &status, &a)?);
    Ok(())
}

//! Storage version migration against a real control plane, checked in etcd:
//! a CRD with versions v1 and v2 (same schema) stores its objects at v1,
//! its storage version is switched to v2, and the migration must leave
//! every object encoded at v2 in etcd and `status.storedVersions` at
//! exactly `["v2"]` — without overwriting other writers, resumably, and
//! never trimming `storedVersions` when the CRD changed during the run.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kubegen::core::{ApiResource, GroupVersionKind};
use kubegen::storage_migration::{ErrorKind, Position, StorageMigration};
use kubegen_testenv::{TestEnv, eventually};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);
const PLURAL: &str = "carts";
const KIND: &str = "Cart";

/// The CRD `carts.<group>`: v1 and v2 served with the same schema, v1 the
/// storage version.
fn cart_crd(group: &str) -> Result<CustomResourceDefinition> {
    let schema = json!({ "openAPIV3Schema": {
        "type": "object",
        "properties": {
            "spec": { "type": "object", "x-kubernetes-preserve-unknown-fields": true },
        },
    }});
    Ok(serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": { "name": format!("{PLURAL}.{group}") },
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": { "plural": PLURAL, "singular": "cart", "kind": KIND },
            "versions": [
                { "name": "v1", "served": true, "storage": true, "schema": schema },
                { "name": "v2", "served": true, "storage": false, "schema": schema },
            ],
        },
    }))?)
}

fn resource(group: &str, version: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, KIND), PLURAL)
}

/// A cart whose spec holds values a typed or `Value` round trip could
/// alter: floats, Unicode, escapes, unknown nested fields.
fn cart(group: &str, name: &str, size: usize) -> DynamicObject {
    DynamicObject::new(name, &resource(group, "v1")).data(json!({
        "spec": {
            "size": size,
            "price": 0.30000000000000004,
            "ratio": 1e-7,
            "note": "ünïcödé \"quoted\" \\ {braces} [brackets]",
            "extra": { "nested": { "list": [1, 2.5, null, true, {}] } },
        },
    }))
}

/// The CRD's `status.storedVersions`.
async fn stored_versions(client: &kubegen::Client, crd: &str) -> Result<Vec<String>> {
    Ok(Api::<CustomResourceDefinition>::all(client.clone())
        .get(crd)
        .await?
        .status
        .and_then(|s| s.stored_versions)
        .unwrap_or_default())
}

/// Makes `version` the CRD's storage version (a spec change).
async fn set_storage_version(client: &kubegen::Client, crd: &str, version: &str) -> Result<()> {
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    let mut current = crds.get(crd).await?;
    for v in &mut current.spec.versions {
        v.storage = v.name == version;
    }
    crds.replace(crd, &PostParams::default(), &current).await?;
    Ok(())
}

/// What etcd holds for every cart of the group: key → stored JSON.
async fn etcd_carts(env: &TestEnv, group: &str) -> Result<BTreeMap<String, (Value, i64)>> {
    env.etcd_range(&format!("/registry/{group}/{PLURAL}/"))
        .await?
        .into_iter()
        .map(|entry| Ok((entry.key.clone(), (entry.json()?, entry.mod_revision))))
        .collect()
}

/// The stored `apiVersion` of every cart of the group, by etcd key.
async fn etcd_versions(env: &TestEnv, group: &str) -> Result<BTreeMap<String, String>> {
    Ok(etcd_carts(env, group)
        .await?
        .into_iter()
        .map(|(key, (value, _))| (key, value["apiVersion"].as_str().unwrap_or("").to_string()))
        .collect())
}

/// A CRD with `count` carts stored at v1 in two namespaces (`…-a-…` before
/// `…-b-…` in key order), then switched to storage version v2.
struct Fixture {
    client: kubegen::Client,
    group: String,
    crd: String,
    /// (namespace, name) of every cart, in etcd key order.
    carts: Vec<(String, String)>,
}

impl Fixture {
    async fn new(env: &TestEnv, test: &str, count: usize) -> Result<Fixture> {
        let client = env.client().await?;
        let group = format!("{test}.migration.kubegen.io");
        let crd = format!("{PLURAL}.{group}");
        kubegen_testenv::install_crd(&client, &cart_crd(&group)?).await?;
        let namespaces = [
            env.namespace(&format!("{test}-a")).await?,
            env.namespace(&format!("{test}-b")).await?,
        ];
        let v1 = resource(&group, "v1");
        let first = Api::<DynamicObject>::namespaced_with(client.clone(), &namespaces[0], &v1);
        eventually(WAIT, "the carts endpoint", || async {
            Ok(first.list(&Default::default()).await.ok().map(|_| ()))
        })
        .await?;
        let mut carts = Vec::new();
        for i in 0..count {
            let ns = &namespaces[usize::from(i >= count / 2)];
            let name = format!("cart-{i:03}");
            Api::<DynamicObject>::namespaced_with(client.clone(), ns, &v1)
                .create(&PostParams::default(), &cart(&group, &name, i))
                .await?;
            carts.push((ns.clone(), name));
        }
        carts.sort();
        assert_eq!(stored_versions(&client, &crd).await?, ["v1"]);

        set_storage_version(&client, &crd, "v2").await?;
        // Switching the storage version rewrites nothing: every object is
        // still encoded at v1 in etcd, and v1 stays in storedVersions.
        let versions = etcd_versions(env, &group).await?;
        assert_eq!(versions.len(), count, "{versions:?}");
        let v1_api = format!("{group}/v1");
        assert!(
            versions.values().all(|v| *v == v1_api),
            "before the migration: {versions:?}"
        );
        assert_eq!(stored_versions(&client, &crd).await?, ["v1", "v2"]);
        Ok(Fixture {
            client,
            group,
            crd,
            carts,
        })
    }

    fn api(&self, ns: &str, version: &str) -> Api<DynamicObject> {
        Api::namespaced_with(self.client.clone(), ns, &resource(&self.group, version))
    }

    fn etcd_key(&self, (ns, name): &(String, String)) -> String {
        format!("/registry/{}/{PLURAL}/{ns}/{name}", self.group)
    }

    fn migration(&self) -> StorageMigration {
        StorageMigration::new(self.client.clone(), &self.crd).page_size(7)
    }

    /// Every cart is stored at `version` in etcd.
    async fn assert_all_stored_at(&self, env: &TestEnv, version: &str) -> Result<()> {
        let versions = etcd_versions(env, &self.group).await?;
        let expected = format!("{}/{version}", self.group);
        let wrong: Vec<_> = versions.iter().filter(|(_, v)| **v != expected).collect();
        ensure!(
            wrong.is_empty(),
            "not stored at {expected} in etcd: {wrong:?}"
        );
        Ok(())
    }
}

#[tokio::test]
async fn every_object_is_stored_at_the_new_version_and_stored_versions_trimmed() -> Result<()> {
    let env = TestEnv::shared().await?;
    let fixture = Fixture::new(env, "sm-all", 25).await?;
    let before = etcd_carts(env, &fixture.group).await?;

    // v1 cannot be dropped from the CRD while objects may be stored at it.
    let crds = Api::<CustomResourceDefinition>::all(fixture.client.clone());
    let drop_v1 = json!({ "spec": { "versions": [
        { "name": "v2", "served": true, "storage": true,
          "schema": cart_crd(&fixture.group)?.spec.versions[1].schema },
    ]}});
    let refused = crds
        .patch(
            &fixture.crd,
            &PatchParams::default(),
            &Patch::Merge(drop_v1.clone()),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, kubegen::Error::Api(s) if s.code == 422),
        "{refused}"
    );

    let began = Instant::now();
    let report = fixture.migration().run().await?;
    let took = began.elapsed();
    eprintln!(
        "{report}\n25 objects in {took:.2?}: {:.0} objects/s",
        25.0 / took.as_secs_f64()
    );

    let c = report.counters;
    assert_eq!(
        (c.seen, c.rewritten, c.unchanged, c.deleted, c.pages),
        (25, 25, 0, 0, 4)
    );
    assert_eq!((c.conflicts, c.restarts), (0, 0));
    assert_eq!(report.storage_version, "v2");
    assert_eq!(report.stored_versions_before, ["v1", "v2"]);
    assert_eq!(report.stored_versions_after, ["v2"]);
    assert!(report.trimmed());
    assert_eq!(
        stored_versions(&fixture.client, &fixture.crd).await?,
        ["v2"]
    );

    // In etcd: every object at v2, and otherwise exactly what was stored.
    fixture.assert_all_stored_at(env, "v2").await?;
    let after = etcd_carts(env, &fixture.group).await?;
    assert_eq!(after.len(), before.len());
    for (key, (mut old, old_revision)) in before {
        let (new, new_revision) = &after[&key];
        assert!(*new_revision > old_revision, "{key} was written");
        old["apiVersion"] = json!(format!("{}/v2", fixture.group));
        assert_eq!(*new, old, "{key}: only the apiVersion changed");
    }

    // Again: nothing to rewrite, and nothing is written to etcd.
    let again = fixture.migration().run().await?;
    let c = again.counters;
    assert_eq!(
        (c.seen, c.rewritten, c.unchanged, c.deleted, c.pages),
        (25, 0, 25, 0, 4)
    );
    assert_eq!(again.stored_versions_before, ["v2"]);
    assert_eq!(again.stored_versions_after, ["v2"]);
    assert!(!again.trimmed());
    let untouched = etcd_carts(env, &fixture.group).await?;
    assert_eq!(untouched, after, "the second run wrote nothing to etcd");

    // Now v1 can go.
    crds.patch(
        &fixture.crd,
        &PatchParams::default(),
        &Patch::Merge(drop_v1),
    )
    .await?;
    Ok(())
}

#[tokio::test]
async fn another_writers_change_survives_and_deleted_objects_are_skipped() -> Result<()> {
    let env = TestEnv::shared().await?;
    let fixture = Fixture::new(env, "sm-conflict", 25).await?;
    let mut migration = fixture.migration().start().await?;
    assert!(migration.next_page().await?);
    assert_eq!(migration.counters().seen, 7);

    // Between the first page and the others, another writer changes the
    // last cart and deletes the one before it. Later pages are served from
    // the snapshot of the first list, so the migration still sees their
    // old copies: its write of the changed cart conflicts.
    let changed = fixture.carts[24].clone();
    let deleted = fixture.carts[23].clone();
    let writer = fixture.api(&changed.0, "v1");
    let mut theirs = writer.get(&changed.1).await?;
    theirs.data["spec"]["owner"] = json!("the other writer");
    theirs
        .metadata
        .labels
        .get_or_insert_default()
        .insert("edited".into(), "yes".into());
    let theirs = writer
        .replace(&changed.1, &PostParams::default(), &theirs)
        .await?;
    fixture
        .api(&deleted.0, "v1")
        .delete(&deleted.1, &DeleteParams::default())
        .await?;

    let report = migration.finish().await?;
    let c = report.counters;
    assert_eq!(c.conflicts, 1, "{report}");
    assert_eq!(c.deleted, 1, "{report}");
    assert_eq!(c.seen, 25);
    // The changed cart was re-read; the other writer had already stored
    // it at v2, so its rewrite was a no-op.
    assert_eq!((c.rewritten, c.unchanged), (23, 1), "{report}");
    assert_eq!(c.settled(), c.seen);
    assert_eq!(report.stored_versions_after, ["v2"]);

    let now = fixture.api(&changed.0, "v2").get(&changed.1).await?;
    assert_eq!(now.data["spec"]["owner"], "the other writer");
    assert_eq!(now.metadata.labels.unwrap_or_default()["edited"], "yes");
    assert_eq!(
        now.metadata.resource_version, theirs.metadata.resource_version,
        "nothing overwrote the other writer's version"
    );
    fixture.assert_all_stored_at(env, "v2").await?;
    let stored = etcd_carts(env, &fixture.group).await?;
    assert_eq!(
        stored[&fixture.etcd_key(&changed)].0["spec"]["owner"],
        "the other writer"
    );
    assert!(!stored.contains_key(&fixture.etcd_key(&deleted)));
    Ok(())
}

#[tokio::test]
async fn a_migration_resumes_from_its_checkpoint() -> Result<()> {
    let env = TestEnv::shared().await?;
    let fixture = Fixture::new(env, "sm-resume", 25).await?;
    let mut migration = fixture.migration().start().await?;
    assert!(migration.next_page().await?);
    assert!(migration.next_page().await?);
    // Kept as JSON, as a job would keep it between runs.
    let saved = serde_json::to_string(&migration.checkpoint())?;
    drop(migration);

    let checkpoint: kubegen::storage_migration::Checkpoint = serde_json::from_str(&saved)?;
    assert!(
        matches!(checkpoint.position, Position::Continue(_)),
        "{saved}"
    );
    assert_eq!(
        (checkpoint.counters.pages, checkpoint.counters.seen),
        (2, 14)
    );
    let stored = etcd_versions(env, &fixture.group).await?;
    let at_v2 = stored
        .values()
        .filter(|v| **v == format!("{}/v2", fixture.group))
        .count();
    assert_eq!(at_v2, 14, "the first two pages are migrated, no more");

    let report = fixture.migration().resume_from(checkpoint).run().await?;
    // The totals carry on: 14 objects from the checkpoint, 11 listed now.
    // Starting over would have listed all 25 again (39 seen, 6 pages).
    let c = report.counters;
    assert_eq!(
        (c.seen, c.rewritten, c.unchanged, c.pages),
        (25, 25, 0, 4),
        "{report}"
    );
    assert_eq!(report.stored_versions_after, ["v2"]);
    fixture.assert_all_stored_at(env, "v2").await?;
    assert_eq!(
        stored_versions(&fixture.client, &fixture.crd).await?,
        ["v2"]
    );
    Ok(())
}

/// RBAC for `user`: the documented permissions of a migration, or only
/// reading plus `update` in one namespace.
async fn grant(fixture: &Fixture, user: &str, update_only_in: Option<&str>) -> Result<()> {
    let cluster_roles = Api::<ClusterRole>::all(fixture.client.clone());
    let cart_verbs: &[&str] = if update_only_in.is_some() {
        &["list", "get"]
    } else {
        &["list", "get", "update"]
    };
    let role: ClusterRole = serde_json::from_value(json!({
        "metadata": { "name": user },
        "rules": [
            { "apiGroups": ["apiextensions.k8s.io"],
              "resources": ["customresourcedefinitions"],
              "resourceNames": [fixture.crd], "verbs": ["get"] },
            { "apiGroups": ["apiextensions.k8s.io"],
              "resources": ["customresourcedefinitions/status"],
              "resourceNames": [fixture.crd], "verbs": ["patch"] },
            { "apiGroups": [fixture.group], "resources": [PLURAL], "verbs": cart_verbs },
        ],
    }))?;
    cluster_roles.create(&PostParams::default(), &role).await?;
    let binding: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": { "name": user },
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user },
        "subjects": [{ "apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user }],
    }))?;
    Api::<ClusterRoleBinding>::all(fixture.client.clone())
        .create(&PostParams::default(), &binding)
        .await?;
    if let Some(ns) = update_only_in {
        let role: Role = serde_json::from_value(json!({
            "metadata": { "name": user },
            "rules": [{ "apiGroups": [fixture.group], "resources": [PLURAL], "verbs": ["update"] }],
        }))?;
        Api::<Role>::namespaced(fixture.client.clone(), ns)
            .create(&PostParams::default(), &role)
            .await?;
        let binding: RoleBinding = serde_json::from_value(json!({
            "metadata": { "name": user },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": user },
            "subjects": [{ "apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user }],
        }))?;
        Api::<RoleBinding>::namespaced(fixture.client.clone(), ns)
            .create(&PostParams::default(), &binding)
            .await?;
    }
    Ok(())
}

#[tokio::test]
async fn a_failed_run_resumes_from_the_checkpoint_in_its_error() -> Result<()> {
    let env = TestEnv::shared().await?;
    let fixture = Fixture::new(env, "sm-failed", 24).await?;
    // Pages of 5: the first 12 carts are in namespace a; page 3 (carts
    // 10..15) reaches namespace b, where this user may not update.
    let first_ns = fixture.carts[0].0.clone();
    let partial = format!("sm-partial-{}", std::process::id());
    let full = format!("sm-full-{}", std::process::id());
    grant(&fixture, &partial, Some(&first_ns)).await?;
    grant(&fixture, &full, None).await?;
    // RBAC takes effect through the authorizer's cache: wait until the
    // partial user can list.
    let partial_client = env.client_for_user(&partial, None).await?;
    let as_partial =
        Api::<DynamicObject>::all_with(partial_client.clone(), &resource(&fixture.group, "v2"));
    eventually(WAIT, "the RBAC grant", || async {
        Ok(as_partial.list(&Default::default()).await.ok().map(|_| ()))
    })
    .await?;

    let error = StorageMigration::new(partial_client, &fixture.crd)
        .page_size(5)
        .run()
        .await
        .unwrap_err();
    let ErrorKind::Rewrite { object, source } = error.kind() else {
        panic!("expected a failed rewrite, got {error}");
    };
    assert!(
        matches!(source, kubegen::Error::Api(s) if s.code == 403),
        "{error}"
    );
    assert!(object.contains(&fixture.carts[12].0), "{object}");
    let checkpoint = error.checkpoint().context("the error has a checkpoint")?;
    assert!(matches!(checkpoint.position, Position::Continue(_)));
    assert_eq!(
        (checkpoint.counters.pages, checkpoint.counters.seen),
        (2, 10),
        "the checkpoint stands before the failed page"
    );
    assert_eq!(
        stored_versions(&fixture.client, &fixture.crd).await?,
        ["v1", "v2"],
        "nothing trimmed"
    );

    // Resumed with exactly the documented permissions.
    let full_client = env.client_for_user(&full, None).await?;
    let report = eventually(WAIT, "the resumed migration", || {
        let migration = StorageMigration::new(full_client.clone(), &fixture.crd)
            .page_size(5)
            .resume_from(checkpoint.clone());
        async move {
            match migration.run().await {
                Ok(report) => Ok(Some(report)),
                // The grant may not be effective yet.
                Err(e) if matches!(e.kind(), ErrorKind::ReadCrd { .. }) => Ok(None),
                Err(e) => Err(e.into()),
            }
        }
    })
    .await?;
    // The failed page is processed again: its first two carts (namespace
    // a) were rewritten before the failure and are unchanged now.
    let c = report.counters;
    assert_eq!(
        (c.seen, c.rewritten, c.unchanged, c.pages),
        (24, 22, 2, 5),
        "{report}"
    );
    assert_eq!(report.stored_versions_after, ["v2"]);
    fixture.assert_all_stored_at(env, "v2").await?;
    Ok(())
}

#[tokio::test]
async fn stored_versions_stay_when_the_storage_version_changes_during_the_run() -> Result<()> {
    let env = TestEnv::shared().await?;
    let fixture = Fixture::new(env, "sm-switch", 25).await?;
    let mut migration = fixture.migration().start().await?;
    assert_eq!(migration.storage_version(), "v2");
    assert!(migration.next_page().await?);

    // Back to v1 mid-run: objects written from now on are stored at v1.
    set_storage_version(&fixture.client, &fixture.crd, "v1").await?;
    let error = migration.finish().await.unwrap_err();
    assert!(
        matches!(
            error.kind(),
            ErrorKind::StorageVersionChanged { from, to, .. } if from == "v2" && to == "v1"
        ),
        "{error}"
    );
    assert_eq!(
        stored_versions(&fixture.client, &fixture.crd).await?,
        ["v1", "v2"],
        "storedVersions untouched"
    );

    // Resuming from that error's checkpoint starts over at the new storage
    // version (the checkpoint is for v2) and finishes the job.
    let checkpoint = error.into_checkpoint().context("a checkpoint")?;
    assert_eq!(checkpoint.storage_version, "v2");
    let report = fixture.migration().resume_from(checkpoint).run().await?;
    assert_eq!(report.storage_version, "v1");
    assert_eq!((report.counters.seen, report.counters.pages), (25, 4));
    assert_eq!(report.stored_versions_after, ["v1"]);
    fixture.assert_all_stored_at(env, "v1").await?;
    Ok(())
}

#[tokio::test]
async fn the_stored_versions_update_is_conditional_on_the_crd_it_checked() -> Result<()> {
    let env = TestEnv::shared().await?;
    let fixture = Fixture::new(env, "sm-precondition", 10).await?;
    let crds = Api::<CustomResourceDefinition>::all(fixture.client.clone());

    // A spec change that keeps the storage version (a printer column):
    // storedVersions stays, the storage version might have gone and come
    // back.
    let mut migration = fixture.migration().start().await?;
    assert!(migration.next_page().await?);
    let mut crd = crds.get(&fixture.crd).await?;
    crd.spec.versions[1].additional_printer_columns = Some(vec![serde_json::from_value(
        json!({ "name": "Size", "type": "integer", "jsonPath": ".spec.size" }),
    )?]);
    crds.replace(&fixture.crd, &PostParams::default(), &crd)
        .await?;
    let error = migration.finish().await.unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::CrdChanged { .. }),
        "{error}"
    );
    assert_eq!(
        stored_versions(&fixture.client, &fixture.crd).await?,
        ["v1", "v2"]
    );

    // A metadata-only change (a label): the update, conditional on the
    // CRD as the run read it, conflicts; the CRD is read again, found
    // unchanged in what matters, and the update retried.
    let mut migration = fixture.migration().start().await?;
    assert!(migration.next_page().await?);
    crds.patch(
        &fixture.crd,
        &PatchParams::default(),
        &Patch::Merge(json!({ "metadata": { "labels": { "touched": "yes" } } })),
    )
    .await?;
    let report = migration.finish().await?;
    assert!(report.crd_conflicts >= 1, "{report}");
    assert_eq!(report.stored_versions_after, ["v2"]);
    assert_eq!(
        stored_versions(&fixture.client, &fixture.crd).await?,
        ["v2"]
    );
    fixture.assert_all_stored_at(env, "v2").await?;
    Ok(())
}

#[tokio::test]
async fn an_expired_continue_token_restarts_the_listing() -> Result<()> {
    // A private plane: etcd is compacted and the apiserver restarted.
    let env = TestEnv::start().await?;
    let fixture = Fixture::new(&env, "sm-expired", 20).await?;
    let mut migration = fixture.migration().start().await?;
    assert!(migration.next_page().await?);
    let checkpoint = migration.checkpoint();
    drop(migration);

    // The continue token names the revision of the first list. Compact
    // etcd past it and restart the apiserver, whose fresh watch cache has
    // no snapshot of that revision: the token has expired.
    let revision = env.etcd_compact().await?;
    env.stop_apiserver();
    env.start_apiserver().await?;
    let client = env.client().await?;

    let report = StorageMigration::new(client.clone(), &fixture.crd)
        .page_size(7)
        .resume_from(checkpoint)
        .run()
        .await?;
    let c = report.counters;
    assert_eq!(c.restarts, 1, "{report} (etcd compacted at {revision})");
    // 7 from the first page, then all 20 again from the beginning; those
    // of the first page were already at v2.
    assert_eq!(
        (c.seen, c.rewritten, c.unchanged, c.pages),
        (27, 20, 7, 4),
        "{report}"
    );
    assert_eq!(report.stored_versions_after, ["v2"]);
    fixture.assert_all_stored_at(&env, "v2").await?;
    Ok(())
}

//! Controller helpers against a real API server: the finalizer flow and its
//! guarded patches, conflict retries, controller owner references (with the
//! real garbage collector), server-side apply with field managers, and
//! condition semantics on a custom resource's status.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kubegen::api::{
    Api, DeleteParams, DynamicObject, ObjectMeta, Patch, PatchParams, PostParams, PropagationPolicy,
};
use kubegen::api_errors::IsConflict;
use kubegen::client::{apply, retry_on_conflict};
use kubegen::conditions::{ConditionStatus, find_condition, new_condition, set_condition_at};
use kubegen::core::{ApiResource, GroupVersionKind};
use kubegen::finalizer::{
    FinalizerEvent, FinalizerOutcome, add_finalizer, finalizer, has_finalizer, remove_finalizer,
};
use kubegen::ownership::{controller_of, is_controlled_by, set_controller_reference};
use kubegen_testenv::{TestEnv, eventually};
use serde_json::json;

const FINALIZER: &str = "kubegen.io/cleanup";

fn named(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}

#[tokio::test]
async fn finalizer_flow_applies_then_cleans_up_on_delete() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("finalizer").await?;
    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let created = api
        .create(&PostParams::default(), &named("guarded"))
        .await?;
    let applied = Arc::new(AtomicUsize::new(0));
    let cleaned = Arc::new(AtomicUsize::new(0));

    let reconcile = |obj: ConfigMap| {
        let (applied, cleaned, api) = (applied.clone(), cleaned.clone(), api.clone());
        async move {
            finalizer(&api, FINALIZER, Arc::new(obj), |event| async move {
                match event {
                    FinalizerEvent::Apply(obj) => {
                        assert!(
                            has_finalizer(obj.as_ref(), FINALIZER),
                            "applied before the finalizer was set"
                        );
                        applied.fetch_add(1, Ordering::SeqCst);
                    }
                    FinalizerEvent::Cleanup(_) => {
                        cleaned.fetch_add(1, Ordering::SeqCst);
                    }
                }
                Ok::<_, std::io::Error>("done")
            })
            .await
        }
    };

    // First reconcile adds the finalizer, then applies.
    assert_eq!(reconcile(created).await?, FinalizerOutcome::Applied("done"));
    let stored = api.get("guarded").await?;
    assert_eq!(
        stored.metadata.finalizers,
        Some(vec![FINALIZER.to_string()])
    );
    assert_eq!(reconcile(stored).await?, FinalizerOutcome::Applied("done"));
    assert_eq!(applied.load(Ordering::SeqCst), 2);

    // Deleting leaves the object in place until cleanup removed the finalizer.
    api.delete("guarded", &DeleteParams::default()).await?;
    let deleting = api.get("guarded").await?;
    assert!(deleting.metadata.deletion_timestamp.is_some());
    assert_eq!(cleaned.load(Ordering::SeqCst), 0);
    assert_eq!(
        reconcile(deleting.clone()).await?,
        FinalizerOutcome::CleanedUp("done")
    );
    assert_eq!(cleaned.load(Ordering::SeqCst), 1);
    eventually(Duration::from_secs(30), "the object to be gone", || async {
        Ok(api.get_opt("guarded").await?.is_none().then_some(()))
    })
    .await?;
    // A stale copy of the deleted object: nothing left to do.
    let mut stale = deleting;
    stale.metadata.finalizers = None;
    assert_eq!(reconcile(stale).await?, FinalizerOutcome::Skipped);
    assert_eq!(cleaned.load(Ordering::SeqCst), 1);
    Ok(())
}

#[tokio::test]
async fn guarded_patches_conflict_instead_of_clobbering() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("guarded").await?;
    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let mut with_other = named("cm");
    with_other.metadata.finalizers = Some(vec!["other.io/keep".into()]);
    let stale = api.create(&PostParams::default(), &with_other).await?;

    // Another writer changes the object after `stale` was read.
    let mut fresh = stale.clone();
    fresh.data = Some(BTreeMap::from([("k".into(), "v".into())]));
    api.replace("cm", &PostParams::default(), &fresh).await?;

    let error = add_finalizer(&api, &stale, FINALIZER).await.unwrap_err();
    assert!(error.is_conflict(), "{error:?}");
    // Re-read and retry: succeeds, keeping the other writer's change.
    let added = retry_on_conflict(|| async {
        let current = api.get("cm").await?;
        add_finalizer(&api, &current, FINALIZER).await
    })
    .await?;
    assert_eq!(
        added.metadata.finalizers,
        Some(vec!["other.io/keep".to_string(), FINALIZER.to_string()])
    );
    assert_eq!(
        added
            .data
            .as_ref()
            .and_then(|d| d.get("k"))
            .map(String::as_str),
        Some("v")
    );

    // Removing through a stale copy conflicts too; a fresh one works.
    let error = remove_finalizer(&api, &stale, "other.io/keep")
        .await
        .unwrap_err();
    assert!(error.is_conflict(), "{error:?}");
    let removed = remove_finalizer(&api, &added, "other.io/keep").await?;
    assert_eq!(
        removed.metadata.finalizers,
        Some(vec![FINALIZER.to_string()])
    );
    let cleared = remove_finalizer(&api, &removed, FINALIZER).await?;
    assert_eq!(
        cleared.metadata.finalizers.unwrap_or_default(),
        Vec::<String>::new()
    );

    // retry_on_conflict re-runs a read-modify-write until it lands.
    let attempts = AtomicUsize::new(0);
    let updated = retry_on_conflict(|| async {
        let n = attempts.fetch_add(1, Ordering::SeqCst);
        let mut current = api.get("cm").await?;
        if n == 0 {
            // Simulate a concurrent writer between our read and write.
            let mut other = current.clone();
            other
                .data
                .get_or_insert_default()
                .insert("racer".into(), "1".into());
            api.replace("cm", &PostParams::default(), &other).await?;
        }
        current
            .data
            .get_or_insert_default()
            .insert("mine".into(), n.to_string());
        api.replace("cm", &PostParams::default(), &current).await
    })
    .await?;
    assert_eq!(attempts.load(Ordering::SeqCst), 2);
    let data = updated.data.unwrap_or_default();
    assert_eq!(data.get("racer").map(String::as_str), Some("1"));
    assert_eq!(data.get("mine").map(String::as_str), Some("1"));
    Ok(())
}

#[tokio::test]
async fn controller_references_drive_garbage_collection() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("owners").await?;
    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let owner = api.create(&PostParams::default(), &named("owner")).await?;
    let rival = api.create(&PostParams::default(), &named("rival")).await?;
    let mut child = named("child");
    child.metadata.namespace = Some(ns.clone());
    set_controller_reference(&owner, &mut child.metadata)?;
    assert!(set_controller_reference(&rival, &mut child.metadata).is_err());
    let child = api.create(&PostParams::default(), &child).await?;
    assert!(is_controlled_by(&child, &owner));
    assert!(!is_controlled_by(&child, &rival));
    let reference = controller_of(&child).context("controller reference")?;
    assert_eq!(reference.block_owner_deletion, Some(true));

    // The real garbage collector deletes the child with its owner.
    api.delete(
        "owner",
        &DeleteParams {
            propagation_policy: Some(PropagationPolicy::Background),
            ..DeleteParams::default()
        },
    )
    .await?;
    eventually(
        Duration::from_secs(60),
        "the child to be collected",
        || async { Ok(api.get_opt("child").await?.is_none().then_some(())) },
    )
    .await?;
    assert!(api.get_opt("rival").await?.is_some());
    Ok(())
}

#[tokio::test]
async fn server_side_apply_respects_field_managers() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("apply").await?;
    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let mut desired = named("applied");
    desired.data = Some(BTreeMap::from([("owned".into(), "by-a".into())]));
    let stored = apply(&api, "applied", &desired, "manager-a", false).await?;
    assert_eq!(
        stored
            .data
            .as_ref()
            .and_then(|d| d.get("owned"))
            .map(String::as_str),
        Some("by-a")
    );

    // Applying the stored object (with managedFields) works: they are dropped.
    let again = apply(&api, "applied", &stored, "manager-a", false).await?;
    assert_eq!(
        again.metadata.resource_version,
        stored.metadata.resource_version
    );

    let mut rival = named("applied");
    rival.data = Some(BTreeMap::from([("owned".into(), "by-b".into())]));
    let error = apply(&api, "applied", &rival, "manager-b", false)
        .await
        .unwrap_err();
    assert!(error.is_conflict(), "{error:?}");
    let forced = apply(&api, "applied", &rival, "manager-b", true).await?;
    assert_eq!(
        forced
            .data
            .as_ref()
            .and_then(|d| d.get("owned"))
            .map(String::as_str),
        Some("by-b")
    );
    let managers: Vec<String> = forced
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert!(managers.contains(&"manager-b".to_string()), "{managers:?}");
    Ok(())
}

/// A CRD `widgets.helpers.kubegen.io` with a status subresource.
async fn widget_api(env: &TestEnv, ns: &str) -> Result<Api<DynamicObject>> {
    let client = env.client().await?;
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": { "name": "widgets.helpers.kubegen.io" },
        "spec": {
            "group": "helpers.kubegen.io",
            "scope": "Namespaced",
            "names": { "plural": "widgets", "singular": "widget", "kind": "Widget" },
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "subresources": { "status": {} },
                "schema": { "openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": { "type": "object", "x-kubernetes-preserve-unknown-fields": true },
                        "status": { "type": "object", "properties": {
                            "conditions": { "type": "array", "items": {
                                "type": "object",
                                "required": ["type", "status", "lastTransitionTime", "reason", "message"],
                                "properties": {
                                    "type": { "type": "string" },
                                    "status": { "type": "string", "enum": ["True", "False", "Unknown"] },
                                    "reason": { "type": "string" },
                                    "message": { "type": "string" },
                                    "observedGeneration": { "type": "integer" },
                                    "lastTransitionTime": { "type": "string", "format": "date-time" },
                                },
                            }},
                        }},
                    },
                }},
            }],
        },
    }))?;
    kubegen_testenv::install_crd(&client, &crd).await?;
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("helpers.kubegen.io", "v1", "Widget"),
        "widgets",
    );
    let widgets = Api::<DynamicObject>::namespaced_with(client, ns, &resource);
    // The endpoint may take a moment to serve after Established.
    eventually(Duration::from_secs(30), "the widgets endpoint", || async {
        Ok(widgets.list(&Default::default()).await.ok().map(|_| ()))
    })
    .await?;
    Ok(widgets)
}

fn conditions_of(widget: &DynamicObject) -> Result<Vec<Condition>> {
    let value = widget
        .data
        .pointer("/status/conditions")
        .cloned()
        .unwrap_or(json!([]));
    Ok(serde_json::from_value(value)?)
}

#[tokio::test]
async fn conditions_keep_their_transition_time_on_a_real_status() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("conditions").await?;
    let widgets = widget_api(env, &ns).await?;
    let mut widget = DynamicObject::new(
        "w",
        &ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("helpers.kubegen.io", "v1", "Widget"),
            "widgets",
        ),
    );
    widget.data = json!({ "spec": { "size": 1 } });
    let widget = widgets.create(&PostParams::default(), &widget).await?;
    let generation = widget.metadata.generation;

    // Whole-second times: metav1.Time is stored with second precision.
    let t0 = Timestamp::from_second(Timestamp::now().as_second())?;
    let later = |s: i64| Timestamp::from_second(t0.as_second() + s);
    let write = |conditions: Vec<Condition>| {
        let widgets = widgets.clone();
        async move {
            let patch = json!({ "status": { "conditions": conditions } });
            widgets
                .patch_status("w", &PatchParams::default(), &Patch::Merge(&patch))
                .await
        }
    };

    let mut conditions = conditions_of(&widget)?;
    set_condition_at(
        &mut conditions,
        new_condition(
            "Ready",
            ConditionStatus::False,
            "Creating",
            "starting",
            generation,
        ),
        t0,
    );
    let stored = write(conditions).await?;
    let mut conditions = conditions_of(&stored)?;
    assert_eq!(conditions[0].last_transition_time, Time(t0));

    // Same status reported later with a new message: the time is kept.
    assert!(set_condition_at(
        &mut conditions,
        new_condition(
            "Ready",
            ConditionStatus::False,
            "Creating",
            "still starting",
            generation
        ),
        later(30)?,
    ));
    let stored = write(conditions).await?;
    let mut conditions = conditions_of(&stored)?;
    let ready = find_condition(&conditions, "Ready").context("Ready")?;
    assert_eq!(ready.last_transition_time, Time(t0));
    assert_eq!(ready.message, "still starting");
    assert_eq!(ready.observed_generation, generation);

    // The status flips: the time moves.
    set_condition_at(
        &mut conditions,
        new_condition("Ready", ConditionStatus::True, "Running", "up", generation),
        later(60)?,
    );
    let stored = write(conditions).await?;
    let conditions = conditions_of(&stored)?;
    let ready = find_condition(&conditions, "Ready").context("Ready")?;
    assert_eq!(ready.last_transition_time, Time(later(60)?));
    assert_eq!(ready.status, "True");
    Ok(())
}

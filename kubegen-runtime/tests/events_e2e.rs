//! The event recorder against a real API server: repeats become one
//! `events.k8s.io/v1` Event with a series, distinct events stay distinct,
//! and a silent window starts a new Event.

use std::time::Duration;

use anyhow::{Context, Result};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::events::v1::Event;
use kubegen::api::{Api, ListParams, ObjectMeta, PostParams};
use kubegen::events::{EventRecorder, EventType, object_reference};
use kubegen_testenv::TestEnv;

async fn config_map(api: &Api<ConfigMap>, name: &str) -> Result<ConfigMap> {
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    };
    Ok(api.create(&PostParams::default(), &cm).await?)
}

async fn events_with_reason(api: &Api<Event>, reason: &str) -> Result<Vec<Event>> {
    let mut events: Vec<Event> = api
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some(reason))
        .collect();
    events.sort_by_key(|e| e.event_time.clone());
    Ok(events)
}

fn series_count(event: &Event) -> Option<i32> {
    event.series.as_ref().map(|s| s.count)
}

#[tokio::test]
async fn repeated_events_are_aggregated_into_a_series() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("events").await?;
    let client = env.client().await?;
    let cms = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let web = config_map(&cms, "web").await?;
    let db = config_map(&cms, "db").await?;
    let recorder = EventRecorder::new(client.clone(), "kubegen.io/test-controller", "test-pod-1");
    let regarding = object_reference(&web);
    for _ in 0..5 {
        recorder
            .publish(
                &regarding,
                None,
                EventType::Normal,
                "Synced",
                "Reconcile",
                "synced web",
            )
            .await?;
    }
    let events = Api::<Event>::namespaced(client.clone(), &ns);
    let synced = events_with_reason(&events, "Synced").await?;
    assert_eq!(synced.len(), 1, "{synced:#?}");
    let event = &synced[0];
    assert_eq!(series_count(event), Some(5));
    let series = event.series.as_ref().context("series")?;
    assert!(Some(&series.last_observed_time) >= event.event_time.as_ref());
    assert_eq!(
        event.reporting_controller.as_deref(),
        Some("kubegen.io/test-controller")
    );
    assert_eq!(event.reporting_instance.as_deref(), Some("test-pod-1"));
    assert_eq!(event.action.as_deref(), Some("Reconcile"));
    assert_eq!(event.type_.as_deref(), Some("Normal"));
    assert_eq!(event.note.as_deref(), Some("synced web"));
    let about = event.regarding.as_ref().context("regarding")?;
    assert_eq!(about.kind.as_deref(), Some("ConfigMap"));
    assert_eq!(about.name.as_deref(), Some("web"));
    assert_eq!(about.uid, web.metadata.uid);

    // The object changing (a new resourceVersion) does not split the series.
    let mut changed = web.clone();
    changed.data = Some([("k".to_string(), "v".to_string())].into());
    let changed = cms.replace("web", &PostParams::default(), &changed).await?;
    recorder
        .publish(
            &object_reference(&changed),
            None,
            EventType::Normal,
            "Synced",
            "Reconcile",
            "synced web",
        )
        .await?;
    let synced = events_with_reason(&events, "Synced").await?;
    assert_eq!(synced.len(), 1);
    assert_eq!(series_count(&synced[0]), Some(6));

    // A different note, type or related object is a different event.
    recorder
        .publish(
            &regarding,
            None,
            EventType::Normal,
            "Synced",
            "Reconcile",
            "synced web again",
        )
        .await?;
    let related = object_reference(&db);
    recorder
        .publish(
            &regarding,
            Some(&related),
            EventType::Warning,
            "Synced",
            "Reconcile",
            "synced web",
        )
        .await?;
    let synced = events_with_reason(&events, "Synced").await?;
    assert_eq!(synced.len(), 3, "{synced:#?}");
    let warning = synced
        .iter()
        .find(|e| e.type_.as_deref() == Some("Warning"))
        .context("warning event")?;
    assert_eq!(
        warning.related.as_ref().and_then(|r| r.name.as_deref()),
        Some("db")
    );
    assert_eq!(series_count(warning), None);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_repeats_count_every_occurrence() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("events-concurrent").await?;
    let client = env.client().await?;
    let cms = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let web = config_map(&cms, "web").await?;
    let recorder = EventRecorder::new(client.clone(), "kubegen.io/test-controller", "test-pod-1");
    let regarding = object_reference(&web);
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let recorder = recorder.clone();
        let regarding = regarding.clone();
        tasks.push(tokio::spawn(async move {
            recorder
                .publish(
                    &regarding,
                    None,
                    EventType::Warning,
                    "Failed",
                    "Reconcile",
                    "boom",
                )
                .await
        }));
    }
    for task in tasks {
        task.await??;
    }
    let failed = events_with_reason(&Api::<Event>::namespaced(client, &ns), "Failed").await?;
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert_eq!(series_count(&failed[0]), Some(20));
    Ok(())
}

#[tokio::test]
async fn a_silent_window_starts_a_new_event() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("events-window").await?;
    let client = env.client().await?;
    let cms = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let web = config_map(&cms, "web").await?;
    let window = Duration::from_millis(500);
    let recorder = EventRecorder::with_limits(
        client.clone(),
        "kubegen.io/test-controller",
        "test-pod-1",
        window,
        16,
    );
    let regarding = object_reference(&web);
    let publish = || {
        recorder.publish(
            &regarding,
            None,
            EventType::Normal,
            "Scaled",
            "Scale",
            "scaled to 3",
        )
    };
    publish().await?;
    publish().await?;
    tokio::time::sleep(window * 2).await;
    publish().await?;
    let scaled = events_with_reason(&Api::<Event>::namespaced(client, &ns), "Scaled").await?;
    assert_eq!(scaled.len(), 2, "{scaled:#?}");
    assert_eq!(series_count(&scaled[0]), Some(2));
    assert_eq!(series_count(&scaled[1]), None);
    Ok(())
}

/// `record` returns at once and writes in the background: after `flush`,
/// repeats are one Event with a series counting every occurrence, and a
/// distinct event is its own Event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_events_are_written_in_the_background() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("events-record").await?;
    let client = env.client().await?;
    let cms = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let web = config_map(&cms, "web").await?;
    let recorder = EventRecorder::new(client.clone(), "kubegen.io/test-controller", "test-pod-1");
    let regarding = object_reference(&web);
    for _ in 0..7 {
        recorder.record(
            regarding.clone(),
            None,
            EventType::Normal,
            "Recorded",
            "Reconcile",
            "recorded web",
        );
    }
    recorder.record(
        regarding.clone(),
        None,
        EventType::Warning,
        "Recorded",
        "Reconcile",
        "a warning about web",
    );
    recorder.flush().await;
    assert_eq!(recorder.dropped(), 0);
    let events = Api::<Event>::namespaced(client.clone(), &ns);
    let recorded = events_with_reason(&events, "Recorded").await?;
    assert_eq!(recorded.len(), 2, "{recorded:#?}");
    let normal = recorded
        .iter()
        .find(|e| e.type_.as_deref() == Some("Normal"))
        .context("normal event")?;
    assert_eq!(series_count(normal), Some(7), "{normal:#?}");
    let warning = recorded
        .iter()
        .find(|e| e.type_.as_deref() == Some("Warning"))
        .context("warning event")?;
    assert_eq!(series_count(warning), None);
    assert_eq!(warning.note.as_deref(), Some("a warning about web"));
    Ok(())
}

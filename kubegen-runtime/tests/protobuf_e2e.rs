//! The protobuf decoder against a real API server: every object of a
//! varied set of built-in kinds, read once as JSON (kube) and once as
//! protobuf (`kubegen::protobuf`), must decode into equal values; a
//! protobuf watch stream decodes into the same objects, its bookmark and
//! and a failure's `Status`.

use std::collections::BTreeMap;
use std::fmt::Debug;

use anyhow::{Context, Result, bail, ensure};
use http_body_util::BodyExt;
use k8s_openapi::api::apps::v1::{ControllerRevision, Deployment};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, PersistentVolumeClaim, Pod, Secret, Service};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::api::rbac::v1::Role;
use kubegen::api::{Api, ListParams, PostParams};
use kubegen::core::WatchEvent;
use kubegen::protobuf;
use kubegen::{Client, Resource, ResourceExt};
use kubegen_testenv::{TestEnv, eventually};
use serde::de::DeserializeOwned;

/// GETs `url` accepting `accept`; returns the status code and body.
async fn get(client: &Client, url: &str, accept: &str) -> Result<(u16, bytes::Bytes)> {
    let request = http::Request::get(url)
        .header(http::header::ACCEPT, accept)
        .body(kubegen::client::Body::empty())?;
    let response = client.send(request).await?;
    let status = response.status().as_u16();
    Ok((status, response.into_body().collect().await?.to_bytes()))
}

/// GETs `url` as protobuf (or a protobuf watch stream) and returns the body.
async fn get_protobuf(client: &Client, url: &str, accept: &str) -> Result<bytes::Bytes> {
    let (status, body) = get(client, url, accept).await?;
    ensure!((200..300).contains(&status), "GET {url}: {status}");
    Ok(body)
}

fn from_json<K: DeserializeOwned>(json: serde_json::Value) -> K {
    serde_json::from_value(json).expect("valid object")
}

/// Lists `api` as JSON and as protobuf until every object has the same
/// resourceVersion in both (the plane may update pods in between), then
/// asserts that they decode into equal values. Returns how many compared.
async fn assert_same<K>(client: &Client, api: &Api<K>) -> Result<usize>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + PartialEq,
{
    for _ in 0..10 {
        let proto = get_protobuf(client, api.resource_url(), protobuf::MEDIA_TYPE).await?;
        let proto = protobuf::decode_list::<K>(&proto)
            .with_context(|| format!("decoding {} {}", K::api_version(&()), K::kind(&())))?;
        let json = api.list(&ListParams::default()).await?;
        let versions = |items: &[K]| -> BTreeMap<String, Option<String>> {
            items
                .iter()
                .map(|o| (o.name_any(), o.resource_version()))
                .collect()
        };
        if versions(&proto.items) != versions(&json.items) {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            continue;
        }
        ensure!(
            !json.items.is_empty(),
            "nothing to compare for {}",
            K::kind(&())
        );
        for (p, j) in proto.items.iter().zip(&json.items) {
            assert_eq!(p, j, "{} {}", K::kind(&()), j.name_any());
        }
        assert_eq!(proto.metadata.continue_, json.metadata.continue_);
        return Ok(json.items.len());
    }
    bail!(
        "{}: the lists never agreed on resourceVersions",
        K::kind(&())
    )
}

async fn create<K>(api: &Api<K>, json: serde_json::Value) -> Result<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + serde::Serialize + Debug,
{
    Ok(api.create(&PostParams::default(), &from_json(json)).await?)
}

#[tokio::test]
async fn built_in_kinds_decode_from_protobuf_as_from_json() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("protobuf").await?;
    let client = env.client().await?;

    let cms = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    create(&cms, serde_json::json!({
        "metadata": {"name": "full", "labels": {"a": "1", "b": ""}, "annotations": {"x": "y\u{e9}\"\\"}, "finalizers": ["example.com/f"]},
        "data": {"k": "v", "empty": "", "multi": "line\nline"},
        "binaryData": {"bin": "AAEC/w==", "none": ""},
        "immutable": false,
    })).await?;
    create(&cms, serde_json::json!({"metadata": {"name": "bare"}})).await?;
    create(
        &cms,
        serde_json::json!({"metadata": {"generateName": "gen-"}, "data": {}}),
    )
    .await?;
    // The root-CA publisher adds kube-root-ca.crt (a multi-line PEM) to a
    // new namespace asynchronously: wait for it so the comparison covers it.
    eventually(
        std::time::Duration::from_secs(60),
        "kube-root-ca.crt in the namespace",
        || async { Ok(cms.get_opt("kube-root-ca.crt").await?.map(|_| ())) },
    )
    .await?;
    ensure!(assert_same(&client, &cms).await? >= 4);

    let secrets = Api::<Secret>::namespaced(client.clone(), &ns);
    create(
        &secrets,
        serde_json::json!({
            "metadata": {"name": "s"}, "type": "Opaque",
            "data": {"password": "c2VjcmV0"}, "stringData": {"user": "me"},
        }),
    )
    .await?;
    assert_same(&client, &secrets).await?;

    let pods = Api::<Pod>::namespaced(client.clone(), &ns);
    create(&pods, serde_json::json!({
        "metadata": {"name": "p", "labels": {"app": "p"}},
        "spec": {
            "containers": [{
                "name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 1"],
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "env": [{"name": "A", "value": ""}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "0.1", "memory": "1e3"}},
                "readinessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 3},
                "livenessProbe": {"tcpSocket": {"port": 8080}},
                "securityContext": {"allowPrivilegeEscalation": false, "runAsNonRoot": true, "runAsUser": 1000, "capabilities": {"drop": ["ALL"]}},
                "volumeMounts": [{"name": "cfg", "mountPath": "/cfg", "readOnly": true}],
            }],
            "volumes": [{"name": "cfg", "configMap": {"name": "full", "defaultMode": 420}}, {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}}],
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}],
            "terminationGracePeriodSeconds": 0,
            "enableServiceLinks": false,
        },
    })).await?;
    assert_same(&client, &pods).await?;

    let deployments = Api::<Deployment>::namespaced(client.clone(), &ns);
    create(&deployments, serde_json::json!({
        "metadata": {"name": "d"},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "d"}, "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["x"]}]},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
        },
    })).await?;
    assert_same(&client, &deployments).await?;

    let services = Api::<Service>::namespaced(client.clone(), &ns);
    create(&services, serde_json::json!({
        "metadata": {"name": "svc"},
        "spec": {"selector": {"app": "d"}, "ports": [{"port": 80, "targetPort": 8080, "name": "a"}, {"port": 81, "targetPort": "http", "name": "b"}]},
    })).await?;
    assert_same(&client, &services).await?;

    let leases = Api::<Lease>::namespaced(client.clone(), &ns);
    create(&leases, serde_json::json!({
        "metadata": {"name": "l"},
        "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15, "acquireTime": "2026-11-26T10:00:00.123456Z", "renewTime": "1969-12-31T23:59:59.999999Z", "leaseTransitions": 0},
    })).await?;
    assert_same(&client, &leases).await?;

    let events = Api::<Event>::namespaced(client.clone(), &ns);
    create(&events, serde_json::json!({
        "metadata": {"name": "e"},
        "eventTime": "2026-11-26T10:00:00.000001Z", "reportingController": "kubegen.io/test", "reportingInstance": "i",
        "action": "Test", "reason": "Tested", "type": "Normal", "note": "n",
        "regarding": {"kind": "ConfigMap", "name": "full", "namespace": ns},
        "series": {"count": 2, "lastObservedTime": "2026-11-26T10:00:01.500000Z"},
    })).await?;
    assert_same(&client, &events).await?;

    let claims = Api::<PersistentVolumeClaim>::namespaced(client.clone(), &ns);
    create(&claims, serde_json::json!({
        "metadata": {"name": "c"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1.5Gi"}}, "storageClassName": ""},
    })).await?;
    assert_same(&client, &claims).await?;

    let revisions = Api::<ControllerRevision>::namespaced(client.clone(), &ns);
    create(
        &revisions,
        serde_json::json!({
            "metadata": {"name": "r"}, "revision": 3,
            "data": {"spec": {"nested": [1, "two", null, {"three": 3.5}]}},
        }),
    )
    .await?;
    assert_same(&client, &revisions).await?;

    let roles = Api::<Role>::namespaced(client.clone(), &ns);
    create(&roles, serde_json::json!({
        "metadata": {"name": "role"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}],
    })).await?;
    assert_same(&client, &roles).await?;
    Ok(())
}

/// Splits a protobuf watch stream into frames (4-byte big-endian lengths).
fn frames(mut body: &[u8]) -> Result<Vec<&[u8]>> {
    let mut out = Vec::new();
    while !body.is_empty() {
        ensure!(body.len() >= 4, "a truncated frame length");
        let len = u32::from_be_bytes(body[..4].try_into()?) as usize;
        ensure!(body.len() >= 4 + len, "a truncated frame");
        out.push(&body[4..4 + len]);
        body = &body[4 + len..];
    }
    Ok(out)
}

#[tokio::test]
async fn a_protobuf_watch_stream_decodes_its_events() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("protobuf-watch").await?;
    let client = env.client().await?;
    let cms = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    for i in 0..3 {
        create(&cms, serde_json::json!({"metadata": {"name": format!("cm-{i}")}, "data": {"i": i.to_string()}})).await?;
    }
    let url = format!(
        "{}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=2",
        cms.resource_url()
    );
    let body = get_protobuf(&client, &url, protobuf::WATCH_MEDIA_TYPE).await?;
    let mut added = Vec::new();
    let mut end_of_list = false;
    for frame in frames(&body)? {
        match protobuf::decode_watch_event::<ConfigMap>(frame)? {
            WatchEvent::Added(cm) => added.push(cm),
            WatchEvent::Bookmark(bookmark) => {
                end_of_list |= bookmark
                    .metadata
                    .annotations
                    .get("k8s.io/initial-events-end")
                    .map(String::as_str)
                    == Some("true");
                assert!(!bookmark.metadata.resource_version.is_empty());
            }
            other => bail!("unexpected event {other:?}"),
        }
    }
    assert!(end_of_list, "no initial-events-end bookmark");
    let mut json = cms.list(&ListParams::default()).await?.items;
    json.sort_by_key(|cm| cm.name_any());
    added.sort_by_key(|cm| cm.name_any());
    // The watch's objects carry apiVersion/kind in their envelopes; the
    // values are equal all the same.
    assert_eq!(added, json);

    // Failures come as a protobuf `Status` too, which is what a watch's
    // ERROR event holds.
    let missing = format!("{}/nowhere", cms.resource_url());
    let (code, body) = get(&client, &missing, protobuf::MEDIA_TYPE).await?;
    assert_eq!(code, 404);
    let status: kubegen::core::Status = protobuf::decode(&body)?;
    assert_eq!(
        (status.code, status.reason.as_str()),
        (404, "NotFound"),
        "{status:?}"
    );
    assert_eq!(status.details.map(|d| d.name).as_deref(), Some("nowhere"));
    Ok(())
}

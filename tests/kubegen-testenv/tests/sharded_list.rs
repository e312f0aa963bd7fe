//! Kubernetes 1.36's alpha server-side sharded list and watch (KEP-5866,
//! feature gate `ShardedListAndWatch`) on a real apiserver: with the gate on,
//! `shardSelector=shardRange(object.metadata.uid, start, end)` keeps the
//! objects whose uid's 64-bit FNV-1a hash lies in `[start, end)`, in lists
//! (echoed in `metadata.shardInfo`) and in watches, and a selector it cannot
//! use fails with a 500; with the gate off, the parameter is ignored.

use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::{Context, Result};
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen_client::api::{Api, DeleteParams, PostParams};
use kubegen_testenv::{Options, TestEnv, eventually};
use serde_json::{Value, json};

/// The feature gate that enables `shardSelector`.
const GATE: &str = "ShardedListAndWatch=true";
/// The lower half of the hash space.
const LOWER: &str = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
/// The upper half; `0x10000000000000000` (2^64) is the exclusive end.
const UPPER: &str = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
/// A selector the apiserver refuses: only `object.metadata.uid` and
/// `object.metadata.namespace` may be hashed, and bounds need 16 digits.
const INVALID: &str = "shardRange(object.metadata.name, '0x0', '0x1')";
/// ConfigMaps created before the lists.
const LISTED: usize = 40;
/// The ConfigMap every namespace gets.
const ROOT_CA: &str = "kube-root-ca.crt";

/// Go's `hash/fnv` New64a over `bytes`, as the apiserver hashes the uid.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whether `LOWER` selects the object of this uid (else `UPPER` does).
fn in_lower_half(uid: &str) -> bool {
    fnv1a64(uid.as_bytes()) < 0x8000_0000_0000_0000
}

/// Percent-encodes a query parameter value (all but unreserved bytes).
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The ConfigMaps of `ns`, as `(name, uid)`, in name order.
type Objects = BTreeSet<(String, String)>;

/// Creates ConfigMaps `<prefix>-<i>` and returns them.
async fn create(configmaps: &Api<ConfigMap>, prefix: &str, count: usize) -> Result<Objects> {
    let mut created = Objects::new();
    for i in 0..count {
        let configmap: ConfigMap =
            serde_json::from_value(json!({ "metadata": { "name": format!("{prefix}-{i:02}") } }))?;
        let made = configmaps
            .create(&PostParams::default(), &configmap)
            .await?;
        created.insert((
            made.metadata.name.context("name")?,
            made.metadata.uid.context("uid")?,
        ));
    }
    Ok(created)
}

/// Fills `ns` with [`LISTED`] ConfigMaps and returns all its ConfigMaps:
/// those and the `kube-root-ca.crt` that kube-controller-manager puts in
/// every namespace, awaited first so that the set holds still.
async fn populate(client: &kubegen_client::Client, ns: &str) -> Result<Objects> {
    let configmaps = Api::<ConfigMap>::namespaced(client.clone(), ns);
    eventually(Duration::from_secs(60), "kube-root-ca.crt", || async {
        Ok(configmaps.get_opt(ROOT_CA).await?.map(|_| ()))
    })
    .await?;
    let created = create(&configmaps, "listed", LISTED).await?;
    let all = items(&list(client, ns, None).await?);
    assert_eq!(all.len(), LISTED + 1, "{all:?}");
    assert!(created.is_subset(&all));
    Ok(all)
}

/// `(name, uid)` of an object in JSON.
fn identity(object: &Value) -> (String, String) {
    let meta = &object["metadata"];
    (
        meta["name"].as_str().unwrap_or_default().to_string(),
        meta["uid"].as_str().unwrap_or_default().to_string(),
    )
}

/// A raw GET of the ConfigMaps of `ns` with the query `query`.
async fn get(
    client: &kubegen_client::Client,
    ns: &str,
    query: &str,
) -> Result<String, kubegen_client::Error> {
    let request = http::Request::get(format!("/api/v1/namespaces/{ns}/configmaps?{query}"))
        .body(Vec::new())
        .expect("valid request");
    client.request_text(request).await
}

/// A raw list, with `shardSelector` when given.
async fn list(client: &kubegen_client::Client, ns: &str, selector: Option<&str>) -> Result<Value> {
    let query = selector.map_or_else(String::new, |s| format!("shardSelector={}", encode(s)));
    Ok(serde_json::from_str(&get(client, ns, &query).await?)?)
}

/// A list of the shard `selector` in pages of `limit`, following the
/// continue tokens: the pages.
async fn list_pages(
    client: &kubegen_client::Client,
    ns: &str,
    selector: &str,
    limit: usize,
) -> Result<Vec<Value>> {
    let mut pages = Vec::new();
    let mut token = String::new();
    loop {
        let query = format!(
            "limit={limit}&continue={}&shardSelector={}",
            encode(&token),
            encode(selector)
        );
        let page: Value = serde_json::from_str(&get(client, ns, &query).await?)?;
        token = page["metadata"]["continue"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        pages.push(page);
        if token.is_empty() {
            return Ok(pages);
        }
    }
}

/// The objects of a list response.
fn items(list: &Value) -> Objects {
    list["items"]
        .as_array()
        .map(|items| items.iter().map(identity).collect())
        .unwrap_or_default()
}

/// A watch with `query` (plus `watch=true`), ended by the apiserver after
/// `seconds`: its events, as `(type, object)`.
async fn watch(
    client: &kubegen_client::Client,
    ns: &str,
    query: &str,
    seconds: u32,
) -> Result<Vec<(String, Value)>> {
    let text = get(
        client,
        ns,
        &format!("watch=true&timeoutSeconds={seconds}&{query}"),
    )
    .await?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let event: Value = serde_json::from_str(line)?;
            let kind = event["type"].as_str().unwrap_or_default().to_string();
            Ok((kind, event["object"].clone()))
        })
        .collect()
}

/// The objects of the `kind` events among `events`.
fn of_kind(events: &[(String, Value)], kind: &str) -> Objects {
    events
        .iter()
        .filter(|(k, _)| k == kind)
        .map(|(_, object)| identity(object))
        .collect()
}

/// A watch that first sends the current objects, ends them with a
/// bookmark, then streams changes.
fn initial_events_query(selector: &str) -> String {
    format!(
        "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&shardSelector={}",
        encode(selector)
    )
}

/// The error status of a request that must fail.
fn api_error<T: std::fmt::Debug>(
    result: Result<T, kubegen_client::Error>,
) -> kubegen_client::core::Status {
    match result {
        Err(kubegen_client::Error::Api(status)) => *status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[test]
fn the_hash_is_go_fnv_1a_64() {
    // Values of Go's fnv.New64a, as k8s.io/apimachinery/pkg/sharding uses it.
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"abc"), 0xe71f_a219_0541_574b);
    assert_eq!(
        fnv1a64(b"3f1c2b4e-8a9d-4c1e-9b7a-0123456789ab"),
        0x16e7_5a59_7f93_c4eb
    );
}

#[tokio::test]
async fn shard_selector_filters_lists_and_watches_when_the_gate_is_on() -> Result<()> {
    let env = TestEnv::start_with(Options {
        nodes: 0,
        feature_gates: vec![GATE.into()],
        ..Options::default()
    })
    .await?;
    let ns = env.namespace("sharded").await?;
    let client = env.client().await?;
    let configmaps = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let all = populate(&client, &ns).await?;
    let (lower, upper): (Objects, Objects) =
        all.iter().cloned().partition(|(_, uid)| in_lower_half(uid));
    assert!(
        !lower.is_empty() && !upper.is_empty(),
        "{} random uids fill both halves",
        all.len()
    );

    // Each half lists exactly its objects and names its selector.
    for (selector, expected) in [(LOWER, &lower), (UPPER, &upper)] {
        let shard = list(&client, &ns, Some(selector)).await?;
        assert_eq!(shard["metadata"]["shardInfo"]["selector"], selector);
        assert_eq!(&items(&shard), expected, "{selector}");
    }
    let both = format!("{LOWER} || {UPPER}");
    let whole = list(&client, &ns, Some(&both)).await?;
    assert_eq!(whole["metadata"]["shardInfo"]["selector"], both.as_str());
    assert_eq!(items(&whole), all);
    let unsharded = list(&client, &ns, None).await?;
    assert_eq!(items(&unsharded), all);
    assert!(unsharded["metadata"].get("shardInfo").is_none());

    // From the watch cache (resourceVersion=0), as informers list.
    let cached: Value = serde_json::from_str(
        &get(
            &client,
            &ns,
            &format!("resourceVersion=0&shardSelector={}", encode(LOWER)),
        )
        .await?,
    )?;
    assert_eq!(cached["metadata"]["shardInfo"]["selector"], LOWER);
    assert_eq!(items(&cached), lower);
    // In pages: each page holds only the shard, and the pages all of it.
    // (Their remainingItemCount counts all shards' objects, though.)
    let pages = list_pages(&client, &ns, UPPER, 5).await?;
    for page in &pages {
        assert_eq!(page["metadata"]["shardInfo"]["selector"], UPPER);
    }
    let paged: Objects = pages.iter().flat_map(items).collect();
    assert_eq!(paged, upper);

    // A streaming list (initial events of a watch) sends only the shard.
    let events = watch(&client, &ns, &initial_events_query(LOWER), 3).await?;
    assert_eq!(of_kind(&events, "ADDED"), lower);
    let initial_end = events.iter().any(|(kind, object)| {
        kind == "BOOKMARK"
            && object["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true"
    });
    assert!(initial_end, "no initial-events-end bookmark: {events:?}");

    // A watch from a resourceVersion sees the shard's changes only.
    let resource_version = unsharded["metadata"]["resourceVersion"]
        .as_str()
        .context("list resourceVersion")?
        .to_string();
    let watcher = {
        let (client, ns) = (client.clone(), ns.clone());
        let query = format!(
            "resourceVersion={resource_version}&shardSelector={}",
            encode(UPPER)
        );
        tokio::spawn(async move { watch(&client, &ns, &query, 8).await })
    };
    let added = create(&configmaps, "watched", 20).await?;
    // One of each half; not kube-root-ca.crt, which would come back.
    let deleted: Objects = [&lower, &upper]
        .into_iter()
        .filter_map(|half| half.iter().find(|(name, _)| name != ROOT_CA))
        .cloned()
        .collect();
    for (name, _) in &deleted {
        configmaps.delete(name, &DeleteParams::default()).await?;
    }
    let events = watcher.await??;
    let upper_only = |objects: &Objects| -> Objects {
        objects
            .iter()
            .filter(|(_, uid)| !in_lower_half(uid))
            .cloned()
            .collect()
    };
    assert_eq!(of_kind(&events, "ADDED"), upper_only(&added));
    assert_eq!(of_kind(&events, "DELETED"), upper_only(&deleted));
    assert!(
        events
            .iter()
            .all(|(kind, _)| kind == "ADDED" || kind == "DELETED"),
        "{events:?}"
    );

    // A selector the apiserver cannot use fails the request, list or
    // watch alike, with a 500 (an error that is no API status) naming it.
    for (selector, problem) in [
        (
            INVALID,
            r#"unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace"#,
        ),
        (
            "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
            r#"hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)"#,
        ),
        (
            "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",
            "shard range start 0x8000000000000000 must be less than end 0x0000000000000000",
        ),
        ("shardRange(object.metadata.uid", "CEL parse error: "),
    ] {
        for watching in ["", "watch=true&timeoutSeconds=1&"] {
            let query = format!("{watching}shardSelector={}", encode(selector));
            let refused = api_error(get(&client, &ns, &query).await);
            assert_eq!(refused.code, 500, "{selector}: {refused:?}");
            assert!(refused.reason.is_empty(), "{selector}: {refused:?}");
            assert!(
                refused
                    .message
                    .starts_with(&format!("invalid shard selector: {problem}")),
                "{selector}: {refused:?}"
            );
        }
    }

    // A restart flag naming the gate wins over the Options (the apiserver
    // merges repeated --feature-gates flags, the later value winning)...
    env.stop_apiserver();
    env.start_apiserver_with_flags(&["--feature-gates=ShardedListAndWatch=false"])
        .await?;
    let client = env.client().await?;
    let ignored = list(&client, &ns, Some(LOWER)).await?;
    assert!(ignored["metadata"].get("shardInfo").is_none());
    assert_eq!(items(&ignored), items(&list(&client, &ns, None).await?));
    // ...and without them the Options' gates apply again.
    env.stop_apiserver();
    env.start_apiserver_with_flags(&[]).await?;
    let client = env.client().await?;
    let shard = list(&client, &ns, Some(LOWER)).await?;
    assert_eq!(shard["metadata"]["shardInfo"]["selector"], LOWER);
    Ok(())
}

#[tokio::test]
async fn shard_selector_is_ignored_when_the_gate_is_off() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("unsharded").await?;
    let client = env.client().await?;
    let all = populate(&client, &ns).await?;

    for selector in [LOWER, UPPER, INVALID] {
        let listed = list(&client, &ns, Some(selector)).await?;
        assert_eq!(items(&listed), all, "{selector}");
        assert!(listed["metadata"].get("shardInfo").is_none(), "{selector}");
    }
    let events = watch(&client, &ns, &initial_events_query(LOWER), 3).await?;
    assert_eq!(of_kind(&events, "ADDED"), all);
    Ok(())
}

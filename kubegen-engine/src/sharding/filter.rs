//! How a sharded informer keeps to the partitions held: which uid places
//! an object ([`ShardBy`]), the client-side test, the apiserver's
//! `shardSelector` added to the informer's list and watch requests, and the
//! probe that tells whether the apiserver filters.

use kubegen_client::api::ObjectMeta;
use serde::Deserialize;

use super::partition::{PartitionSet, Partitions, shard_hash};

/// The query parameter of KEP-5866's server-side sharded list and watch.
pub const SHARD_SELECTOR_PARAM: &str = "shardSelector";

/// The label of an object placed by [`ShardBy::OwnerLabel`]: the partition
/// of its controller owner, as a decimal index
/// ([`Shards::owner_partition_label`](super::Shards::owner_partition_label)
/// writes it). Its value depends on the shard set's partition count.
pub const OWNER_PARTITION_LABEL: &str = "kubegen.io/owner-partition";

/// Which uid places an object in a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardBy {
    /// Its own `metadata.uid` — the apiserver's shard key, so the apiserver
    /// can filter (the primary kind of a sharded controller). The uid,
    /// not `namespace/name`: it is the key the apiserver hashes, and a
    /// re-created object, a new uid, may land on another replica without
    /// harm — the old one's work is finished.
    Uid,
    /// The uid of its controller owner reference: owned objects follow
    /// their owner's partition. The apiserver cannot select on it, so these
    /// informers always filter on the client: every replica receives every
    /// event of the kind.
    ControllerOwner,
    /// The uid of its controller owner reference, as
    /// [`ControllerOwner`](ShardBy::ControllerOwner), for objects that also
    /// carry their owner's partition in the label
    /// [`OWNER_PARTITION_LABEL`] (the reconciler sets it:
    /// [`Shards::owner_partition_label`](super::Shards::owner_partition_label)).
    /// The informer's lists and watches select the partitions held by
    /// label, so the apiserver sends each replica only its share — on every
    /// apiserver, with or without `ShardedListAndWatch`. An object without
    /// the label (or with another partition's) is never received; one
    /// whose label and owner disagree is dropped on the client.
    OwnerLabel,
}

impl ShardBy {
    /// The uid that places `meta`, if any (`ControllerOwner` of an object
    /// without a controller: none).
    pub fn uid<'a>(&self, meta: &'a ObjectMeta) -> Option<&'a str> {
        match self {
            ShardBy::Uid => meta.uid.as_deref(),
            ShardBy::ControllerOwner | ShardBy::OwnerLabel => meta
                .owner_references
                .as_ref()?
                .iter()
                .find(|owner| owner.controller == Some(true))
                .map(|owner| owner.uid.as_str()),
        }
    }

    /// Whether an object with `meta` belongs to a partition of `held`.
    pub fn matches(&self, partitions: Partitions, held: &PartitionSet, meta: &ObjectMeta) -> bool {
        self.uid(meta)
            .is_some_and(|uid| held.contains(partitions.of_uid(uid)))
    }
}

/// What a sharded informer keeps at one moment: objects placed by `by` in
/// a partition of `held`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kept {
    pub(crate) by: ShardBy,
    pub(crate) partitions: Partitions,
    pub(crate) held: PartitionSet,
}

impl Kept {
    /// Whether an object with `meta` is kept.
    pub(crate) fn keeps(&self, meta: &ObjectMeta) -> bool {
        self.by.matches(self.partitions, &self.held, meta)
    }
}

/// The label selector of the objects whose [`OWNER_PARTITION_LABEL`] names
/// a partition of `held` (`None` when it is empty: nothing to select).
pub(crate) fn owner_partition_selector(held: &PartitionSet) -> Option<String> {
    let values: Vec<String> = held.iter().map(|p| p.to_string()).collect();
    (!values.is_empty()).then(|| format!("{OWNER_PARTITION_LABEL} in ({})", values.join(",")))
}

/// `selector` and `also` both (label selectors' requirements are joined
/// by commas).
pub(crate) fn and_label_selectors(selector: Option<&str>, also: &str) -> String {
    match selector.map(str::trim) {
        Some(selector) if !selector.is_empty() => format!("{selector},{also}"),
        _ => also.to_string(),
    }
}

/// `value` percent-encoded for a URL query (everything but RFC 3986's
/// unreserved characters).
pub(crate) fn query_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `client` adding `shardSelector=selector` to every GET of the collection
/// at `path` (the informer's lists and watches).
pub(crate) fn selecting_client(
    client: kubegen_client::Client,
    path: String,
    selector: &str,
) -> kubegen_client::Client {
    let namespace = client.default_namespace().to_owned();
    let param = format!("{SHARD_SELECTOR_PARAM}={}", query_escape(selector));
    let service = tower::service_fn(move |mut request: http::Request<kubegen_client::Body>| {
        let client = client.clone();
        if request.method() == http::Method::GET && request.uri().path() == path {
            let uri = request.uri();
            let joined = match uri.query() {
                Some(query) => format!("{}?{query}&{param}", uri.path()),
                None => format!("{}?{param}", uri.path()),
            };
            match joined.parse() {
                Ok(uri) => *request.uri_mut() = uri,
                Err(error) => tracing::error!(%error, "could not add the shard selector"),
            }
        }
        async move { client.send(request).await }
    });
    kubegen_client::Client::new(service, namespace)
}

/// Whether the apiserver filters the collection at `path` by shard
/// (Kubernetes 1.36+ with the `ShardedListAndWatch` feature gate; an
/// apiserver without it ignores the parameter):
///
/// 1. a list of at most one object with a selector of the whole key space
///    comes back with `metadata.shardInfo` when the apiserver applied it —
///    for built-in kinds (1.36 does not echo it on custom resources' lists,
///    which it filters all the same);
/// 2. failing that, when that list held an object, a list with a selector
///    of a one-hash range that excludes the object: an apiserver that
///    filters leaves it out, one that does not sends it back (or another
///    object, should that one have gone; only a collection emptied between
///    the two lists reads as filtering, which costs nothing but the log
///    line: a sharded informer drops other partitions' objects anyway);
/// 3. for an empty collection, a selector of an empty range (start above
///    end) is refused by an apiserver that parses selectors ("invalid
///    shard selector", a 500 in 1.36, which a client logs as an error)
///    and ignored by one that does not.
///
/// Boxed here: sharded informers await it in code generic over the kind,
/// which would otherwise compile the probe in each operator crate.
pub(crate) fn probe<'a>(
    client: &'a kubegen_client::Client,
    path: &'a str,
    partitions: Partitions,
) -> futures::future::BoxFuture<'a, Result<bool, kubegen_client::Error>> {
    Box::pin(probe_unboxed(client, path, partitions))
}

async fn probe_unboxed(
    client: &kubegen_client::Client,
    path: &str,
    partitions: Partitions,
) -> Result<bool, kubegen_client::Error> {
    #[derive(Deserialize)]
    struct List {
        #[serde(default)]
        metadata: ListMeta,
        #[serde(default)]
        items: Vec<Item>,
    }
    #[derive(Deserialize, Default)]
    struct ListMeta {
        #[serde(rename = "shardInfo")]
        shard_info: Option<serde_json::Value>,
    }
    #[derive(Deserialize)]
    struct Item {
        metadata: ItemMeta,
    }
    #[derive(Deserialize)]
    struct ItemMeta {
        uid: Option<String>,
    }
    let list = |selector: &str| {
        http::Request::get(format!(
            "{path}?limit=1&{SHARD_SELECTOR_PARAM}={}",
            query_escape(selector)
        ))
        .header(http::header::ACCEPT, "application/json")
        .body(Vec::new())
        .map_err(kubegen_client::Error::HttpError)
    };
    let everything = partitions
        .selector(&partitions.all())
        .expect("a shard set has at least one partition");
    let answer: List = client.request(list(&everything)?).await?;
    if answer.metadata.shard_info.is_some() {
        return Ok(true);
    }
    if let Some(uid) = answer
        .items
        .iter()
        .find_map(|item| item.metadata.uid.as_deref())
    {
        // A range of one hash that does not hold the object's.
        let start = u64::from(shard_hash(uid) == 0);
        let again: List = client.request(list(&one_hash_selector(start))?).await?;
        return Ok(!again
            .items
            .iter()
            .filter_map(|item| item.metadata.uid.as_deref())
            .any(|uid| shard_hash(uid) != start));
    }
    let empty = "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')";
    match client.request::<List>(list(empty)?).await {
        Ok(_) => Ok(false),
        Err(kubegen_client::Error::Api(status)) if status.message.contains("shard") => Ok(true),
        Err(error) => Err(error),
    }
}

/// The selector of the range of the one hash `start`: `[start, start + 1)`.
fn one_hash_selector(start: u64) -> String {
    format!(
        "shardRange(object.metadata.uid, '0x{start:016x}', '0x{:016x}')",
        start + 1
    )
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    use super::*;

    fn owned(controller: Option<bool>, uid: &str) -> ObjectMeta {
        ObjectMeta {
            uid: Some("own-uid".into()),
            owner_references: Some(vec![OwnerReference {
                uid: uid.into(),
                controller,
                ..OwnerReference::default()
            }]),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn owned_objects_follow_their_controller_only() {
        assert_eq!(
            ShardBy::ControllerOwner.uid(&owned(Some(true), "u1")),
            Some("u1")
        );
        assert_eq!(ShardBy::ControllerOwner.uid(&owned(None, "u1")), None);
        assert_eq!(ShardBy::Uid.uid(&owned(Some(true), "u1")), Some("own-uid"));
        let partitions = Partitions::new(2).unwrap();
        let mine = partitions.of_uid("u1");
        let held: PartitionSet = [mine].into_iter().collect();
        assert!(ShardBy::ControllerOwner.matches(partitions, &held, &owned(Some(true), "u1")));
        assert!(!ShardBy::ControllerOwner.matches(
            partitions,
            &PartitionSet::new(),
            &owned(Some(true), "u1")
        ));
        assert!(!ShardBy::ControllerOwner.matches(partitions, &held, &owned(Some(false), "u1")));
    }

    #[test]
    fn owner_labelled_objects_are_placed_by_their_owner_and_selected_by_label() {
        let partitions = Partitions::new(8).unwrap();
        let owner = "owner-uid";
        let held: PartitionSet = [partitions.of_uid(owner)].into_iter().collect();
        assert!(ShardBy::OwnerLabel.matches(partitions, &held, &owned(Some(true), owner)));
        assert!(!ShardBy::OwnerLabel.matches(partitions, &held, &owned(None, owner)));
        assert_eq!(owner_partition_selector(&PartitionSet::new()), None);
        assert_eq!(
            owner_partition_selector(&[0, 3, 7].into_iter().collect()).as_deref(),
            Some("kubegen.io/owner-partition in (0,3,7)")
        );
        assert_eq!(and_label_selectors(None, "a=b"), "a=b");
        assert_eq!(and_label_selectors(Some(" "), "a=b"), "a=b");
        assert_eq!(and_label_selectors(Some("x in (1)"), "a=b"), "x in (1),a=b");
    }

    #[test]
    fn the_probes_narrow_range_is_one_hash_wide() {
        assert_eq!(
            one_hash_selector(0),
            "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')"
        );
        assert_eq!(
            one_hash_selector(1),
            "shardRange(object.metadata.uid, '0x0000000000000001', '0x0000000000000002')"
        );
    }

    #[test]
    fn selectors_are_escaped_for_the_query() {
        assert_eq!(
            query_escape("shardRange(object.metadata.uid, '0x0', '0x1') || x"),
            "shardRange%28object.metadata.uid%2C%20%270x0%27%2C%20%270x1%27%29%20%7C%7C%20x"
        );
    }

    #[tokio::test]
    async fn the_selecting_client_adds_the_selector_to_gets_of_its_collection_only() {
        let seen = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
        let record = seen.clone();
        let inner = kubegen_client::Client::new(
            tower::service_fn(move |request: http::Request<kubegen_client::Body>| {
                record.lock().push(request.uri().to_string());
                async move {
                    Ok::<_, std::convert::Infallible>(http::Response::new(
                        kubegen_client::Body::from(b"{}".to_vec()),
                    ))
                }
            }),
            "default",
        );
        let client = selecting_client(inner, "/api/v1/configmaps".into(), "s('a')");
        for uri in [
            "/api/v1/configmaps?watch=true",
            "/api/v1/configmaps",
            "/api/v1/secrets",
        ] {
            let request = http::Request::get(uri).body(Vec::new()).unwrap();
            let _ = client.request_text(request).await;
        }
        assert_eq!(
            *seen.lock(),
            [
                "/api/v1/configmaps?watch=true&shardSelector=s%28%27a%27%29",
                "/api/v1/configmaps?shardSelector=s%28%27a%27%29",
                "/api/v1/secrets",
            ]
        );
    }
}

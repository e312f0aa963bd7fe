//! kubegen's watcher: kube's watcher protocol and types, owned here, in
//! JSON ([`watcher()`]) or in Kubernetes protobuf for built-in kinds
//! ([`protobuf_watcher`]), with client-go's reflector [`backoff`].
//!
//! A watcher lists (a streaming list by default in informers, or paginated
//! LISTs), then watches from the list's resourceVersion, following
//! bookmarks, resuming a watch that ends and listing anew after `410
//! Gone`. The [`Event`]s, [`Error`]s and [`Config`] are kube's watcher's,
//! with the same names, variants, fields and defaults: code written against
//! `kubegen::runtime::watcher` changes its imports and reads the same.
//! Informers use it; an operator links no kube-runtime.

mod backoff;
mod config;
mod event;
pub(crate) mod protocol;

use futures::{Stream, TryStreamExt};
use kubegen_client::{Api, Resource};
use serde::de::DeserializeOwned;

pub use backoff::{Backoff, backoff};
pub use config::{Config, InitialListStrategy, ListSemantic};
pub use event::{Error, Event};
use protocol::{Decoded, Encoding, Source};

/// The events of `api`'s collection as `config` asks (JSON; metadata only
/// for an `Api<PartialObjectMeta<K>>`), as kube's `watcher()` gives them.
/// Errors are yielded and the watcher goes on; compose it with
/// [`backoff`] to pause after them.
///
/// ```no_run
/// # async fn demo(client: kubegen::Client) {
/// use futures::{StreamExt, TryStreamExt};
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen::informer::watcher::{self, Config, Event};
///
/// let api = kubegen::Api::<ConfigMap>::namespaced(client, "default");
/// let mut events = watcher::backoff(watcher::watcher(api, Config::default()).boxed());
/// while let Some(event) = events.try_next().await.unwrap() {
///     if let Event::Apply(cm) | Event::InitApply(cm) = event {
///         println!("{:?}", cm.metadata.name);
///     }
/// }
/// # }
/// ```
pub fn watcher<K>(api: Api<K>, config: Config) -> impl Stream<Item = Result<Event<K>, Error>> + Send
where
    K: Resource + Clone + DeserializeOwned + Send + 'static,
{
    objects(Source::of(&api, config, Encoding::json::<K>()))
}

/// [`watcher()`] for a built-in kind, over protobuf: the same events,
/// errors and protocol, with the apiserver encoding protobuf instead of
/// JSON (which costs it several times the CPU). Informers use it for
/// built-in kinds by default.
///
/// `K` must be a kind the apiserver serves as protobuf
/// ([`kubegen::protobuf::knows`](crate::protobuf::knows)); for any other
/// (a custom resource), listing or starting the watch fails with a `406
/// Not Acceptable` [`kubegen::Error::Api`](crate::Error::Api).
///
/// ```no_run
/// # async fn doc(client: kubegen::Client) {
/// use futures::{StreamExt, TryStreamExt};
/// use k8s_openapi::api::core::v1::Pod;
/// use kubegen::informer::watcher::{self, Config, Event};
///
/// let pods = kubegen::Api::<Pod>::all(client);
/// let mut events = watcher::backoff(watcher::protobuf_watcher(pods, Config::default()).boxed());
/// while let Some(event) = events.try_next().await.unwrap() {
///     if let Event::Apply(pod) = event {
///         println!("{:?}", pod.metadata.name);
///     }
/// }
/// # }
/// ```
pub fn protobuf_watcher<K>(
    api: Api<K>,
    config: Config,
) -> impl Stream<Item = Result<Event<K>, Error>> + Send
where
    K: Resource + Clone + DeserializeOwned + Send + 'static,
{
    let encoding = Encoding::Protobuf {
        keep_managed_fields: true,
        keep_bytes: false,
    };
    objects(Source::of(&api, config, encoding))
}

/// The events of `source`, objects only.
fn objects<K>(source: Source) -> impl Stream<Item = Result<Event<K>, Error>> + Send
where
    K: Resource + Clone + DeserializeOwned + Send + 'static,
{
    protocol::stream(source).map_ok(|event| event.map(|decoded: Decoded<K>| decoded.obj))
}

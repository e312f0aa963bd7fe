//! The watcher protocol, kube's step for step, in JSON or in Kubernetes
//! protobuf: a streaming list (a watch with `sendInitialEvents=true`, ended
//! by the `initial-events-end` bookmark) or paginated LISTs, then a watch
//! from the last resourceVersion, following bookmarks and resuming a watch
//! that ends; `410 Gone` starts again from an empty state.
//!
//! In protobuf, which the apiserver encodes for a fraction of the CPU that
//! JSON costs it (and which client-go asks for by default for built-in
//! types), the requests accept `application/vnd.kubernetes.protobuf` and
//! the replies are decoded by [`crate::protobuf`]. A reply that is not
//! protobuf (the apiserver serves some built-in group through an aggregated
//! server without it, say) is `406 Not Acceptable`, as the apiserver itself
//! answers for a media type it cannot give, and the informer goes back to
//! JSON.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use http::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use http_body_util::BodyExt;
use kubegen_client::Body;
use kubegen_client::api::{ListParams, VersionMatch, WatchParams};
use kubegen_client::core::{ObjectList, Request, Status, WatchEvent};
use kubegen_client::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use super::{Config, Error, Event, InitialListStrategy, ListSemantic};
use crate::protobuf;

/// How long a watch may stay silent past its `timeoutSeconds` before it is
/// taken for dead and resumed (kube's margin).
const IDLE_MARGIN: Duration = Duration::from_secs(5);

/// kube's default watch timeout, in seconds.
const DEFAULT_TIMEOUT: u32 = 290;

/// The watch `source` describes, with what each object was decoded from
/// when the source keeps bytes.
pub(crate) fn stream<K>(
    source: Source,
) -> impl Stream<Item = Result<Event<Decoded<K>>, Error>> + Send
where
    K: Resource + Clone + DeserializeOwned + Send + 'static,
{
    futures::stream::unfold((source, State::Empty), |(source, mut state)| async move {
        loop {
            let (event, next) = source.step(state).await;
            state = next;
            if let Some(event) = event {
                return Some((event, (source, state)));
            }
        }
    })
}

/// How requests ask for objects and replies are decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// JSON (metadata only, as `PartialObjectMetadata`, for a metadata
    /// kind).
    Json {
        /// Whether the kind is read as metadata only
        /// ([`Resource::metadata_api`]).
        metadata: bool,
    },
    /// Kubernetes protobuf.
    Protobuf {
        /// Whether watched objects keep `metadata.managedFields`
        /// (otherwise they are cut from each message before it is
        /// decoded).
        keep_managed_fields: bool,
        /// Whether watched objects come with the envelope they decode
        /// from.
        keep_bytes: bool,
    },
}

/// Where and how to list and watch.
pub(crate) struct Source {
    client: Client,
    /// The collection's path.
    url: String,
    config: Config,
    encoding: Encoding,
}

impl Encoding {
    /// JSON for `K`: metadata only when `K` is read as metadata.
    pub(crate) fn json<K: Resource>() -> Self {
        Encoding::Json {
            metadata: K::metadata_api(),
        }
    }
}

/// An object as the watch decoded it, and the protobuf envelope it decodes
/// from when the source keeps bytes (a listed object has none, nor has any
/// object read as JSON).
pub(crate) struct Decoded<K> {
    pub(crate) obj: K,
    pub(crate) bytes: Option<Box<[u8]>>,
}

/// Where the watcher is (kube's states).
enum State<K> {
    /// Nothing listed: list (or start a streaming list) next.
    Empty,
    /// Paginated listing: the page being handed out and what follows it.
    InitPage {
        continue_token: Option<String>,
        objects: VecDeque<Decoded<K>>,
        resource_version: Option<String>,
    },
    /// A streaming list, until its `initial-events-end` bookmark.
    InitialWatch { incoming: Incoming<K> },
    /// Listed up to `resource_version`; a watch starts from it next.
    InitListed { resource_version: String },
    /// Watching from `resource_version`.
    Watching {
        resource_version: String,
        incoming: Incoming<K>,
    },
}

/// A running watch's events as they arrive.
enum Incoming<K> {
    /// Newline-separated JSON events, decoded by kube's client.
    Json(BoxStream<'static, Result<WatchEvent<K>, kubegen_client::Error>>),
    /// Length-prefixed protobuf frames.
    Protobuf(Frames),
}

type Step<K> = (Option<Result<Event<Decoded<K>>, Error>>, State<K>);

impl Source {
    /// The collection `api` requests, listed and watched as `config` asks,
    /// in `encoding`.
    pub(crate) fn of<K: Resource + Clone>(
        api: &Api<K>,
        config: Config,
        encoding: Encoding,
    ) -> Self {
        Source {
            client: api.clone().into_client(),
            url: api.resource_url().to_string(),
            config,
            encoding,
        }
    }

    /// One step of the state machine: maybe an event, and the next state.
    async fn step<K>(&self, state: State<K>) -> Step<K>
    where
        K: Resource + Clone + DeserializeOwned + Send + 'static,
    {
        match state {
            State::Empty => self.start().await,
            State::InitPage {
                continue_token,
                objects,
                resource_version,
            } => {
                self.init_page(continue_token, objects, resource_version)
                    .await
            }
            State::InitialWatch { incoming } => self.initial_watch(incoming).await,
            State::InitListed { resource_version } => self.watch_from(resource_version).await,
            State::Watching {
                resource_version,
                incoming,
            } => self.watching(resource_version, incoming).await,
        }
    }

    /// Nothing listed: `Init`, then a paginated list or a streaming one as
    /// the initial list strategy says.
    async fn start<K>(&self) -> Step<K>
    where
        K: Clone + DeserializeOwned + Send + 'static,
    {
        match self.config.initial_list_strategy {
            InitialListStrategy::ListWatch => (
                Some(Ok(Event::Init)),
                State::InitPage {
                    continue_token: None,
                    objects: VecDeque::new(),
                    resource_version: None,
                },
            ),
            InitialListStrategy::StreamingList => match self.watch("0", true).await {
                Ok(incoming) => (Some(Ok(Event::Init)), State::InitialWatch { incoming }),
                Err(error) => (Some(Err(Error::WatchStartFailed(error))), State::Empty),
            },
        }
    }

    /// Paginated listing: the page's next object as `InitApply`; after the
    /// last page `InitDone`; else the next page (one with neither a
    /// resourceVersion nor a continue token is an error).
    async fn init_page<K>(
        &self,
        continue_token: Option<String>,
        mut objects: VecDeque<Decoded<K>>,
        resource_version: Option<String>,
    ) -> Step<K>
    where
        K: Resource + Clone + DeserializeOwned,
    {
        if let Some(obj) = objects.pop_front() {
            let state = State::InitPage {
                continue_token,
                objects,
                resource_version,
            };
            return (Some(Ok(Event::InitApply(obj))), state);
        }
        if continue_token.is_none()
            && let Some(resource_version) = resource_version
        {
            return (
                Some(Ok(Event::InitDone)),
                State::InitListed { resource_version },
            );
        }
        match self.list::<K>(continue_token).await {
            Ok(list) => {
                let resource_version = list.metadata.resource_version.filter(|v| !v.is_empty());
                let continue_token = list.metadata.continue_.filter(|c| !c.is_empty());
                if resource_version.is_none() && continue_token.is_none() {
                    return (Some(Err(Error::NoResourceVersion)), State::Empty);
                }
                let state = State::InitPage {
                    continue_token,
                    objects: list
                        .items
                        .into_iter()
                        .map(|obj| Decoded { obj, bytes: None })
                        .collect(),
                    resource_version,
                };
                (None, state)
            }
            Err(error) => (Some(Err(Error::InitialListFailed(error))), State::Empty),
        }
    }

    /// A streaming list: each object as `InitApply` until the
    /// `initial-events-end` bookmark (`InitDone`, then watching on); an
    /// expired resourceVersion (410) or the stream's end lists anew.
    async fn initial_watch<K>(&self, mut incoming: Incoming<K>) -> Step<K>
    where
        K: Resource + Clone + DeserializeOwned + Send + 'static,
    {
        match self.next(&mut incoming).await {
            Some(Ok(WatchEvent::Added(obj) | WatchEvent::Modified(obj))) => (
                Some(Ok(Event::InitApply(obj))),
                State::InitialWatch { incoming },
            ),
            // The apiserver sends no deletions during a streaming list.
            Some(Ok(WatchEvent::Deleted(_))) => (None, State::InitialWatch { incoming }),
            Some(Ok(WatchEvent::Bookmark(bookmark))) => {
                if bookmark
                    .metadata
                    .annotations
                    .contains_key("k8s.io/initial-events-end")
                {
                    let resource_version = bookmark.metadata.resource_version;
                    (
                        Some(Ok(Event::InitDone)),
                        State::Watching {
                            resource_version,
                            incoming,
                        },
                    )
                } else {
                    (None, State::InitialWatch { incoming })
                }
            }
            Some(Ok(WatchEvent::Error(status))) => {
                let state = if status.code == 410 {
                    State::Empty
                } else {
                    State::InitialWatch { incoming }
                };
                (Some(Err(Error::WatchError(status))), state)
            }
            Some(Err(error)) => (
                Some(Err(Error::WatchFailed(error))),
                State::InitialWatch { incoming },
            ),
            None => (None, State::Empty),
        }
    }

    /// Listed up to `resource_version`: a watch from it (retried from the
    /// same version when it fails to start).
    async fn watch_from<K>(&self, resource_version: String) -> Step<K>
    where
        K: Clone + DeserializeOwned + Send + 'static,
    {
        match self.watch(&resource_version, false).await {
            Ok(incoming) => (
                None,
                State::Watching {
                    resource_version,
                    incoming,
                },
            ),
            Err(error) => (
                Some(Err(Error::WatchStartFailed(error))),
                State::InitListed { resource_version },
            ),
        }
    }

    /// Watching: each change as `Apply` or `Delete`, bookmarks moving the
    /// resourceVersion on; an expired one (410) lists anew, the watch's end
    /// watches again from where it was.
    async fn watching<K>(&self, resource_version: String, mut incoming: Incoming<K>) -> Step<K>
    where
        K: Resource + Clone + DeserializeOwned + Send + 'static,
    {
        match self.next(&mut incoming).await {
            Some(Ok(WatchEvent::Added(obj) | WatchEvent::Modified(obj))) => {
                applied(obj, Event::Apply, incoming)
            }
            Some(Ok(WatchEvent::Deleted(obj))) => applied(obj, Event::Delete, incoming),
            Some(Ok(WatchEvent::Bookmark(bookmark))) => (
                None,
                State::Watching {
                    resource_version: bookmark.metadata.resource_version,
                    incoming,
                },
            ),
            Some(Ok(WatchEvent::Error(status))) => {
                let state = if status.code == 410 {
                    State::Empty
                } else {
                    State::Watching {
                        resource_version,
                        incoming,
                    }
                };
                (Some(Err(Error::WatchError(status))), state)
            }
            Some(Err(error)) => (
                Some(Err(Error::WatchFailed(error))),
                State::Watching {
                    resource_version,
                    incoming,
                },
            ),
            None => (None, State::InitListed { resource_version }),
        }
    }

    /// One page of the list, from `continue_token`.
    async fn list<K>(
        &self,
        continue_token: Option<String>,
    ) -> Result<ObjectList<K>, kubegen_client::Error>
    where
        K: Clone + DeserializeOwned,
    {
        let (resource_version, version_match) = match self.config.list_semantic {
            ListSemantic::Any => (Some("0".to_string()), Some(VersionMatch::NotOlderThan)),
            ListSemantic::MostRecent => (None, None),
        };
        let params = ListParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            resource_version,
            version_match,
            limit: self.config.page_size,
            continue_token,
            ..ListParams::default()
        };
        let request = Request::new(&self.url);
        match self.encoding {
            Encoding::Json { metadata } => {
                let request = if metadata {
                    request.list_metadata(&params)
                } else {
                    request.list(&params)
                };
                let request = request.map_err(kubegen_client::Error::BuildRequest)?;
                self.client.request(request).await
            }
            Encoding::Protobuf { .. } => {
                let request = request
                    .list(&params)
                    .map_err(kubegen_client::Error::BuildRequest)?;
                let body = self.read(request).await?;
                protobuf::decode_list(&body).map_err(decode_error)
            }
        }
    }

    /// Starts a watch from `resource_version`; with `initial_events`, a
    /// streaming list.
    async fn watch<K>(
        &self,
        resource_version: &str,
        initial_events: bool,
    ) -> Result<Incoming<K>, kubegen_client::Error>
    where
        K: Clone + DeserializeOwned + Send + 'static,
    {
        let params = WatchParams {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            timeout: self.config.timeout,
            bookmarks: self.config.bookmarks,
            send_initial_events: initial_events,
        };
        let request = Request::new(&self.url);
        match self.encoding {
            Encoding::Json { metadata } => {
                let request = if metadata {
                    request.watch_metadata(&params, resource_version)
                } else {
                    request.watch(&params, resource_version)
                };
                let request = request.map_err(kubegen_client::Error::BuildRequest)?;
                let events = self.client.request_events::<K>(request).await?;
                Ok(Incoming::Json(events.boxed()))
            }
            Encoding::Protobuf {
                keep_managed_fields,
                keep_bytes,
            } => {
                let request = request
                    .watch(&params, resource_version)
                    .map_err(kubegen_client::Error::BuildRequest)?;
                let response = self.send(request, protobuf::WATCH_MEDIA_TYPE).await?;
                Ok(Incoming::Protobuf(Frames {
                    body: response.into_body(),
                    buffer: BytesMut::new(),
                    keep_managed_fields,
                    keep_bytes,
                }))
            }
        }
    }

    /// The next event of a watch; `None` when it ended or stayed silent
    /// past its timeout (kube's idle rule: a zero timeout waits forever).
    async fn next<K>(
        &self,
        incoming: &mut Incoming<K>,
    ) -> Option<Result<WatchEvent<Decoded<K>>, kubegen_client::Error>>
    where
        K: Clone + DeserializeOwned,
    {
        match self.config.timeout {
            Some(0) => self.receive(incoming).await,
            timeout => {
                let idle = Duration::from_secs(u64::from(timeout.unwrap_or(DEFAULT_TIMEOUT)))
                    + IDLE_MARGIN;
                tokio::time::timeout(idle, self.receive(incoming))
                    .await
                    .ok()?
            }
        }
    }

    /// The next event of a watch, decoded; `None` when it ended.
    async fn receive<K>(
        &self,
        incoming: &mut Incoming<K>,
    ) -> Option<Result<WatchEvent<Decoded<K>>, kubegen_client::Error>>
    where
        K: Clone + DeserializeOwned,
    {
        let (event, bytes) = match incoming {
            Incoming::Json(events) => match events.next().await? {
                Ok(event) => (event, None),
                Err(error) => return Some(Err(error)),
            },
            Incoming::Protobuf(frames) => {
                let frame = match frames.next().await? {
                    Ok(frame) => frame,
                    Err(error) => return Some(Err(error)),
                };
                match protobuf::watch_event(&frame, frames.keep_managed_fields, frames.keep_bytes) {
                    Ok(decoded) => decoded,
                    Err(error) => return Some(Err(decode_error(error))),
                }
            }
        };
        let decoded = |obj| Decoded { obj, bytes };
        Some(Ok(match event {
            WatchEvent::Added(obj) => WatchEvent::Added(decoded(obj)),
            WatchEvent::Modified(obj) => WatchEvent::Modified(decoded(obj)),
            WatchEvent::Deleted(obj) => WatchEvent::Deleted(decoded(obj)),
            WatchEvent::Bookmark(bookmark) => WatchEvent::Bookmark(bookmark),
            WatchEvent::Error(status) => WatchEvent::Error(status),
        }))
    }

    /// Sends a protobuf request and reads the whole reply.
    ///
    /// This and [`send`](Self::send) return futures boxed here: the kind's
    /// list and watch await them, and a future awaited in generic code is
    /// compiled in the crate that names the kind, for each kind, unless it
    /// is boxed in a non-generic function.
    fn read(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> BoxFuture<'_, Result<Bytes, kubegen_client::Error>> {
        Box::pin(async move {
            let response = self.send(request, protobuf::MEDIA_TYPE).await?;
            Ok(response.into_body().collect().await?.to_bytes())
        })
    }

    /// Sends a protobuf `request` accepting `accept`; an error status or a
    /// reply that is not protobuf is an error.
    fn send(
        &self,
        request: http::Request<Vec<u8>>,
        accept: &'static str,
    ) -> BoxFuture<'_, Result<http::Response<Body>, kubegen_client::Error>> {
        Box::pin(self.send_unboxed(request, accept))
    }

    async fn send_unboxed(
        &self,
        request: http::Request<Vec<u8>>,
        accept: &'static str,
    ) -> Result<http::Response<Body>, kubegen_client::Error> {
        let (mut parts, body) = request.into_parts();
        parts
            .headers
            .insert(ACCEPT, HeaderValue::from_static(accept));
        let response = self
            .client
            .send(http::Request::from_parts(parts, Body::from(body)))
            .await?;
        let code = response.status();
        if code.is_client_error() || code.is_server_error() {
            let body = response.into_body().collect().await?.to_bytes();
            return Err(kubegen_client::Error::Api(Box::new(error_status(
                code.as_u16(),
                &body,
            ))));
        }
        let is_protobuf = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with(protobuf::MEDIA_TYPE));
        if !is_protobuf {
            let status = Status::failure(
                &format!(
                    "{} answered a protobuf request with {:?}",
                    self.url,
                    response.headers().get(CONTENT_TYPE)
                ),
                "NotAcceptable",
            )
            .with_code(406);
            return Err(kubegen_client::Error::Api(Box::new(status)));
        }
        Ok(response)
    }
}

/// An `Apply` or `Delete` of a watched object, which must carry a
/// resourceVersion to resume from (as in kube's watcher).
fn applied<K: Resource>(
    obj: Decoded<K>,
    event: fn(Decoded<K>) -> Event<Decoded<K>>,
    incoming: Incoming<K>,
) -> Step<K> {
    match obj.obj.resource_version().filter(|v| !v.is_empty()) {
        Some(resource_version) => (
            Some(Ok(event(obj))),
            State::Watching {
                resource_version,
                incoming,
            },
        ),
        None => (Some(Err(Error::NoResourceVersion)), State::Empty),
    }
}

/// The `Status` of a failed request: protobuf, as asked; JSON, as a proxy
/// or an older server may answer; or the body's text, as kube reports an
/// error it cannot parse.
pub(crate) fn error_status(code: u16, body: &[u8]) -> Status {
    let status = protobuf::decode::<Status>(body)
        .ok()
        .or_else(|| crate::json_text::from_bytes::<Status>(body).ok());
    match status {
        Some(status) if status.code == 0 => status.with_code(code),
        Some(status) => status,
        None => Status::failure(
            String::from_utf8_lossy(body).trim(),
            "Failed to parse error data",
        )
        .with_code(code),
    }
}

/// A protobuf decoding failure, as kube reports a JSON one.
fn decode_error(error: protobuf::Error) -> kubegen_client::Error {
    kubegen_client::Error::SerdeError(serde::de::Error::custom(error))
}

/// A protobuf watch stream split into its frames: each a 4-byte big-endian
/// length and a `WatchEvent` message.
struct Frames {
    body: Body,
    buffer: BytesMut,
    /// How each frame's object is decoded (the source's [`Encoding`]).
    keep_managed_fields: bool,
    keep_bytes: bool,
}

impl Frames {
    /// The next frame; `None` at the end of the stream. Boxed here (see
    /// [`Source::read`]).
    fn next(&mut self) -> BoxFuture<'_, Option<Result<Bytes, kubegen_client::Error>>> {
        Box::pin(self.next_unboxed())
    }

    async fn next_unboxed(&mut self) -> Option<Result<Bytes, kubegen_client::Error>> {
        loop {
            if let Some(len) = self.buffer.get(..4) {
                let len = u32::from_be_bytes(len.try_into().expect("4 bytes")) as usize;
                if self.buffer.len() >= 4 + len {
                    self.buffer.advance(4);
                    return Some(Ok(self.buffer.split_to(len).freeze()));
                }
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
                Some(Err(error)) => return Some(Err(error)),
                None if self.buffer.is_empty() => return None,
                None => {
                    self.buffer.clear();
                    return Some(Err(decode_error(protobuf::Error::new(
                        "a watch stream ended inside a frame",
                    ))));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_statuses_read_as_protobuf_json_or_text() {
        let json = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"gone","reason":"Expired","code":410}"#;
        let status = error_status(410, json);
        assert_eq!((status.code, status.reason.as_str()), (410, "Expired"));
        let text = error_status(502, b" bad gateway\n");
        assert_eq!(
            (text.code, text.message.as_str(), text.reason.as_str()),
            (502, "bad gateway", "Failed to parse error data")
        );
        let no_code = error_status(
            429,
            br#"{"kind":"Status","status":"Failure","message":"slow down"}"#,
        );
        assert_eq!(no_code.code, 429);
    }
}

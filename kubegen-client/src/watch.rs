//! A watch response's body read as events: one JSON `WatchEvent` per
//! line, a line at most [`MAX_EVENT_LINE`] bytes long.

use bytes::{Buf, BytesMut};
use futures::{Stream, stream};
use http_body_util::BodyExt;
use kube_core::{Status, WatchEvent};
use serde::de::DeserializeOwned;

use crate::body::Body;
use crate::error::{Error, Result};

/// The longest watch event line read (64 MiB): far above the largest
/// object the apiserver stores, and a bound on what a broken or hostile
/// endpoint can make the client buffer.
pub const MAX_EVENT_LINE: usize = 64 << 20;

struct Lines {
    body: Option<Body>,
    buffer: BytesMut,
    /// Where in `buffer` to resume looking for a newline.
    searched: usize,
}

/// The events of a watch response's body. The stream ends when the body
/// does, or when the connection is cut mid-event (the watch is to be
/// resumed from the last event's resourceVersion, as after any end).
pub(crate) fn events<T: DeserializeOwned>(body: Body) -> impl Stream<Item = Result<WatchEvent<T>>> {
    let lines = Lines {
        body: Some(body),
        buffer: BytesMut::new(),
        searched: 0,
    };
    stream::unfold(lines, |mut lines| async move {
        loop {
            match lines.next_line().await {
                Ok(Some(line)) if line.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(Some(line)) => return Some((decode(&line), lines)),
                Ok(None) => return None,
                Err(error) => {
                    // The stream ends after its error.
                    lines.body = None;
                    lines.buffer.clear();
                    lines.searched = 0;
                    return Some((Err(error), lines));
                }
            }
        }
    })
}

fn decode<T: DeserializeOwned>(line: &[u8]) -> Result<WatchEvent<T>> {
    match serde_json::from_slice::<WatchEvent<T>>(line) {
        Ok(event) => Ok(event),
        Err(error) => match serde_json::from_slice::<Status>(line) {
            Ok(status) if status.code != 0 => Err(Error::Api(Box::new(status))),
            _ => Err(Error::SerdeError(error)),
        },
    }
}

impl Lines {
    /// The next complete line, `None` at the end of the body (a partial
    /// last line is dropped: the connection was cut mid-event).
    async fn next_line(&mut self) -> Result<Option<BytesMut>> {
        loop {
            if let Some(at) = self.buffer[self.searched..]
                .iter()
                .position(|&b| b == b'\n')
            {
                let mut line = self.buffer.split_to(self.searched + at + 1);
                self.searched = 0;
                line.truncate(line.len() - 1);
                return Ok(Some(line));
            }
            self.searched = self.buffer.len();
            if self.buffer.len() > MAX_EVENT_LINE {
                return Err(Error::LinesCodecMaxLineLengthExceeded);
            }
            let Some(body) = self.body.as_mut() else {
                return Ok(None);
            };
            match body.frame().await {
                None => {
                    self.body = None;
                    return Ok(None);
                }
                Some(Ok(frame)) => {
                    if let Ok(mut data) = frame.into_data() {
                        while data.has_remaining() {
                            let chunk = data.chunk();
                            self.buffer.extend_from_slice(chunk);
                            let n = chunk.len();
                            data.advance(n);
                        }
                    }
                }
                Some(Err(error)) if cut_mid_stream(&error) => {
                    tracing::debug!(%error, "watch connection ended mid-stream");
                    self.body = None;
                    return Ok(None);
                }
                Some(Err(error)) => {
                    return Err(Error::ReadEvents(std::io::Error::other(error)));
                }
            }
        }
    }
}

/// Whether a body error is the connection ending before the body did (an
/// unexpected EOF at any depth of its sources, a chunked body cut short,
/// a hyper "incomplete message"): normal for a long watch, which is
/// resumed.
fn cut_mid_stream(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::UnexpectedEof
        {
            return true;
        }
        if let Some(h) = e.downcast_ref::<hyper::Error>()
            && h.is_incomplete_message()
        {
            return true;
        }
        if e.to_string().contains("unexpected EOF") {
            return true;
        }
        next = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use futures::StreamExt;
    use http_body::Frame;
    use http_body_util::StreamBody;
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;
    use crate::error::BoxError;

    fn body(chunks: Vec<Result<&'static str, BoxError>>) -> Body {
        let frames = chunks
            .into_iter()
            .map(|c| c.map(|s| Frame::data(Bytes::from_static(s.as_bytes()))));
        Body::wrap_body(StreamBody::new(futures::stream::iter(frames)))
    }

    fn event(kind: &str, name: &str) -> String {
        format!(
            r#"{{"type":"{kind}","object":{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","resourceVersion":"1"}}}}}}"#
        )
    }

    async fn names(body: Body) -> Vec<Result<String, String>> {
        events::<ConfigMap>(body)
            .map(|e| match e {
                Ok(WatchEvent::Added(cm)) => Ok(format!("added {}", cm.metadata.name.unwrap())),
                Ok(WatchEvent::Modified(cm)) => {
                    Ok(format!("modified {}", cm.metadata.name.unwrap()))
                }
                Ok(other) => Ok(format!("{other:?}")),
                Err(e) => Err(e.to_string()),
            })
            .collect()
            .await
    }

    #[tokio::test]
    async fn events_split_across_frames_and_blank_lines_read_whole() {
        let text: &'static str = Box::leak(
            format!("{}\n\n{}\r\n", event("ADDED", "a"), event("MODIFIED", "b")).into_boxed_str(),
        );
        let (one, rest) = text.split_at(17);
        let (two, three) = rest.split_at(rest.len() - 40);
        let got = names(body(vec![Ok(one), Ok(two), Ok(three)])).await;
        assert_eq!(
            got,
            vec![Ok("added a".to_owned()), Ok("modified b".to_owned())]
        );
    }

    #[tokio::test]
    async fn a_cut_connection_ends_the_stream_and_drops_the_partial_event() {
        let first: &'static str =
            Box::leak(format!("{}\n{{\"type\":\"ADD", event("ADDED", "a")).into_boxed_str());
        let cut: BoxError = Box::new(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "peer closed",
        ));
        let got = names(body(vec![Ok(first), Err(cut)])).await;
        assert_eq!(got, vec![Ok("added a".to_owned())]);
    }

    #[tokio::test]
    async fn other_read_errors_are_reported_once_and_end_the_stream() {
        let broken: BoxError = Box::new(std::io::Error::other("reset"));
        let got = names(body(vec![Err(broken), Ok("never read\n")])).await;
        assert_eq!(got.len(), 1);
        assert!(got[0].as_ref().unwrap_err().contains("reset"), "{got:?}");
    }

    #[tokio::test]
    async fn an_error_event_and_a_status_line_are_api_errors_and_garbage_is_a_decode_error() {
        let error = r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version","reason":"Expired","code":410}}"#;
        let text: &'static str = Box::leak(
            format!("{error}\n{{\"kind\":\"Status\",\"code\":500,\"message\":\"m\"}}\nnot json\n")
                .into_boxed_str(),
        );
        let got = names(body(vec![Ok(text)])).await;
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(
            got[0]
                .as_ref()
                .unwrap()
                .contains("too old resource version"),
            "{got:?}"
        );
        assert!(got[1].as_ref().unwrap_err().contains("ApiError"), "{got:?}");
        assert!(
            got[2].as_ref().unwrap_err().contains("deserializing"),
            "{got:?}"
        );
    }

    #[tokio::test]
    async fn a_line_longer_than_the_bound_is_an_error_not_unbounded_memory() {
        let chunk: &'static str = Box::leak("x".repeat(1 << 20).into_boxed_str());
        let frames = (0..(MAX_EVENT_LINE >> 20) + 2).map(|_| Ok(chunk)).collect();
        let got = names(body(frames)).await;
        assert_eq!(got.len(), 1);
        assert!(
            got[0].as_ref().unwrap_err().contains("maximum length"),
            "{got:?}"
        );
    }
}

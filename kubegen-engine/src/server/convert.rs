//! The conversion route's plumbing: the request body, as it arrives, read
//! by [`crate::conversion::stream::answer`] on a blocking thread, and its
//! output sent as the response body as it is written — neither the review
//! nor the answer is ever held whole. Both directions go through small
//! bounded channels, so a slow reader or writer slows the conversion
//! instead of growing a buffer.

use std::convert::Infallible;
use std::io::{self, Read, Write};
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use http::{Request, Response, StatusCode, header};
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use prometheus_client::metrics::counter::Counter;
use tokio::sync::{mpsc, oneshot};

use super::limits::{BodyError, Held, IDLE, content_length};
use super::serve::{Reply, text};
use crate::conversion::Converter;
use crate::conversion::stream;

/// Chunks in flight in each direction.
const CHUNKS: usize = 4;
// The apiserver reads its answer while it still sends (as Go's HTTP client
// does); a caller that sends its whole review before reading, once the
// answer outgrows the connection's buffers, is cut after `IDLE` instead of
// holding its budget.
/// The size of a response chunk.
const CHUNK: usize = 64 * 1024;

/// What one review holds of the budget: its largest object read, decoded,
/// converted and encoded (a small multiple of its size), and the chunks in
/// flight. No object is larger than the body, so a declared length (which
/// the body cannot exceed) bounds it: the apiserver's reviews of small
/// objects take little, and many fit beside a flood of large ones.
fn reserved(limits: &super::Limits, declared: Option<usize>) -> usize {
    let object = declared.map_or(limits.max_object, |n| n.min(limits.max_object));
    3 * object + 2 * CHUNKS * CHUNK
}

/// Answers the conversion `request`: `413` when its declared length is
/// over the limit, `400` when it is not a `ConversionReview`, `429` when
/// the budget cannot hold one object's conversion; otherwise `200`, the
/// answer streamed. A conversion that panics counts into `panics`.
pub(super) async fn answer(
    converter: Arc<Converter>,
    mut held: Held,
    request: Request<Incoming>,
    panics: &Counter,
) -> Reply {
    let limits = held.budget().limits().clone();
    let declared = content_length(request.headers());
    if declared.is_some_and(|n| n > limits.max_conversion_body) {
        return BodyError::TooLarge(limits.max_conversion_body).reply(held.budget());
    }
    if held.hold(reserved(&limits, declared)).is_err() {
        return held.budget().refusal("too many bytes in flight");
    }
    let (chunks, incoming) = mpsc::channel(CHUNKS);
    tokio::spawn(pump(
        request.into_body(),
        limits.max_conversion_body,
        chunks,
    ));
    let (outgoing, body) = mpsc::channel(CHUNKS);
    let (started, head) = oneshot::channel();
    let max_object = limits.max_object;
    let runtime = tokio::runtime::Handle::current();
    let converting = tokio::task::spawn_blocking(move || {
        let reader = ChannelReader {
            chunks: incoming,
            current: Bytes::new(),
        };
        let mut writer = ChannelWriter {
            runtime,
            chunks: outgoing,
            buffer: BytesMut::new(),
            started: Some(started),
        };
        let answered = stream::answer(&converter, reader, &mut writer, max_object);
        // The budget is held until the last chunk is handed over.
        drop(held);
        answered
    });
    match head.await {
        Ok(()) => {
            let frames = futures::stream::unfold(body, |mut body| async move {
                body.recv()
                    .await
                    .map(|chunk| (Ok::<_, Infallible>(Frame::data(chunk)), body))
            });
            Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "application/json")
                .body(StreamBody::new(frames).boxed_unsync())
                .unwrap_or_default()
        }
        // Nothing was written: the conversion failed before its first byte.
        Err(_) => match converting.await {
            Ok(Err(e)) => text(StatusCode::BAD_REQUEST, format!("{e}\n")),
            Ok(Ok(())) => text(StatusCode::INTERNAL_SERVER_ERROR, "no answer was written\n"),
            Err(panic) => {
                panics.inc();
                tracing::error!(error = %panic, "a conversion panicked");
                text(StatusCode::INTERNAL_SERVER_ERROR, "the webhook failed\n")
            }
        },
    }
}

/// Forwards the body's data to `chunks`, at most `limit` bytes; past it,
/// or when reading fails, an error ends the stream.
async fn pump(body: Incoming, limit: usize, chunks: mpsc::Sender<Result<Bytes, String>>) {
    let mut body = std::pin::pin!(body);
    let mut total = 0usize;
    loop {
        let frame = match tokio::time::timeout(IDLE, body.frame()).await {
            Ok(Some(frame)) => frame,
            Ok(None) => return,
            Err(_) => {
                let _ = chunks
                    .send(Err(format!("no more of the body for {IDLE:?}")))
                    .await;
                return;
            }
        };
        let data = match frame {
            Ok(frame) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
            Err(e) => {
                let _ = chunks.send(Err(format!("reading the body: {e}"))).await;
                return;
            }
        };
        total += data.len();
        if total > limit {
            let _ = chunks
                .send(Err(format!("the body is larger than {limit} bytes")))
                .await;
            return;
        }
        if chunks.send(Ok(data)).await.is_err() {
            // The conversion stopped reading.
            return;
        }
    }
}

/// The request body as a blocking reader.
struct ChannelReader {
    chunks: mpsc::Receiver<Result<Bytes, String>>,
    current: Bytes,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.current.is_empty() {
            match self.chunks.blocking_recv() {
                Some(Ok(chunk)) => self.current = chunk,
                Some(Err(e)) => return Err(io::Error::other(e)),
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current.split_to(n));
        Ok(n)
    }
}

/// The response body as a blocking writer: the first byte written starts
/// the response (`started`), then chunks of [`CHUNK`] bytes are handed
/// over as they fill.
struct ChannelWriter {
    runtime: tokio::runtime::Handle,
    chunks: mpsc::Sender<Bytes>,
    buffer: BytesMut,
    started: Option<oneshot::Sender<()>>,
}

impl ChannelWriter {
    fn send(&mut self) -> io::Result<()> {
        if let Some(started) = self.started.take() {
            let _ = started.send(());
        }
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = self.buffer.split().freeze();
        let sent = self
            .runtime
            .block_on(tokio::time::timeout(IDLE, self.chunks.send(chunk)));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the caller went away",
            )),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the caller read none of the answer for {IDLE:?}"),
            )),
        }
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(buf);
        if self.buffer.len() >= CHUNK {
            self.send()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Limits;

    #[test]
    fn a_review_reserves_by_its_declared_length() {
        let limits = Limits::default();
        let buffers = 2 * CHUNKS * CHUNK;
        assert_eq!(reserved(&limits, Some(10_000)), 30_000 + buffers);
        // No object is larger than the apiserver sends.
        let largest = 3 * limits.max_object + buffers;
        assert_eq!(reserved(&limits, Some(200 << 20)), largest);
        // An undeclared body may hold the largest object.
        assert_eq!(reserved(&limits, None), largest);
        // The apiserver's review of a few small objects fits many times in
        // one source's share beside a flood holding the other half.
        assert!(reserved(&limits, Some(64 << 10)) * 20 < limits.max_in_flight_bytes_per_source);
    }
}

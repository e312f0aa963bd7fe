//! What one caller may cost the operator: [`Limits`] on a request's body
//! and on one converted object, and the [`Budget`] of requests and bytes in
//! flight the webhook and metrics servers share.
//!
//! A request over a body limit is answered `413` before its body is read
//! past the limit (at once when its `Content-Length` says so). A request
//! the budget cannot take is answered `429` with `Retry-After`: the
//! apiserver's webhook client retries such answers, so its conversions and
//! admissions succeed once a flood stops, while the flood itself holds at
//! most the budget.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::serve::{Reply, text};

const MIB: usize = 1024 * 1024;

/// The apiserver's largest request body (`3 MiB`, `maxRequestBodyBytes` in
/// k8s.io/apiserver's `DefaultMaxRequestSizeBytes`): no object it stores,
/// and so no object it sends to a webhook, is larger.
pub const APISERVER_MAX_OBJECT: usize = 3 * MIB;

/// How much one request may send and hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest body of a buffered review (admission): an
    /// `AdmissionReview` carries at most two objects (`object` and
    /// `oldObject`) of the apiserver's largest size plus its envelope —
    /// `7 MiB` by default, controller-runtime's cap.
    pub max_review_body: usize,
    /// The largest body of a `ConversionReview`. Conversions are decoded
    /// and converted object by object, so their memory does not grow with
    /// the body; this bounds the work one request can ask for (the
    /// apiserver sends a list's objects in one review). `256 MiB` by
    /// default.
    pub max_conversion_body: usize,
    /// The largest single object in a `ConversionReview`
    /// ([`APISERVER_MAX_OBJECT`] by default): a larger one fails the
    /// review.
    pub max_object: usize,
    /// Requests answered at once by the webhook and metrics servers
    /// together (`64` by default).
    pub max_in_flight_requests: usize,
    /// Bytes held at once by requests in flight, counted as each body is
    /// read (and for a conversion, what it holds per object): `48 MiB` by
    /// default.
    pub max_in_flight_bytes: usize,
    /// The `Retry-After` of a refused request (one second by default).
    pub retry_after: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_review_body: 2 * APISERVER_MAX_OBJECT + MIB,
            max_conversion_body: 256 * MIB,
            max_object: APISERVER_MAX_OBJECT,
            max_in_flight_requests: 64,
            max_in_flight_bytes: 48 * MIB,
            retry_after: Duration::from_secs(1),
        }
    }
}

/// How long a caller may leave its request idle — sending nothing more of
/// its body, or (for a streamed answer) reading none of the answer — before
/// it is cut with what it holds of the budget: a slow caller cannot keep a
/// place in flight for ever.
pub(super) const IDLE: std::time::Duration = std::time::Duration::from_secs(30);

/// The unit the byte budget counts in (a semaphore counts `u32` permits).
const UNIT: usize = 1024;

/// Requests and bytes in flight, shared by the servers given it (clones
/// share one budget). Every server has one; the
/// [`Manager`](crate::manager::Manager) gives its webhook and metrics
/// servers the same.
#[derive(Clone, Debug)]
pub struct Budget {
    limits: Arc<Limits>,
    requests: Arc<Semaphore>,
    bytes: Arc<Semaphore>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(Limits::default())
    }
}

/// What a request holds of the budget; released when dropped.
#[derive(Debug)]
pub struct Held {
    _request: OwnedSemaphorePermit,
    bytes: Vec<OwnedSemaphorePermit>,
    budget: Budget,
}

impl Budget {
    /// A budget with `limits`.
    pub fn new(limits: Limits) -> Self {
        let units = limits
            .max_in_flight_bytes
            .div_ceil(UNIT)
            .min(u32::MAX as usize);
        Budget {
            requests: Arc::new(Semaphore::new(limits.max_in_flight_requests)),
            bytes: Arc::new(Semaphore::new(units)),
            limits: Arc::new(limits),
        }
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A place for one more request, or the `429` to answer.
    pub(super) fn admit(&self) -> Result<Held, Box<Reply>> {
        match self.requests.clone().try_acquire_owned() {
            Ok(permit) => Ok(Held {
                _request: permit,
                bytes: Vec::new(),
                budget: self.clone(),
            }),
            Err(_) => Err(Box::new(self.refusal("too many requests in flight"))),
        }
    }

    /// `429 Too Many Requests` with `Retry-After`.
    pub(super) fn refusal(&self, why: &str) -> Reply {
        let mut reply = text(
            StatusCode::TOO_MANY_REQUESTS,
            format!("{why}; retry later\n"),
        );
        let seconds = self.limits.retry_after.as_secs().max(1);
        reply
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        reply
    }
}

impl Held {
    /// Takes `n` more bytes of the budget, or says it is spent.
    pub(super) fn hold(&mut self, n: usize) -> Result<(), Spent> {
        let units = n.div_ceil(UNIT).min(u32::MAX as usize) as u32;
        if units == 0 {
            return Ok(());
        }
        match self.budget.bytes.clone().try_acquire_many_owned(units) {
            Ok(permit) => {
                self.bytes.push(permit);
                Ok(())
            }
            Err(_) => Err(Spent),
        }
    }

    /// The budget this is part of.
    pub(super) fn budget(&self) -> &Budget {
        &self.budget
    }
}

/// The byte budget has no room left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Spent;

/// Why a body could not be read whole.
#[derive(Debug)]
pub(super) enum BodyError {
    /// Longer than the limit: `413`.
    TooLarge(usize),
    /// The byte budget is spent: `429`.
    Spent,
    /// The connection failed or the client gave up: `400`.
    Read(String),
}

impl BodyError {
    /// The answer to a request whose body could not be read.
    pub(super) fn reply(&self, budget: &Budget) -> Reply {
        match self {
            BodyError::TooLarge(limit) => text(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body is larger than {limit} bytes\n"),
            ),
            BodyError::Spent => budget.refusal("too many bytes in flight"),
            BodyError::Read(e) => text(
                StatusCode::BAD_REQUEST,
                format!("cannot read the body: {e}\n"),
            ),
        }
    }
}

/// The declared `Content-Length`, if any.
pub(super) fn content_length(headers: &http::HeaderMap) -> Option<usize> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// Reads `body` whole, at most `limit` bytes, holding each chunk's bytes
/// of the budget as it arrives (all of a declared length first).
pub(super) async fn read_body<B>(
    body: B,
    declared: Option<usize>,
    limit: usize,
    held: &mut Held,
) -> Result<Bytes, BodyError>
where
    B: hyper::body::Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    use http_body_util::BodyExt;
    // Bytes of the budget held so far for this body.
    let mut holding = declared.unwrap_or(0);
    if holding > limit {
        return Err(BodyError::TooLarge(limit));
    }
    held.hold(holding).map_err(|Spent| BodyError::Spent)?;
    let mut body = std::pin::pin!(body);
    let mut out = bytes::BytesMut::with_capacity(declared.unwrap_or(0));
    loop {
        let frame = match tokio::time::timeout(IDLE, body.frame()).await {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(_) => return Err(BodyError::Read(format!("no more of it for {IDLE:?}"))),
        };
        let frame = frame.map_err(|e| BodyError::Read(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let total = out.len() + data.len();
        if total > limit {
            return Err(BodyError::TooLarge(limit));
        }
        if total > holding {
            held.hold(total - holding)
                .map_err(|Spent| BodyError::Spent)?;
            holding = total;
        }
        out.extend_from_slice(&data);
    }
    Ok(out.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use http_body_util::{Full, StreamBody};

    fn budget(requests: usize, bytes: usize) -> Budget {
        Budget::new(Limits {
            max_in_flight_requests: requests,
            max_in_flight_bytes: bytes,
            ..Limits::default()
        })
    }

    #[test]
    fn requests_beyond_the_budget_are_refused_with_retry_after() {
        let b = budget(2, MIB);
        let first = b.admit().unwrap();
        let _second = b.admit().unwrap();
        let refused = b.admit().unwrap_err();
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
        drop(first);
        assert!(b.admit().is_ok(), "a finished request frees its place");
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_before_reading() {
        let b = budget(4, MIB);
        let mut held = b.admit().unwrap();
        // A body that would fail if read: the length alone decides.
        let body = StreamBody::new(futures::stream::once(async {
            Err::<hyper::body::Frame<Bytes>, _>("must not be read")
        }));
        let err = read_body(body, Some(2000), 1000, &mut held)
            .await
            .unwrap_err();
        assert!(matches!(err, BodyError::TooLarge(1000)), "{err:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stops_coming_is_cut_after_the_idle_time() {
        let b = budget(4, MIB);
        let mut held = b.admit().unwrap();
        let first = futures::stream::once(async {
            Ok::<_, std::convert::Infallible>(hyper::body::Frame::data(Bytes::from_static(b"{")))
        });
        let body = StreamBody::new(first.chain(futures::stream::pending()));
        let started = tokio::time::Instant::now();
        let err = read_body(body, Some(100), MIB, &mut held)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, BodyError::Read(m) if m.contains("30s")),
            "{err:?}"
        );
        assert_eq!(started.elapsed(), IDLE);
    }

    #[tokio::test]
    async fn undeclared_bodies_are_cut_at_the_limit() {
        let b = budget(4, MIB);
        let mut held = b.admit().unwrap();
        let chunks = (0..10).map(|_| {
            Ok::<_, std::convert::Infallible>(hyper::body::Frame::data(Bytes::from(vec![
                b'x';
                300
            ])))
        });
        let body = StreamBody::new(futures::stream::iter(chunks));
        let err = read_body(body, None, 1000, &mut held).await.unwrap_err();
        assert!(matches!(err, BodyError::TooLarge(1000)), "{err:?}");
    }

    #[tokio::test]
    async fn bodies_hold_bytes_of_the_shared_budget_until_done() {
        let b = budget(4, 8 * UNIT);
        let mut first = b.admit().unwrap();
        let body = Full::new(Bytes::from(vec![b'x'; 6 * UNIT]));
        let read = read_body(body, None, MIB, &mut first).await.unwrap();
        assert_eq!(read.len(), 6 * UNIT);
        let mut second = b.admit().unwrap();
        let body = Full::new(Bytes::from(vec![b'y'; 4 * UNIT]));
        let err = read_body(body, Some(4 * UNIT), MIB, &mut second)
            .await
            .unwrap_err();
        assert!(matches!(err, BodyError::Spent), "{err:?}");
        drop(first);
        let body = Full::new(Bytes::from(vec![b'y'; 4 * UNIT]));
        assert!(
            read_body(body, Some(4 * UNIT), MIB, &mut second)
                .await
                .is_ok()
        );
    }
}

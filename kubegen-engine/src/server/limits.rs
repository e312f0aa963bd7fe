//! What one caller may cost the operator: [`Limits`] on a request's body
//! and on one converted object, and the [`Budget`] of requests and bytes in
//! flight the webhook and metrics servers share, of which one source
//! address holds at most its share (half by default).
//!
//! A request over a body limit is answered `413` before its body is read
//! past the limit (at once when its `Content-Length` says so). A request
//! the budget cannot take is answered `429` with `Retry-After`: the
//! apiserver's webhook client retries such answers, so its conversions and
//! admissions succeed once a flood stops, while the flood itself holds at
//! most the budget.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use parking_lot::Mutex;

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
    /// Of those, requests from one source address (`32`, half, by
    /// default).
    pub max_in_flight_requests_per_source: usize,
    /// Bytes held at once by requests in flight, counted as each body is
    /// read (and for a conversion, what it holds per object): `48 MiB` by
    /// default.
    pub max_in_flight_bytes: usize,
    /// Of those, bytes held by requests from one source address (`24 MiB`,
    /// half, by default): room for two conversions of the apiserver's
    /// largest objects at once.
    pub max_in_flight_bytes_per_source: usize,
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
            max_in_flight_requests_per_source: 32,
            max_in_flight_bytes: 48 * MIB,
            max_in_flight_bytes_per_source: 24 * MIB,
            retry_after: Duration::from_secs(1),
        }
    }
}

/// How long a caller may leave its request idle — sending nothing more of
/// its body, or (for a streamed answer) reading none of the answer — before
/// it is cut with what it holds of the budget: a slow caller cannot keep a
/// place in flight for ever.
pub(super) const IDLE: std::time::Duration = std::time::Duration::from_secs(30);

/// Requests and bytes in flight, shared by the servers given it (clones
/// share one budget). Every server has one; the
/// [`Manager`](crate::manager::Manager) gives its webhook and metrics
/// servers the same.
///
/// One source address may hold at most its share of either
/// ([`Limits::max_in_flight_requests_per_source`],
/// [`Limits::max_in_flight_bytes_per_source`]): a caller flooding the
/// webhook from one address cannot take the room the apiserver's own
/// reviews need, which come from another. Behind a proxy that hides
/// callers' addresses all callers are one source, and only the totals
/// apply between them.
#[derive(Clone, Debug)]
pub struct Budget {
    limits: Arc<Limits>,
    in_flight: Arc<Mutex<InFlight>>,
}

/// What is in flight, in total and by source.
#[derive(Debug, Default)]
struct InFlight {
    total: Use,
    /// Sources holding something (an entry leaves with its last request).
    by_source: HashMap<Option<IpAddr>, Use>,
}

/// Requests and bytes held.
#[derive(Debug, Default, Clone, Copy)]
struct Use {
    requests: usize,
    bytes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(Limits::default())
    }
}

/// What a request holds of the budget; released when dropped.
#[derive(Debug)]
pub struct Held {
    source: Option<IpAddr>,
    bytes: usize,
    budget: Budget,
}

impl Budget {
    /// A budget with `limits`.
    pub fn new(limits: Limits) -> Self {
        Budget {
            limits: Arc::new(limits),
            in_flight: Arc::default(),
        }
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A place for one more request from `source` (its address, when
    /// known), or the `429` to answer.
    pub(super) fn admit(&self, source: Option<IpAddr>) -> Result<Held, Box<Reply>> {
        let mut in_flight = self.in_flight.lock();
        let InFlight { total, by_source } = &mut *in_flight;
        if total.requests >= self.limits.max_in_flight_requests {
            return Err(Box::new(self.refusal("too many requests in flight")));
        }
        let held_by_source = by_source.get(&source).map_or(0, |own| own.requests);
        if held_by_source >= self.limits.max_in_flight_requests_per_source {
            return Err(Box::new(
                self.refusal("too many requests in flight from this address"),
            ));
        }
        by_source.entry(source).or_default().requests += 1;
        total.requests += 1;
        Ok(Held {
            source,
            bytes: 0,
            budget: self.clone(),
        })
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
    /// Takes `n` more bytes of the budget, or says it (or this source's
    /// share of it) is spent.
    pub(super) fn hold(&mut self, n: usize) -> Result<(), Spent> {
        if n == 0 {
            return Ok(());
        }
        let limits = &self.budget.limits;
        let mut in_flight = self.budget.in_flight.lock();
        let InFlight { total, by_source } = &mut *in_flight;
        let own = by_source.get_mut(&self.source).expect("admitted");
        if total.bytes.saturating_add(n) > limits.max_in_flight_bytes
            || own.bytes.saturating_add(n) > limits.max_in_flight_bytes_per_source
        {
            return Err(Spent);
        }
        own.bytes += n;
        total.bytes += n;
        self.bytes += n;
        Ok(())
    }

    /// The budget this is part of.
    pub(super) fn budget(&self) -> &Budget {
        &self.budget
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut in_flight = self.budget.in_flight.lock();
        let InFlight { total, by_source } = &mut *in_flight;
        total.requests -= 1;
        total.bytes -= self.bytes;
        if let Some(own) = by_source.get_mut(&self.source) {
            own.requests -= 1;
            own.bytes -= self.bytes;
            if own.requests == 0 {
                by_source.remove(&self.source);
            }
        }
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

    const KIB: usize = 1024;

    fn budget(requests: usize, bytes: usize) -> Budget {
        Budget::new(Limits {
            max_in_flight_requests: requests,
            max_in_flight_requests_per_source: requests,
            max_in_flight_bytes: bytes,
            max_in_flight_bytes_per_source: bytes,
            ..Limits::default()
        })
    }

    #[test]
    fn requests_beyond_the_budget_are_refused_with_retry_after() {
        let b = budget(2, MIB);
        let first = b.admit(None).unwrap();
        let _second = b.admit(None).unwrap();
        let refused = b.admit(None).unwrap_err();
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
        drop(first);
        assert!(b.admit(None).is_ok(), "a finished request frees its place");
    }

    fn ip(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([127, 0, 0, last]))
    }

    #[test]
    fn one_source_holds_at_most_its_share_and_others_keep_theirs() {
        let b = Budget::new(Limits {
            max_in_flight_requests: 4,
            max_in_flight_requests_per_source: 2,
            max_in_flight_bytes: 10 * KIB,
            max_in_flight_bytes_per_source: 6 * KIB,
            ..Limits::default()
        });
        let mut flood = b.admit(ip(2)).unwrap();
        let mut second = b.admit(ip(2)).unwrap();
        let refused = b.admit(ip(2)).unwrap_err();
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
        flood.hold(4 * KIB).unwrap();
        assert_eq!(second.hold(3 * KIB), Err(Spent), "past the source's share");
        second.hold(2 * KIB).unwrap();
        // Another address still has its room: requests and bytes.
        let mut apiserver = b.admit(ip(1)).unwrap();
        apiserver.hold(4 * KIB).unwrap();
        // The totals still bind everyone.
        let mut third = b.admit(None).unwrap();
        assert!(b.admit(ip(3)).is_err(), "four in flight in total");
        assert_eq!(third.hold(KIB), Err(Spent), "ten KiB in total");
        drop(flood);
        third.hold(KIB).unwrap();
        drop((third, apiserver));
        // 2 KiB of the total's 10 held, all by the flooding source.
        let mut again = b.admit(ip(2)).unwrap();
        again.hold(4 * KIB).unwrap();
        assert_eq!(again.hold(KIB), Err(Spent), "the share is 6 KiB");
    }

    #[test]
    fn a_finished_request_returns_its_share() {
        let b = budget(1, 4 * KIB);
        for _ in 0..3 {
            let mut held = b.admit(ip(7)).unwrap();
            held.hold(4 * KIB).unwrap();
        }
        let in_flight = b.in_flight.lock();
        assert_eq!((in_flight.total.requests, in_flight.total.bytes), (0, 0));
        assert!(in_flight.by_source.is_empty(), "no source left behind");
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_before_reading() {
        let b = budget(4, MIB);
        let mut held = b.admit(None).unwrap();
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
        let mut held = b.admit(None).unwrap();
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
        let mut held = b.admit(None).unwrap();
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
        let b = budget(4, 8 * KIB);
        let mut first = b.admit(None).unwrap();
        let body = Full::new(Bytes::from(vec![b'x'; 6 * KIB]));
        let read = read_body(body, None, MIB, &mut first).await.unwrap();
        assert_eq!(read.len(), 6 * KIB);
        let mut second = b.admit(None).unwrap();
        let body = Full::new(Bytes::from(vec![b'y'; 4 * KIB]));
        let err = read_body(body, Some(4 * KIB), MIB, &mut second)
            .await
            .unwrap_err();
        assert!(matches!(err, BodyError::Spent), "{err:?}");
        drop(first);
        let body = Full::new(Bytes::from(vec![b'y'; 4 * KIB]));
        assert!(
            read_body(body, Some(4 * KIB), MIB, &mut second)
                .await
                .is_ok()
        );
    }
}

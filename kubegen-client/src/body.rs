//! [`Body`]: the body of the requests the client sends and of the
//! responses it reads, whatever transport carried them.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;

use crate::error::{BoxError, Error};

/// An HTTP body: bytes in memory or a stream from a connection.
#[derive(Debug)]
pub struct Body(UnsyncBoxBody<Bytes, Error>);

impl Body {
    /// A body with no bytes.
    pub fn empty() -> Self {
        Body::from(Bytes::new())
    }

    /// Wraps any body whose errors convert to a boxed error (a hyper
    /// response body, a test's stream).
    pub fn wrap_body<B>(body: B) -> Self
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        Body(body.map_err(|e| Error::Service(e.into())).boxed_unsync())
    }

    /// Reads the whole body.
    pub async fn collect_bytes(self) -> Result<Bytes, Error> {
        Ok(self.0.collect().await?.to_bytes())
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Self {
        Body(
            http_body_util::Full::new(bytes)
                .map_err(|never| match never {})
                .boxed_unsync(),
        )
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Self {
        Body::from(Bytes::from(bytes))
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        Pin::new(&mut self.0).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.0.size_hint()
    }
}

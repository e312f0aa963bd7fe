//! The accept loop the probe and metrics servers share: HTTP/1.1 over
//! plain TCP or TLS, handshake and header timeouts, and a graceful stop.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{Request, Response, StatusCode, header};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// A response: a whole body, or one streamed as it is produced.
pub(super) type Reply = Response<UnsyncBoxBody<Bytes, std::convert::Infallible>>;

/// The address a request came from, in its extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Peer(pub std::net::SocketAddr);

impl Peer {
    /// The address `request` came from, when the server recorded it.
    pub(super) fn source<B>(request: &Request<B>) -> Option<std::net::IpAddr> {
        request.extensions().get::<Peer>().map(|p| p.0.ip())
    }
}

/// Answers one request.
pub(super) type Handler = Arc<dyn Fn(Request<Incoming>) -> BoxFuture<'static, Reply> + Send + Sync>;

/// How long open connections may take to finish after shutdown.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a client may take to send request headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to complete the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `handler` on `listener` (through `tls` when given) until
/// `shutdown` resolves, then stops accepting, lets requests in progress
/// finish (for at most five seconds) and returns.
///
/// Not generic, and the future boxed here: the servers' public `serve`
/// box their caller's `shutdown` and return this, so a crate awaiting one
/// compiles none of the accept loop (see
/// [`Manager::run_until`](crate::Manager::run_until)).
pub(super) fn serve<'a>(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    handler: Handler,
    shutdown: BoxFuture<'a, ()>,
) -> BoxFuture<'a, std::io::Result<()>> {
    Box::pin(accept_loop(listener, tls, handler, shutdown))
}

async fn accept_loop(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    handler: Handler,
    mut shutdown: BoxFuture<'_, ()>,
) -> std::io::Result<()> {
    let (closing, closed) = watch::channel(false);
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    connections.spawn(connection(
                        stream,
                        Peer(peer),
                        tls.clone(),
                        handler.clone(),
                        closed.clone(),
                    ));
                }
                Err(error) => {
                    // Out of file descriptors and the like: back off.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    closing.send_replace(true);
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        connections.shutdown().await;
    }
    Ok(())
}

/// One connection: the TLS handshake when serving TLS, then HTTP/1.1.
async fn connection(
    stream: TcpStream,
    peer: Peer,
    tls: Option<TlsAcceptor>,
    handler: Handler,
    closing: watch::Receiver<bool>,
) {
    let Some(acceptor) = tls else {
        return http(Stream::Plain(stream), peer, handler, closing).await;
    };
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
        Ok(Ok(stream)) => http(Stream::Tls(Box::new(stream)), peer, handler, closing).await,
        Ok(Err(error)) => tracing::debug!(%error, "TLS handshake failed"),
        Err(_) => tracing::debug!("TLS handshake timed out"),
    }
}

/// A connection's byte stream, plain or TLS: one type, so that hyper's
/// HTTP/1.1 server is compiled once for both.
enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

async fn http(stream: Stream, peer: Peer, handler: Handler, mut closing: watch::Receiver<bool>) {
    let io = TokioIo::new(stream);
    let service = service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(peer);
        let reply = handler(request);
        async move { Ok::<_, std::convert::Infallible>(reply.await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let connection = builder.serve_connection(io, service);
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended with an error");
            }
        }
        () = async { drop(closing.wait_for(|closing| *closing).await) } => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// A `text/plain` response.
pub(super) fn text(status: StatusCode, body: impl Into<String>) -> Reply {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(whole(body.into()))
        .unwrap_or_default()
}

/// A whole body.
pub(super) fn whole(body: impl Into<Bytes>) -> UnsyncBoxBody<Bytes, std::convert::Infallible> {
    Full::new(body.into()).boxed_unsync()
}

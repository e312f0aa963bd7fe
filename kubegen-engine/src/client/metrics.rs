//! [`RestClientMetrics`]: every request a client makes, counted as
//! controller-runtime counts them (client-go's `rest_client_requests_total`
//! family, the REST client metric controller-runtime registers by default).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// client-go's labels: the status code (`<error>` when no response came
/// back), the HTTP method and the apiserver's host.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    code: String,
    method: String,
    host: String,
}

/// | name | type | meaning |
/// |---|---|---|
/// | `rest_client_requests_total{code, method, host}` | counter | requests by status code, method and apiserver host |
///
/// Not kept from client-go: its opt-in latency, size and rate-limiter
/// histograms, which controller-runtime does not register by default
/// either.
#[derive(Debug, Clone, Default)]
pub struct RestClientMetrics {
    requests: Family<RequestLabels, Counter>,
}

impl RestClientMetrics {
    /// Creates the family and registers it into `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        registry.register(
            "rest_client_requests",
            "Number of HTTP requests, partitioned by status code, method, and host.",
            metrics.requests.clone(),
        );
        metrics
    }

    /// `client`, with every request it sends counted under `host` (the
    /// apiserver's `host:port` as its URL names it, which client-go uses:
    /// `kubegen::Config::cluster_url`'s authority). Watches count when their
    /// response starts, as client-go counts them.
    pub fn instrument(
        &self,
        client: kubegen_client::Client,
        host: impl Into<String>,
    ) -> kubegen_client::Client {
        let host: String = host.into();
        let requests = self.requests.clone();
        let namespace = client.default_namespace().to_owned();
        let service = tower::service_fn(move |request: http::Request<kubegen_client::Body>| {
            let (client, requests, host) = (client.clone(), requests.clone(), host.clone());
            async move {
                let method = request.method().as_str().to_owned();
                let response = client.send(request).await;
                let code = match &response {
                    Ok(response) => response.status().as_u16().to_string(),
                    Err(_) => "<error>".to_owned(),
                };
                requests
                    .get_or_create(&RequestLabels { code, method, host })
                    .inc();
                response
            }
        });
        kubegen_client::Client::new(service, namespace)
    }

    /// The requests counted so far with `code`, `method` and `host`.
    pub fn requests(&self, code: &str, method: &str, host: &str) -> u64 {
        self.requests
            .get_or_create(&RequestLabels {
                code: code.to_owned(),
                method: method.to_owned(),
                host: host.to_owned(),
            })
            .get()
    }
}

#[cfg(test)]
mod tests {
    use http::{Request, Response, StatusCode};
    use kubegen_client::Body;

    use super::*;

    /// A client whose every request gets `status`, or fails to connect
    /// when `status` is `None`.
    fn client(status: Option<StatusCode>) -> kubegen_client::Client {
        let service = tower::service_fn(move |_: Request<Body>| async move {
            match status {
                Some(status) => {
                    let mut response = Response::new(Body::empty());
                    *response.status_mut() = status;
                    Ok(response)
                }
                None => Err(std::io::Error::other("connection refused")),
            }
        });
        kubegen_client::Client::new(service, "default")
    }

    fn get() -> Request<Vec<u8>> {
        Request::get("/api/v1/namespaces/default/configmaps/a")
            .body(Vec::new())
            .unwrap()
    }

    #[tokio::test]
    async fn requests_are_counted_by_code_method_and_host_as_client_go_counts_them() {
        let mut registry = Registry::default();
        let metrics = RestClientMetrics::register(&mut registry);
        let found = metrics.instrument(client(Some(StatusCode::NOT_FOUND)), "10.0.0.1:6443");
        assert!(found.request_text(get()).await.is_err());
        assert!(found.request_text(get()).await.is_err());
        let down = metrics.instrument(client(None), "10.0.0.1:6443");
        assert!(down.request_text(get()).await.is_err());
        assert_eq!(metrics.requests("404", "GET", "10.0.0.1:6443"), 2);
        assert_eq!(metrics.requests("<error>", "GET", "10.0.0.1:6443"), 1);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(
            text.contains(
                "\nrest_client_requests_total{code=\"404\",method=\"GET\",host=\"10.0.0.1:6443\"} 2\n"
            ),
            "{text}"
        );
    }
}

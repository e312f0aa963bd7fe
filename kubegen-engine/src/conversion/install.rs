//! Pointing an installed CRD's conversion webhook at a running server:
//! the `caBundle` (what cert-manager's CA injector does in a cluster) and,
//! for a webhook running outside the cluster, its URL.

use futures::future::BoxFuture;
use k8s_openapi::ByteString;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_client::Api;
use kubegen_client::api::{Patch, PatchParams};
use serde_json::json;

/// Where the apiserver reaches the conversion webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookEndpoint {
    /// Keep the CRD's in-cluster Service reference.
    Service,
    /// An `https://` URL (a webhook outside the cluster, e.g. `make demo`).
    Url(String),
}

/// Sets the conversion webhook's `caBundle` (PEM) on the CRD `crd_name`
/// and, with [`WebhookEndpoint::Url`], replaces its Service reference by
/// the URL. A JSON merge patch: nothing else in the CRD changes.
///
/// ```no_run
/// use kubegen::conversion::{WebhookEndpoint, inject_ca_bundle};
/// use kubegen::server::DevCa;
///
/// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
/// let ca = DevCa::new("dev-ca")?;
/// ca.issue("/tmp/certs", &["127.0.0.1"])?;
/// let url = WebhookEndpoint::Url("https://127.0.0.1:9443/convert".into());
/// inject_ca_bundle(&client, "carts.shop.example.com", &ca.pem(), &url).await?;
/// # Ok(()) }
/// ```
///
/// The future is boxed (see [`Manager::run_until`](crate::Manager::run_until)
/// for why): the request and the decoding of the CRD it returns are
/// compiled once, here, not in every crate that awaits this.
pub fn inject_ca_bundle<'a>(
    client: &'a kubegen_client::Client,
    crd_name: &'a str,
    ca_pem: &'a str,
    endpoint: &'a WebhookEndpoint,
) -> BoxFuture<'a, Result<CustomResourceDefinition, kubegen_client::Error>> {
    Box::pin(inject(client, crd_name, ca_pem, endpoint))
}

async fn inject(
    client: &kubegen_client::Client,
    crd_name: &str,
    ca_pem: &str,
    endpoint: &WebhookEndpoint,
) -> Result<CustomResourceDefinition, kubegen_client::Error> {
    // ByteString serializes as Kubernetes' base64 `[]byte`.
    let bundle = serde_json::to_value(ByteString(ca_pem.as_bytes().to_vec()))
        .map_err(kubegen_client::Error::SerdeError)?;
    let client_config = match endpoint {
        WebhookEndpoint::Service => json!({"caBundle": bundle}),
        WebhookEndpoint::Url(url) => json!({"caBundle": bundle, "url": url, "service": null}),
    };
    let patch = json!({"spec": {"conversion": {
        "strategy": "Webhook",
        "webhook": {"clientConfig": client_config, "conversionReviewVersions": ["v1"]},
    }}});
    Api::<CustomResourceDefinition>::all(client.clone())
        .patch(crd_name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles only while `inject_ca_bundle` returns a `BoxFuture`: as an
    /// `async fn`, its request and the CRD's decoding would be compiled
    /// again in each crate awaiting it.
    #[test]
    fn the_injection_future_is_boxed() {
        type Inject =
            for<'a> fn(
                &'a kubegen_client::Client,
                &'a str,
                &'a str,
                &'a WebhookEndpoint,
            )
                -> BoxFuture<'a, Result<CustomResourceDefinition, kubegen_client::Error>>;
        let _: Inject = inject_ca_bundle;
    }
}

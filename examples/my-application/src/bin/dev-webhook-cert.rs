//! Development certificates for the operator's conversion webhook when it
//! runs outside the cluster (`make demo`): issues a serving certificate for
//! 127.0.0.1 from a throw-away CA into a directory and points the CRD's
//! conversion webhook at the given URL with that CA as its `caBundle`.
//! Needs a kubeconfig allowed to patch the CRD (an administrator's); the
//! operator itself is never given that permission.
//!
//! ```text
//! dev-webhook-cert --dir DIR --url https://127.0.0.1:9443/convert
//!     [--crd myapplications.stable.example.com]
//! ```
//! In a cluster, cert-manager does both (see deploy/webhook_service.yaml).

use anyhow::{Context, Result, bail};
use kubegen::conversion::{WebhookEndpoint, inject_ca_bundle};
use kubegen::server::DevCa;

const USAGE: &str =
    "usage: dev-webhook-cert --dir DIR --url https://127.0.0.1:PORT/convert [--crd NAME]";

#[tokio::main]
async fn main() -> Result<()> {
    let mut dir = None;
    let mut url = None;
    let mut crd = "myapplications.stable.example.com".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--dir" => dir = Some(value()?),
            "--url" => url = Some(value()?),
            "--crd" => crd = value()?,
            other => bail!("unknown option {other}\n{USAGE}"),
        }
    }
    let (Some(dir), Some(url)) = (dir, url) else {
        bail!("{USAGE}");
    };
    let host = url
        .strip_prefix("https://")
        .and_then(|rest| rest.split([':', '/']).next())
        .filter(|h| !h.is_empty())
        .with_context(|| format!("--url must be https://HOST[:PORT]/PATH, got {url}"))?
        .to_owned();
    let ca = DevCa::new("my-application-dev-ca")?;
    ca.issue(&dir, &[host.as_str()])?;
    let client = kubegen::Client::try_default()
        .await
        .context("connecting to the apiserver")?;
    inject_ca_bundle(&client, &crd, &ca.pem(), &WebhookEndpoint::Url(url.clone()))
        .await
        .with_context(|| format!("pointing {crd} at {url}"))?;
    println!("serving certificate for {host} in {dir}; {crd} converts through {url}");
    Ok(())
}

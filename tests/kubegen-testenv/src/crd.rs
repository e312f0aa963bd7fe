//! Installing a CustomResourceDefinition on a plane and waiting until the
//! apiserver serves it.

use std::time::Duration;

use anyhow::{Context, Result};
use kubegen_client::api::Api;

use crate::eventually;

/// Applies `crd` with server-side apply (idempotent, so tests sharing a
/// control plane may all call it) and waits until it is Established.
pub async fn install_crd(
    client: &kubegen_client::Client,
    crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) -> Result<()> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let name = crd.metadata.name.clone().context("the CRD has no name")?;
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    crds.patch(
        &name,
        &kubegen_client::api::PatchParams::apply("kubegen-testenv").force(),
        &kubegen_client::api::Patch::Apply(crd),
    )
    .await
    .with_context(|| format!("applying CRD {name}"))?;
    eventually(
        Duration::from_secs(60),
        &format!("CRD {name} to be Established"),
        || async {
            let crd = crds.get(&name).await?;
            let established = crd
                .status
                .and_then(|s| s.conditions)
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Established" && c.status == "True");
            Ok(established.then_some(()))
        },
    )
    .await
}

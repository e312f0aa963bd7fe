//! `kubegen check --cluster`: the earlier release as a cluster serves it —
//! each of the crate's CRDs read from the apiserver of the current
//! kubeconfig context (`KUBECONFIG`, else `~/.kube/config`, else the
//! in-cluster service account), with its `status.storedVersions`, which
//! only a cluster knows: a version still stored there cannot be dropped.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::source::Diagnostic;

/// The CRDs of `names` the cluster has (one it lacks is new), and the
/// cluster's address for the report; an unreachable cluster is an error.
pub fn crds<'a>(
    names: impl IntoIterator<Item = &'a String>,
) -> Result<(BTreeMap<String, Value>, String), Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::file(Path::new("kubeconfig"), message)];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(format!("cannot start the client: {e}")))?;
    let names: Vec<&String> = names.into_iter().collect();
    runtime.block_on(async {
        let config = kubegen_client::Config::infer().await.map_err(|e| {
            fail(format!(
                "no cluster to read the CRDs from: {e} (set KUBECONFIG, or compare with --against)"
            ))
        })?;
        let server = config.cluster_url.to_string();
        let client = kubegen_client::Client::try_from(config)
            .map_err(|e| fail(format!("cannot reach {server}: {e}")))?;
        let mut out = BTreeMap::new();
        for name in names {
            let request = http::Request::get(format!(
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
            ))
            .body(Vec::new())
            .map_err(|e| fail(format!("{name}: {e}")))?;
            match client.request::<Value>(request).await {
                Ok(crd) => {
                    out.insert(name.clone(), crd);
                }
                // Not installed there: the crate adds it.
                Err(kubegen_client::Error::Api(status)) if status.code == 404 => {}
                Err(e) => {
                    return Err(fail(format!(
                        "reading CustomResourceDefinition {name} from {server}: {e}"
                    )));
                }
            }
        }
        Ok((out, server))
    })
}

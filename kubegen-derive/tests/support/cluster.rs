//! Helpers for the apiserver acceptance tests: installing CRDs, waiting for
//! them to be served, and reading the apiserver's rejections.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_client::api::{Api, ApiResource, DynamicObject, ListParams, Patch, PatchParams};
use kubegen_client::core::Status;
use kubegen_testenv::eventually;
use serde_json::Value;

/// How long a CRD may take to be Established and then served.
const CRD_TIMEOUT: Duration = Duration::from_secs(60);

/// Creates (or server-side applies, when another test of this binary got
/// there first) a CRD, waits until it is Established and returns it with
/// its status. A CRD the apiserver refuses fails with the apiserver's message.
pub async fn install_crd(
    client: &kubegen_client::Client,
    crd: &CustomResourceDefinition,
) -> Result<CustomResourceDefinition> {
    let name = crd.metadata.name.clone().context("a CRD without a name")?;
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    crds.patch(
        &name,
        &PatchParams::apply("kubegen-acceptance").force(),
        &Patch::Apply(crd),
    )
    .await
    .map_err(|e| anyhow::anyhow!("the apiserver refused CRD {name}: {}", describe(&e)))?;
    eventually(CRD_TIMEOUT, &format!("CRD {name} Established"), || async {
        let current = crds.get(&name).await?;
        let conditions = current
            .status
            .as_ref()
            .and_then(|s| s.conditions.clone())
            .unwrap_or_default();
        if let Some(bad) = conditions
            .iter()
            .find(|c| c.type_ == "NamesAccepted" && c.status == "False")
        {
            bail!("CRD {name} names not accepted: {:?}", bad.message);
        }
        let established = conditions
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True");
        Ok(established.then_some(current))
    })
    .await
}

/// A dynamic client for the resource, namespaced when `namespace` is given.
pub fn dynamic_api(
    client: &kubegen_client::Client,
    resource: &ApiResource,
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, resource),
        None => Api::all_with(client.clone(), resource),
    }
}

/// Waits until the apiserver serves the resource: discovery can lag a
/// little behind the Established condition.
pub async fn wait_served(api: &Api<DynamicObject>) -> Result<()> {
    eventually(CRD_TIMEOUT, "the custom resource to be served", || async {
        match api.list(&ListParams::default().limit(1)).await {
            Ok(_) => Ok(Some(())),
            Err(kubegen_client::Error::Api(s)) if s.code == 404 || s.code == 503 => Ok(None),
            Err(e) => Err(e.into()),
        }
    })
    .await
}

/// A dynamic object of the resource with the given name and spec.
pub fn object(resource: &ApiResource, name: &str, spec: &Value) -> DynamicObject {
    let mut obj = DynamicObject::new(name, resource);
    obj.data = serde_json::json!({ "spec": spec });
    obj
}

/// The apiserver's Status when the call failed with one.
pub fn status(e: &kubegen_client::Error) -> Option<&Status> {
    match e {
        kubegen_client::Error::Api(s) => Some(s),
        _ => None,
    }
}

/// An error with the apiserver's code and message when it has them.
pub fn describe(e: &kubegen_client::Error) -> String {
    match status(e) {
        Some(s) => format!("HTTP {} {}: {}", s.code, s.reason, s.message),
        None => e.to_string(),
    }
}

/// Checks that a call was rejected as Invalid (HTTP 422) with a message
/// containing every expected substring. Returns the problem, if any.
pub fn check_rejection<T>(
    result: Result<T, kubegen_client::Error>,
    expect: &[&str],
) -> Result<String, String> {
    let e = match result {
        Ok(_) => return Err("the apiserver ACCEPTED it".into()),
        Err(e) => e,
    };
    let Some(s) = status(&e) else {
        return Err(format!("failed without an apiserver Status: {e}"));
    };
    if s.code != 422 {
        return Err(format!("HTTP {} instead of 422: {}", s.code, s.message));
    }
    let missing: Vec<&&str> = expect.iter().filter(|w| !s.message.contains(**w)).collect();
    if missing.is_empty() {
        Ok(s.message.clone())
    } else {
        Err(format!(
            "the message lacks {missing:?}; it was: {}",
            s.message
        ))
    }
}

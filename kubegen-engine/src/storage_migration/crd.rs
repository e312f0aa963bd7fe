//! The CustomResourceDefinition's side of a migration: its storage version,
//! whether the apiserver already encodes at it (discovery's
//! `storageVersionHash`), and the guarded update of `status.storedVersions`.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList;
use kubegen_client::api::{Api, Patch, PatchParams};
use kubegen_client::core::{ApiResource, GroupVersionKind};
use serde_json::json;

use super::FIELD_MANAGER;
use super::error::{Class, ErrorKind, classify};
use crate::jitter::{Backoff, random_fraction};

/// What the migration reads of the CRD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CrdState {
    pub name: String,
    pub group: String,
    pub kind: String,
    pub plural: String,
    /// The version the apiserver encodes objects at in etcd.
    pub storage_version: String,
    /// The version objects are read and written at: the storage version
    /// when it is served, else the first served one (the apiserver converts
    /// either way; it always writes at the storage version).
    pub access_version: String,
    pub generation: i64,
    pub resource_version: String,
    pub stored_versions: Vec<String>,
}

impl CrdState {
    pub fn from_crd(crd: &CustomResourceDefinition) -> Result<CrdState, ErrorKind> {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let not_migratable = |reason: &str| ErrorKind::NotMigratable {
            crd: name.clone(),
            reason: reason.to_string(),
        };
        let versions = &crd.spec.versions;
        let storage = versions
            .iter()
            .find(|v| v.storage)
            .ok_or_else(|| not_migratable("no version is marked as the storage version"))?;
        let access = if storage.served {
            storage
        } else {
            versions
                .iter()
                .find(|v| v.served)
                .ok_or_else(|| not_migratable("no version is served"))?
        };
        Ok(CrdState {
            group: crd.spec.group.clone(),
            kind: crd.spec.names.kind.clone(),
            plural: crd.spec.names.plural.clone(),
            storage_version: storage.name.clone(),
            access_version: access.name.clone(),
            generation: crd.metadata.generation.unwrap_or_default(),
            resource_version: crd.metadata.resource_version.clone().unwrap_or_default(),
            stored_versions: crd
                .status
                .as_ref()
                .and_then(|s| s.stored_versions.clone())
                .unwrap_or_default(),
            name,
        })
    }

    /// `plural.group`, for messages.
    pub fn resource(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    /// The objects' API resource at the version they are accessed at.
    pub fn api_resource(&self) -> ApiResource {
        ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(&self.group, &self.access_version, &self.kind),
            &self.plural,
        )
    }
}

/// Reads the CRD.
pub(super) async fn read(
    crds: &Api<CustomResourceDefinition>,
    name: &str,
) -> Result<CrdState, ErrorKind> {
    let crd = crds.get(name).await.map_err(|source| ErrorKind::ReadCrd {
        crd: name.to_string(),
        source,
    })?;
    CrdState::from_crd(&crd)
}

/// The apiserver's storage version hash of `group/version/kind`, as its
/// discovery reports it (`storageVersionHash`): the first 8 bytes of the
/// SHA-256 of `group/version/kind`, in standard base64.
pub(super) fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("{group}/{version}/{kind}").as_bytes(),
    );
    base64(&digest.as_ref()[..8])
}

/// Standard base64 with padding, as Kubernetes encodes `[]byte`.
fn base64(data: &[u8]) -> String {
    match serde_json::to_value(k8s_openapi::ByteString(data.to_vec())) {
        Ok(serde_json::Value::String(text)) => text,
        _ => String::new(),
    }
}

/// How often discovery is polled while waiting for the storage version.
const DISCOVERY_POLL: Duration = Duration::from_millis(200);

/// Waits until the apiserver's discovery reports the CRD's storage version
/// for the resource: the apiserver rebuilds a CRD's storage when its spec
/// changes, and its discovery follows the same change, so until then a
/// rewrite could still be encoded at the previous storage version. With
/// several apiservers this is what the one answering reports.
pub(super) async fn await_storage_version(
    client: &kubegen_client::Client,
    state: &CrdState,
    timeout: Duration,
) -> Result<(), ErrorKind> {
    let expected = storage_version_hash(&state.group, &state.storage_version, &state.kind);
    let path = format!("/apis/{}/{}", state.group, state.access_version);
    let deadline = tokio::time::Instant::now() + timeout;
    let mut seen = None;
    loop {
        let request = http::Request::get(&path)
            .header(http::header::ACCEPT, "application/json")
            .body(Vec::new())
            .map_err(|e| ErrorKind::ReadCrd {
                crd: state.name.clone(),
                source: kubegen_client::Error::HttpError(e),
            })?;
        // Until the CRD is established its group version may be missing:
        // any failure just means "not yet".
        if let Ok(list) = client.request::<APIResourceList>(request).await {
            let resource = list.resources.iter().find(|r| r.name == state.plural);
            match resource.map(|r| r.storage_version_hash.as_deref().unwrap_or("")) {
                Some(hash) if hash == expected => return Ok(()),
                Some("") => {
                    tracing::warn!(
                        crd = %state.name,
                        "discovery reports no storageVersionHash (feature gate off?); \
                         cannot confirm the apiserver encodes at the storage version"
                    );
                    return Ok(());
                }
                Some(hash) => seen = Some(hash.to_string()),
                None => {}
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(ErrorKind::StorageVersionNotServed {
                resource: state.resource(),
                version: state.storage_version.clone(),
                expected,
                seen,
                waited: timeout,
            });
        }
        tracing::debug!(
            crd = %state.name,
            seen = ?seen,
            %expected,
            "waiting for discovery to report the storage version"
        );
        tokio::time::sleep(DISCOVERY_POLL).await;
    }
}

/// What to do with `status.storedVersions`, given the CRD as the migration
/// found it when it began and as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trim {
    /// It already is exactly `[storage version]`.
    Already,
    /// Set it to `[storage version]`, on condition of the current
    /// resourceVersion.
    Patch,
}

/// Trimming is safe only when nothing could have written objects at a
/// version the migration did not cover: the storage version is the same,
/// the spec has not changed at all (a change and back would leave the
/// generation moved), and no version was added to `storedVersions`.
pub(super) fn decide_trim(start: &CrdState, now: &CrdState) -> Result<Trim, ErrorKind> {
    if now.storage_version != start.storage_version {
        return Err(ErrorKind::StorageVersionChanged {
            crd: start.name.clone(),
            from: start.storage_version.clone(),
            to: now.storage_version.clone(),
        });
    }
    if now.generation != start.generation {
        return Err(ErrorKind::CrdChanged {
            crd: start.name.clone(),
            what: format!(
                "its generation moved from {} to {}",
                start.generation, now.generation
            ),
        });
    }
    let added: Vec<&String> = now
        .stored_versions
        .iter()
        .filter(|v| !start.stored_versions.contains(v))
        .collect();
    if !added.is_empty() {
        return Err(ErrorKind::CrdChanged {
            crd: start.name.clone(),
            what: format!("status.storedVersions gained {added:?}"),
        });
    }
    if now.stored_versions == [now.storage_version.as_str()] {
        Ok(Trim::Already)
    } else {
        Ok(Trim::Patch)
    }
}

/// The merge patch of the CRD's status: `storedVersions` becomes exactly
/// the storage version, and the `resourceVersion` makes it conditional (a
/// CRD changed since `now` was read fails with 409 Conflict).
pub(super) fn stored_versions_patch(now: &CrdState) -> serde_json::Value {
    json!({
        "metadata": { "resourceVersion": now.resource_version },
        "status": { "storedVersions": [now.storage_version] },
    })
}

/// `status.storedVersions` after the update, and the conflicts retried.
pub(super) struct Trimmed {
    pub stored_versions: Vec<String>,
    pub conflicts: u64,
}

/// Sets `status.storedVersions` to `[storage version]` when
/// [`decide_trim`] allows it. The first attempt is conditional on the CRD
/// as the migration read it when it began; on a conflict it reads the CRD
/// again, decides again and retries, within `backoff`.
pub(super) async fn trim_stored_versions(
    crds: &Api<CustomResourceDefinition>,
    start: &CrdState,
    backoff: Backoff,
) -> Result<Trimmed, ErrorKind> {
    let params = PatchParams {
        field_manager: Some(FIELD_MANAGER.to_string()),
        ..PatchParams::default()
    };
    let mut now = start.clone();
    let mut conflicts = 0;
    let mut attempt = 0;
    loop {
        if decide_trim(start, &now)? == Trim::Already {
            return Ok(Trimmed {
                stored_versions: now.stored_versions,
                conflicts,
            });
        }
        let patch = stored_versions_patch(&now);
        let error = match crds
            .patch_status(&start.name, &params, &Patch::Merge(&patch))
            .await
        {
            Ok(crd) => {
                let after = CrdState::from_crd(&crd)?;
                return Ok(Trimmed {
                    stored_versions: after.stored_versions,
                    conflicts,
                });
            }
            Err(error) => error,
        };
        let class = classify(&error);
        if !matches!(class, Class::Conflict | Class::Transient) {
            return Err(ErrorKind::TrimStoredVersions {
                crd: start.name.clone(),
                source: error,
            });
        }
        if attempt + 1 >= backoff.steps {
            return Err(ErrorKind::RetriesExhausted {
                object: format!("CustomResourceDefinition {}", start.name),
                attempts: attempt + 1,
                last: error,
            });
        }
        if class == Class::Conflict {
            conflicts += 1;
            tracing::debug!(
                crd = %start.name,
                "the CRD changed since it was read; reading it again"
            );
        }
        tokio::time::sleep(backoff.wait(attempt, random_fraction())).await;
        attempt += 1;
        now = read(crds, &start.name).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(versions: serde_json::Value, stored: &[&str]) -> CustomResourceDefinition {
        serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {
                "name": "carts.shop.example.com", "generation": 4, "resourceVersion": "99",
            },
            "spec": {
                "group": "shop.example.com",
                "scope": "Namespaced",
                "names": { "plural": "carts", "kind": "Cart" },
                "versions": versions,
            },
            "status": {
                "storedVersions": stored,
                "acceptedNames": { "plural": "carts", "kind": "Cart" },
            },
        }))
        .unwrap()
    }

    fn version(name: &str, served: bool, storage: bool) -> serde_json::Value {
        json!({ "name": name, "served": served, "storage": storage })
    }

    #[test]
    fn hashes_match_the_apiservers() {
        // Values the apiserver reports in discovery (kubernetes'
        // pkg/controlplane/storageversionhashdata).
        assert_eq!(storage_version_hash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
        assert_eq!(storage_version_hash("", "v1", "Pod"), "xPOwRZ+Yhw8=");
        assert_ne!(
            storage_version_hash("shop.example.com", "v1", "Cart"),
            storage_version_hash("shop.example.com", "v2", "Cart")
        );
    }

    #[test]
    fn base64_pads_like_the_standard_encoding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe]), "//4=");
    }

    #[test]
    fn objects_are_accessed_at_the_storage_version_when_it_is_served() {
        let state = CrdState::from_crd(&crd(
            json!([version("v1", true, false), version("v2", true, true)]),
            &["v1", "v2"],
        ))
        .unwrap();
        assert_eq!(
            (
                state.storage_version.as_str(),
                state.access_version.as_str()
            ),
            ("v2", "v2")
        );
        assert_eq!(
            (state.generation, state.resource_version.as_str()),
            (4, "99")
        );
        assert_eq!(state.stored_versions, ["v1", "v2"]);
        assert_eq!(state.resource(), "carts.shop.example.com");
        assert_eq!(state.api_resource().api_version, "shop.example.com/v2");

        let unserved = CrdState::from_crd(&crd(
            json!([version("v1", false, true), version("v2", true, false)]),
            &["v1"],
        ))
        .unwrap();
        assert_eq!(
            (
                unserved.storage_version.as_str(),
                unserved.access_version.as_str()
            ),
            ("v1", "v2")
        );
    }

    #[test]
    fn a_crd_without_storage_or_served_versions_is_not_migratable() {
        for versions in [
            json!([version("v1", true, false)]),
            json!([version("v1", false, true)]),
        ] {
            let error = CrdState::from_crd(&crd(versions.clone(), &["v1"])).unwrap_err();
            assert!(
                matches!(error, ErrorKind::NotMigratable { .. }),
                "{versions}: {error}"
            );
        }
    }

    fn state(storage: &str, generation: i64, stored: &[&str]) -> CrdState {
        CrdState {
            name: "carts.shop.example.com".into(),
            group: "shop.example.com".into(),
            kind: "Cart".into(),
            plural: "carts".into(),
            storage_version: storage.into(),
            access_version: storage.into(),
            generation,
            resource_version: "10".into(),
            stored_versions: stored.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn trimming_needs_an_unchanged_spec_and_no_new_stored_version() {
        let start = state("v2", 3, &["v1", "v2"]);
        assert_eq!(decide_trim(&start, &start).unwrap(), Trim::Patch);
        // Someone else trimmed it already.
        assert_eq!(
            decide_trim(&start, &state("v2", 3, &["v2"])).unwrap(),
            Trim::Already
        );
        // A status-only change (another resourceVersion) is fine.
        let mut relabelled = start.clone();
        relabelled.resource_version = "11".into();
        assert_eq!(decide_trim(&start, &relabelled).unwrap(), Trim::Patch);

        let changed = decide_trim(&start, &state("v3", 4, &["v1", "v2", "v3"])).unwrap_err();
        assert!(
            matches!(
                &changed,
                ErrorKind::StorageVersionChanged { from, to, .. } if from == "v2" && to == "v3"
            ),
            "{changed}"
        );
        // v2 -> v1 -> v2: same storage version, but the spec moved.
        let and_back = decide_trim(&start, &state("v2", 5, &["v1", "v2"])).unwrap_err();
        assert!(
            matches!(and_back, ErrorKind::CrdChanged { .. }),
            "{and_back}"
        );
        let gained =
            decide_trim(&state("v2", 3, &["v2"]), &state("v2", 3, &["v1", "v2"])).unwrap_err();
        assert!(matches!(gained, ErrorKind::CrdChanged { .. }), "{gained}");
    }

    #[test]
    fn the_patch_is_conditional_on_the_resource_version_it_was_decided_on() {
        let mut now = state("v2", 3, &["v1", "v2"]);
        now.resource_version = "12345".into();
        assert_eq!(
            stored_versions_patch(&now),
            json!({
                "metadata": { "resourceVersion": "12345" },
                "status": { "storedVersions": ["v2"] },
            })
        );
    }
}

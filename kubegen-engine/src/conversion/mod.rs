//! Conversion between the versions of a kind, hub and spoke.
//!
//! One version of a kind is the **hub** (the storage version unless
//! `conversion(hub = "...")` says otherwise); every other version is a
//! **spoke** that converts to and from the hub with plain Rust conversions
//! the operator author writes — `From` (or `TryFrom`, when a conversion can
//! fail) in both directions between the spoke's and the hub's root types:
//!
//! ```ignore
//! impl From<v1::Cart> for v2::Cart {
//!     fn from(old: v1::Cart) -> Self {
//!         let lines = old.spec.items.into_iter().map(|sku| v2::Line { sku, quantity: 1 }).collect();
//!         v2::Cart { metadata: old.metadata, spec: v2::CartSpec { lines }, status: old.status.map(Into::into) }
//!     }
//! }
//! impl From<v2::Cart> for v1::Cart { /* ... */ }
//! ```
//!
//! `kubegen generate` writes the [`Converter`] of the crate (every pair
//! goes spoke → hub → spoke) and a property test per kind; the
//! [`WebhookServer`](crate::server::WebhookServer) serves it to the
//! apiserver as `ConversionReview`s.
//!
//! **Nothing is lost.** When a spoke cannot hold everything the hub holds
//! (a list where the spoke has one value, a field it lacks), the hub's data
//! is kept in the annotation [`STASH_ANNOTATION`] of the spoke object and
//! restored when the object comes back, so a client that reads at v1 and
//! writes the object back does not erase what only v2 can express. Changes
//! made through the spoke win over the stash, field by field (a three-way
//! merge; keyed lists item by item, other lists whole), so an edit is never
//! undone by the restore.
//!
//! **Metadata is not converted**: the apiserver forbids a conversion to
//! change anything in `metadata` but labels and annotations, so the
//! converted object always carries the original metadata (plus or minus the
//! stash annotation), whatever the user conversion put there.

mod install;
mod stash;
pub mod stream;
pub mod testing;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use kubegen_client::core::Status;
use kubegen_client::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::CustomResourceExt;
pub use install::{WebhookEndpoint, inject_ca_bundle};
pub use stash::STASH_ANNOTATION;

/// Why an object could not be converted; the apiserver shows the message
/// to the client whose request needed the conversion.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConversionError(pub String);

/// A JSON-level conversion of one object (erased generics).
type JsonFn = fn(Value) -> Result<Value, String>;

/// The erased functions of one version of a kind.
#[derive(Clone)]
struct VersionFns {
    /// Object at this version → object at the hub (`None` for the hub).
    to_hub: Option<JsonFn>,
    /// Object at the hub → object at this version (`None` for the hub).
    from_hub: Option<JsonFn>,
    /// Object at this version → the same through its Rust type (serde's
    /// canonical form: defaults filled, unknown fields gone).
    canonical: JsonFn,
    /// The version's CRD (for the property test).
    crd: fn() -> Result<Value, crate::CrdError>,
    /// The version's keyed lists, merged item by item on restore.
    list_keys: Arc<stash::ListKeys>,
}

/// The keyed lists of `K`'s schema (none when its CRD cannot be built).
fn list_keys_of<K: CustomResourceExt>() -> Arc<stash::ListKeys> {
    Arc::new(
        K::crd_json()
            .map(|crd| stash::list_keys(&crd))
            .unwrap_or_default(),
    )
}

/// Every version of one kind.
#[derive(Clone)]
struct KindConversion {
    hub: String,
    versions: BTreeMap<String, VersionFns>,
}

/// Converts objects between the versions of the kinds registered with it,
/// through each kind's hub; answers `ConversionReview`s.
#[derive(Clone, Default)]
pub struct Converter {
    kinds: BTreeMap<(String, String), KindConversion>,
}

impl fmt::Debug for Converter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_map();
        for ((group, kind), k) in &self.kinds {
            list.entry(
                &format!("{kind}.{group}"),
                &(&k.hub, k.versions.keys().collect::<Vec<_>>()),
            );
        }
        list.finish()
    }
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

fn read<T: DeserializeOwned + k8s_openapi::Resource>(v: Value) -> Result<T, String> {
    serde_json::from_value(v)
        .map_err(|e| format!("cannot read the object as {}: {e}", T::API_VERSION))
}

fn write<T: Serialize>(t: T) -> Result<Value, String> {
    serde_json::to_value(t).map_err(|e| format!("cannot serialize the converted object: {e}"))
}

fn canonical<T>(v: Value) -> Result<Value, String>
where
    T: DeserializeOwned + Serialize + k8s_openapi::Resource,
{
    write(read::<T>(v)?)
}

fn to_hub<S, H>(v: Value) -> Result<Value, String>
where
    S: DeserializeOwned + k8s_openapi::Resource,
    H: TryFrom<S> + Serialize,
    <H as TryFrom<S>>::Error: fmt::Display,
{
    let spoke = read::<S>(v)?;
    write(H::try_from(spoke).map_err(|e| e.to_string())?)
}

fn from_hub<S, H>(v: Value) -> Result<Value, String>
where
    H: DeserializeOwned + k8s_openapi::Resource,
    S: TryFrom<H> + Serialize,
    <S as TryFrom<H>>::Error: fmt::Display,
{
    let hub = read::<H>(v)?;
    write(S::try_from(hub).map_err(|e| e.to_string())?)
}

impl Converter {
    /// A converter that knows no kind yet.
    pub fn new() -> Self {
        Converter::default()
    }

    fn kind_mut<H: k8s_openapi::Resource>(&mut self) -> &mut KindConversion {
        let entry = self
            .kinds
            .entry((H::GROUP.to_owned(), H::KIND.to_owned()))
            .or_insert_with(|| KindConversion {
                hub: H::API_VERSION.to_owned(),
                versions: BTreeMap::new(),
            });
        assert_eq!(
            entry.hub,
            H::API_VERSION,
            "{} has two hubs: {} and {}",
            H::KIND,
            entry.hub,
            H::API_VERSION
        );
        entry
    }

    /// Declares `H` the hub of its kind.
    ///
    /// # Panics
    /// When another version of the kind was declared the hub before.
    #[must_use]
    pub fn hub<H>(mut self) -> Self
    where
        H: k8s_openapi::Resource + CustomResourceExt + Serialize + DeserializeOwned,
    {
        self.kind_mut::<H>().versions.insert(
            H::API_VERSION.to_owned(),
            VersionFns {
                to_hub: None,
                from_hub: None,
                canonical: canonical::<H>,
                crd: H::crd_json,
                list_keys: list_keys_of::<H>(),
            },
        );
        self
    }

    /// Declares `S` a spoke of hub `H` (also declaring `H` the hub): `S`
    /// converts to `H` and back through `TryFrom` (`From` implies it).
    ///
    /// # Panics
    /// When the kind already has another hub, or `S` and `H` are different
    /// kinds.
    #[must_use]
    pub fn spoke<S, H>(self) -> Self
    where
        S: k8s_openapi::Resource + CustomResourceExt + Serialize + DeserializeOwned,
        H: k8s_openapi::Resource + CustomResourceExt + Serialize + DeserializeOwned,
        H: TryFrom<S>,
        S: TryFrom<H>,
        <H as TryFrom<S>>::Error: fmt::Display,
        <S as TryFrom<H>>::Error: fmt::Display,
    {
        assert!(
            S::GROUP == H::GROUP && S::KIND == H::KIND,
            "{} cannot be a spoke of {}: they are different kinds",
            S::API_VERSION,
            H::API_VERSION
        );
        let mut this = self.hub::<H>();
        this.kind_mut::<H>().versions.insert(
            S::API_VERSION.to_owned(),
            VersionFns {
                to_hub: Some(to_hub::<S, H>),
                from_hub: Some(from_hub::<S, H>),
                canonical: canonical::<S>,
                crd: S::crd_json,
                list_keys: list_keys_of::<S>(),
            },
        );
        this
    }

    /// The registered kinds as `(group, kind, hub apiVersion, every
    /// apiVersion)`.
    pub fn kinds(&self) -> impl Iterator<Item = (&str, &str, &str, Vec<&str>)> {
        self.kinds.iter().map(|((group, kind), k)| {
            (
                group.as_str(),
                kind.as_str(),
                k.hub.as_str(),
                k.versions.keys().map(String::as_str).collect(),
            )
        })
    }

    fn kind_of(&self, object: &Value) -> Result<(&KindConversion, String), ConversionError> {
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| ConversionError("the object has no apiVersion".into()))?;
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .ok_or_else(|| ConversionError("the object has no kind".into()))?;
        let k = self
            .kinds
            .get(&(group_of(api_version).to_owned(), kind.to_owned()))
            .ok_or_else(|| {
                ConversionError(format!(
                    "this webhook does not convert {kind} ({api_version})"
                ))
            })?;
        Ok((k, api_version.to_owned()))
    }

    /// Converts one object to `desired_api_version` (spoke → hub → spoke),
    /// keeping what the target cannot hold in [`STASH_ANNOTATION`] and
    /// restoring what an earlier conversion kept there.
    pub fn convert(
        &self,
        mut object: Value,
        desired_api_version: &str,
    ) -> Result<Value, ConversionError> {
        let (k, source) = self.kind_of(&object)?;
        if source == desired_api_version {
            return Ok(object);
        }
        let fns = |v: &str| {
            k.versions.get(v).cloned().ok_or_else(|| {
                ConversionError(format!("this webhook does not convert to or from {v}"))
            })
        };
        let (source_fns, target_fns, hub_fns) =
            (fns(&source)?, fns(desired_api_version)?, fns(&k.hub)?);
        let metadata = object.get("metadata").cloned();
        // At most one stash travels with the object: the data of the
        // richest version it passed through that a later one could not hold.
        let mut carried = stash::take(&mut object);
        let hub = match (source_fns.to_hub, source_fns.from_hub) {
            (Some(to_hub), Some(from_hub)) => {
                let step =
                    |e: String| ConversionError(format!("converting {source} to {}: {e}", k.hub));
                let mut hub = to_hub(object.clone()).map_err(step)?;
                if let Some((_, data)) = carried.take_if(|(v, _)| *v == k.hub) {
                    hub = restore(hub, data, &hub_fns.list_keys, |x| to_hub(from_hub(x)?))
                        .map_err(step)?;
                }
                let canonical = (source_fns.canonical)(object.clone()).map_err(step)?;
                if stash::data(&from_hub(hub.clone()).map_err(step)?) != stash::data(&canonical) {
                    carried = Some((source.clone(), stash::data(&object)));
                }
                hub
            }
            _ => object,
        };
        let mut out = match (target_fns.to_hub, target_fns.from_hub) {
            (Some(to_hub), Some(from_hub)) => {
                let step = |e: String| {
                    ConversionError(format!(
                        "converting {} to {desired_api_version}: {e}",
                        k.hub
                    ))
                };
                let mut out = from_hub(hub.clone()).map_err(step)?;
                if let Some((_, data)) = carried.take_if(|(v, _)| v == desired_api_version) {
                    out = restore(out, data, &target_fns.list_keys, |x| from_hub(to_hub(x)?))
                        .map_err(step)?;
                }
                let canonical = (hub_fns.canonical)(hub.clone()).map_err(step)?;
                if stash::data(&to_hub(out.clone()).map_err(step)?) != stash::data(&canonical) {
                    carried = Some((k.hub.clone(), stash::data(&hub)));
                }
                out
            }
            _ => hub,
        };
        // The apiserver allows a conversion to change nothing in metadata
        // but labels and annotations: the original metadata goes out.
        if let Some(root) = out.as_object_mut() {
            root.insert("apiVersion".into(), desired_api_version.into());
            let mut metadata = metadata.unwrap_or_else(|| Value::Object(Default::default()));
            stash::remove(&mut metadata);
            root.insert("metadata".into(), metadata);
        }
        if let Some((version, data)) = carried {
            stash::put(&mut out, &version, data);
        }
        Ok(out)
    }

    /// Answers a `ConversionReview`: every object converted (same order,
    /// same `uid`), or a failure `Status` naming the first object that
    /// could not be.
    pub fn review(&self, review: ConversionReview) -> ConversionReview {
        let request = match ConversionRequest::from_review(review) {
            Ok(r) => r,
            Err(_) => {
                return ConversionResponse::invalid(failure("the review carries no request"))
                    .into_review();
            }
        };
        let desired = request.desired_api_version.clone();
        let mut converted = Vec::with_capacity(request.objects.len());
        let mut error = None;
        for object in &request.objects {
            let name = object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            match self.convert(object.clone(), &desired) {
                Ok(v) => converted.push(v),
                Err(e) => {
                    error = Some(format!("{name}: {e}"));
                    break;
                }
            }
        }
        let response = ConversionResponse::for_request(request);
        match error {
            None => response.success(converted),
            Some(message) => response.failure(failure(&message)),
        }
        .into_review()
    }
}

fn failure(message: &str) -> Status {
    let mut status = Status::failure(message, "BadRequest");
    status.code = 400;
    status
}

/// The three-way merge of a typed edit onto the raw object it was read
/// from: where `after` equals `before` (the edit left a field alone) the
/// raw value stays — fields the Rust type does not know included; where
/// the edit changed something, the edit wins.
pub(crate) fn merge_fields(before: &Value, after: &Value, raw: &Value) -> Value {
    stash::merge3(
        Some(before),
        Some(after),
        Some(raw),
        "",
        &stash::ListKeys::new(),
    )
    .unwrap_or(Value::Null)
}

/// `ours` (an object just converted) with the fields the conversion did
/// not change taken from the stashed `data` of the same version;
/// `round_trip` is the lossy way there and back, which tells the fields
/// the conversion changed from those it merely could not carry.
fn restore(
    ours: Value,
    data: serde_json::Map<String, Value>,
    keys: &stash::ListKeys,
    round_trip: impl Fn(Value) -> Result<Value, String>,
) -> Result<Value, String> {
    let base = round_trip(stash::with_data(&ours, data.clone()))?;
    let merged = stash::merge_maps(&stash::data(&base), &stash::data(&ours), &data, "", keys);
    Ok(stash::with_data(&ours, merged))
}

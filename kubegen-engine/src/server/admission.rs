//! Admission webhooks from Rust functions: a validator answers allowed
//! (with warnings) or denied (with the message the client sees); a
//! defaulter edits the typed object and the server answers with the JSON
//! patch of exactly its edits. Paths are kubebuilder's
//! (`/validate-<group>-<version>-<kind>`, `/mutate-…`), the ones
//! `kubegen generate` registers in `config/webhook/manifests.yaml`.

use bytes::Bytes;
use k8s_openapi::ByteString;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::WebhookServerBuilder;
use crate::conversion::merge_fields;

/// What the apiserver asks a webhook to admit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// An object is created.
    Create,
    /// An object is replaced or patched.
    Update,
    /// An object is deleted (the object is the old one).
    Delete,
    /// A connect request (exec, proxy, …).
    Connect,
}

/// One admission request, typed.
#[derive(Debug, Clone)]
pub struct AdmissionRequest<K> {
    /// What is being done.
    pub operation: Operation,
    /// The object as it would be stored (absent for a delete).
    pub object: Option<K>,
    /// The object as stored before (updates and deletes).
    pub old_object: Option<K>,
    /// The user making the request.
    pub username: String,
    /// Whether the request is a dry run (the webhook must have no side
    /// effects either way: `sideEffects: None`).
    pub dry_run: bool,
}

/// The webhook paths of `K`: `(validate, mutate)`.
pub fn paths<K: k8s_openapi::Resource>() -> (String, String) {
    (
        kubegen_core::admission::path("validate", K::GROUP, K::VERSION, K::KIND),
        kubegen_core::admission::path("mutate", K::GROUP, K::VERSION, K::KIND),
    )
}

fn operation(s: &str) -> Option<Operation> {
    Some(match s {
        "CREATE" => Operation::Create,
        "UPDATE" => Operation::Update,
        "DELETE" => Operation::Delete,
        "CONNECT" => Operation::Connect,
        _ => return None,
    })
}

/// The review's request, its uid and the apiVersion to answer with.
fn request(body: &Bytes) -> Result<(Value, String, Value), String> {
    let mut review: Value =
        crate::json_text::from_bytes(body).map_err(|e| format!("not an AdmissionReview: {e}"))?;
    let api_version = review
        .get("apiVersion")
        .cloned()
        .unwrap_or_else(|| "admission.k8s.io/v1".into());
    let request = review
        .get_mut("request")
        .map(Value::take)
        .ok_or("the AdmissionReview carries no request")?;
    let uid = request
        .get("uid")
        .and_then(Value::as_str)
        .ok_or("the admission request has no uid")?
        .to_owned();
    Ok((request, uid, api_version))
}

fn reply(api_version: Value, response: Value) -> Result<Vec<u8>, String> {
    serde_json::to_vec(&json!({
        "apiVersion": api_version,
        "kind": "AdmissionReview",
        "response": response,
    }))
    .map_err(|e| e.to_string())
}

fn denied(uid: &str, code: u16, reason: &str, message: &str) -> Value {
    json!({
        "uid": uid,
        "allowed": false,
        "status": {"metadata": {}, "status": "Failure", "code": code, "reason": reason, "message": message},
    })
}

fn typed<K: DeserializeOwned>(request: &Value, field: &str) -> Result<Option<K>, String> {
    match request.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| format!("cannot read `{field}`: {e}")),
    }
}

fn typed_request<K: DeserializeOwned>(request: &Value) -> Result<AdmissionRequest<K>, String> {
    let op = request
        .get("operation")
        .and_then(Value::as_str)
        .unwrap_or("");
    Ok(AdmissionRequest {
        operation: operation(op).ok_or_else(|| format!("unknown operation {op:?}"))?,
        object: typed(request, "object")?,
        old_object: typed(request, "oldObject")?,
        username: request
            .pointer("/userInfo/username")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        dry_run: request
            .get("dryRun")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

impl WebhookServerBuilder {
    /// Serves a validating webhook for `K` on its `/validate-…` path:
    /// `validator` returns `Ok(warnings)` to admit the request (the
    /// warnings reach the client, as kubectl's `Warning:` lines) or
    /// `Err(message)` to deny it (`403 Forbidden` with the message).
    ///
    /// ```no_run
    /// # use kubegen::server::{ServingCert, WebhookServer};
    /// # #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)] struct Cart { spec: Spec }
    /// # #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)] struct Spec { lines: Vec<String> }
    /// # impl k8s_openapi::Resource for Cart { const API_VERSION: &'static str = "shop.example.com/v2"; const GROUP: &'static str = "shop.example.com"; const KIND: &'static str = "Cart"; const VERSION: &'static str = "v2"; const URL_PATH_SEGMENT: &'static str = "carts"; type Scope = k8s_openapi::NamespaceResourceScope; }
    /// let server = WebhookServer::builder(ServingCert::self_signed(["localhost"]))
    ///     .validate::<Cart>(|request| {
    ///         let Some(cart) = &request.object else { return Ok(vec![]) };
    ///         if cart.spec.lines.len() > 100 {
    ///             return Err("a cart holds at most 100 lines".into());
    ///         }
    ///         Ok(if cart.spec.lines.is_empty() { vec!["the cart is empty".into()] } else { vec![] })
    ///     });
    /// ```
    #[must_use]
    pub fn validate<K>(
        self,
        validator: impl Fn(&AdmissionRequest<K>) -> Result<Vec<String>, String> + Send + Sync + 'static,
    ) -> Self
    where
        K: k8s_openapi::Resource + DeserializeOwned + 'static,
    {
        let (path, _) = paths::<K>();
        self.route(&path, move |body: Bytes| {
            let (request, uid, api_version) = request(&body)?;
            let response = match typed_request::<K>(&request) {
                Err(message) => denied(&uid, 400, "BadRequest", &message),
                Ok(typed) => match validator(&typed) {
                    Ok(warnings) => json!({"uid": uid, "allowed": true, "warnings": warnings}),
                    Err(message) => denied(&uid, 403, "Forbidden", &message),
                },
            };
            reply(api_version, response)
        })
    }

    /// Serves a defaulting (mutating) webhook for `K` on its `/mutate-…`
    /// path: `defaulter` fills in the typed object; the answer is a JSON
    /// patch of exactly the fields it changed, applied to the object as
    /// sent — fields the Rust type does not know are never touched. An
    /// object that does not read as `K` (mutation runs before schema
    /// validation) is admitted unchanged, for the schema to refuse with
    /// its own message.
    #[must_use]
    pub fn default<K>(self, defaulter: impl Fn(&mut K) + Send + Sync + 'static) -> Self
    where
        K: k8s_openapi::Resource + DeserializeOwned + Serialize + Clone + 'static,
    {
        let (_, path) = paths::<K>();
        self.route(&path, move |body: Bytes| {
            let (request, uid, api_version) = request(&body)?;
            let Some(raw) = request.get("object").filter(|o| o.is_object()) else {
                return reply(api_version, json!({"uid": uid, "allowed": true}));
            };
            let Ok(mut object) = serde_json::from_value::<K>(raw.clone()) else {
                return reply(api_version, json!({"uid": uid, "allowed": true}));
            };
            let before = serde_json::to_value(&object).map_err(|e| e.to_string())?;
            defaulter(&mut object);
            let after = serde_json::to_value(&object).map_err(|e| e.to_string())?;
            let merged = merge_fields(&before, &after, raw);
            let patch = json_patch::diff(raw, &merged);
            let mut response = json!({"uid": uid, "allowed": true});
            if !patch.0.is_empty() {
                let bytes = serde_json::to_vec(&patch).map_err(|e| e.to_string())?;
                response["patchType"] = "JSONPatch".into();
                response["patch"] =
                    serde_json::to_value(ByteString(bytes)).map_err(|e| e.to_string())?;
            }
            reply(api_version, response)
        })
    }
}

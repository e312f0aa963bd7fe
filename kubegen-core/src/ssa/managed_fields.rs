//! `metadata.managedFields` read and written as apimachinery's
//! `managedfields/internal` does: entries decoded into sets keyed by
//! manager identifier (`BuildManagerIdentifier`: manager, operation,
//! apiVersion for updates only, subresource, as JSON), encoded back
//! sorted by operation, time, manager, apiVersion and subresource, and the
//! cap that folds the oldest update entries into `ancient-changes`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::fieldset::FieldSet;
use super::updater::{ManagedFields, VersionedSet};
use crate::go::fmt::go_json;
use crate::go::time::{format_rfc3339, parse_rfc3339};

/// A point in time, to the second, as managedFields entries keep it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Parses an RFC 3339 time (`2024-05-01T10:00:00Z`).
    pub fn parse(s: &str) -> Result<Self, String> {
        parse_rfc3339(s).map(|i| Timestamp(i.unix))
    }

    /// The time as the apiserver writes it (UTC, whole seconds).
    pub fn to_rfc3339(self) -> String {
        format_rfc3339(self.0)
    }
}

/// One managedFields entry as `metav1.ManagedFieldsEntry` decodes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Entry {
    pub manager: String,
    pub operation: String,
    pub api_version: String,
    pub time: Option<Timestamp>,
    pub fields_type: String,
    pub fields_v1: Option<Value>,
    pub subresource: String,
}

/// Managers' sets and the time each was last changed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Managed {
    pub fields: ManagedFields,
    pub times: BTreeMap<String, Option<Timestamp>>,
}

fn string_field(m: &Map<String, Value>, key: &str) -> Result<String, ()> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(()),
    }
}

/// The entries of an object's `metadata.managedFields`
/// (`Unstructured.GetManagedFields`): `None` when absent, not a list, or
/// any entry fails to decode.
pub(crate) fn get_entries(obj: &Value) -> Option<Vec<Entry>> {
    let items = obj
        .get("metadata")?
        .as_object()?
        .get("managedFields")?
        .as_array()?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let m = item.as_object()?;
        let time = match m.get("time") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(Timestamp::parse(s).ok()?),
            Some(_) => return None,
        };
        out.push(Entry {
            manager: string_field(m, "manager").ok()?,
            operation: string_field(m, "operation").ok()?,
            api_version: string_field(m, "apiVersion").ok()?,
            time,
            fields_type: string_field(m, "fieldsType").ok()?,
            fields_v1: m.get("fieldsV1").filter(|v| !v.is_null()).cloned(),
            subresource: string_field(m, "subresource").ok()?,
        });
    }
    Some(out)
}

/// Whether entries ask for managed fields to be reset
/// (`isResetManagedFields`): an empty list, or one empty entry.
pub(crate) fn is_reset(entries: &Option<Vec<Entry>>) -> bool {
    match entries.as_deref() {
        Some([]) => true,
        Some([only]) => *only == Entry::default(),
        _ => false,
    }
}

/// A manager identifier (`BuildManagerIdentifier`): the entry's manager,
/// operation, apiVersion (for updates) and subresource as Go's JSON.
pub(crate) fn identifier(
    manager: &str,
    operation: &str,
    api_version: &str,
    subresource: &str,
) -> String {
    let mut parts = Vec::new();
    let mut put = |k: &str, v: &str| {
        if !v.is_empty() {
            parts.push(format!("\"{k}\":{}", go_json(&Value::String(v.into()))));
        }
    };
    put("manager", manager);
    put("operation", operation);
    if operation != "Apply" {
        put("apiVersion", api_version);
    }
    put("subresource", subresource);
    format!("{{{}}}", parts.join(","))
}

/// The fields of an identifier: manager, operation, apiVersion,
/// subresource.
pub(crate) fn parse_identifier(id: &str) -> (String, String, String, String) {
    let v: Value = serde_json::from_str(id).unwrap_or(Value::Null);
    let get = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    (
        get("manager"),
        get("operation"),
        get("apiVersion"),
        get("subresource"),
    )
}

/// Decodes entries (`DecodeManagedFields`).
pub(crate) fn decode(entries: &[Entry]) -> Result<Managed, String> {
    let mut managed = Managed::default();
    for (i, e) in entries.iter().enumerate() {
        if e.operation != "Apply" && e.operation != "Update" {
            return Err("operation must be `Apply` or `Update`".into());
        }
        if e.api_version.is_empty() {
            return Err("apiVersion must not be empty".into());
        }
        match e.fields_type.as_str() {
            "FieldsV1" => {}
            "" => return Err(format!("missing fieldsType in managed fields entry {i}")),
            other => {
                return Err(format!(
                    "invalid fieldsType {} in managed fields entry {i}",
                    crate::go::fmt::go_quote(other)
                ));
            }
        }
        let id = identifier(&e.manager, &e.operation, &e.api_version, &e.subresource);
        let empty = json!({});
        let set = FieldSet::from_fields_v1(e.fields_v1.as_ref().unwrap_or(&empty))
            .map_err(|err| format!("error decoding versioned set: error decoding set: {err}"))?;
        managed.fields.insert(
            id.clone(),
            VersionedSet {
                set,
                api_version: e.api_version.clone(),
                applied: e.operation == "Apply",
            },
        );
        managed.times.insert(id, e.time);
    }
    Ok(managed)
}

/// Encodes managers back into entries, sorted as the apiserver sorts
/// them; `None` when there are none (the field is removed).
pub(crate) fn encode(managed: &Managed) -> Option<Vec<Value>> {
    if managed.fields.is_empty() {
        return None;
    }
    let mut entries: Vec<Entry> = managed
        .fields
        .iter()
        .map(|(id, vs)| {
            let (manager, operation, _, subresource) = parse_identifier(id);
            Entry {
                manager,
                operation: if vs.applied {
                    "Apply".into()
                } else {
                    operation
                },
                api_version: vs.api_version.clone(),
                time: managed.times.get(id).copied().flatten(),
                fields_type: "FieldsV1".into(),
                fields_v1: Some(vs.set.to_fields_v1()),
                subresource,
            }
        })
        .collect();
    entries.sort_by(|p, q| {
        p.operation
            .cmp(&q.operation)
            .then_with(|| seconds(p.time).cmp(&seconds(q.time)))
            .then_with(|| p.manager.cmp(&q.manager))
            .then_with(|| p.api_version.cmp(&q.api_version))
            .then_with(|| p.subresource.cmp(&q.subresource))
    });
    Some(entries.into_iter().map(entry_value).collect())
}

fn seconds(t: Option<Timestamp>) -> i64 {
    t.map_or(0, |t| t.0)
}

fn entry_value(e: Entry) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: String| {
        if !v.is_empty() {
            m.insert(k.into(), Value::String(v));
        }
    };
    put("manager", e.manager);
    put("operation", e.operation);
    put("apiVersion", e.api_version);
    put(
        "time",
        e.time.map(Timestamp::to_rfc3339).unwrap_or_default(),
    );
    put("fieldsType", e.fields_type);
    put("subresource", e.subresource);
    if let Some(f) = e.fields_v1 {
        m.insert("fieldsV1".into(), f);
    }
    Value::Object(m)
}

/// Folds the oldest update entries into per-version `ancient-changes`
/// entries until at most `max` update entries remain (`capUpdateManagers`).
pub(crate) fn cap_update_managers(managed: &mut Managed, max: usize) {
    let mut updaters: Vec<String> = managed
        .fields
        .iter()
        .filter(|(_, vs)| !vs.applied)
        .map(|(id, _)| id.clone())
        .collect();
    if updaters.len() <= max {
        return;
    }
    let time_of = |id: &String| seconds(managed.times.get(id).copied().flatten());
    updaters.sort_by(|a, b| time_of(a).cmp(&time_of(b)).then_with(|| a.cmp(b)));
    let mut first_of_version: BTreeMap<String, String> = BTreeMap::new();
    let mut length = updaters.len();
    for manager in &updaters {
        if length <= max {
            break;
        }
        let Some(vs) = managed.fields.get(manager).cloned() else {
            continue;
        };
        let time = managed.times.get(manager).copied().flatten();
        let version = vs.api_version.clone();
        let bucket = identifier("ancient-changes", "Update", &version, "");
        if let Some(first) = first_of_version.get(&version) {
            if !managed.fields.contains_key(&bucket)
                && let Some(s) = managed.fields.remove(first)
            {
                managed.fields.insert(bucket.clone(), s);
            }
            let bucket_set = managed
                .fields
                .get(&bucket)
                .map(|b| b.set.clone())
                .unwrap_or_default();
            managed.fields.insert(
                bucket.clone(),
                VersionedSet {
                    set: vs.set.union(&bucket_set),
                    api_version: vs.api_version.clone(),
                    applied: vs.applied,
                },
            );
            managed.fields.remove(manager);
            length -= 1;
            managed.times.insert(bucket, time);
        } else {
            first_of_version.insert(version, manager.clone());
        }
    }
}

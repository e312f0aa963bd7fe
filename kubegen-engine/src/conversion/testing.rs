//! The property test of a [`Converter`]: for every spoke version of every
//! kind, arbitrary objects valid under that version's CRD schema convert to
//! the hub and back unchanged, and arbitrary hub objects convert to the
//! spoke and back unchanged (which the stash annotation makes possible even
//! when one version holds less); and the user conversions alone lose no
//! data from the version that holds less.
//!
//! `kubegen generate` calls [`check_round_trips`] from a test in the
//! generated conversion module; it needs no extra dependency. Values come
//! from a small seeded generator driven by the structural schema (types,
//! required fields, enums, bounds on numbers, lengths and item counts,
//! list-map keys); a value serde refuses to read is skipped and counted.

use std::fmt;

use serde_json::{Map, Value, json};

use kubegen_core::rng::Rng;

use super::{Converter, VersionFns, stash};

/// What a [`check_round_trips`] run covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RoundTripReport {
    /// Objects converted there and back.
    pub checked: usize,
    /// Generated values serde refused to read (not convertible at all).
    pub skipped: usize,
}

/// A round trip that changed an object, or a conversion that failed.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundTripFailure {
    /// The seed that generated the object (rerun with it to reproduce).
    pub seed: u64,
    /// `spoke → hub → spoke` or `hub → spoke → hub`, with versions.
    pub path: String,
    /// The object that went in.
    pub input: Value,
    /// What came back, or the conversion error.
    pub output: Result<Value, String>,
}

impl fmt::Display for RoundTripFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let out = match &self.output {
            Ok(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
            Err(e) => format!("error: {e}"),
        };
        write!(
            f,
            "{} is not the identity (seed {}):\n  in:  {}\n  out: {out}",
            self.path,
            self.seed,
            serde_json::to_string_pretty(&self.input).unwrap_or_default()
        )
    }
}

impl std::error::Error for RoundTripFailure {}

/// Checks `cases` arbitrary objects per direction and spoke version of
/// every kind `converter` knows (starting from `seed`):
///
/// 1. through the [`Converter`] (the stash included), spoke → hub → spoke
///    and hub → spoke → hub give back every object unchanged — what the
///    apiserver stores is never lost;
/// 2. through the user conversions alone, at least one of the two round
///    trips is the identity — the version that holds less converts to the
///    other without loss. A conversion that loses data both ways (a field
///    forgotten on the way in) would be hidden by the stash yet leave the
///    two versions disagreeing; it fails here, with a case from the
///    spoke → hub → spoke direction.
pub fn check_round_trips(
    converter: &Converter,
    cases: usize,
    seed: u64,
) -> Result<RoundTripReport, RoundTripFailure> {
    let mut report = RoundTripReport::default();
    for ((_, kind), k) in &converter.kinds {
        let hub_fns = k.versions[&k.hub].clone();
        for (version, fns) in k.versions.iter().filter(|(v, _)| **v != k.hub) {
            let (Some(to_hub), Some(from_hub)) = (fns.to_hub, fns.from_hub) else {
                continue;
            };
            let plain_out = |o: Value| from_hub(to_hub(o)?);
            let plain_back = |o: Value| to_hub(from_hub(o)?);
            let directions: [Direction<'_>; 2] = [
                (version.as_str(), fns.clone(), k.hub.as_str(), &plain_out),
                (
                    k.hub.as_str(),
                    hub_fns.clone(),
                    version.as_str(),
                    &plain_back,
                ),
            ];
            let mut plain_failures = Vec::new();
            for (from, from_fns, to, plain) in directions {
                let schema = schema_of(&from_fns).map_err(|e| RoundTripFailure {
                    seed,
                    path: format!("{kind} {from}"),
                    input: Value::Null,
                    output: Err(e),
                })?;
                let mut plain_failure = None;
                let mut done = 0;
                let mut attempt = 0u64;
                while done < cases && attempt < (cases as u64) * 20 {
                    let case_seed = seed.wrapping_add(attempt);
                    attempt += 1;
                    // The seed offset keeps the cases every earlier release generated.
                    let mut rng = Rng::new(case_seed ^ 0x9e37_79b9_7f4a_7c15);
                    let object = arbitrary_object(&schema, from, kind, &mut rng);
                    let Ok(object) = (from_fns.canonical)(object) else {
                        report.skipped += 1;
                        continue;
                    };
                    let path = format!("{kind} {from} → {to} → {from}");
                    let back = converter
                        .convert(object.clone(), to)
                        .and_then(|there| converter.convert(there, from))
                        .map_err(|e| e.0);
                    if !back
                        .as_ref()
                        .is_ok_and(|b| stash::data(b) == stash::data(&object))
                    {
                        return Err(RoundTripFailure {
                            seed: case_seed,
                            path,
                            input: object,
                            output: back,
                        });
                    }
                    if plain_failure.is_none() {
                        let plain_back = plain(object.clone());
                        if !plain_back
                            .as_ref()
                            .is_ok_and(|b| stash::data(b) == stash::data(&object))
                        {
                            plain_failure = Some(RoundTripFailure {
                                seed: case_seed,
                                path: format!(
                                    "{path} through the conversions alone (both ways lose data)"
                                ),
                                input: object,
                                output: plain_back,
                            });
                        }
                    }
                    done += 1;
                    report.checked += 1;
                }
                plain_failures.push(plain_failure);
            }
            if let [Some(first), Some(_)] = &plain_failures[..] {
                return Err(first.clone());
            }
        }
    }
    Ok(report)
}

/// One direction of a round trip: from a version (and its functions) to
/// another and back, and the same through the user conversions alone.
type Direction<'a> = (
    &'a str,
    VersionFns,
    &'a str,
    &'a dyn Fn(Value) -> Result<Value, String>,
);

fn schema_of(fns: &VersionFns) -> Result<Value, String> {
    let crd = (fns.crd)().map_err(|e| e.to_string())?;
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema")
        .cloned()
        .ok_or_else(|| "the CRD has no schema".to_owned())
}

/// An object of `kind` at `api_version` with arbitrary data (every root
/// property but `apiVersion`, `kind` and `metadata`).
fn arbitrary_object(schema: &Value, api_version: &str, kind: &str, rng: &mut Rng) -> Value {
    let mut object = Map::new();
    object.insert("apiVersion".into(), api_version.into());
    object.insert("kind".into(), kind.into());
    object.insert(
        "metadata".into(),
        json!({"name": "round-trip", "namespace": "default", "uid": "00000000-0000-0000-0000-000000000001"}),
    );
    let required = required(schema);
    for (name, s) in properties(schema) {
        if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        if required.contains(&name) || rng.chance(4, 5) {
            object.insert(name.clone(), arbitrary(s, rng, 0));
        }
    }
    Value::Object(object)
}

fn properties(schema: &Value) -> Vec<(String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v))
        .collect()
}

fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// How deep optional structure is generated.
const MAX_DEPTH: u32 = 6;

/// An arbitrary value valid under `schema` (as far as types, enums, bounds
/// and list keys go; patterns and CEL rules are not followed).
fn arbitrary(schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.is_empty()
    {
        return options[rng.below(options.len())].clone();
    }
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return if rng.chance(1, 2) {
            json!(rng.below(100))
        } else {
            Value::String(word(rng, 1, 8))
        };
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => arbitrary_map(schema, rng, depth),
        Some("array") => arbitrary_list(schema, rng, depth),
        Some("string") => arbitrary_string(schema, rng),
        Some("integer") => arbitrary_integer(schema, rng),
        Some("number") => arbitrary_number(schema, rng),
        Some("boolean") => json!(rng.chance(1, 2)),
        _ => Value::Object(Map::new()),
    }
}

/// A count keyword (`minItems`, `maxLength`, ...) of `schema`.
fn count(schema: &Value, k: &str) -> Option<u64> {
    schema.get(k).and_then(Value::as_u64)
}

/// An object: its required properties and some others (fewer the deeper),
/// or a few map entries, or an unknown field where they are preserved.
fn arbitrary_map(schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    let mut out = Map::new();
    let props = properties(schema);
    let required = required(schema);
    if !props.is_empty() {
        for (name, s) in props {
            if required.contains(&name) || (depth < MAX_DEPTH && rng.chance(2, 3)) {
                out.insert(name, arbitrary(s, rng, depth + 1));
            }
        }
    } else if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        let n = if depth < MAX_DEPTH { rng.below(3) } else { 0 };
        for i in 0..n {
            out.insert(
                format!("k{i}{}", word(rng, 0, 3)),
                arbitrary(values, rng, depth + 1),
            );
        }
    } else if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
        && rng.chance(1, 2)
    {
        out.insert(word(rng, 1, 6), json!(rng.below(10)));
    }
    Value::Object(out)
}

/// A list within its item bounds, no two items sharing their map keys (a
/// map list) or equal (a set).
fn arbitrary_list(schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    let min = count(schema, "minItems").unwrap_or(0);
    let max = count(schema, "maxItems").unwrap_or(3).min(min.max(3));
    let n = if depth < MAX_DEPTH || min > 0 {
        min + rng.below((max.saturating_sub(min) + 1) as usize) as u64
    } else {
        0
    };
    let items = schema.get("items").cloned().unwrap_or(Value::Null);
    let keys: Vec<String> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect();
    let unique = schema.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("set")
        || schema.get("uniqueItems") == Some(&Value::Bool(true));
    let mut out: Vec<Value> = Vec::new();
    let mut tries = 0;
    while (out.len() as u64) < n && tries < n * 10 {
        tries += 1;
        let item = arbitrary(&items, rng, depth + 1);
        let clash = if !keys.is_empty() {
            out.iter()
                .any(|o| keys.iter().all(|k| o.get(k) == item.get(k)))
        } else {
            unique && out.contains(&item)
        };
        if !clash {
            out.push(item);
        }
    }
    Value::Array(out)
}

/// A string of its format (date-time, date, byte), else a word within its
/// length bounds.
fn arbitrary_string(schema: &Value, rng: &mut Rng) -> Value {
    match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => json!(format!(
            "20{:02}-0{}-1{}T0{}:1{}:2{}Z",
            rng.below(30),
            1 + rng.below(9),
            rng.below(10),
            rng.below(10),
            rng.below(10),
            rng.below(10)
        )),
        Some("date") => json!(format!(
            "20{:02}-0{}-1{}",
            rng.below(30),
            1 + rng.below(9),
            rng.below(10)
        )),
        Some("byte") => json!(["", "aGk=", "a3ViZWdlbg=="][rng.below(3)]),
        _ => {
            let min = count(schema, "minLength").unwrap_or(0);
            let max = count(schema, "maxLength").unwrap_or(12).min(min + 12);
            Value::String(word(rng, min, max))
        }
    }
}

/// An integer within its bounds (exclusive ones moved in by one).
fn arbitrary_integer(schema: &Value, rng: &mut Rng) -> Value {
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    let lo = num("minimum").map_or(-1000.0, |m| {
        if schema.get("exclusiveMinimum") == Some(&Value::Bool(true)) {
            m + 1.0
        } else {
            m
        }
    });
    let hi = num("maximum").map_or(lo.max(0.0) + 1000.0, |m| {
        if schema.get("exclusiveMaximum") == Some(&Value::Bool(true)) {
            m - 1.0
        } else {
            m
        }
    });
    let (lo, hi) = (lo.max(-1e15) as i64, hi.min(1e15) as i64);
    let span = hi.saturating_sub(lo).max(0) as u64;
    json!(lo + rng.below(span.saturating_add(1) as usize) as i64)
}

/// A number within its bounds, a multiple of a quarter (exact in JSON).
fn arbitrary_number(schema: &Value, rng: &mut Rng) -> Value {
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    let lo = num("minimum").unwrap_or(-1000.0);
    let hi = num("maximum").unwrap_or(lo.max(0.0) + 1000.0);
    let x = lo + (hi - lo) * (rng.below(1000) as f64 / 1000.0);
    json!((x * 4.0).round() / 4.0)
}

/// A lower-case word of `min..=max` letters.
fn word(rng: &mut Rng, min: u64, max: u64) -> String {
    let n = min + rng.below((max.saturating_sub(min) + 1) as usize) as u64;
    (0..n)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect()
}

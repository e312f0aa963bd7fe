//! Strategic merge patch (`application/strategic-merge-patch+json`) of a
//! built-in type, as the apiserver applies it: a port of
//! k8s.io/apimachinery v0.36.3's `strategicpatch.StrategicMergeMapPatch`
//! (`MergeParallelList` and `IgnoreUnmatchedNulls` on) over the type's
//! patch metadata ([`super::strategies`]), behind patch.go's decoding of
//! the body and its classification of the errors.
//!
//! What it does: maps merge member by member, `null` deleting; a list
//! whose field has `patchStrategy:"merge"` merges — lists of objects by
//! their `patchMergeKey` (a matching element merged, a new one appended),
//! lists of scalars as a union without duplicates — other lists and
//! `patchStrategy:"replace"` maps are replaced. Directives:
//! `$patch: replace` (a map replaced, or in a merging list the whole
//! list), `$patch: delete` (a map emptied, a list element removed by its
//! merge key), `$patch: merge` (refused in a list),
//! `$deleteFromPrimitiveList/<field>` (scalars removed from a merging
//! list), `$setElementOrder/<field>` (the merged list's order; checked
//! against the patch's list), `$retainKeys` (the map keeps only those
//! keys; every patched key must be among them). Merged lists keep the
//! patch's order, the others' elements placed by the current order
//! (Go's stable sort and merge, reproduced step by step because its
//! comparison is no order).
//!
//! Errors are the apiserver's: the format errors are `400 BadRequest`
//! with the library's words, lists of lists `422 Invalid` with the
//! generic message, anything else the library's error as a `500` without
//! a reason; where Go panics (comparing two objects as merge keys,
//! using one as a set member, a list starting with `null`), the
//! apiserver's panic answer. Go walks maps in random order; this walks
//! them sorted, which decides between a list and its
//! `$deleteFromPrimitiveList` in one map (the deletion first), and which
//! of two failing keys is reported.

use serde_json::{Map, Value};

use super::go_json::{self, Json};
use super::strategies::Schema;
use super::{FieldValidation, PatchError, Patched};
use crate::go::fmt::{go_sprint, go_type};

const DIRECTIVE: &str = "$patch";
const DELETE: &str = "delete";
const REPLACE: &str = "replace";
const MERGE: &str = "merge";
const RETAIN_KEYS_STRATEGY: &str = "retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// Why merging stopped.
#[derive(Debug)]
enum E {
    /// A mergepatch format error: `400 BadRequest`.
    BadRequest(&'static str),
    /// `ErrNoListOfLists`: the generic `422`.
    Unprocessable,
    /// Any other Go error: `500`.
    Go(String),
    /// A Go runtime panic.
    Panic,
}

type R<T> = Result<T, E>;

const BAD_PRIMITIVE_LIST: E = E::BadRequest("invalid patch format of primitive list");
const BAD_RETAIN_KEYS: E = E::BadRequest("invalid patch format of retainKeys");
const BAD_SET_ELEMENT_ORDER: E = E::BadRequest("invalid patch format of setElementOrder list");

/// Applies the strategic merge patch `body` to `current`, an object of the
/// built-in type `definition` (an OpenAPI definition name,
/// [`super::strategies::definition_for`]).
pub fn apply(
    current: &Value,
    body: &[u8],
    definition: &str,
    validation: FieldValidation,
) -> Result<Patched, PatchError> {
    super::check_current(current)?;
    let patch = go_json::parse(body).map_err(PatchError::bad_request)?;
    let patch_map = match &patch {
        Json::Object(_) | Json::Null => {
            if let Some(e) = patch.first_bad_number() {
                return Err(PatchError::bad_request(e));
            }
            patch.to_value().map_err(PatchError::bad_request)?
        }
        other => {
            return Err(PatchError::bad_request(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                other.type_name()
            )));
        }
    };
    let mut strict_errors = Vec::new();
    if validation != FieldValidation::Ignore {
        patch.duplicates("", &mut strict_errors);
    }
    let Value::Object(original) = normalize(current.clone()) else {
        return Err(PatchError::internal(
            "the object is not a JSON object".into(),
        ));
    };
    let patch_map = match patch_map {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let schema = Schema { ty: definition };
    match merge_map(Some(original), patch_map, schema) {
        Ok(merged) => Ok(Patched {
            object: Value::Object(merged),
            strict_errors,
        }),
        Err(E::BadRequest(m)) => Err(PatchError::bad_request(m.into())),
        Err(E::Unprocessable) => Err(PatchError::unprocessable()),
        Err(E::Go(m)) => Err(PatchError::internal(m)),
        Err(E::Panic) => Err(PatchError::panic()),
    }
}

/// Numbers as Go's `ToUnstructured` holds them: `int64` or `float64`.
fn normalize(v: Value) -> Value {
    match v {
        Value::Number(n) if !n.is_i64() => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Number(n), Value::Number),
        Value::Array(items) => Value::Array(items.into_iter().map(normalize).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, normalize(v))).collect()),
        other => other,
    }
}

/// `reflect.TypeOf(v)` as `%s` prints it.
fn type_s(v: &Value) -> &'static str {
    match v {
        Value::Null => "%!s(<nil>)",
        other => go_type(other),
    }
}

/// `mergepatch.ErrBadArgType`.
fn bad_arg_type(expected: &str, actual: &Value) -> E {
    E::Go(format!(
        "expected a {expected}, but received a {}",
        type_s(actual)
    ))
}

const MAP_TYPE: &str = "map[string]interface {}";
const SLICE_TYPE: &str = "[]interface {}";

/// `mergepatch.ErrNoMergeKey`.
fn no_merge_key(m: &Map<String, Value>, key: &str) -> E {
    E::Go(format!(
        "map: {} does not contain declared merge key: {key}",
        go_sprint(&Value::Object(m.clone()), false)
    ))
}

/// `mergepatch.ErrBadPatchType`.
fn bad_patch_type(t: &Value, m: &Map<String, Value>) -> E {
    E::Go(format!(
        "unknown patch type: {} in map: {}",
        go_sprint(t, true),
        go_sprint(&Value::Object(m.clone()), false)
    ))
}

/// Go's `==` on two `interface{}` values: a panic when both hold the same
/// uncomparable type.
fn go_eq(a: &Value, b: &Value) -> R<bool> {
    if go_type(a) != go_type(b) {
        return Ok(false);
    }
    match a {
        Value::Array(_) | Value::Object(_) => Err(E::Panic),
        _ => Ok(a == b),
    }
}

/// A Go `map[interface{}]…` key: a panic for an unhashable value.
fn hashable(v: &Value) -> R<&Value> {
    match v {
        Value::Array(_) | Value::Object(_) => Err(E::Panic),
        v => Ok(v),
    }
}

/// Whether `set` (a Go map's keys) holds `v`.
fn set_has(set: &[&Value], v: &Value) -> R<bool> {
    let v = hashable(v)?;
    Ok(set.iter().any(|s| go_type(s) == go_type(v) && *s == v))
}

fn is_directive(v: &Value, directive: &str) -> bool {
    v.as_str() == Some(directive)
}

/// `mergeMap`.
fn merge_map(
    original: Option<Map<String, Value>>,
    mut patch: Map<String, Value>,
    schema: Schema<'_>,
) -> R<Map<String, Value>> {
    if let Some(v) = patch.get(DIRECTIVE) {
        // handleDirectiveInMergeMap
        if is_directive(v, REPLACE) {
            patch.remove(DIRECTIVE);
            return Ok(patch);
        }
        if is_directive(v, DELETE) {
            return Ok(Map::new());
        }
        return Err(bad_patch_type(v, &patch));
    }
    let mut original = original.unwrap_or_default();
    apply_retain_keys(&mut original, &mut patch)?;
    merge_patch_into_original(&mut original, &mut patch, schema)?;
    for (key, patch_v) in patch {
        let mut k = key.clone();
        let mut is_delete_list = false;
        if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            let original_key = extract_key(&key, DELETE_FROM_PRIMITIVE_LIST)?;
            is_delete_list = true;
            if !original_key.is_empty() {
                k = original_key;
            }
        }
        if patch_v.is_null() {
            original.remove(&k);
            continue;
        }
        let Some(original_v) = original.get(&k) else {
            if !is_delete_list {
                take_patch_value(&mut original, k, patch_v);
            }
            continue;
        };
        if go_type(original_v) != go_type(&patch_v) {
            if !is_delete_list {
                take_patch_value(&mut original, k, patch_v);
            }
            continue;
        }
        match patch_v {
            Value::Object(p) => {
                let (sub, meta) = schema.lookup_struct(&k).map_err(E::Go)?;
                let strategy = extract_retain_keys_strategy(&meta.strategies)?;
                let Some(Value::Object(o)) = original.remove(&k) else {
                    unreachable!("the types are the same")
                };
                let merged = if strategy != REPLACE {
                    merge_map(Some(o), p, sub)?
                } else {
                    p
                };
                original.insert(k, Value::Object(merged));
            }
            Value::Array(p) => {
                let (sub, meta) = schema.lookup_slice(&k).map_err(E::Go)?;
                let strategy = extract_retain_keys_strategy(&meta.strategies)?;
                let Some(Value::Array(o)) = original.remove(&k) else {
                    unreachable!("the types are the same")
                };
                let merged = if strategy == MERGE || is_delete_list {
                    merge_slice(o, p, sub, &meta.merge_key, is_delete_list)?
                } else {
                    p
                };
                original.insert(k, Value::Array(merged));
            }
            scalar => {
                original.insert(k, scalar);
            }
        }
    }
    Ok(original)
}

/// A patch value taken as it is: its `null`s discarded, its directives
/// removed (the key dropped when the value itself is one).
fn take_patch_value(original: &mut Map<String, Value>, k: String, mut patch_v: Value) {
    discard_nulls(&mut patch_v);
    match remove_directives(patch_v) {
        Some(v) => {
            original.insert(k, v);
        }
        None => {
            original.remove(&k);
        }
    }
}

/// `discardNullValuesFromPatch`: `null` members go, at any depth (array
/// elements stay).
fn discard_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

/// `removeDirectives`: `None` when the value is a map with a `$patch`;
/// such maps dropped inside it.
fn remove_directives(v: Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            if m.contains_key(DIRECTIVE) {
                return None;
            }
            Some(Value::Object(
                m.into_iter()
                    .filter_map(|(k, v)| Some((k, remove_directives(v)?)))
                    .collect(),
            ))
        }
        Value::Array(items) => Some(Value::Array(
            items.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

/// `extractKey`: the field a `prefix/field` directive key names.
fn extract_key(s: &str, prefix: &str) -> R<String> {
    match s.split_once('/') {
        Some((p, rest)) if p == prefix => Ok(rest.to_string()),
        _ if prefix == DELETE_FROM_PRIMITIVE_LIST => Err(BAD_PRIMITIVE_LIST),
        _ => Err(BAD_SET_ELEMENT_ORDER),
    }
}

/// `extractRetainKeysPatchStrategy`: the strategy besides `retainKeys`.
fn extract_retain_keys_strategy(strategies: &[String]) -> R<String> {
    match strategies {
        [] => Ok(String::new()),
        [one] if one == RETAIN_KEYS_STRATEGY => Ok(String::new()),
        [one] => Ok(one.clone()),
        [a, b] if a == RETAIN_KEYS_STRATEGY => Ok(b.clone()),
        [a, b] if b == RETAIN_KEYS_STRATEGY => Ok(a.clone()),
        _ => Err(E::Go(format!(
            "unexpected patch strategy: [{}]",
            strategies.join(" ")
        ))),
    }
}

/// `applyRetainKeysDirective`.
fn apply_retain_keys(original: &mut Map<String, Value>, patch: &mut Map<String, Value>) -> R<()> {
    let Some(retain) = patch.remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let Value::Array(list) = retain else {
        return Err(BAD_RETAIN_KEYS);
    };
    let mut set = Vec::new();
    for v in &list {
        set.push(hashable(v)?);
    }
    let has = |k: &str| set.iter().any(|v| v.as_str() == Some(k));
    for (k, v) in patch.iter() {
        if v.is_null()
            || k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            || k.starts_with(SET_ELEMENT_ORDER)
        {
            continue;
        }
        if !has(k) {
            return Err(BAD_RETAIN_KEYS);
        }
    }
    original.retain(|k, _| has(k));
    Ok(())
}

/// `mergePatchIntoOriginal`: each `$setElementOrder/<field>` with its
/// list, merged and ordered.
fn merge_patch_into_original(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    schema: Schema<'_>,
) -> R<()> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    for key in keys {
        // An earlier one may have taken it as its list.
        let Some(order) = patch.remove(&key) else {
            continue;
        };
        let Value::Array(order) = order else {
            return Err(bad_arg_type(SLICE_TYPE, &order));
        };
        let original_key = extract_key(&key, SET_ELEMENT_ORDER)?;
        let original_list = original.get(&original_key).cloned();
        let patch_list = patch.get(&original_key).cloned();
        let original_items = match &original_list {
            None => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(other) => return Err(bad_arg_type(SLICE_TYPE, other)),
        };
        let patch_items = match &patch_list {
            None => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(other) => return Err(bad_arg_type(SLICE_TYPE, other)),
        };
        let (sub, meta) = schema.lookup_slice(&original_key).map_err(E::Go)?;
        let strategy = extract_retain_keys_strategy(&meta.strategies)?;
        validate_with_set_order(&patch_items, &order, &meta.merge_key)?;
        let merged = match (original_list.is_some(), patch_list.is_some()) {
            (true, false) => original_items.clone(),
            (false, true) => match remove_directives(Value::Array(patch_items.clone())) {
                Some(Value::Array(v)) => v,
                _ => continue,
            },
            (true, true) => merge_slice_handler(
                original_items.clone(),
                patch_items.clone(),
                sub,
                &strategy,
                &meta.merge_key,
                false,
            )?,
            (false, false) => continue,
        };
        let (in_patch, server_only) = partition(merged, &order, &meta.merge_key)?;
        let kind = element_kind(&[&original_items, &patch_items])?;
        let both = normalize_element_order(
            in_patch,
            server_only,
            &order,
            &original_items,
            &meta.merge_key,
            kind,
        )?;
        original.insert(original_key.clone(), Value::Array(both));
        patch.remove(&original_key);
    }
    Ok(())
}

/// The element kind of lists: whether they hold maps.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Map,
    Other,
}

/// `partitionPrimitivesByPresentInList` or `partitionMapsByPresentInList`
/// (with a merge key): the items in `by`, and the others.
fn partition(items: Vec<Value>, by: &[Value], merge_key: &str) -> R<(Vec<Value>, Vec<Value>)> {
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    if merge_key.is_empty() {
        let mut set = Vec::new();
        for v in by {
            set.push(hashable(v)?);
        }
        for v in items {
            if set_has(&set, &v)? {
                inside.push(v);
            } else {
                outside.push(v);
            }
        }
        return Ok((inside, outside));
    }
    for v in items {
        let Value::Object(m) = &v else {
            return Err(bad_arg_type(MAP_TYPE, &v));
        };
        let Some(key_value) = m.get(merge_key) else {
            return Err(no_merge_key(m, merge_key));
        };
        if find_map(by, merge_key, key_value)?.is_some() {
            inside.push(v);
        } else {
            outside.push(v);
        }
    }
    Ok((inside, outside))
}

/// `findMapInSliceBasedOnKeyValue`: the index of the map whose `key` is
/// `value`.
fn find_map(list: &[Value], key: &str, value: &Value) -> R<Option<usize>> {
    for (i, v) in list.iter().enumerate() {
        let Value::Object(m) = v else {
            return Err(E::Go(format!("value for key {i} is not a map")));
        };
        if let Some(candidate) = m.get(key)
            && go_eq(candidate, value)?
        {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// `sliceElementType` of the lists' elements, as their kind.
fn element_kind(lists: &[&[Value]]) -> R<Kind> {
    let mut prev: Option<&Value> = None;
    for list in lists {
        for v in list.iter() {
            match prev {
                None => {
                    if v.is_null() {
                        // reflect.TypeOf(nil).Kind(): a nil interface.
                        return Err(E::Panic);
                    }
                    if v.is_array() {
                        return Err(E::Unprocessable);
                    }
                    prev = Some(v);
                }
                Some(p) if go_type(p) != go_type(v) => {
                    let printed: Vec<Value> =
                        lists.iter().map(|l| Value::Array(l.to_vec())).collect();
                    return Err(E::Go(format!(
                        "list element types are not identical: {}",
                        go_sprint(&Value::Array(printed), false)
                    )));
                }
                Some(_) => {}
            }
        }
    }
    match prev {
        None => Err(E::Go("no elements in any of the given slices".into())),
        Some(Value::Object(_)) => Ok(Kind::Map),
        Some(_) => Ok(Kind::Other),
    }
}

/// `validatePatchWithSetOrderList`: the patch list's items appear in the
/// order list, in its order.
fn validate_with_set_order(patch_list: &[Value], order: &[Value], merge_key: &str) -> R<()> {
    if order.is_empty() || patch_list.is_empty() {
        return Ok(());
    }
    let non_delete = if merge_key.is_empty() {
        patch_list.to_vec()
    } else {
        extract_to_delete_items(patch_list.to_vec())?.0
    };
    let (mut pi, mut oi) = (0, 0);
    while pi < non_delete.len() && oi < order.len() {
        if non_delete[pi]
            .as_object()
            .is_some_and(|m| m.contains_key(DIRECTIVE))
        {
            pi += 1;
            continue;
        }
        if merge_key_value_equal(&non_delete[pi], &order[oi], merge_key)? {
            pi += 1;
        }
        oi += 1;
    }
    if pi < non_delete.len() && oi >= order.len() {
        return Err(E::Go(format!(
            "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}\n",
            go_sprint(&Value::Array(patch_list.to_vec()), false),
            go_sprint(&Value::Array(order.to_vec()), false)
        )));
    }
    Ok(())
}

/// `mergeKeyValueEqual`.
fn merge_key_value_equal(left: &Value, right: &Value, merge_key: &str) -> R<bool> {
    if merge_key.is_empty() {
        return go_eq(left, right);
    }
    let Value::Object(l) = left else {
        return Err(bad_arg_type(MAP_TYPE, left));
    };
    let Value::Object(r) = right else {
        return Err(bad_arg_type(MAP_TYPE, right));
    };
    let lv = l.get(merge_key).ok_or_else(|| no_merge_key(l, merge_key))?;
    let rv = r.get(merge_key).ok_or_else(|| no_merge_key(r, merge_key))?;
    go_eq(lv, rv)
}

/// `extractToDeleteItems`: the items without `$patch: delete`, and those.
fn extract_to_delete_items(list: Vec<Value>) -> R<(Vec<Value>, Vec<Value>)> {
    let (mut keep, mut delete) = (Vec::new(), Vec::new());
    for v in list {
        let Value::Object(m) = &v else {
            return Err(bad_arg_type(MAP_TYPE, &v));
        };
        if m.get(DIRECTIVE).is_some_and(|d| is_directive(d, DELETE)) {
            delete.push(v);
        } else {
            keep.push(v);
        }
    }
    Ok((keep, delete))
}

/// `mergeSliceHandler`.
fn merge_slice_handler(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: Schema<'_>,
    strategy: &str,
    merge_key: &str,
    is_delete_list: bool,
) -> R<Vec<Value>> {
    if strategy == MERGE || is_delete_list {
        merge_slice(original, patch, schema, merge_key, is_delete_list)
    } else {
        Ok(patch)
    }
}

/// `mergeSlice`.
fn merge_slice(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: Schema<'_>,
    merge_key: &str,
    is_delete_list: bool,
) -> R<Vec<Value>> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = element_kind(&[&original, &patch])?;
    let (original, patch, merged) = if kind != Kind::Map {
        if is_delete_list {
            return delete_from_slice(original, &patch);
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        (original, patch, deduplicate_scalars(both)?)
    } else {
        if merge_key.is_empty() {
            return Err(E::Go(format!(
                "cannot merge lists without merge key for {}",
                schema.name()
            )));
        }
        let (original, patch) = merge_slice_with_special_elements(original, patch, merge_key)?;
        let merged =
            merge_slice_without_special_elements(original.clone(), &patch, merge_key, schema)?;
        (original, patch, merged)
    };
    let (in_patch, server_only) = partition(merged, &patch, merge_key)?;
    normalize_element_order(in_patch, server_only, &patch, &original, merge_key, kind)
}

/// `deleteFromSlice`: the items not in `to_delete`.
fn delete_from_slice(current: Vec<Value>, to_delete: &[Value]) -> R<Vec<Value>> {
    let mut set = Vec::new();
    for v in to_delete {
        set.push(hashable(v)?);
    }
    let mut out = Vec::with_capacity(current.len());
    for v in current {
        if !set_has(&set, &v)? {
            out.push(v);
        }
    }
    Ok(out)
}

/// `deduplicateScalars`, Go's in-place algorithm (a duplicate replaced by
/// the last item).
fn deduplicate_scalars(mut s: Vec<Value>) -> R<Vec<Value>> {
    let mut length = s.len() as isize - 1;
    let mut i = 0;
    while i < length {
        let mut j = i + 1;
        while j <= length {
            if go_eq(&s[i as usize], &s[j as usize])? {
                s[j as usize] = s[length as usize].clone();
                s.truncate(length as usize);
                length -= 1;
                j -= 1;
            }
            j += 1;
        }
        i += 1;
    }
    Ok(s)
}

/// `mergeSliceWithSpecialElements`: `$patch` elements applied; the
/// current list and the patch's other elements (none after a replace).
fn merge_slice_with_special_elements(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
) -> R<(Vec<Value>, Vec<Value>)> {
    let mut without = Vec::new();
    let mut replace = false;
    for v in patch {
        let Value::Object(m) = &v else {
            unreachable!("the elements are maps")
        };
        let Some(directive) = m.get(DIRECTIVE) else {
            without.push(v);
            continue;
        };
        if is_directive(directive, DELETE) {
            let Some(value) = m.get(merge_key) else {
                return Err(no_merge_key(m, merge_key));
            };
            while let Some(i) = find_map(&original, merge_key, value)? {
                original.remove(i);
            }
        } else if is_directive(directive, REPLACE) {
            replace = true;
        } else if is_directive(directive, MERGE) {
            return Err(E::Go(
                "merging lists cannot yet be specified in the patch".into(),
            ));
        } else {
            return Err(bad_patch_type(directive, m));
        }
    }
    if replace {
        Ok((without, Vec::new()))
    } else {
        Ok((original, without))
    }
}

/// `mergeSliceWithoutSpecialElements`: each patch element merged into the
/// element with its merge key, or appended.
fn merge_slice_without_special_elements(
    mut original: Vec<Value>,
    patch: &[Value],
    merge_key: &str,
    schema: Schema<'_>,
) -> R<Vec<Value>> {
    for v in patch {
        let Value::Object(m) = v else {
            unreachable!("the elements are maps")
        };
        let Some(value) = m.get(merge_key) else {
            return Err(no_merge_key(m, merge_key));
        };
        match find_map(&original, merge_key, value)? {
            Some(i) => {
                let Value::Object(o) = std::mem::take(&mut original[i]) else {
                    unreachable!("find_map finds maps")
                };
                original[i] = Value::Object(merge_map(Some(o), m.clone(), schema)?);
            }
            None => original.push(v.clone()),
        }
    }
    Ok(original)
}

/// `index`: where `item` (by merge key for maps) is in `list`.
fn index(list: &[Value], item: &Value, merge_key: &str, kind: Kind) -> R<Option<usize>> {
    let key_of = |v: &Value| -> Value {
        match kind {
            Kind::Map => v
                .as_object()
                .and_then(|m| m.get(merge_key))
                .cloned()
                .unwrap_or(Value::Null),
            Kind::Other => v.clone(),
        }
    };
    let wanted = key_of(item);
    for (i, v) in list.iter().enumerate() {
        if go_eq(&wanted, &key_of(v))? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// `normalizeElementOrder`.
fn normalize_element_order(
    patch: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: Kind,
) -> R<Vec<Value>> {
    let patch = normalize_slice_order(patch, patch_order, merge_key, kind)?;
    let server_only = normalize_slice_order(server_only, server_order, merge_key, kind)?;
    merge_sorted(server_only, patch, server_order, merge_key, kind)
}

/// `normalizeSliceOrder`: `to_sort` stably sorted by `order` (with Go's
/// comparison, where an item not in `order` is less than anything), the
/// `$patch: delete` items last.
fn normalize_slice_order(
    to_sort: Vec<Value>,
    order: &[Value],
    merge_key: &str,
    kind: Kind,
) -> R<Vec<Value>> {
    let (mut to_sort, to_delete) = if kind == Kind::Map {
        for item in to_sort.iter().chain(order) {
            let Value::Object(m) = item else {
                return Err(bad_arg_type(MAP_TYPE, item));
            };
            if !m.contains_key(merge_key) {
                return Err(no_merge_key(m, merge_key));
            }
        }
        extract_to_delete_items(to_sort)?
    } else {
        (to_sort, Vec::new())
    };
    let less = |s: &[Value], i: usize, j: usize| -> R<bool> {
        if let Some(ii) = index(order, &s[i], merge_key, kind)?
            && let Some(ij) = index(order, &s[j], merge_key, kind)?
        {
            return Ok(ii < ij);
        }
        Ok(true)
    };
    stable_sort(&mut to_sort, less)?;
    to_sort.extend(to_delete);
    Ok(to_sort)
}

/// `mergeSortedSlice`: `left` inserted into `right`, each item before the
/// first of `right` it precedes in `server_order`.
fn merge_sorted(
    left: Vec<Value>,
    right: Vec<Value>,
    server_order: &[Value],
    merge_key: &str,
    kind: Kind,
) -> R<Vec<Value>> {
    let size = left.len() + right.len();
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(size);
    for _ in 0..size {
        if i >= left.len() && j < right.len() {
            out.push(right[j].clone());
            j += 1;
        } else if j >= right.len() && i < left.len() {
            out.push(left[i].clone());
            i += 1;
        } else {
            let li = index(server_order, &left[i], merge_key, kind)?;
            let ri = index(server_order, &right[j], merge_key, kind)?;
            if let (Some(li), Some(ri)) = (li, ri)
                && li < ri
            {
                out.push(left[i].clone());
                i += 1;
            } else {
                out.push(right[j].clone());
                j += 1;
            }
        }
    }
    Ok(out)
}

/// Go's `sort.SliceStable` (insertion sort of blocks of 20, then
/// `symMerge`), step for step: its comparisons decide the result when the
/// comparison is no order.
fn stable_sort<T>(data: &mut [T], less: impl Fn(&[T], usize, usize) -> R<bool>) -> R<()> {
    let n = data.len();
    let mut block = 20;
    let (mut a, mut b) = (0, block);
    while b <= n {
        insertion_sort(data, &less, a, b)?;
        a = b;
        b += block;
    }
    insertion_sort(data, &less, a, n)?;
    while block < n {
        a = 0;
        b = 2 * block;
        while b <= n {
            sym_merge(data, &less, a, a + block, b)?;
            a = b;
            b += 2 * block;
        }
        let m = a + block;
        if m < n {
            sym_merge(data, &less, a, m, n)?;
        }
        block *= 2;
    }
    Ok(())
}

type Less<'a, T> = &'a dyn Fn(&[T], usize, usize) -> R<bool>;

fn insertion_sort<T>(data: &mut [T], less: Less<'_, T>, a: usize, b: usize) -> R<()> {
    for i in a + 1..b {
        let mut j = i;
        while j > a && less(data, j, j - 1)? {
            data.swap(j, j - 1);
            j -= 1;
        }
    }
    Ok(())
}

fn sym_merge<T>(data: &mut [T], less: Less<'_, T>, a: usize, m: usize, b: usize) -> R<()> {
    if m - a == 1 {
        let (mut i, mut j) = (m, b);
        while i < j {
            let h = (i + j) / 2;
            if less(data, h, a)? {
                i = h + 1;
            } else {
                j = h;
            }
        }
        for k in a..i.saturating_sub(1) {
            data.swap(k, k + 1);
        }
        return Ok(());
    }
    if b - m == 1 {
        let (mut i, mut j) = (a, m);
        while i < j {
            let h = (i + j) / 2;
            if !less(data, m, h)? {
                i = h + 1;
            } else {
                j = h;
            }
        }
        let mut k = m;
        while k > i {
            data.swap(k, k - 1);
            k -= 1;
        }
        return Ok(());
    }
    let mid = (a + b) / 2;
    let n = mid + m;
    let (mut start, mut r) = if m > mid { (n - b, mid) } else { (a, m) };
    let p = n - 1;
    while start < r {
        let c = (start + r) / 2;
        if !less(data, p - c, c)? {
            start = c + 1;
        } else {
            r = c;
        }
    }
    let end = n - start;
    if start < m && m < end {
        rotate(data, start, m, end);
    }
    if a < start && start < mid {
        sym_merge(data, less, a, start, mid)?;
    }
    if mid < end && end < b {
        sym_merge(data, less, mid, end, b)?;
    }
    Ok(())
}

fn rotate<T>(data: &mut [T], a: usize, m: usize, b: usize) {
    let (mut i, mut j) = (m - a, b - m);
    while i != j {
        if i > j {
            swap_range(data, m - i, m, j);
            i -= j;
        } else {
            swap_range(data, m - i, m + j - i, i);
            j -= i;
        }
    }
    swap_range(data, m - i, m, i);
}

fn swap_range<T>(data: &mut [T], a: usize, b: usize, n: usize) {
    for i in 0..n {
        data.swap(a + i, b + i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn smp(current: Value, patch: Value) -> Result<Value, PatchError> {
        apply(
            &current,
            patch.to_string().as_bytes(),
            "io.k8s.api.core.v1.Pod",
            FieldValidation::Warn,
        )
        .map(|p| p.object)
    }

    fn pod(spec: Value, metadata: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    }

    #[test]
    fn lists_merge_by_key_and_directives_apply() {
        let cur = pod(
            json!({"containers": [{"name": "a", "image": "1"}, {"name": "b", "image": "2"}]}),
            json!({"name": "p", "finalizers": ["x", "y"]}),
        );
        let out = smp(
            cur.clone(),
            json!({"spec": {"containers": [{"name": "c", "image": "3"}, {"name": "a", "image": "4"}]},
                "metadata": {"finalizers": ["z"], "$deleteFromPrimitiveList/finalizers": ["x"]}}),
        )
        .unwrap();
        assert_eq!(
            out["spec"]["containers"],
            json!([{"name": "c", "image": "3"}, {"name": "a", "image": "4"}, {"name": "b", "image": "2"}])
        );
        assert_eq!(out["metadata"]["finalizers"], json!(["z", "y"]));
        let out = smp(
            cur.clone(),
            json!({"spec": {"containers": [{"name": "a", "$patch": "delete"}]}}),
        )
        .unwrap();
        assert_eq!(
            out["spec"]["containers"],
            json!([{"name": "b", "image": "2"}])
        );
        let out = smp(
            cur.clone(),
            json!({"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]}}),
        )
        .unwrap();
        assert_eq!(out["spec"]["containers"][0]["name"], "b");
        let out = smp(
            cur.clone(),
            json!({"spec": {"$patch": "replace", "nodeName": "n"}}),
        )
        .unwrap();
        assert_eq!(out["spec"], json!({"nodeName": "n"}));
        let e = smp(
            cur.clone(),
            json!({"spec": {"$retainKeys": ["x"], "nodeName": "n"}}),
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (400, "invalid patch format of retainKeys")
        );
        let e = smp(cur, json!({"spec": {"containers": [{"image": "x"}]}})).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                500,
                "map: map[image:x] does not contain declared merge key: name"
            )
        );
    }

    #[test]
    fn go_stable_sort_is_reproduced() {
        let mut v: Vec<u32> = (0..50).rev().collect();
        stable_sort(&mut v, |s, i, j| Ok(s[i] < s[j])).unwrap();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }
}

//! Small readers of CRD JSON shared by the commands that read CRDs
//! (`check`, `docs`).

use serde_json::Value;

/// The strings of a JSON array (`required`, `shortNames`, …); none when
/// `v` is absent or not an array.
pub fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

//! The verdict of a differential test: no differences with the real
//! thing, the first `shown` of them printed when there are; values
//! compared as the apiserver stores them.

/// Fails with the count and the first `shown` differences, if any.
#[allow(dead_code)]
pub fn assert_none(differences: &[String], shown: usize) {
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences[..differences.len().min(shown)].join("\n")
    );
}

/// Values equal as the apiserver stores them: numbers by value (`3.0` is
/// stored as `3`).
#[allow(dead_code)]
pub fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

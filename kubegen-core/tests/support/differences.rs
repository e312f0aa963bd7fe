//! The verdict of a differential test: no differences with the real
//! thing, the first `shown` of them printed when there are.

/// Fails with the count and the first `shown` differences, if any.
pub fn assert_none(differences: &[String], shown: usize) {
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences[..differences.len().min(shown)].join("\n")
    );
}

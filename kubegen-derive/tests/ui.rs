//! Compile-fail tests: every misuse is a compile error with a span.
//! Refresh the `.stderr` snapshots with `TRYBUILD=overwrite`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}

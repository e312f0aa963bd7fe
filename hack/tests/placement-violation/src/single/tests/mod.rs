#[test]
fn alone() {}

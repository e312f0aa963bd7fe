#[test]
fn short() {}

//! A crate breaking each checkable test-placement rule once.

pub mod short;
pub mod single;

/// A test outside any test module.
#[test]
fn stray() {}

#[cfg(test)]
mod tests {
    #[test]
    fn not_last() {}
}

/// An item after the test module.
pub fn after() {}

#[cfg(test)]
mod checks {
    #[test]
    fn second_module() {}
}

//! A module whose sibling tests.rs is short enough to be inline.

#[cfg(test)]
mod tests;

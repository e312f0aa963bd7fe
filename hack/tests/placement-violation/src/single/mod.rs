//! A module with a tests/ directory of one file.

#[cfg(test)]
mod tests;

//! Shared by the YAML tests.

pub mod hostile;

//! Placeholder until the workqueue benchmark lands.

fn main() {}

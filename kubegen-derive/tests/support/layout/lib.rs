//! A crate laid out every way rustc allows — `#[path]` in non-mod-rs files
//! and inline modules, CRLF line endings, `cfg` and `cfg_attr` on fields and
//! variants — compiled here by the derive and read by the CLI as a crate.

pub mod api;

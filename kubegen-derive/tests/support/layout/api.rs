//! A non-mod-rs file: `#[path]` is relative to this file's directory, plain
//! children live in `api/`, `#[path]` inside an inline module in
//! `api/<inline>/`.

#[path = "types.rs"]
pub mod types;

pub mod nested;

mod inline {
    #[path = "deep.rs"]
    pub mod deep;
}

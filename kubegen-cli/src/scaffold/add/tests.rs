//! Unit tests of `kubegen add`.

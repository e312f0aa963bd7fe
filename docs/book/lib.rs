//! The kubegen book (`docs/book/src`), as doctests: each page is the
//! documentation of one module below, so `cargo test -p kubegen-book --doc`
//! compiles and runs every Rust block the book shows. Blocks read the way
//! the reader sees them; lines starting with `# ` are hidden by both
//! rustdoc and mdBook.

/// The repository's `README.md`: its taste of kubegen is tested too.
#[doc = include_str!("../../README.md")]
pub mod readme {}

/// `introduction.md`
#[doc = include_str!("src/introduction.md")]
pub mod introduction {}

/// `tutorial.md`
#[doc = include_str!("src/tutorial.md")]
pub mod tutorial {}

/// The guides.
pub mod guides {
    /// `guides/scaffolds.md`
    #[doc = include_str!("src/guides/scaffolds.md")]
    pub mod scaffolds {}
    /// `guides/schemas.md`
    #[doc = include_str!("src/guides/schemas.md")]
    pub mod schemas {}
    /// `guides/reconciling.md`
    #[doc = include_str!("src/guides/reconciling.md")]
    pub mod reconciling {}
    /// `guides/versions.md`
    #[doc = include_str!("src/guides/versions.md")]
    pub mod versions {}
    /// `guides/webhooks.md`
    #[doc = include_str!("src/guides/webhooks.md")]
    pub mod webhooks {}
    /// `guides/testing.md`
    #[doc = include_str!("src/guides/testing.md")]
    pub mod testing {}
    /// `guides/deploying.md`
    #[doc = include_str!("src/guides/deploying.md")]
    pub mod deploying {}
    /// `guides/scaling.md`
    #[doc = include_str!("src/guides/scaling.md")]
    pub mod scaling {}
    /// `guides/sharding.md`
    #[doc = include_str!("src/guides/sharding.md")]
    pub mod sharding {}
    /// `guides/ci.md`
    #[doc = include_str!("src/guides/ci.md")]
    pub mod ci {}
    /// `guides/performance.md`
    #[doc = include_str!("src/guides/performance.md")]
    pub mod performance {}
}

/// The migration guides.
pub mod migrating {
    /// `migrating/kube-derive.md`
    #[doc = include_str!("src/migrating/kube-derive.md")]
    pub mod kube_derive {}
    /// `migrating/kopium.md`
    #[doc = include_str!("src/migrating/kopium.md")]
    pub mod kopium {}
    /// `migrating/kubebuilder.md`
    #[doc = include_str!("src/migrating/kubebuilder.md")]
    pub mod kubebuilder {}
}

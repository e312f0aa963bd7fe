#![allow(unused_imports)]
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

#[derive(KubeSchema, Serialize, Deserialize)]
#[kubegen(external_docs(description = "no url"))]
pub struct S {
    #[kubegen(external_docs(url = "docs/page"))]
    pub a: String,
    #[kubegen(external_docs(url = "https://example.com", descripton = "typo"))]
    pub b: String,
    // Fine.
    #[kubegen(external_docs(url = "https://example.com/docs#b", description = "More"))]
    pub c: String,
}

fn main() {}

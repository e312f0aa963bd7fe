//! Lays out the operator binary's code (release builds on x86_64 Linux,
//! linked by rust-lld): the functions `layout/my-application-controller.order`
//! lists — those a traced run executed — are placed together at the start of
//! `.text`.

use std::path::Path;

fn main() {
    let order = Path::new("layout/my-application-controller.order");
    println!("cargo::rerun-if-changed={}", order.display());
    let target = std::env::var("TARGET").unwrap_or_default();
    let profile = std::env::var("PROFILE").unwrap_or_default();
    if target != "x86_64-unknown-linux-gnu" || profile != "release" || !order.exists() {
        return;
    }
    let order = std::fs::canonicalize(order).expect("the order file's path");
    for arg in [
        format!("-Wl,--symbol-ordering-file={}", order.display()),
        "-Wl,--no-warn-symbol-ordering".to_string(),
    ] {
        println!("cargo::rustc-link-arg-bin=my-application-controller={arg}");
    }
}

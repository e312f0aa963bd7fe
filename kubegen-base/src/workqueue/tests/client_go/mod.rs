//! Ports of client-go's own tests of `k8s.io/client-go/util/workqueue`
//! (v0.36.3), one module per Go test file. Each test names the Go case it
//! ports; client-go's fake clock becomes Tokio's paused clock, its polling
//! waits become [`settle`](super::settle), and its goroutines Tokio tasks.

mod delaying_queue;
mod queue;
mod rate_limiters;
mod rate_limiting_queue;

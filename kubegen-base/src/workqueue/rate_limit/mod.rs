//! Rate limiters deciding how long a failed item waits before it is retried.

mod bucket;
mod clock;
mod default;
mod exponential;
mod fast_slow;
mod limiter;
mod max_of;
mod max_wait;

pub use bucket::Bucket;
pub use clock::{Clock, TokioClock};
pub use default::default_controller_rate_limiter;
pub use exponential::ItemExponentialFailure;
pub use fast_slow::ItemFastSlow;
pub use limiter::RateLimiter;
pub use max_of::MaxOf;
pub use max_wait::WithMaxWait;

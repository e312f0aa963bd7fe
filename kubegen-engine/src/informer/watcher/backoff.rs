//! The pause after a watcher's error before it goes on: client-go's
//! reflector backoff, as kube's watcher's default backoff follows it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use futures::{Stream, StreamExt};
use tokio::time::{Instant, Sleep};

use crate::jitter::random_fraction;

/// The first pause.
const INITIAL: Duration = Duration::from_millis(800);
/// The longest pause.
const CAP: Duration = Duration::from_secs(30);
/// A failure this long after the previous one starts again from
/// [`INITIAL`].
const RESET: Duration = Duration::from_secs(120);

/// A watcher's events, paused after each error: 800 ms, doubling up to
/// 30 s, each pause below the cap lengthened by up to 100 % at random
/// (client-go's reflector: `NewExponentialBackoffManager(800ms, 30s, 2m,
/// 2.0, 1.0)`); back to 800 ms after an event or two minutes without an
/// error. The error itself is passed on at once; the stream is not polled
/// again until the pause is over. Built by [`backoff`].
pub struct Backoff<S> {
    stream: S,
    pauses: Pauses,
    sleep: Option<Pin<Box<Sleep>>>,
}

/// Pauses a watcher's stream after each error (see [`Backoff`]), as kube's
/// `WatchStreamExt::default_backoff` does. The stream must be `Unpin`
/// (box it with `StreamExt::boxed` or pin it first).
///
/// ```no_run
/// # async fn demo(client: kubegen::Client) {
/// use futures::{StreamExt, TryStreamExt};
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen::informer::watcher::{self, Config, Event};
///
/// let api = kubegen::Api::<ConfigMap>::all(client);
/// let mut events = watcher::backoff(watcher::watcher(api, Config::default()).boxed());
/// while let Some(event) = events.try_next().await.unwrap() {
///     if let Event::Apply(cm) = event {
///         println!("{:?}", cm.metadata.name);
///     }
/// }
/// # }
/// ```
pub fn backoff<S, T, E>(stream: S) -> Backoff<S>
where
    S: Stream<Item = Result<T, E>>,
{
    Backoff {
        stream,
        pauses: Pauses::default(),
        sleep: None,
    }
}

impl<S, T, E> Stream for Backoff<S>
where
    S: Stream<Item = Result<T, E>> + Unpin,
{
    type Item = Result<T, E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(sleep) = &mut this.sleep {
            ready!(sleep.as_mut().poll(cx));
            this.sleep = None;
        }
        let item = ready!(this.stream.poll_next_unpin(cx));
        match &item {
            Some(Ok(_)) => this.pauses.reset(),
            Some(Err(_)) => {
                let pause = this.pauses.next(Instant::now(), random_fraction());
                this.sleep = Some(Box::pin(tokio::time::sleep(pause)));
            }
            None => {}
        }
        Poll::Ready(item)
    }
}

/// The sequence of pauses.
#[derive(Debug, Default)]
struct Pauses {
    /// Errors since the last reset.
    failures: u32,
    /// When the last pause began.
    last: Option<Instant>,
}

impl Pauses {
    /// The pause after an error at `now`, given a random fraction in
    /// `[0, 1)`.
    fn next(&mut self, now: Instant, random: f64) -> Duration {
        if self
            .last
            .is_some_and(|last| now.saturating_duration_since(last) > RESET)
        {
            self.failures = 0;
        }
        self.last = Some(now);
        let base = INITIAL.saturating_mul(1 << self.failures.min(16));
        self.failures = self.failures.saturating_add(1);
        if base >= CAP {
            CAP
        } else {
            base + base.mul_f64(random)
        }
    }

    fn reset(&mut self) {
        self.failures = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_to_the_cap_with_jitter_below_it() {
        let mut pauses = Pauses::default();
        let now = Instant::now();
        let seen: Vec<_> = (0..8).map(|_| pauses.next(now, 0.0)).collect();
        let ms = |n| Duration::from_millis(n);
        assert_eq!(
            seen,
            [
                ms(800),
                ms(1600),
                ms(3200),
                ms(6400),
                ms(12800),
                ms(25600),
                CAP,
                CAP
            ]
        );
        let mut pauses = Pauses::default();
        assert_eq!(pauses.next(now, 0.5), ms(1200));
        assert_eq!(pauses.next(now, 0.999), ms(1600) + ms(1600).mul_f64(0.999));
        // 3.2, 6.4, 12.8 and 25.6 s, each almost doubled; then the cap.
        for n in 2..6 {
            let base = ms(800 * (1 << n));
            assert_eq!(pauses.next(now, 0.999), base + base.mul_f64(0.999));
        }
        for _ in 0..100 {
            assert_eq!(pauses.next(now, 0.999), CAP, "no jitter at the cap");
        }
    }

    #[test]
    fn an_event_or_two_quiet_minutes_start_again() {
        let mut pauses = Pauses::default();
        let now = Instant::now();
        pauses.next(now, 0.0);
        pauses.next(now, 0.0);
        pauses.reset();
        assert_eq!(pauses.next(now, 0.0), INITIAL);
        pauses.next(now, 0.0);
        assert_eq!(pauses.next(now + RESET, 0.0), Duration::from_millis(3200));
        assert_eq!(
            pauses.next(now + RESET + RESET + Duration::from_millis(1), 0.0),
            INITIAL
        );
    }

    #[tokio::test(start_paused = true)]
    async fn errors_pass_at_once_and_pause_the_next_poll() {
        let items: Vec<Result<u8, ()>> = vec![Err(()), Err(()), Ok(1), Err(())];
        let mut stream = backoff(futures::stream::iter(items));
        let start = Instant::now();
        assert_eq!(stream.next().await, Some(Err(())));
        assert_eq!(start.elapsed(), Duration::ZERO, "the error is not delayed");
        assert_eq!(stream.next().await, Some(Err(())));
        let first = start.elapsed();
        assert!((INITIAL..INITIAL * 2).contains(&first), "{first:?}");
        assert_eq!(stream.next().await, Some(Ok(1)));
        let second = start.elapsed() - first;
        assert!((INITIAL * 2..INITIAL * 4).contains(&second), "{second:?}");
        let before = start.elapsed();
        assert_eq!(stream.next().await, Some(Err(())));
        assert_eq!(start.elapsed(), before, "an event ends the pause sequence");
        assert_eq!(stream.next().await, None);
        let after_reset = start.elapsed() - before;
        assert!(
            (INITIAL..INITIAL * 2).contains(&after_reset),
            "{after_reset:?}"
        );
    }
}

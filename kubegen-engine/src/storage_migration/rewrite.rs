//! Rewriting one object: a PUT of its exact text with its resourceVersion
//! as the precondition, re-read and retried on conflict, skipped when it
//! was deleted meanwhile.

use std::time::Duration;

use kubegen_client::Resource;
use kubegen_client::api::{DynamicObject, GetParams, PostParams};
use kubegen_client::core::{ApiResource, Request};

use super::FIELD_MANAGER;
use super::error::{Class, ErrorKind, classify};
use super::page::ObjectHead;
use super::report::{Counters, Outcome};
use crate::jitter::{Backoff, random_fraction};

/// What the rewrite of one object does next, after a write attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Step {
    /// Settled.
    Done(Outcome),
    /// 409 Conflict: wait, read the object again, write what was read.
    Reread(Duration),
    /// A transient failure: wait, send the same write again (safe: it is
    /// conditional on the resourceVersion).
    Resend(Duration),
    /// The retries are used up.
    GiveUp,
    /// An error a retry will not cure.
    Fail,
}

/// Decides the next step from the result of write attempt `attempt`
/// (counted from 0): the resourceVersion the apiserver answered with, or
/// its error. `sent` is the resourceVersion the write was conditional on.
pub(super) fn next_step(
    result: &Result<String, kubegen_client::Error>,
    sent: &str,
    attempt: u32,
    backoff: &Backoff,
    random: f64,
) -> Step {
    let error = match result {
        // The apiserver skips a write whose encoding equals what is
        // stored; the resourceVersion then stays.
        Ok(answered) if answered == sent => return Step::Done(Outcome::Unchanged),
        Ok(_) => return Step::Done(Outcome::Rewritten),
        Err(error) => error,
    };
    let retry = attempt + 1 < backoff.steps;
    match classify(error) {
        Class::NotFound => Step::Done(Outcome::Deleted),
        Class::Conflict if retry => Step::Reread(backoff.wait(attempt, random)),
        Class::Transient if retry => Step::Resend(backoff.wait(attempt, random)),
        Class::Conflict | Class::Transient => Step::GiveUp,
        Class::Expired | Class::Fatal => Step::Fail,
    }
}

/// Rewrites objects of one resource.
pub(super) struct Rewriter<'a> {
    pub client: &'a kubegen_client::Client,
    pub resource: &'a ApiResource,
    pub backoff: Backoff,
}

impl Rewriter<'_> {
    fn request(&self, head: &ObjectHead) -> Request {
        Request::new(DynamicObject::url_path(self.resource, head.namespace()))
    }

    fn describe(&self, head: &ObjectHead) -> String {
        format!("{} {}", self.resource.kind, head.key())
    }

    /// PUTs `text` as it is; the resourceVersion the apiserver answers with.
    async fn put(&self, head: &ObjectHead, text: &str) -> Result<String, kubegen_client::Error> {
        let params = PostParams {
            dry_run: false,
            field_manager: Some(FIELD_MANAGER.to_string()),
        };
        let request = self
            .request(head)
            .replace(&head.metadata.name, &params, text.as_bytes().to_vec())
            .map_err(kubegen_client::Error::BuildRequest)?;
        let answer = self.client.request_text(request).await?;
        let written = ObjectHead::parse(&answer).map_err(kubegen_client::Error::SerdeError)?;
        Ok(written.metadata.resource_version.unwrap_or_default())
    }

    /// GETs the object's current text.
    async fn get(&self, head: &ObjectHead) -> Result<String, kubegen_client::Error> {
        let request = self
            .request(head)
            .get(&head.metadata.name, &GetParams::default())
            .map_err(kubegen_client::Error::BuildRequest)?;
        self.client.request_text(request).await
    }

    /// Rewrites one listed object; the counters of what happened to it.
    pub async fn rewrite(&self, listed: &str) -> Result<Counters, ErrorKind> {
        let malformed = |reason: String| ErrorKind::MalformedList {
            resource: format!("{}.{}", self.resource.plural, self.resource.group),
            reason,
        };
        let mut head = ObjectHead::parse(listed).map_err(|e| malformed(e.to_string()))?;
        let mut text = listed.to_string();
        let mut counters = Counters::default();
        let mut attempt = 0;
        loop {
            // Never write without the precondition: an unconditional PUT
            // could overwrite another writer's change.
            let Some(sent) = head
                .metadata
                .resource_version
                .clone()
                .filter(|rv| !rv.is_empty())
            else {
                return Err(malformed(format!(
                    "{} has no resourceVersion",
                    self.describe(&head)
                )));
            };
            let result = self.put(&head, &text).await;
            match next_step(&result, &sent, attempt, &self.backoff, random_fraction()) {
                Step::Done(outcome) => {
                    if outcome == Outcome::Deleted {
                        tracing::debug!(
                            object = %self.describe(&head),
                            "deleted meanwhile; skipped"
                        );
                    }
                    counters.record(outcome);
                    return Ok(counters);
                }
                Step::Resend(wait) => {
                    counters.retries += 1;
                    tracing::debug!(
                        object = %self.describe(&head),
                        error = ?result.err(),
                        "transient failure; writing again"
                    );
                    tokio::time::sleep(wait).await;
                }
                Step::Reread(wait) => {
                    counters.conflicts += 1;
                    tracing::debug!(
                        object = %self.describe(&head),
                        "changed since it was read; reading it again"
                    );
                    tokio::time::sleep(wait).await;
                    match self.get(&head).await {
                        Ok(fresh) => {
                            head = ObjectHead::parse(&fresh).map_err(|e| ErrorKind::Rewrite {
                                object: self.describe(&head),
                                source: kubegen_client::Error::SerdeError(e),
                            })?;
                            text = fresh;
                        }
                        Err(error) => match classify(&error) {
                            Class::NotFound => {
                                counters.record(Outcome::Deleted);
                                return Ok(counters);
                            }
                            // The stale text conflicts again and is read
                            // again, within the same retry budget.
                            Class::Transient => counters.retries += 1,
                            _ => {
                                return Err(ErrorKind::Rewrite {
                                    object: self.describe(&head),
                                    source: error,
                                });
                            }
                        },
                    }
                }
                Step::GiveUp => {
                    return Err(ErrorKind::RetriesExhausted {
                        object: self.describe(&head),
                        attempts: attempt + 1,
                        last: result.expect_err("only errors are retried"),
                    });
                }
                Step::Fail => {
                    return Err(ErrorKind::Rewrite {
                        object: self.describe(&head),
                        source: result.expect_err("only errors fail"),
                    });
                }
            }
            attempt += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::error::tests::api_error;
    use super::*;

    const BACKOFF: Backoff = Backoff {
        duration: Duration::from_millis(10),
        factor: 2.0,
        jitter: 0.5,
        steps: 4,
    };

    fn step(result: Result<&str, kubegen_client::Error>, attempt: u32) -> Step {
        next_step(&result.map(str::to_string), "7", attempt, &BACKOFF, 0.0)
    }

    #[test]
    fn a_write_settles_by_the_resource_version_it_answers_with() {
        assert_eq!(step(Ok("7"), 0), Step::Done(Outcome::Unchanged));
        assert_eq!(step(Ok("8"), 0), Step::Done(Outcome::Rewritten));
        // Also after retries.
        assert_eq!(step(Ok("9"), 3), Step::Done(Outcome::Rewritten));
        assert_eq!(
            step(Err(api_error(404, "NotFound")), 0),
            Step::Done(Outcome::Deleted)
        );
    }

    #[test]
    fn conflicts_reread_with_growing_waits_until_the_budget_is_spent() {
        let conflict = || Err(api_error(409, "Conflict"));
        assert_eq!(step(conflict(), 0), Step::Reread(Duration::from_millis(10)));
        assert_eq!(step(conflict(), 2), Step::Reread(Duration::from_millis(40)));
        assert_eq!(step(conflict(), 3), Step::GiveUp);
        // Jitter lengthens the wait by up to its fraction.
        assert_eq!(
            next_step(&conflict().map(str::to_string), "7", 1, &BACKOFF, 0.5),
            Step::Reread(Duration::from_millis(25))
        );
    }

    #[test]
    fn transient_failures_resend_and_refusals_fail_at_once() {
        for code in [429, 500, 503, 504] {
            assert_eq!(
                step(Err(api_error(code, "")), 0),
                Step::Resend(Duration::from_millis(10)),
                "{code}"
            );
            assert_eq!(step(Err(api_error(code, "")), 3), Step::GiveUp, "{code}");
        }
        for (code, reason) in [
            (403, "Forbidden"),
            (422, "Invalid"),
            (400, "BadRequest"),
            (409, "AlreadyExists"),
            (410, "Expired"),
        ] {
            assert_eq!(step(Err(api_error(code, reason)), 0), Step::Fail, "{code}");
        }
    }

    #[test]
    fn a_single_step_budget_never_retries() {
        let once = Backoff {
            steps: 1,
            ..BACKOFF
        };
        let result: Result<String, _> = Err(api_error(409, "Conflict"));
        assert_eq!(next_step(&result, "7", 0, &once, 0.0), Step::GiveUp);
    }
}

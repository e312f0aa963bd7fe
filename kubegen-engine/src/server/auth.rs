//! [`DelegatedAuth`]: who may read `/metrics`, decided by the apiserver —
//! a bearer token is authenticated by a `TokenReview` and the user it names
//! is authorized by a `SubjectAccessReview` for the non-resource URL and
//! verb (`get` on `/metrics`), as controller-runtime's
//! `filters.WithAuthenticationAndAuthorization` does.
//!
//! Answers are cached so that a scraper costs the apiserver two requests
//! per token and minute, not two per scrape: a token's review for one
//! minute (a rejected token for ten seconds), an allowed decision for five
//! minutes and a denied one for thirty seconds (controller-runtime's TTLs).
//! Revoking access therefore takes up to five minutes to reach a scraper
//! that was allowed. Failing to ask (the apiserver is unreachable) answers
//! `503` and is never cached. Reviews of tokens not seen before are
//! limited per source, in total and in flight (`review_limit`), so a flood
//! of random tokens cannot become a flood of reviews. The operator's ServiceAccount needs `create`
//! on `tokenreviews` and `subjectaccessreviews` — the `system:auth-delegator`
//! ClusterRole.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use http::{HeaderMap, StatusCode, header};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kubegen_client::api::{Api, PostParams};

use super::review_limit::ReviewLimit;
use tokio::time::Instant;

/// How long a token's successful review is reused.
const AUTHENTICATED_TTL: Duration = Duration::from_secs(60);
/// How long a rejected token stays rejected without asking again.
const REJECTED_TTL: Duration = Duration::from_secs(10);
/// How long an allowed decision is reused.
const ALLOWED_TTL: Duration = Duration::from_secs(300);
/// How long a denied decision is reused.
const DENIED_TTL: Duration = Duration::from_secs(30);
/// How long one review may take.
const REVIEW_TIMEOUT: Duration = Duration::from_secs(10);
/// Entries per cache; a full cache first drops what expired, then empties.
const MAX_ENTRIES: usize = 4096;

/// The user a token belongs to, as its `TokenReview` said.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct User {
    name: String,
    uid: String,
    groups: Vec<String>,
    extra: BTreeMap<String, Vec<String>>,
}

/// Asks the apiserver; a seam so that the caching and the HTTP answers
/// can be tested without one.
pub(super) trait Reviewer: Send + Sync + 'static {
    /// Who `token` belongs to; `None` when it is not valid.
    fn authenticate(&self, token: String) -> BoxFuture<'static, Result<Option<User>, String>>;
    /// Whether `user` may `verb` the non-resource URL `path`.
    fn authorize(
        &self,
        user: User,
        path: String,
        verb: String,
    ) -> BoxFuture<'static, Result<bool, String>>;
}

/// The apiserver, reached through the operator's client.
struct ApiReviewer(kubegen_client::Client);

impl Reviewer for ApiReviewer {
    fn authenticate(&self, token: String) -> BoxFuture<'static, Result<Option<User>, String>> {
        let api = Api::<TokenReview>::all(self.0.clone());
        async move {
            let review = TokenReview {
                spec: TokenReviewSpec {
                    token,
                    ..Default::default()
                },
                ..Default::default()
            };
            let reviewed = api
                .create(&PostParams::default(), &review)
                .await
                .map_err(|e| format!("TokenReview: {e}"))?;
            let Some(status) = reviewed.status else {
                return Ok(None);
            };
            if status.authenticated != Some(true) {
                return Ok(None);
            }
            let user = status.user.unwrap_or_default();
            Ok(Some(User {
                name: user.username.unwrap_or_default(),
                uid: user.uid.unwrap_or_default(),
                groups: user.groups.unwrap_or_default(),
                extra: user.extra.unwrap_or_default(),
            }))
        }
        .boxed()
    }

    fn authorize(
        &self,
        user: User,
        path: String,
        verb: String,
    ) -> BoxFuture<'static, Result<bool, String>> {
        let api = Api::<SubjectAccessReview>::all(self.0.clone());
        async move {
            let review = SubjectAccessReview {
                spec: SubjectAccessReviewSpec {
                    user: Some(user.name),
                    uid: Some(user.uid).filter(|uid| !uid.is_empty()),
                    groups: Some(user.groups),
                    extra: Some(user.extra),
                    non_resource_attributes: Some(NonResourceAttributes {
                        path: Some(path),
                        verb: Some(verb),
                    }),
                    resource_attributes: None,
                },
                ..Default::default()
            };
            let reviewed = api
                .create(&PostParams::default(), &review)
                .await
                .map_err(|e| format!("SubjectAccessReview: {e}"))?;
            Ok(reviewed.status.is_some_and(|s| s.allowed))
        }
        .boxed()
    }
}

/// Authentication and authorization of metrics scrapers by the apiserver:
/// the bearer token is authenticated by a `TokenReview`, and the user it
/// names authorized by a `SubjectAccessReview` for the non-resource URL and
/// verb (`get` on `/metrics`), as controller-runtime's
/// `filters.WithAuthenticationAndAuthorization` does. No token → `401`, not
/// allowed → `403`, the apiserver unreachable → `503` (never cached).
///
/// Answers are cached (controller-runtime's TTLs): a token's review for
/// one minute (a rejected token for ten seconds), an allowed decision for
/// five minutes, a denied one for thirty seconds — so revoking access takes
/// up to five minutes to reach a scraper that was allowed. Tokens are kept
/// only as SHA-256 digests. The client's identity needs `create` on
/// `tokenreviews` and `subjectaccessreviews`: the `system:auth-delegator`
/// ClusterRole.
#[derive(Clone)]
pub struct DelegatedAuth {
    reviewer: Arc<dyn Reviewer>,
    limit: Arc<ReviewLimit>,
    tokens: Arc<Cache<[u8; 32], Option<User>>>,
    decisions: Arc<Cache<(User, String, String), bool>>,
}

impl fmt::Debug for DelegatedAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DelegatedAuth").finish_non_exhaustive()
    }
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// No valid bearer token: `401`.
    Unauthenticated,
    /// The user may not: `403`.
    Forbidden(String),
    /// The apiserver could not be asked: `503`.
    Unavailable(String),
    /// Too many reviews of unknown tokens (`review_limit`): `429`.
    Busy,
}

impl Refusal {
    /// The status and body to answer with.
    pub(super) fn response(&self) -> (StatusCode, String) {
        match self {
            Refusal::Unauthenticated => (StatusCode::UNAUTHORIZED, "Unauthorized\n".into()),
            Refusal::Forbidden(message) => (StatusCode::FORBIDDEN, format!("{message}\n")),
            Refusal::Unavailable(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                "authentication or authorization is unavailable\n".into(),
            ),
            Refusal::Busy => (
                StatusCode::TOO_MANY_REQUESTS,
                "too many unknown tokens; retry later\n".into(),
            ),
        }
    }
}

impl DelegatedAuth {
    /// Reviews through `client`, whose identity needs `create` on
    /// `tokenreviews.authentication.k8s.io` and
    /// `subjectaccessreviews.authorization.k8s.io`.
    pub fn new(client: kubegen_client::Client) -> Self {
        Self::with_reviewer(Arc::new(ApiReviewer(client)))
    }

    pub(super) fn with_reviewer(reviewer: Arc<dyn Reviewer>) -> Self {
        DelegatedAuth {
            reviewer,
            limit: Arc::default(),
            tokens: Arc::default(),
            decisions: Arc::default(),
        }
    }

    /// Whether the request with `headers`, from `source`, may `verb` on
    /// `path`.
    pub(super) async fn check(
        &self,
        headers: &HeaderMap,
        path: &str,
        verb: &str,
        source: Option<IpAddr>,
    ) -> Result<(), Refusal> {
        let token = bearer_token(headers).ok_or(Refusal::Unauthenticated)?;
        let digest = sha256(token);
        let user = match self.tokens.get(&digest) {
            Some(user) => user,
            None => {
                let _review = self.limit.admit(source).ok_or(Refusal::Busy)?;
                let user = within_timeout(self.reviewer.authenticate(token.to_owned()))
                    .await
                    .map_err(Refusal::Unavailable)?;
                let ttl = if user.is_some() {
                    AUTHENTICATED_TTL
                } else {
                    REJECTED_TTL
                };
                self.tokens.insert(digest, user.clone(), ttl);
                user
            }
        };
        let user = user.ok_or(Refusal::Unauthenticated)?;
        let key = (user.clone(), path.to_owned(), verb.to_owned());
        let allowed = match self.decisions.get(&key) {
            Some(allowed) => allowed,
            None => {
                let allowed = within_timeout(self.reviewer.authorize(
                    user.clone(),
                    path.to_owned(),
                    verb.to_owned(),
                ))
                .await
                .map_err(Refusal::Unavailable)?;
                let ttl = if allowed { ALLOWED_TTL } else { DENIED_TTL };
                self.decisions.insert(key, allowed, ttl);
                allowed
            }
        };
        if allowed {
            Ok(())
        } else {
            Err(Refusal::Forbidden(format!(
                "Forbidden (user={}, verb={verb}, resource=, subresource=)",
                user.name
            )))
        }
    }
}

async fn within_timeout<T>(review: BoxFuture<'static, Result<T, String>>) -> Result<T, String> {
    tokio::time::timeout(REVIEW_TIMEOUT, review)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {REVIEW_TIMEOUT:?}")))
        .inspect_err(|error| tracing::warn!(%error, "reviewing a metrics request failed"))
}

/// The token of an `Authorization: Bearer …` header.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Tokens are kept as digests, not as the secrets themselves.
fn sha256(token: &str) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    let mut bytes = [0; 32];
    bytes.copy_from_slice(digest.as_ref());
    bytes
}

/// A bounded map whose entries expire.
struct Cache<K, V>(parking_lot::Mutex<HashMap<K, (V, Instant)>>);

impl<K, V> Default for Cache<K, V> {
    fn default() -> Self {
        Cache(parking_lot::Mutex::new(HashMap::new()))
    }
}

impl<K: Hash + Eq, V: Clone> Cache<K, V> {
    fn get(&self, key: &K) -> Option<V> {
        let entries = self.0.lock();
        let (value, expires) = entries.get(key)?;
        (Instant::now() < *expires).then(|| value.clone())
    }

    fn insert(&self, key: K, value: V, ttl: Duration) {
        let mut entries = self.0.lock();
        let now = Instant::now();
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, (_, expires)| *expires > now);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(key, (value, now + ttl));
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use http::HeaderValue;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Knows the token `good` (user `reader`, allowed) and `other` (user
    /// `nobody`, denied); `down` makes every review fail.
    #[derive(Default)]
    pub(in crate::server) struct Fake {
        reviews: AtomicUsize,
        down: std::sync::atomic::AtomicBool,
    }

    fn user(name: &str) -> User {
        User {
            name: name.into(),
            uid: format!("uid-{name}"),
            groups: vec!["system:authenticated".into()],
            extra: BTreeMap::new(),
        }
    }

    impl Reviewer for Fake {
        fn authenticate(&self, token: String) -> BoxFuture<'static, Result<Option<User>, String>> {
            self.reviews.fetch_add(1, Ordering::SeqCst);
            let down = self.down.load(Ordering::SeqCst);
            async move {
                if down {
                    return Err("connection refused".into());
                }
                Ok(match token.as_str() {
                    "good" => Some(user("reader")),
                    "other" => Some(user("nobody")),
                    _ => None,
                })
            }
            .boxed()
        }

        fn authorize(
            &self,
            user: User,
            path: String,
            verb: String,
        ) -> BoxFuture<'static, Result<bool, String>> {
            self.reviews.fetch_add(1, Ordering::SeqCst);
            let down = self.down.load(Ordering::SeqCst);
            async move {
                if down {
                    return Err("connection refused".into());
                }
                Ok(user.name == "reader" && path == "/metrics" && verb == "get")
            }
            .boxed()
        }
    }

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(authorization).unwrap(),
        );
        headers
    }

    fn auth() -> (DelegatedAuth, Arc<Fake>) {
        let fake = Arc::new(Fake::default());
        (DelegatedAuth::with_reviewer(fake.clone()), fake)
    }

    #[tokio::test]
    async fn tokens_are_authenticated_then_authorized() {
        let (auth, _) = auth();
        assert_eq!(
            auth.check(&HeaderMap::new(), "/metrics", "get", None).await,
            Err(Refusal::Unauthenticated)
        );
        for malformed in ["good", "Basic good", "Bearer ", "Bearer"] {
            assert_eq!(
                auth.check(&headers(malformed), "/metrics", "get", None)
                    .await,
                Err(Refusal::Unauthenticated),
                "{malformed}"
            );
        }
        assert_eq!(
            auth.check(&headers("Bearer forged"), "/metrics", "get", None)
                .await,
            Err(Refusal::Unauthenticated)
        );
        assert!(matches!(
            auth.check(&headers("Bearer other"), "/metrics", "get", None).await,
            Err(Refusal::Forbidden(message)) if message.contains("user=nobody")
        ));
        assert_eq!(
            auth.check(&headers("bearer good"), "/metrics", "get", None)
                .await,
            Ok(())
        );
        assert!(matches!(
            auth.check(&headers("Bearer good"), "/debug", "get", None)
                .await,
            Err(Refusal::Forbidden(_))
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn answers_are_cached_for_their_ttl() {
        let (auth, fake) = auth();
        let reviews = || fake.reviews.load(Ordering::SeqCst);
        auth.check(&headers("Bearer good"), "/metrics", "get", None)
            .await
            .unwrap();
        assert_eq!(reviews(), 2);
        auth.check(&headers("Bearer good"), "/metrics", "get", None)
            .await
            .unwrap();
        assert_eq!(reviews(), 2, "both answers cached");
        tokio::time::advance(AUTHENTICATED_TTL).await;
        auth.check(&headers("Bearer good"), "/metrics", "get", None)
            .await
            .unwrap();
        assert_eq!(
            reviews(),
            3,
            "the token is reviewed again, the decision is not"
        );
        tokio::time::advance(ALLOWED_TTL).await;
        auth.check(&headers("Bearer good"), "/metrics", "get", None)
            .await
            .unwrap();
        assert_eq!(reviews(), 5);
        // Rejections are cached for shorter.
        let _ = auth
            .check(&headers("Bearer forged"), "/metrics", "get", None)
            .await;
        let _ = auth
            .check(&headers("Bearer forged"), "/metrics", "get", None)
            .await;
        assert_eq!(reviews(), 6);
        tokio::time::advance(REJECTED_TTL).await;
        let _ = auth
            .check(&headers("Bearer forged"), "/metrics", "get", None)
            .await;
        assert_eq!(reviews(), 7);
    }

    #[tokio::test]
    async fn failures_to_ask_are_unavailable_and_not_cached() {
        let (auth, fake) = auth();
        fake.down.store(true, Ordering::SeqCst);
        assert!(matches!(
            auth.check(&headers("Bearer good"), "/metrics", "get", None)
                .await,
            Err(Refusal::Unavailable(_))
        ));
        fake.down.store(false, Ordering::SeqCst);
        assert_eq!(
            auth.check(&headers("Bearer good"), "/metrics", "get", None)
                .await,
            Ok(())
        );
    }

    #[test]
    fn a_full_cache_drops_expired_entries_first() {
        let cache: Cache<usize, ()> = Cache::default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        rt.block_on(async {
            cache.insert(usize::MAX, (), Duration::from_secs(1000));
            for i in 1..MAX_ENTRIES {
                cache.insert(i, (), Duration::from_secs(1));
            }
            tokio::time::advance(Duration::from_secs(2)).await;
            cache.insert(0, (), Duration::from_secs(1000));
            assert_eq!(cache.0.lock().len(), 2);
            assert!(cache.get(&usize::MAX).is_some());
        });
    }
}

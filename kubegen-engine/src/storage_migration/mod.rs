//! Storage version migration of a custom resource (what
//! kube-storage-version-migrator does), as a library call: after a CRD's
//! storage version changes, rewrite every object so etcd holds it at the new
//! version, then set `status.storedVersions` to just that version, so older
//! versions can be removed from the CRD.
//!
//! [`StorageMigration::run`]:
//!
//! 1. reads the CRD and its storage version, and waits until the
//!    apiserver's discovery reports that version's `storageVersionHash`
//!    (until then the apiserver may still encode at the previous one);
//! 2. lists every object of the kind, in all namespaces, at the storage
//!    version (or a served one when it is not served), in pages of
//!    [`page_size`](StorageMigration::page_size) (`limit` + `continue`);
//! 3. rewrites each object with a no-op update: a PUT of the object exactly
//!    as the apiserver listed it, bytes untouched, conditional on its
//!    resourceVersion. The apiserver re-encodes it at the storage version;
//!    when that encoding equals what is stored it writes nothing (the
//!    resourceVersion stays: [`Counters::unchanged`]). A 409 Conflict means
//!    another writer changed the object since the list: it is read again
//!    and the fresh copy written (bounded, with backoff), so that writer's
//!    change is never overwritten. A 404 means it was deleted meanwhile: it
//!    is skipped. An expired continue token (410 Gone) restarts the listing
//!    from the beginning;
//! 4. sets `status.storedVersions` (the CRD's `status` subresource) to
//!    exactly `[storage version]` — only if the CRD's spec is unchanged
//!    since step 1 (same generation, so the storage version never changed
//!    during the run, not even back and forth) and no version was added to
//!    `storedVersions`, with the CRD's resourceVersion as a precondition: a
//!    concurrent change makes the update fail with 409, the CRD is read and
//!    checked again. A changed storage version stops the run with
//!    [`ErrorKind::StorageVersionChanged`] and leaves `storedVersions` as
//!    it was.
//!
//! The migration is idempotent, so running it again, or restarting it from
//! scratch at any point, is always correct. A [`Checkpoint`] (continue token
//! and totals) saves work: every [`MigrationError`] raised after the listing
//! began carries one, [`Migration::checkpoint`] gives one after each page,
//! and [`StorageMigration::resume_from`] goes on from it.
//!
//! The identity running it needs `get` on `customresourcedefinitions`,
//! `patch` on `customresourcedefinitions/status`, and `list`, `get` and
//! `update` on the custom resource in all namespaces.
//!
//! ```no_run
//! use kubegen::storage_migration::StorageMigration;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let client = kubegen::Client::try_default().await?;
//! let report = StorageMigration::new(client, "carts.shop.example.com")
//!     .page_size(500)
//!     .run()
//!     .await?;
//! println!("{report}");
//! assert_eq!(report.stored_versions_after, [report.storage_version.clone()]);
//! # Ok(()) }
//! ```

mod crd;
mod error;
mod page;
mod report;
mod rewrite;

use std::fmt;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_client::Resource;
use kubegen_client::api::{Api, DynamicObject, ListParams};
use kubegen_client::core::{ApiResource, Request};

pub use crate::jitter::Backoff;
pub use error::{ErrorKind, MigrationError};
pub use report::{Checkpoint, Counters, MigrationReport, Position};

use crd::CrdState;
use error::{Class, classify};
use rewrite::Rewriter;

/// The page size kube-storage-version-migrator uses.
pub const DEFAULT_PAGE_SIZE: u32 = 500;

/// The field manager of the rewrites and of the `storedVersions` update.
pub const FIELD_MANAGER: &str = "kubegen-storage-migration";

/// Retries of a conflicting or transiently failing write (and list page):
/// 10 ms doubling to 1.28 s, with 10% jitter, 8 tries (about 2.5 s in all).
pub const DEFAULT_BACKOFF: Backoff = Backoff {
    duration: Duration::from_millis(10),
    factor: 2.0,
    jitter: 0.1,
    steps: 8,
};

/// How long [`StorageMigration::start`] waits by default for discovery to
/// report the storage version.
pub const DEFAULT_DISCOVERY_TIMEOUT: Duration = Duration::from_secs(30);

/// A storage version migration of one CustomResourceDefinition's objects,
/// to configure, then [`run`](StorageMigration::run) (or
/// [`start`](StorageMigration::start) to go page by page).
///
/// ```no_run
/// use std::time::Duration;
/// use kubegen::storage_migration::StorageMigration;
///
/// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
/// let report = StorageMigration::new(client, "carts.shop.example.com")
///     .page_size(100)
///     .concurrency(4)
///     .discovery_timeout(Duration::from_secs(60))
///     .run()
///     .await?;
/// println!("{report}");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct StorageMigration {
    client: kubegen_client::Client,
    crd: String,
    page_size: u32,
    concurrency: usize,
    backoff: Backoff,
    discovery_timeout: Duration,
    resume: Option<Checkpoint>,
}

impl fmt::Debug for StorageMigration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StorageMigration")
            .field("crd", &self.crd)
            .field("page_size", &self.page_size)
            .field("concurrency", &self.concurrency)
            .field("backoff", &self.backoff)
            .field("discovery_timeout", &self.discovery_timeout)
            .field("resume", &self.resume)
            .finish_non_exhaustive()
    }
}

impl StorageMigration {
    /// A migration of the objects of the CRD named `crd`
    /// (`<plural>.<group>`), with default options.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let migration = StorageMigration::new(client, "carts.shop.example.com");
    /// println!("{}", migration.run().await?);
    /// # Ok(()) }
    /// ```
    pub fn new(client: kubegen_client::Client, crd: impl Into<String>) -> Self {
        StorageMigration {
            client,
            crd: crd.into(),
            page_size: DEFAULT_PAGE_SIZE,
            concurrency: 1,
            backoff: DEFAULT_BACKOFF,
            discovery_timeout: DEFAULT_DISCOVERY_TIMEOUT,
            resume: None,
        }
    }

    /// Objects per list page (at least 1; default [`DEFAULT_PAGE_SIZE`]).
    /// A checkpoint is taken after each page.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) {
    /// let small_pages = StorageMigration::new(client, "carts.shop.example.com")
    ///     .page_size(50);
    /// # drop(small_pages); }
    /// ```
    pub fn page_size(mut self, objects: u32) -> Self {
        self.page_size = objects.max(1);
        self
    }

    /// How many objects of a page are rewritten at once (at least 1;
    /// default 1). A page is finished before the next is listed.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) {
    /// let parallel = StorageMigration::new(client, "carts.shop.example.com")
    ///     .concurrency(8);
    /// # drop(parallel); }
    /// ```
    pub fn concurrency(mut self, writes: usize) -> Self {
        self.concurrency = writes.max(1);
        self
    }

    /// The retries of a conflicting or transiently failing request
    /// (default [`DEFAULT_BACKOFF`]); `steps` counts the tries.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use kubegen::storage_migration::{Backoff, StorageMigration};
    ///
    /// # async fn demo(client: kubegen::Client) {
    /// let patient = StorageMigration::new(client, "carts.shop.example.com").backoff(Backoff {
    ///     duration: Duration::from_millis(100),
    ///     factor: 2.0,
    ///     jitter: 0.2,
    ///     steps: 10,
    /// });
    /// # drop(patient); }
    /// ```
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// How long to wait for the apiserver's discovery to report the CRD's
    /// storage version before failing with
    /// [`ErrorKind::StorageVersionNotServed`] (default
    /// [`DEFAULT_DISCOVERY_TIMEOUT`]).
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) {
    /// let migration = StorageMigration::new(client, "carts.shop.example.com")
    ///     .discovery_timeout(std::time::Duration::from_secs(120));
    /// # drop(migration); }
    /// ```
    pub fn discovery_timeout(mut self, timeout: Duration) -> Self {
        self.discovery_timeout = timeout;
        self
    }

    /// Goes on from a checkpoint of an earlier run of the same CRD (from a
    /// [`MigrationError`] or [`Migration::checkpoint`]) instead of from the
    /// beginning. The checkpoint is ignored, and the migration starts over,
    /// if the CRD's spec changed since it was taken; an expired continue
    /// token restarts the listing. Both are correct because the migration
    /// is idempotent.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::{Checkpoint, StorageMigration};
    ///
    /// # async fn demo(client: kubegen::Client, saved: &str) -> Result<(), Box<dyn std::error::Error>> {
    /// let checkpoint: Checkpoint = serde_json::from_str(saved)?;
    /// StorageMigration::new(client, "carts.shop.example.com")
    ///     .resume_from(checkpoint)
    ///     .run()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn resume_from(mut self, checkpoint: Checkpoint) -> Self {
        self.resume = Some(checkpoint);
        self
    }

    /// Runs the whole migration: every page, then the `storedVersions`
    /// update.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let report = StorageMigration::new(client, "carts.shop.example.com")
    ///     .run()
    ///     .await?;
    /// println!("{} objects rewritten", report.counters.rewritten);
    /// # Ok(()) }
    /// ```
    pub async fn run(self) -> Result<MigrationReport, MigrationError> {
        self.start().await?.finish().await
    }

    /// Reads the CRD, waits for discovery to report its storage version and
    /// returns the migration ready to list its first page (or the page its
    /// checkpoint stands at), for callers that go page by page — to save
    /// a checkpoint after each, or to stop after some.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let mut migration = StorageMigration::new(client, "carts.shop.example.com")
    ///     .start()
    ///     .await?;
    /// while migration.next_page().await? {
    ///     let saved = serde_json::to_string(&migration.checkpoint())?;
    ///     # drop(saved);
    /// }
    /// let report = migration.finish().await?;
    /// # drop(report);
    /// # Ok(()) }
    /// ```
    pub async fn start(self) -> Result<Migration, MigrationError> {
        let crds = Api::<CustomResourceDefinition>::all(self.client.clone());
        let start = crd::read(&crds, &self.crd)
            .await
            .map_err(|kind| MigrationError::new(kind, self.resume.clone()))?;
        let (position, counters) = match self.resume {
            Some(checkpoint) if checkpoint.crd != self.crd => {
                let kind = ErrorKind::CheckpointMismatch {
                    crd: self.crd.clone(),
                    checkpoint: checkpoint.crd.clone(),
                };
                return Err(MigrationError::new(kind, Some(checkpoint)));
            }
            Some(checkpoint)
                if checkpoint.storage_version == start.storage_version
                    && checkpoint.generation == start.generation =>
            {
                (checkpoint.position, checkpoint.counters)
            }
            Some(checkpoint) => {
                tracing::info!(
                    crd = %self.crd,
                    checkpoint_generation = checkpoint.generation,
                    generation = start.generation,
                    "the CRD changed since the checkpoint was taken; starting over"
                );
                (Position::Beginning, Counters::default())
            }
            None => (Position::Beginning, Counters::default()),
        };
        let migration = Migration {
            client: self.client,
            crds,
            resource: start.api_resource(),
            start,
            page_size: self.page_size,
            concurrency: self.concurrency,
            backoff: self.backoff,
            position,
            counters,
            began: Instant::now(),
        };
        crd::await_storage_version(&migration.client, &migration.start, self.discovery_timeout)
            .await
            .map_err(|kind| migration.fail(kind))?;
        tracing::info!(
            crd = %migration.start.name,
            storage_version = %migration.start.storage_version,
            access_version = %migration.start.access_version,
            stored_versions = ?migration.start.stored_versions,
            resumed = migration.position != Position::Beginning,
            "storage version migration started"
        );
        Ok(migration)
    }
}

/// A started migration, driven page by page: [`next_page`](Self::next_page)
/// until it returns `false`, then [`finish`](Self::finish). Dropping it
/// between pages is safe; [`checkpoint`](Self::checkpoint) says where to
/// resume.
///
/// ```no_run
/// use kubegen::storage_migration::StorageMigration;
///
/// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
/// // Two pages now, the rest later.
/// let mut migration = StorageMigration::new(client.clone(), "carts.shop.example.com")
///     .page_size(100)
///     .start()
///     .await?;
/// for _ in 0..2 {
///     if !migration.next_page().await? {
///         break;
///     }
/// }
/// let checkpoint = migration.checkpoint();
/// drop(migration);
/// let report = StorageMigration::new(client, "carts.shop.example.com")
///     .page_size(100)
///     .resume_from(checkpoint)
///     .run()
///     .await?;
/// # drop(report);
/// # Ok(()) }
/// ```
pub struct Migration {
    client: kubegen_client::Client,
    crds: Api<CustomResourceDefinition>,
    /// The CRD as this run read it when it began.
    start: CrdState,
    resource: ApiResource,
    page_size: u32,
    concurrency: usize,
    backoff: Backoff,
    position: Position,
    counters: Counters,
    began: Instant,
}

impl fmt::Debug for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Migration")
            .field("crd", &self.start.name)
            .field("storage_version", &self.start.storage_version)
            .field("position", &self.position)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl Migration {
    /// The storage version objects are migrated to.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let migration = StorageMigration::new(client, "carts.shop.example.com")
    ///     .start()
    ///     .await?;
    /// println!("migrating to {}", migration.storage_version());
    /// # Ok(()) }
    /// ```
    pub fn storage_version(&self) -> &str {
        &self.start.storage_version
    }

    /// The totals of the pages done so far (including those of the run
    /// this one resumed).
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let mut migration = StorageMigration::new(client, "carts.shop.example.com")
    ///     .start()
    ///     .await?;
    /// migration.next_page().await?;
    /// println!("{}", migration.counters());
    /// # Ok(()) }
    /// ```
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Where the migration stands, to resume from with
    /// [`StorageMigration::resume_from`].
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let mut migration = StorageMigration::new(client, "carts.shop.example.com")
    ///     .start()
    ///     .await?;
    /// migration.next_page().await?;
    /// std::fs::write("checkpoint.json", serde_json::to_vec(&migration.checkpoint())?)?;
    /// # Ok(()) }
    /// ```
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            crd: self.start.name.clone(),
            storage_version: self.start.storage_version.clone(),
            generation: self.start.generation,
            position: self.position.clone(),
            counters: self.counters,
        }
    }

    fn fail(&self, kind: ErrorKind) -> MigrationError {
        MigrationError::new(kind, Some(self.checkpoint()))
    }

    /// Lists the next page and rewrites its objects. `Ok(true)` while pages
    /// remain, `Ok(false)` once every object has been listed and rewritten.
    /// On an error the checkpoint stands before the failed page, which a
    /// resumed run processes again.
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let mut migration = StorageMigration::new(client, "carts.shop.example.com")
    ///     .start()
    ///     .await?;
    /// while migration.next_page().await? {
    ///     println!("{}", migration.counters());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn next_page(&mut self) -> Result<bool, MigrationError> {
        let token = match &self.position {
            Position::End => return Ok(false),
            Position::Beginning => None,
            Position::Continue(token) => Some(token.clone()),
        };
        let params = ListParams {
            limit: Some(self.page_size),
            continue_token: token.clone(),
            ..ListParams::default()
        };
        let mut totals = Counters {
            pages: 1,
            ..Counters::default()
        };
        let mut attempt = 0;
        let body = loop {
            let error = match self.list(&params).await {
                Ok(body) => break body,
                Err(error) => error,
            };
            match classify(&error) {
                Class::Expired if token.is_some() => {
                    tracing::warn!(
                        crd = %self.start.name,
                        "the continue token expired; listing again from the beginning"
                    );
                    self.position = Position::Beginning;
                    self.counters.restarts += 1;
                    return Ok(true);
                }
                Class::Transient if attempt + 1 < self.backoff.steps => {
                    totals.retries += 1;
                    tracing::debug!(crd = %self.start.name, %error, "listing failed; trying again");
                    let wait = self.backoff.wait(attempt, crate::jitter::random_fraction());
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Class::Transient => {
                    let kind = ErrorKind::RetriesExhausted {
                        object: format!("the list of {}", self.start.resource()),
                        attempts: attempt + 1,
                        last: error,
                    };
                    return Err(self.fail(kind));
                }
                _ => {
                    let kind = ErrorKind::List {
                        resource: self.start.resource(),
                        source: error,
                    };
                    return Err(self.fail(kind));
                }
            }
        };
        let raw = page::split_page(&body).map_err(|reason| {
            self.fail(ErrorKind::MalformedList {
                resource: self.start.resource(),
                reason,
            })
        })?;
        let rewriter = Rewriter {
            client: &self.client,
            resource: &self.resource,
            backoff: self.backoff,
        };
        let rewritten = futures::stream::iter(raw.items)
            .map(|item| rewriter.rewrite(item))
            .buffer_unordered(self.concurrency)
            .try_fold(totals, |mut totals, object| async move {
                totals.add(&object);
                Ok(totals)
            })
            .await;
        let page = rewritten.map_err(|kind| self.fail(kind))?;
        self.counters.add(&page);
        self.position = match raw.continue_token {
            Some(token) => Position::Continue(token),
            None => Position::End,
        };
        tracing::debug!(
            crd = %self.start.name,
            objects = page.seen,
            rewritten = page.rewritten,
            conflicts = page.conflicts,
            pages = self.counters.pages,
            "page migrated"
        );
        Ok(self.position != Position::End)
    }

    /// One list request at the access version, in all namespaces.
    async fn list(&self, params: &ListParams) -> Result<String, kubegen_client::Error> {
        let request = Request::new(DynamicObject::url_path(&self.resource, None))
            .list(params)
            .map_err(kubegen_client::Error::BuildRequest)?;
        self.client.request_text(request).await
    }

    /// Processes the remaining pages, then sets `status.storedVersions` to
    /// exactly the storage version if the CRD's spec did not change since
    /// this run began (else [`ErrorKind::StorageVersionChanged`] or
    /// [`ErrorKind::CrdChanged`], `storedVersions` untouched).
    ///
    /// ```no_run
    /// use kubegen::storage_migration::StorageMigration;
    ///
    /// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// let migration = StorageMigration::new(client, "carts.shop.example.com")
    ///     .start()
    ///     .await?;
    /// let report = migration.finish().await?;
    /// assert!(report.counters.seen >= report.counters.rewritten);
    /// # Ok(()) }
    /// ```
    pub async fn finish(mut self) -> Result<MigrationReport, MigrationError> {
        while self.next_page().await? {}
        let trimmed = crd::trim_stored_versions(&self.crds, &self.start, self.backoff)
            .await
            .map_err(|kind| {
                if matches!(
                    kind,
                    ErrorKind::StorageVersionChanged { .. } | ErrorKind::CrdChanged { .. }
                ) {
                    tracing::warn!(
                        crd = %self.start.name,
                        error = %kind,
                        "status.storedVersions not updated"
                    );
                }
                self.fail(kind)
            })?;
        let report = MigrationReport {
            crd: self.start.name.clone(),
            storage_version: self.start.storage_version.clone(),
            counters: self.counters,
            stored_versions_before: self.start.stored_versions.clone(),
            stored_versions_after: trimmed.stored_versions,
            crd_conflicts: trimmed.conflicts,
            elapsed: self.began.elapsed(),
        };
        tracing::info!(
            crd = %report.crd,
            storage_version = %report.storage_version,
            seen = report.counters.seen,
            rewritten = report.counters.rewritten,
            unchanged = report.counters.unchanged,
            deleted = report.counters.deleted,
            conflicts = report.counters.conflicts,
            pages = report.counters.pages,
            stored_versions = ?report.stored_versions_after,
            "storage version migration finished"
        );
        Ok(report)
    }
}

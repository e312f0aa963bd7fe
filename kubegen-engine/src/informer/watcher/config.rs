//! [`Config`]: what a watcher lists and watches, and how.

/// How a watcher gets its initial state (and the state after `410 Gone`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InitialListStrategy {
    /// Paginated LIST requests, then a watch from the list's
    /// resourceVersion (the default of `Config::default()`, as kube's).
    #[default]
    ListWatch,
    /// A streaming list: a watch with `sendInitialEvents=true` whose
    /// initial events end with a bookmark annotated
    /// `k8s.io/initial-events-end` (KEP-3157, Kubernetes 1.27+, on by
    /// default since 1.34); informers start from it.
    StreamingList,
}

/// Which state a paginated list reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListSemantic {
    /// The most recent (a quorum read from etcd): the default.
    #[default]
    MostRecent,
    /// Any state at least as recent as the apiserver's watch cache
    /// (`resourceVersion=0`, `resourceVersionMatch=NotOlderThan`): cheaper
    /// for the apiserver, possibly older than what was seen before.
    Any,
}

/// What a watcher lists and watches, and how: the options of kube's
/// `watcher::Config` with the same names and defaults (paginated lists of
/// 500, the most recent state, bookmarks on, the apiserver's watch
/// timeout of 290 s), so code written against kube's reads the same.
/// Informers start from [`Config::streaming_lists`].
///
/// ```
/// use kubegen::informer::watcher::{Config, InitialListStrategy};
/// let config = Config::default().labels("app=web").streaming_lists();
/// assert_eq!(config.initial_list_strategy, InitialListStrategy::StreamingList);
/// assert_eq!(config.page_size, Some(500));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Only objects whose labels match this selector.
    pub label_selector: Option<String>,
    /// Only objects whose fields match this selector.
    pub field_selector: Option<String>,
    /// `timeoutSeconds` of each watch request (290 s when `None`). A watch
    /// silent for this long plus 5 s is taken for dead and resumed; `0`
    /// asks for no timeout and never gives up on a silent watch.
    pub timeout: Option<u32>,
    /// Which state paginated lists read.
    pub list_semantic: ListSemantic,
    /// How the initial state is read.
    pub initial_list_strategy: InitialListStrategy,
    /// Objects per page of a paginated list (`None`: one page).
    pub page_size: Option<u32>,
    /// Whether watches ask for bookmarks (`allowWatchBookmarks`), which
    /// keep the resourceVersion a watch resumes from recent.
    pub bookmarks: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            label_selector: None,
            field_selector: None,
            timeout: None,
            list_semantic: ListSemantic::default(),
            initial_list_strategy: InitialListStrategy::default(),
            // client-go's pager's default page size.
            page_size: Some(500),
            bookmarks: true,
        }
    }
}

impl Config {
    /// Sets `timeoutSeconds` of each watch request.
    #[must_use]
    pub fn timeout(mut self, seconds: u32) -> Self {
        self.timeout = Some(seconds);
        self
    }

    /// Only objects whose labels match `selector`.
    #[must_use]
    pub fn labels(mut self, selector: &str) -> Self {
        self.label_selector = Some(selector.to_string());
        self
    }

    /// Only objects whose fields match `selector`.
    #[must_use]
    pub fn fields(mut self, selector: &str) -> Self {
        self.field_selector = Some(selector.to_string());
        self
    }

    /// Sets which state paginated lists read.
    #[must_use]
    pub fn list_semantic(mut self, semantic: ListSemantic) -> Self {
        self.list_semantic = semantic;
        self
    }

    /// Paginated lists read any state at least as recent as the
    /// apiserver's cache ([`ListSemantic::Any`]).
    #[must_use]
    pub fn any_semantic(self) -> Self {
        self.list_semantic(ListSemantic::Any)
    }

    /// Watches without bookmarks.
    #[must_use]
    pub fn disable_bookmarks(mut self) -> Self {
        self.bookmarks = false;
        self
    }

    /// Sets the number of objects per page of a paginated list.
    #[must_use]
    pub fn page_size(mut self, size: u32) -> Self {
        self.page_size = Some(size);
        self
    }

    /// Reads the initial state with a streaming list
    /// ([`InitialListStrategy::StreamingList`]).
    #[must_use]
    pub fn streaming_lists(mut self) -> Self {
        self.initial_list_strategy = InitialListStrategy::StreamingList;
        self
    }
}

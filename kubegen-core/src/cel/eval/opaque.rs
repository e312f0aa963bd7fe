//! The data of the values the Kubernetes quantity, URL and format
//! libraries make, which [`Val`](super::value::Val) holds; their
//! behaviour is in [`quantity`](super::quantity), [`url`](super::url) and
//! [`format`](mod@super::format).

use std::cell::RefCell;
use std::rc::Rc;

/// An `inf.Dec`: `±magnitude × 10^-scale`, the magnitude as decimal
/// digits, most significant first, without leading zeros (none for 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dec {
    pub(super) neg: bool,
    pub(super) mag: Vec<u8>,
    pub(super) scale: i64,
}

/// A `resource.Quantity`'s amount: an `int64Amount` unless `dec` is set
/// (shared, as Go shares the `*inf.Dec` between a quantity and its
/// copies).
#[derive(Clone, Debug)]
pub struct Quantity {
    pub(super) value: i64,
    pub(super) scale: i32,
    pub(super) dec: Option<Rc<RefCell<Dec>>>,
}

/// A quantity as a CEL value holds it: a pointer to one.
pub type Shared = Rc<RefCell<Quantity>>;

/// The parts of a parsed URL the library reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// The text it was parsed from.
    pub raw: String,
    pub(super) scheme: String,
    pub(super) host: Vec<u8>,
    pub(super) path: Vec<u8>,
    pub(super) raw_path: Vec<u8>,
    pub(super) raw_query: String,
}

/// A format: its library name and its Go `Name`.
#[derive(Debug, PartialEq, Eq)]
pub struct Format {
    pub(super) key: &'static str,
    pub(super) name: &'static str,
}

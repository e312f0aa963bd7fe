//! A file with CRLF line endings and block doc comments.

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

/** A part,
 * described over
 * several lines. */
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Part {
    /** The part's
    name. */
    pub name: String,
}

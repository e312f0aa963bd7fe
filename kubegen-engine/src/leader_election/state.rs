//! What an elector reports: its [`LeaderState`], and each term of
//! [`Leadership`] it hands to its work.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// What an elector knows about leadership, for readiness and dashboards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaderState {
    /// This candidate leads.
    Leader,
    /// This candidate stands by; `leader` is the holder it last saw, if any.
    Standby {
        /// The identity of the current leader, if known.
        leader: Option<String>,
    },
    /// The elector has stopped (shut down, or its future was dropped).
    Stopped,
}

impl LeaderState {
    /// Whether this candidate leads.
    pub fn is_leader(&self) -> bool {
        matches!(self, LeaderState::Leader)
    }

    /// Whether the process is ready to serve: leaders and standbys are;
    /// a stopped elector is not.
    pub fn is_ready(&self) -> bool {
        !matches!(self, LeaderState::Stopped)
    }
}

/// One term of leadership, handed to the `on_started_leading` callback.
///
/// Its token is cancelled when leadership ends: when renewal failed for the
/// renew deadline, when another candidate took the Lease over, or at
/// shutdown. Work done as leader must stop promptly then.
#[derive(Debug, Clone)]
pub struct Leadership {
    token: CancellationToken,
    identity: Arc<str>,
    transitions: i32,
}

impl Leadership {
    /// A term that ends when `token` is cancelled.
    pub(super) fn new(token: CancellationToken, identity: Arc<str>, transitions: i32) -> Self {
        Leadership {
            token,
            identity,
            transitions,
        }
    }

    /// A token cancelled when this term of leadership ends.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    /// Whether this term of leadership is still on.
    pub fn is_leading(&self) -> bool {
        !self.token.is_cancelled()
    }

    /// Resolves when this term of leadership ends.
    pub async fn lost(&self) {
        self.token.cancelled().await;
    }

    /// The leader's identity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The Lease's `leaseTransitions` when this term began: it grows with
    /// every change of holder, so it can serve as a fencing number.
    pub fn transitions(&self) -> i32 {
        self.transitions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_of_states() {
        assert!(LeaderState::Leader.is_ready());
        assert!(LeaderState::Standby { leader: None }.is_ready());
        assert!(!LeaderState::Stopped.is_ready());
        assert!(LeaderState::Leader.is_leader());
        assert!(
            !LeaderState::Standby {
                leader: Some("x".into())
            }
            .is_leader()
        );
    }
}

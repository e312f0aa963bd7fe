//! Configuration checks: client-go's `TestLeaderElectionConfigValidation`.

use super::config;

/// Ports `TestLeaderElectionConfigValidation`: the Go test's timings
/// (15 s, 2 s, 1 s, release on cancel) are accepted, an empty identity is
/// refused.
#[test]
fn an_empty_identity_is_refused() {
    let valid = config(15, 2, 1);
    assert!(valid.release_on_cancel);
    assert_eq!(valid.validate(), Ok(()));
    let anonymous = crate::leader_election::LeaderElectionConfig {
        identity: Some(String::new()),
        ..valid
    };
    let error = anonymous.validate().unwrap_err();
    assert!(error.to_string().contains("identity is empty"), "{error}");
}

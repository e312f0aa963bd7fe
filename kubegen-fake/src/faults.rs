//! Faults a test injects: fail the next writes or reads with a status
//! code, delay every request, end every open watch.

use std::time::Duration;

/// What goes wrong next.
#[derive(Debug, Default)]
pub struct Faults {
    /// Writes still to refuse, and with which code.
    pub fail_writes: Option<(usize, u16)>,
    /// Reads (get, list, watch) still to refuse, and with which code.
    pub fail_reads: Option<(usize, u16)>,
    /// A delay before every request is answered.
    pub delay: Option<Duration>,
}

impl Faults {
    /// Takes one injected failure for a write (`write`) or a read, if any
    /// are left.
    pub fn take(&mut self, write: bool) -> Option<u16> {
        let slot = if write {
            &mut self.fail_writes
        } else {
            &mut self.fail_reads
        };
        let (left, code) = slot.as_mut()?;
        let code = *code;
        *left -= 1;
        if *left == 0 {
            *slot = None;
        }
        Some(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_run_out() {
        let mut f = Faults {
            fail_writes: Some((2, 409)),
            ..Faults::default()
        };
        assert_eq!(f.take(false), None);
        assert_eq!(f.take(true), Some(409));
        assert_eq!(f.take(true), Some(409));
        assert_eq!(f.take(true), None);
    }
}

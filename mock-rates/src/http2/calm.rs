//! The budgets a client that floods the connection runs out of (RFC 9113 §10.5): then the
//! server sends GOAWAY(ENHANCE_YOUR_CALM) and closes, as servers did after CVE-2019-9512/9515
//! (ping and settings floods), CVE-2019-9518 (empty frames) and CVE-2023-44487 (rapid reset).

/// Streams reset (by the client before their request was routed, or by the server for the
/// client's error), net of the streams answered whole: h2's `max_local_error_reset_streams`
/// default.
pub(super) const RESET_BUDGET: u32 = 1024;
/// Control frames the server queued to answer (PING and SETTINGS ACKs, resets) that the
/// client has not read: Go's `maxQueuedControlFrames`.
pub(super) const CONTROL_BUDGET: u32 = 10_000;
/// Empty DATA frames that do not end their stream: h2's `MAX_RECV_EMPTY_DATA_FRAMES`
/// (CVE-2019-9518).
pub(super) const EMPTY_DATA_BUDGET: u32 = 100;
/// CONTINUATION frames in one header block: a block that large is refused anyway (64 KiB
/// at most), so more frames only spend time (CVE-2024-27316 and its kin).
pub(super) const CONTINUATION_BUDGET: u32 = 64;

#[derive(Debug, Default)]
pub(super) struct Calm {
    resets: u32,
    control: u32,
    continuations: u32,
    empty_data: u32,
}

impl Calm {
    /// A stream reset: `false` once past the budget.
    pub(super) fn reset(&mut self) -> bool {
        self.resets += 1;
        self.resets <= RESET_BUDGET
    }

    /// A stream answered whole earns a reset back.
    pub(super) fn answered(&mut self) {
        self.resets = self.resets.saturating_sub(1);
    }

    /// A control frame queued: `false` once past the budget.
    pub(super) fn control(&mut self) -> bool {
        self.control += 1;
        self.control <= CONTROL_BUDGET
    }

    /// The client read all that was queued.
    pub(super) fn written(&mut self) {
        self.control = 0;
    }

    /// An empty DATA frame that does not end its stream: `false` once past the budget.
    pub(super) fn empty_data(&mut self) -> bool {
        self.empty_data += 1;
        self.empty_data <= EMPTY_DATA_BUDGET
    }

    /// A header block begins.
    pub(super) fn block(&mut self) {
        self.continuations = 0;
    }

    /// A CONTINUATION of it: `false` once past the budget.
    pub(super) fn continuation(&mut self) -> bool {
        self.continuations += 1;
        self.continuations <= CONTINUATION_BUDGET
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resets_net_of_answers_run_out() {
        let mut calm = Calm::default();
        for _ in 0..RESET_BUDGET {
            assert!(calm.reset());
            calm.answered();
        }
        for _ in 0..RESET_BUDGET {
            assert!(calm.reset());
        }
        assert!(!calm.reset());
    }

    #[test]
    fn control_frames_count_until_the_client_reads() {
        let mut calm = Calm::default();
        for _ in 0..CONTROL_BUDGET {
            assert!(calm.control());
        }
        calm.written();
        assert!(calm.control());
        for _ in 0..CONTROL_BUDGET {
            calm.control();
        }
        assert!(!calm.control());
    }

    #[test]
    fn empty_data_frames_run_out() {
        let mut calm = Calm::default();
        for _ in 0..EMPTY_DATA_BUDGET {
            assert!(calm.empty_data());
        }
        assert!(!calm.empty_data());
    }

    #[test]
    fn continuations_count_per_block() {
        let mut calm = Calm::default();
        for _ in 0..CONTINUATION_BUDGET {
            assert!(calm.continuation());
        }
        assert!(!calm.continuation());
        calm.block();
        assert!(calm.continuation());
    }
}

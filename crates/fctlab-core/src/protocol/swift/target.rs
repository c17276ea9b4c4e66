//! Swift's target delay (sec. 3.5): a base, a part that grows with the path's length
//! (topology-based scaling) and a part that grows as the window shrinks (flow-based scaling),
//!
//! ```text
//! t = base_target + hops x h + max(0, min(alpha / sqrt(fcwnd) + beta, fs_range))
//!
//!     alpha = fs_range / (1 / sqrt(fs_min_cwnd) - 1 / sqrt(fs_max_cwnd))
//!     beta  = -alpha / sqrt(fs_max_cwnd)
//! ```
//!
//! with fcwnd in packets: the flow-based part is fs_range at fs_min_cwnd and below, falls as
//! 1 / sqrt(fcwnd), and is zero at fs_max_cwnd and above (the queue that N flows started at
//! random times build grows as sqrt(N), and each flow's window falls as 1 / N).

use super::SwiftConfig;

/// The target delay of one flow's window, seconds.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TargetDelay {
    /// base_target + hops x h, s.
    fixed: f64,
    /// fs_range, s.
    fs_range: f64,
    /// The flow-based part's alpha (s x sqrt(packets)) and beta (s).
    alpha: f64,
    beta: f64,
}

impl TargetDelay {
    /// The target of `cfg` (`fs_min_cwnd` < `fs_max_cwnd`, both above zero: the keys check it).
    pub fn new(cfg: &SwiftConfig) -> TargetDelay {
        let fs_range = cfg.fs_range.as_secs_f64();
        let alpha = fs_range / (1.0 / cfg.fs_min_cwnd.sqrt() - 1.0 / cfg.fs_max_cwnd.sqrt());
        TargetDelay {
            fixed: cfg.base_target.as_secs_f64() + cfg.hops as f64 * cfg.h.as_secs_f64(),
            fs_range,
            alpha,
            beta: -alpha / cfg.fs_max_cwnd.sqrt(),
        }
    }

    /// The flow-based part at a window of `fcwnd` packets, s: in [0, fs_range].
    pub fn flow_scaling(&self, fcwnd: f64) -> f64 {
        (self.alpha / fcwnd.sqrt() + self.beta).min(self.fs_range).max(0.0)
    }

    /// The target at a window of `fcwnd` packets, s.
    pub fn at(&self, fcwnd: f64) -> f64 {
        self.fixed + self.flow_scaling(fcwnd)
    }
}

//! NewReno's window (RFC 5681 sec. 3.1, RFC 6582), as fctlab's built-in runs it with HyStart
//! off: slow start +min(acked, L x MSS) per ACK, congestion avoidance +MSS*MSS/cwnd per ACK,
//! ssthresh = max(flight / 2, 2 MSS) on loss, cwnd = 1 MSS after a timeout.

use fctlab_plugin::{HostInit, HostLaw, Ps, Window};

/// NewReno holds no state of its own: the window is all it needs.
pub struct NewReno;

impl HostLaw for NewReno {
    fn new(_init: &HostInit) -> Result<Self, String> {
        Ok(NewReno)
    }

    fn on_ack(&mut self, w: &mut Window, _now: Ps, acked: u64, _srtt: Option<Ps>) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() {
            // RFC 5681 eq. 2 with appropriate byte counting (RFC 3465 sec. 2.2).
            w.cwnd += acked.min(w.abc);
        } else {
            // RFC 5681 eq. 3: at least one byte.
            w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
        }
    }

    fn on_congestion(&mut self, w: &mut Window, _now: Ps, flight: u64) {
        // RFC 5681 eq. 4.
        w.ssthresh = (flight / 2).max(2 * w.mss);
        w.cwnd = w.ssthresh;
    }

    // on_timeout (cwnd = 1 MSS after on_congestion) and on_recovery_end (cwnd = ssthresh)
    // are the API's defaults, which are RFC 5681's.
}

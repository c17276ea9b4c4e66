//! DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010; RFC 8257): TCP whose
//! window shrinks in proportion to the fraction of its bytes that met a queue above K.
//!
//! | part | file |
//! |---|---|
//! | host law (window) | `host.rs`: [`Dctcp`], the fraction alpha (eq. 1) and cwnd (1 - alpha/2) (eq. 2), NewReno's growth and loss reaction underneath |
//! | receiver | `echo.rs`: [`DctcpEcho`], the exact echo of CE with delayed ACKs (sec. 3.1, Fig. 10; RFC 8257 sec. 3.2) |
//! | router | any ECN marking queue: `kind = "step"` (the paper's marking at K) or `"red"` (`qdisc/aqm.rs`) |
//! | header | none: the IP ECN field and TCP's ECE flag ([`crate::net::packet::Ecn`]) |
//! | scenario keys | `transport.cc = "dctcp"`, `dctcp_g`, `dctcp_alpha` (`../tcp.rs`) |
//!
//! The once-per-window timing of a reduction is RFC 3168's, kept by the TCP sender for every
//! ECN-capable connection (`transport/tcp/ecn.rs`); DCTCP decides only by how much.
//!
//! Every packet of a DCTCP connection is ECN-capable (data, retransmissions, SYN, ACKs), as
//! Linux sends them, so a marking queue never drops a DCTCP packet in place of a mark.

pub mod echo;
pub mod host;

pub use echo::DctcpEcho;
pub use host::{Dctcp, DctcpConfig};

/// The shape of the queue under N identical long-lived DCTCP flows (sec. 3.3), in packets:
/// `bdp` = C x RTT in packets, `k` the marking threshold.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SawtoothQueue {
    /// Q_max = K + N: the queue when the windows reach W* + 1 (sec. 3.3).
    pub q_max: f64,
    /// A = N D = (1/2) sqrt(2 N (C x RTT + K)): the amplitude of the oscillation.
    pub amplitude: f64,
    /// Q_min = Q_max - A.
    pub q_min: f64,
    /// T_C = D = (1/2) sqrt(2 (C x RTT + K) / N): the period, in round-trip times.
    pub period_rtts: f64,
}

impl SawtoothQueue {
    /// The analysis of sec. 3.3 for `n` flows, `bdp` = C x RTT and threshold `k`, in packets.
    pub fn new(n: f64, bdp: f64, k: f64) -> SawtoothQueue {
        // W* = (C x RTT + K) / N: the window at which the queue reaches K.
        let q_max = k + n;
        let amplitude = 0.5 * (2.0 * n * (bdp + k)).sqrt();
        SawtoothQueue { q_max, amplitude, q_min: q_max - amplitude, period_rtts: 0.5 * (2.0 * (bdp + k) / n).sqrt() }
    }

    /// The paper's guideline for a queue that never drains (Q_min > 0): K > (C x RTT) / 7.
    pub fn k_guideline(bdp: f64) -> f64 {
        bdp / 7.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sec. 3.3 at 10 Gb/s, RTT 100 us, 1,500-byte packets (C x RTT = 83.3 packets), K = 40,
    /// two flows: Q_max = 42, A = (1/2) sqrt(4 x 123.3) = 11.1.
    #[test]
    fn the_sawtooth_of_two_flows_at_10_gbps() {
        let bdp = 10e9 * 100e-6 / (1500.0 * 8.0);
        let s = SawtoothQueue::new(2.0, bdp, 40.0);
        assert_eq!(s.q_max, 42.0);
        assert!((s.amplitude - 0.5 * (4.0 * (bdp + 40.0)).sqrt()).abs() < 1e-12);
        assert!((s.amplitude - 11.10).abs() < 0.01, "{}", s.amplitude);
        assert!((s.q_min - 30.90).abs() < 0.01);
        // Q_min > 0 for every N exactly when K exceeds about C x RTT / 7: at the guideline's
        // K the worst N leaves the queue just above zero.
        let k = SawtoothQueue::k_guideline(bdp);
        let worst = (1..200).map(|n| SawtoothQueue::new(n as f64, bdp, k).q_min).fold(f64::INFINITY, f64::min);
        assert!(worst > -1.0 && worst < 2.0, "{worst}");
    }
}

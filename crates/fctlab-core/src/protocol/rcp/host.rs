//! RCP's end-host law (thesis sec. 3.1 and 6.1) and the fixed-rate law of the thesis's study of
//! the optimal rate (Figs. 3.6 - 3.8).
//!
//! - RCP: the SYN and every data packet ask for an unlimited rate and carry the sender's RTT
//!   estimate (zero before the first sample) and the KiB sent so far (for differential
//!   bandwidth sharing); routers lower the rate to their fair rate; the receiver echoes the
//!   path's smallest rate, which becomes the sending rate. "Unlimited" echoed back in the
//!   SYN-ACK means no RCP router is on the path: the sender falls back to TCP (thesis sec.
//!   6.2.2, [`crate::transport::paced::PacedConfig::fallback`]), or without the fallback uses `unlimited`
//!   (10 Gb/s by default).
//! - Fixed: every flow sends at one rate and ignores feedback. Its packets still carry RCP's
//!   header, so RCP routers on the path measure them as they measure RCP flows.

use crate::net::packet::CongestionHeader;
use crate::protocol::rcp::header::{RcpEcho, RcpHeader};
use crate::protocol::RateLawConfig;
use crate::transport::paced::law::{LawCtx, RateControl, RateFeedback};
use crate::units::{Rate, Time};

/// RCP's forward header: no rate limit yet, the RTT in microseconds, the KiB sent so far.
pub fn forward_header(srtt: Option<Time>, sent_bytes: u64) -> CongestionHeader {
    let rtt_us = srtt.map_or(0, |t| (t.ps() / 1_000_000).min(u32::MAX as u64) as u32);
    CongestionHeader::Rcp(RcpHeader {
        rate_kbps: u32::MAX,
        rtt_us,
        age_kib: (sent_bytes / 1024).min(u32::MAX as u64) as u32,
    })
}

/// The rate an echoed header gives the sender, if it carries RCP feedback (at least 1 kbit/s);
/// "unlimited" (`u32::MAX` kbit/s) means no RCP router on the path and gives `unlimited`.
/// RCP hosts and R-TCP read their feedback with it.
pub fn echoed_rate(unlimited: Rate, cc: CongestionHeader) -> Option<Rate> {
    match cc {
        CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: u32::MAX }) => Some(unlimited),
        CongestionHeader::RcpFeedback(RcpEcho { rate_kbps }) => Some(Rate::from_bps(rate_kbps.max(1) as u64 * 1000)),
        _ => None,
    }
}

/// RCP's host settings (thesis sec. 3.1): the rate the routers stamped; `unlimited` when none did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RcpConfig {
    /// The rate used when no router on the path stamped one.
    pub unlimited: Rate,
}

impl RateLawConfig for RcpConfig {
    type Law = RcpHost;

    fn build(self) -> RcpHost {
        RcpHost::new(self.unlimited)
    }

    /// `rcp`.
    fn label(&self) -> String {
        "rcp".to_string()
    }
}

/// The RCP end host: paced at the echoed rate.
#[derive(Clone, Debug)]
pub struct RcpHost {
    unlimited: Rate,
}

impl RcpHost {
    /// A host that uses `unlimited` when no router stamped a rate.
    pub fn new(unlimited: Rate) -> RcpHost {
        RcpHost { unlimited }
    }
}

impl RateControl for RcpHost {
    fn initial_rate(&self) -> f64 {
        self.unlimited.bps_f64()
    }
    fn header(&self, ctx: LawCtx) -> CongestionHeader {
        forward_header(ctx.srtt, ctx.sent_bytes)
    }
    fn on_feedback(&mut self, fb: &RateFeedback) -> Option<f64> {
        let echo = fb.echo;
        echoed_rate(self.unlimited, echo).map(Rate::bps_f64)
    }
    fn path_has_routers(&self, echo: CongestionHeader) -> bool {
        echo != (CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: u32::MAX }))
    }
}

/// One rate for every flow, feedback ignored (the thesis's fixed-rate study).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FixedConfig(pub Rate);

impl RateLawConfig for FixedConfig {
    type Law = FixedRate;

    fn build(self) -> FixedRate {
        FixedRate::new(self.0)
    }

    /// `fixed-8000000bps`.
    fn label(&self) -> String {
        format!("fixed-{}bps", self.0.bps())
    }
}

/// One rate, whatever the feedback.
#[derive(Clone, Debug)]
pub struct FixedRate {
    rate: Rate,
}

impl FixedRate {
    /// A law sending at `rate`.
    pub fn new(rate: Rate) -> FixedRate {
        FixedRate { rate }
    }
}

impl RateControl for FixedRate {
    fn initial_rate(&self) -> f64 {
        self.rate.bps_f64()
    }
    fn header(&self, ctx: LawCtx) -> CongestionHeader {
        forward_header(ctx.srtt, ctx.sent_bytes)
    }
    fn on_feedback(&mut self, _fb: &RateFeedback) -> Option<f64> {
        Some(self.rate.bps_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcp_takes_the_echoed_rate_and_unlimited_means_the_default() {
        let mut h = RcpHost::new(Rate::from_gbps(10));
        let fb = |k| CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: k });
        assert_eq!(h.on_feedback(&RateFeedback::of(Time::ZERO, fb(25_000), None)), Some(25e6));
        assert_eq!(h.on_feedback(&RateFeedback::of(Time::ZERO, fb(u32::MAX), None)), Some(10e9));
        assert_eq!(h.on_feedback(&RateFeedback::of(Time::ZERO, fb(0), None)), Some(1e3), "at least 1 kbit/s");
        assert_eq!(h.on_feedback(&RateFeedback::of(Time::ZERO, CongestionHeader::None, None)), None);
    }

    #[test]
    fn the_header_carries_the_srtt_in_microseconds_and_no_rate_limit() {
        assert_eq!(
            forward_header(None, 0),
            CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 0, age_kib: 0 })
        );
        assert_eq!(
            forward_header(Some(Time::from_ms(25)), 10 * 1024),
            CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 25_000, age_kib: 10 })
        );
    }
}

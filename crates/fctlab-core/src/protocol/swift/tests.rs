//! Swift's window against its target on hand-made RTT samples (Algorithm 1, sec. 3.4-3.5);
//! every expected number is worked out by hand in the test.

use super::{Swift, SwiftConfig};
use crate::transport::cc::{CcState, CongestionControl, RttSample};
use crate::units::{Rate, Time};

const MSS: u64 = 1000;

/// A controller of `cfg` on a connection whose window is `packets` segments, and that state.
fn swift(cfg: SwiftConfig, packets: f64) -> (Swift, CcState) {
    let st = CcState { cwnd: (packets * MSS as f64) as u64, ssthresh: u64::MAX, mss: MSS, abc: MSS };
    (Swift::new(cfg, MSS as u32, 40), st)
}

/// Target = base_target exactly: no hops, no flow-based scaling.
fn flat(base_us: u64) -> SwiftConfig {
    SwiftConfig { base_target: Time::from_us(base_us), hops: 0, fs_range: Time::ZERO, ..SwiftConfig::default() }
}

/// The ACK of `acked` more packets (cumulatively `*una`) at `now_us` with an RTT of `rtt_us`.
fn ack(s: &mut Swift, st: &mut CcState, una: &mut u64, acked: u64, now_us: u64, rtt_us: u64) {
    *una += acked * MSS;
    let sample = RttSample { now: Time::from_us(now_us), rtt: Time::from_us(rtt_us), una: *una, high: *una };
    s.on_rtt_sample(st, &sample);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Below the target: ai / cwnd per packet acknowledged at one packet or more, ai per packet
/// below one.
#[test]
fn below_the_target_the_window_grows_by_ai_per_round_trip() {
    let (mut s, mut st) = swift(flat(20), 10.0);
    let mut una = 0;
    ack(&mut s, &mut st, &mut una, 1, 100, 15);
    assert!(close(s.cwnd(), 10.1), "10 + 1/10: {}", s.cwnd());
    ack(&mut s, &mut st, &mut una, 2, 110, 19);
    assert!(close(s.cwnd(), 10.1 + 2.0 / 10.1), "+ 2/10.1: {}", s.cwnd());
    assert_eq!(st.cwnd, (s.cwnd() * MSS as f64) as u64);
    // A whole window's worth of ACKs, one packet each: about ai = 1 packet more.
    let (mut s, mut st) = swift(flat(20), 10.0);
    let mut una = 0;
    for i in 0..10 {
        ack(&mut s, &mut st, &mut una, 1, 100 + i, 15);
    }
    assert!(s.cwnd() > 10.9 && s.cwnd() < 11.0, "{}", s.cwnd());
    // Below one packet: + ai x num_acked.
    let (mut s, mut st) = swift(flat(20), 0.5);
    let mut una = 0;
    ack(&mut s, &mut st, &mut una, 1, 100, 15);
    assert!(close(s.cwnd(), 1.5), "{}", s.cwnd());
}

/// At or above the target: cwnd x (1 - beta (delay - target) / delay), once per round trip.
#[test]
fn above_the_target_one_decrease_per_round_trip_by_beta_over_the_excess() {
    let (mut s, mut st) = swift(flat(20), 10.0);
    let mut una = 0;
    // delay 40 us, target 20 us: 1 - 0.8 x 20 / 40 = 0.6.
    ack(&mut s, &mut st, &mut una, 1, 1000, 40);
    assert!(close(s.cwnd(), 6.0), "{}", s.cwnd());
    assert_eq!(st.cwnd, 6000);
    // 39 us later, still inside the round trip (40 us) of that decrease: no second one.
    ack(&mut s, &mut st, &mut una, 1, 1039, 40);
    assert!(close(s.cwnd(), 6.0), "{}", s.cwnd());
    // A round trip after it: delay 25 us: 1 - 0.8 x 5 / 25 = 0.84.
    ack(&mut s, &mut st, &mut una, 1, 1040, 25);
    assert!(close(s.cwnd(), 6.0 * 0.84), "{}", s.cwnd());
    // Exactly at the target is not below it: a decrease of 1 - 0 = nothing, not an increase.
    let (mut s, mut st) = swift(flat(20), 10.0);
    ack(&mut s, &mut st, &mut 0, 1, 1000, 20);
    assert!(close(s.cwnd(), 10.0), "{}", s.cwnd());
}

/// The decrease is at most max_mdf: delay 200 us against 20 us would cut by
/// 0.8 x 180 / 200 = 0.72, max_mdf = 0.5 keeps half.
#[test]
fn max_mdf_bounds_one_decrease() {
    let (mut s, mut st) = swift(flat(20), 10.0);
    ack(&mut s, &mut st, &mut 0, 1, 1000, 200);
    assert!(close(s.cwnd(), 5.0), "{}", s.cwnd());
    let (mut s, mut st) = swift(SwiftConfig { max_mdf: 0.8, ..flat(20) }, 10.0);
    ack(&mut s, &mut st, &mut 0, 1, 1000, 200);
    assert!(close(s.cwnd(), 10.0 * 0.28), "{}", s.cwnd());
}

/// Sec. 3.5 with the defaults (base 25 us, 1 hop of 1 us, fs_range 125 us over windows
/// 0.1..100): alpha = 125 / (1/sqrt(0.1) - 1/sqrt(100)) = 125 / 3.0623 = 40.819 us,
/// beta = -alpha / 10 = -4.0819 us.
#[test]
fn the_flow_scaled_target_for_small_and_large_windows() {
    let alpha = 125.0 / (10f64.sqrt() - 0.1);
    let beta = -alpha / 10.0;
    let target_us = |packets: f64| target_at(packets) * 1e6;
    // The whole range at fs_min_cwnd and below, nothing at fs_max_cwnd and above.
    assert!((target_us(0.1) - 151.0).abs() < 1e-6, "{}", target_us(0.1));
    assert!((target_us(0.01) - 151.0).abs() < 1e-6);
    assert!((target_us(100.0) - 26.0).abs() < 1e-6);
    assert!((target_us(1000.0) - 26.0).abs() < 1e-6);
    // Between: alpha / sqrt(cwnd) + beta; at 25 packets alpha / 5 - alpha / 10 = 4.082 us.
    assert!((target_us(25.0) - (26.0 + alpha / 5.0 + beta)).abs() < 1e-6);
    assert!((target_us(25.0) - 30.082).abs() < 1e-3, "{}", target_us(25.0));
    assert!((target_us(1.0) - (26.0 + alpha + beta)).abs() < 1e-6);
    assert!((target_us(1.0) - 62.737).abs() < 1e-3, "{}", target_us(1.0));
    // The window follows that target: at 1 packet a delay of 60 us is below it (growth),
    // at 25 packets a delay of 35 us is above it (a decrease by 0.8 x 4.918 / 35).
    let (mut s, mut st) = swift(SwiftConfig::default(), 1.0);
    ack(&mut s, &mut st, &mut 0, 1, 1000, 60);
    assert!(close(s.cwnd(), 2.0), "{}", s.cwnd());
    let (mut s, mut st) = swift(SwiftConfig::default(), 25.0);
    ack(&mut s, &mut st, &mut 0, 1, 1000, 35);
    let target = 26.0 + alpha / 5.0 + beta;
    assert!(close(s.cwnd(), 25.0 * (1.0 - 0.8 * (35.0 - target) / 35.0)), "{}", s.cwnd());
    // Hops: each adds h.
    let three = SwiftConfig { hops: 3, ..SwiftConfig::default() };
    assert!((super::TargetDelay::new(&three).at(100.0) * 1e6 - 28.0).abs() < 1e-6);
}

/// The target of the default config at a window of `packets`, s.
fn target_at(packets: f64) -> f64 {
    super::TargetDelay::new(&SwiftConfig::default()).at(packets)
}

/// Fast recovery and timeouts cut by max_mdf at most once per round trip; the fifth timeout
/// in a row resets the window to min_cwnd (0.001 packets), which paces one packet per
/// rtt / cwnd; recovery's end keeps the window.
#[test]
fn losses_cut_by_max_mdf_and_timeouts_reset_to_min_cwnd_with_pacing() {
    let (mut s, mut st) = swift(flat(20), 16.0);
    let mut una = 0;
    ack(&mut s, &mut st, &mut una, 1, 1000, 10);
    let w = s.cwnd();
    s.on_congestion(&mut st, Time::from_us(1100), 0);
    assert!(close(s.cwnd(), w / 2.0));
    s.on_recovery_end(&mut st, Time::from_us(1105));
    s.on_timeout(&mut st, Time::from_us(1105), 0);
    assert!(close(s.cwnd(), w / 2.0), "within the round trip of the last decrease");
    for (i, at) in [1200, 1300, 1400, 1500].into_iter().enumerate() {
        s.on_timeout(&mut st, Time::from_us(at), 0);
        if i < 3 {
            assert!(close(s.cwnd(), w / 2.0 / 2f64.powi(i as i32 + 1)), "{i}: {}", s.cwnd());
        }
    }
    assert!(close(s.cwnd(), 0.001), "{}", s.cwnd());
    assert_eq!(st.cwnd, MSS, "one segment may be in flight");
    // rtt 10 us / 0.001 = 10 ms between packets: 1040 wire bytes per 10 ms.
    assert_eq!(s.pacing_delay(), Time::from_ms(10));
    assert_eq!(s.pacing_rate(), Some(Rate::from_bps(1040 * 8 * 100)));
    // An ACK clears the count: the next timeout cuts by max_mdf again, not to min_cwnd.
    let (mut s, mut st) = swift(flat(20), 16.0);
    for at in [100, 200, 300, 400] {
        s.on_timeout(&mut st, Time::from_us(at), 0);
    }
    ack(&mut s, &mut st, &mut 0, 1, 500, 10);
    let w = s.cwnd();
    s.on_timeout(&mut st, Time::from_us(600), 0);
    assert!(close(s.cwnd(), w / 2.0), "{}", s.cwnd());
}

/// At one packet or more the window alone limits sending.
#[test]
fn no_pacing_at_one_packet_or_more() {
    let (mut s, mut st) = swift(flat(20), 1.0);
    ack(&mut s, &mut st, &mut 0, 1, 100, 10);
    assert_eq!(s.pacing_delay(), Time::ZERO);
    assert_eq!(s.pacing_rate(), Some(Rate::from_bps(u64::MAX)));
}

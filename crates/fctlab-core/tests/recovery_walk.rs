//! One slow-start overflow, walked through RFC 6675 (SACK loss recovery) and RFC 6582
//! (NewReno's recovery point and full acknowledgment), and the number of round trips its
//! recovery must take.
//!
//! ```text
//!   l0 --10G,0ms-- rl ==1G,10ms, 1,667-packet drop-tail== rr --10G,0ms-- r0
//! ```
//!
//! The run: one 10,000-segment flow (MSS 1,460 B, 1,500 B on the wire), IW 10, NewReno with
//! SACK, no delayed ACKs, the default RTO bounds. "1 Gb/s x 20 ms" is the round trip
//! (10 ms each way) and the buffer is one bandwidth-delay product, 1 Gb/s x 20 ms / 1,500 B =
//! 1,667 packets: that is the run with one loss burst of about 1,670 packets (1,671). The
//! other readings give other bursts: the default 1,000-packet buffer 2,033 drops; 20 ms each
//! way with a 1,667-packet buffer 778, and with a 3,333-packet (one-BDP) buffer none.
//! `loss_recovery.rs` runs the same flow (with a 1 s minimum RTO) for its outcome; this test
//! pins the recovery's course and length.
//!
//! Units: `s` = 12 us, one 1,500-byte packet on the 1 Gb/s bottleneck (ACKs leave the
//! receiver one per `s` while the bottleneck is busy); `R` = 20.014784 ms, the round trip of
//! a data segment and its ACK through empty queues (2 x 10 ms, 12 us + 2 x 1.2 us for the
//! data packet, 320 ns + 2 x 32 ns for the 40-byte ACK). R / s = 1,668: one BDP.
//! Segments are numbered from 0 below (the loss script's #k is segment k - 1).
//!
//! ## The loss burst
//!
//! Slow start doubles the window every RTT (10, 20, ..., 5,120). In the last doubling the
//! sender puts two segments on the access link per ACK while the bottleneck drains one, so
//! the queue grows by one packet per ACK; once it holds 1,667 packets every other arrival
//! finds it full. Segments 6,659, 6,661, ..., 9,999 are dropped: 1,671 drops, every other
//! segment from 6,659 to the flow's last, in one window. Everything (HighData = 10,000) has
//! been sent before the first duplicate ACK returns.
//!
//! ## Entering recovery (RFC 6675 sec. 5 step 4), time T0
//!
//! Segment 6,660 is the first SACKed above the hole; the third SACK (6,660, 6,662, 6,664:
//! DupThresh = 3 duplicate ACKs, and IsLost(6,659) with three SACKed segments above it)
//! enters recovery once, at T0 = 249.465824 ms:
//!
//! - (4.1) RecoveryPoint = HighData = 10,000 (RFC 6582's `recover`: the whole flow);
//! - (4.2) FlightSize = HighData - HighACK = 10,000 - 6,659 = 3,341 segments, so
//!   ssthresh = cwnd = 3,341 x 1,460 / 2 = 2,438,930 B = 1,670.5 SMSS;
//! - (4.3) 6,659 is retransmitted at once; HighRxt = 6,659 (and RescueRxt = 6,659, which the
//!   sender does not record; it makes no difference here, see the rescue below);
//! - (4.4) pipe = 3,341 - 3 SACKed - 1 lost + 1 retransmitted = 3,338 segments.
//!
//! ## Round 1: T0 .. T0 + R, the flight's own SACKs
//!
//! 3,341 - 1,671 = 1,670 segments above the hole arrived; their SACKs reach the sender one
//! per `s`, the third at T0, the last (1,670th) at T0 + 1,667 s. Each SACKs one more segment
//! and makes one more hole IsLost (its third SACKed segment above it arrives), so pipe falls
//! by two per ACK. Step (C) sends only while cwnd - pipe >= 1 SMSS, i.e. pipe <= 1,669:
//!
//! - T0 .. T0 + 835 s: silent. pipe = 3,338 - 2k after k more SACKs reaches 1,668 at
//!   k = 835 = ceil((3,338 - 1,669) / 2). Halving the window costs half a round trip of
//!   silence: RFC 6675 sends nothing until half the flight is known to have left.
//! - T0 + 835 s .. T0 + 1,667 s: NextSeg rule (1), the lowest IsLost hole above HighRxt, twice
//!   per SACK (pipe -2, +2): holes 6,661 .. 9,991, 1,666 retransmissions at twice the
//!   bottleneck's rate (a queue of up to 833 packets builds; no drop).
//!
//! By the last SACK 1 + 1,666 = 1,667 holes are retransmitted and pipe = 1,670 = cwnd: the
//! 1,667 retransmissions and the three tail holes 9,995, 9,997, 9,999, which IsLost cannot
//! mark (fewer than three SACKed segments lie above them: 9,996 and 9,998 at most), so
//! SetPipe counts them as in flight. 9,993 is IsLost but there is no room. The lost
//! segments (1,671) outnumber what one window holds (cwnd = 1,670.5 segments), so whatever
//! the order, a second round is needed.
//!
//! ## Round 2: the retransmissions' own ACKs (RFC 6582 partial ACKs)
//!
//! - T0 + R: the ACK of 6,659's retransmission, the first partial ACK (HighACK 6,661), frees
//!   one segment of pipe: rule (1) retransmits 9,993. Nothing else was sent in round 1's
//!   silent half, so no ACK comes for the next 835 s.
//! - T0 + R + 835 s, + 836 s, + 837 s: the partial ACKs of the first three paired
//!   retransmissions (6,661, 6,663, 6,665) free one segment each: rule (3) sends 9,995 and
//!   9,997 (un-SACKed, below the highest SACK 9,998), then rule (4), the rescue
//!   retransmission (nothing lost, no new data, nothing un-SACKed below the highest SACK;
//!   HighACK 6,665 is past RescueRxt), sends the highest outstanding un-SACKed segment,
//!   9,999. The bottleneck has just finished the pairs' backlog (busy from T0 + 835 s for
//!   1,667 s), so these cross empty queues.
//! - Partial ACKs keep coming, one per `s`; each moves HighACK by two segments and frees one
//!   of pipe, with nothing left to send.
//!
//! ## Leaving recovery (RFC 6675 (A), RFC 6582 full ACK)
//!
//! The receiver holds every byte when 9,999's retransmission arrives (the flow's FCT,
//! 289.539008 ms), and its ACK, the first to cover RecoveryPoint, reaches the sender
//! one round trip after 9,999 left:
//!
//! ```text
//!   T0            T0+835s       T0+R          T0+R+835s      T0+2R+837s
//!   |  silent     |  2 rxt/SACK |  1 rxt      |  3 rxt, then |  full ACK:
//!   |  pipe > cwnd|  (1,666)    |  (9,993)    |  none (tail) |  recovery ends
//!   |<- 0.5 R  -->|<-- 0.5 R -->|<-- 0.5 R -->|<---- R ----->|
//!   entry: fast retransmit of 6,659 (1)
//! ```
//!
//! Recovery lasts T_exit - T0 = 2 R + 837 s = 40.029568 + 10.044 = 50.073568 ms = 2.502 R:
//! **two and a half round trips**. Half a round trip of silence, because the RFC 6675 halving
//! waits until pipe has fallen from twice cwnd to cwnd; a second round because 1,671 lost
//! segments do not fit in a window of 1,670.5; and that second round's last retransmissions
//! are clocked by ACKs of the first round's pairs, which began half a round trip late, so
//! they leave at T0 + 1.5 R and are acknowledged at T0 + 2.5 R. The 0.002 R beyond 2.5 R:
//! 835 s is one `s` more than R / 2 (834 s), and 9,999 leaves 2 s after 9,995.
//!
//! In the issue's terms (lost segments over what one round trip retransmits, plus detection,
//! plus the last ACK): ceil(1,671 / 1,670.5) = 2 rounds of retransmissions; "detection"
//! inside recovery is the half round trip pipe takes to fall to cwnd (the losses are known,
//! three SACKs, at T0); the second round leaves one round trip after the first, and is
//! acknowledged one round trip later: 0.5 + 1 + 1 = 2.5.
//!
//! Retransmissions: 1,671 segments, exactly the lost ones. The rescue retransmission of rule
//! (4) adds none here: the segment it picks, the flow's last, was itself lost. No timeout:
//! the RTO (at least 200 ms) restarts on every partial ACK.

mod common;

use fctlab_core::units::Time;
use fctlab_core::world::World;
use serde_json::json;

const MSS: u64 = 1460;
const WIRE: u64 = 1500;
const SEGMENTS: u64 = 10_000;

/// One 1,500-byte packet on the 1 Gb/s bottleneck.
fn s() -> Time {
    Time::from_ns(12_000)
}

/// The 40-byte ACK's path back, receiver to sender, through empty queues: 10 ms of
/// propagation, 32 ns + 320 ns + 32 ns of serialization.
fn ack_path() -> Time {
    Time::from_ms(10) + Time::from_ns(384)
}

/// The round trip of a data segment and its ACK through empty queues: the data packet's
/// 10 ms, 1.2 us + 12 us + 1.2 us, then the ACK's path back.
fn rtt() -> Time {
    Time::from_ms(10) + Time::from_ns(14_400) + ack_path()
}

/// The series' sampling interval: one bottleneck packet time, so every instant below is read
/// to within `s` (R / s = 1,668: 0.0006 of a round trip).
fn interval() -> Time {
    s()
}

/// The run, with flow 0's cwnd and acknowledged bytes and the bottleneck's queue sampled every
/// `s` until 400 ms.
fn run() -> World {
    let flows = json!([{"src": "l0", "dst": "r0", "start": 0, "size": SEGMENTS * MSS}]);
    let mut sc = common::dumbbell(flows, json!({"iw": 10}), 1_667);
    sc["topology"]["bottleneck_delay"] = json!("10ms");
    // Not drained: the run, and the sampling, go on to 400 ms, past the flow's end.
    sc["duration"] = json!("400ms");
    sc["drain"] = json!(false);
    sc["max_time"] = json!("400ms");
    sc["output"] = json!({"series": {"interval": "12us", "flows": [0], "links": ["bottleneck"]}});
    let mut w = common::world(&sc);
    w.run();
    w
}

/// (time, value) of the `metric` rows of `target`.
fn rows(w: &World, metric: &str, target: &str) -> Vec<(Time, u64)> {
    let s = &w.series;
    (0..s.time.len())
        .filter(|&i| s.metric[i].name() == metric && s.target[i] == target)
        .map(|i| (s.time[i], s.value[i] as u64))
        .collect()
}

#[test]
fn one_overflow_recovers_in_two_and_a_half_round_trips() {
    let w = run();
    let r = &w.records[0];
    assert_eq!(r.delivered, SEGMENTS * MSS, "every byte arrives");

    // The burst: every other segment from 6,659 to 9,999, all full-sized data segments.
    let lost = (SEGMENTS - 6_659).div_ceil(2);
    assert_eq!(lost, 1_671);
    assert_eq!(w.counters.dropped_pkts, lost, "one overflow of the BDP buffer");
    assert_eq!(w.counters.dropped_bytes, lost * WIRE);
    assert_eq!(r.timeouts, 0, "recovered without the RTO");
    assert_eq!(r.retx_bytes, lost * MSS, "each lost segment retransmitted once, none other");

    let cwnd = rows(&w, "cwnd_bytes", "flow0");
    let acked = rows(&w, "acked_bytes", "flow0");
    assert_eq!(cwnd.len(), acked.len());

    // Entry: the one sample where cwnd falls. The window never falls again (one recovery,
    // no timeout's 1 MSS) and stays at ssthresh = FlightSize / 2 until the flow ends.
    let cuts: Vec<usize> = (1..cwnd.len()).filter(|&i| cwnd[i].1 < cwnd[i - 1].1).collect();
    assert_eq!(cuts.len(), 1, "recovery entered once");
    let k = cuts[0];
    let flight = SEGMENTS - 6_659;
    assert_eq!(cwnd[k].1, flight * MSS / 2, "(4.2) ssthresh = cwnd = FlightSize / 2");
    assert_eq!(cwnd[k].1, 2_438_930);
    assert!(cwnd[k..].iter().all(|&(_, c)| c == flight * MSS / 2), "cwnd stays put in recovery");
    assert_eq!(acked[k].1, 6_659 * MSS, "HighACK at entry: the first hole");
    // T0 lies in (entry_lo, entry_hi].
    let (entry_lo, entry_hi) = (cwnd[k - 1].0, cwnd[k].0);

    // Exit: the full ACK, which covers RecoveryPoint = HighData = the whole flow. No delayed
    // ACKs: it leaves the receiver when the last byte arrives (the flow's finish) and takes the
    // ACK path back. The sender is then done, so the flow's rows stop there (the run samples
    // on, without them).
    let finish = r.finish.expect("the flow completes");
    let exit = finish + ack_path();
    let last_row = cwnd.last().unwrap().0;
    assert!(*w.series.time.last().unwrap() > exit + rtt());
    assert!(last_row < exit && exit <= last_row + interval(), "rows end at the exit: {last_row:?}, {exit:?}");
    assert!(acked.last().unwrap().1 < SEGMENTS * MSS, "the full ACK ends the flow and recovery");

    // The derived duration, 2 R + 837 s. pipe after the fast retransmission: the flight less
    // three SACKed segments and one lost, plus the retransmission; step (C) sends while
    // cwnd - pipe >= 1 SMSS, i.e. pipe <= floor(cwnd / SMSS) - 1; each SACK lowers pipe by two.
    let pipe0 = flight - 3 - 1 + 1;
    let room = flight * MSS / 2 / MSS - 1;
    assert_eq!((pipe0, room), (3_338, 1_669));
    let silent = (pipe0 - room).div_ceil(2);
    assert_eq!(silent, 835);
    // The last retransmission, 9,999's, leaves on the third partial ACK of the pairs, one
    // round trip after the first pair left, and is acknowledged one round trip later.
    let derived = rtt() + rtt() + s().times(silent + 2);
    assert_eq!(derived, Time::from_ns(50_073_568));
    assert!(
        exit - entry_hi <= derived && derived < exit - entry_lo,
        "recovery lasts {:?}..{:?}, derived {derived:?}",
        exit - entry_hi,
        exit - entry_lo
    );
    // In round trips: 2.5, exactly to the half round trip, 2.502 to the sample.
    let trips = (exit - entry_hi).as_secs_f64() / rtt().as_secs_f64();
    assert_eq!((trips * 2.0).round(), 5.0, "{trips} round trips");
    assert!((trips - 2.502).abs() < 0.001, "{trips} round trips");

    // The shape of the walk, from HighACK (acked bytes) against T0 (to within one sample):
    let at = |from: Time, to: Time| -> Vec<u64> {
        acked.iter().filter(|&&(t, _)| t > from && t < to).map(|&(_, a)| a).collect()
    };
    // round 1 is all SACKs: HighACK stays at the first hole for a round trip;
    let round1 = at(entry_hi, entry_lo + rtt());
    assert!(round1.len() > 1_600 && round1.iter().all(|&a| a == 6_659 * MSS));
    // the fast retransmission's ACK (at T0 + R, 1.2 us late: it queued behind the flight's
    // last packet) is one partial ACK, and nothing follows it for 835 s;
    let gap = at(entry_hi + rtt() + s(), entry_lo + rtt() + s().times(silent));
    assert!(gap.len() > 800 && gap.iter().all(|&a| a == 6_661 * MSS), "{:?}", &gap[..3]);
    // then the pairs' partial ACKs, one per `s` and two segments each, up to the last hole.
    let tail = at(entry_hi + rtt() + s().times(silent + 1), exit);
    assert!(tail.windows(2).all(|p| p[0] <= p[1]));
    let per_sample = (tail[tail.len() - 1] - tail[0]) as f64 / (tail.len() - 1) as f64 / MSS as f64;
    assert!((per_sample - 2.0).abs() < 0.01, "{per_sample} segments per s");
    assert_eq!(*tail.last().unwrap(), 9_999 * MSS, "the partial ACK before the full one");

    // The bottleneck's queue: empty while the sender is silent (the link idles for half a
    // round trip), 833 packets when the pairs stop (1,666 sent in 833 s, 833 served), empty
    // again when the tail holes leave.
    let queue = |from: Time, to: Time| -> Vec<u64> {
        let q = rows(&w, "queue_bytes", "bottleneck");
        q.iter().filter(|&&(t, _)| t > from && t < to).map(|&(_, b)| b).collect()
    };
    assert!(queue(entry_hi + s(), entry_lo + s().times(silent)).iter().all(|&b| b == 0));
    assert_eq!(queue(entry_hi, exit).into_iter().max(), Some(833 * WIRE));
    assert!(queue(entry_hi + rtt() + s().times(silent), exit).iter().all(|&b| b <= WIRE));
}

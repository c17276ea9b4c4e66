//! TCP: NewReno/CUBIC window, SACK loss recovery (RFC 6675; go-back-N for a queue pair), RTO
//! (RFC 6298), sans-IO. The handshake, scoreboard, timer and ACK intake are the connection
//! core's (`transport/conn/`); this module is the window loop over it, and the receiver.
//!
//! | file | concern |
//! |---|---|
//! | `config.rs` | per-flow settings (MSS, initial window, RTO bounds, delayed ACKs, controller) |
//! | `hook.rs` | the window loop's one plug-in point (RC3's low-priority loop) |
//! | `nextseg.rs` | NextSeg rules (3) and (4) of fast recovery: the tail of a window (RFC 6675 sec. 4) |
//! | `pacer.rs` | the pacing clock of paced senders (R-TCP): one packet per `wire bits / rate` |
//! | `sender.rs` | the window loop: cwnd, NextSeg rules (3)-(4), fast recovery, reaction to timeouts; the most segments in flight |
//! | `receiver.rs` | cumulative ACK, SACK blocks most recent first, delayed ACKs |
//! | `receiver/go_back_n.rs` | go-back-N's receiver: in-order data only, NACKs at most once per interval per hole |

pub mod config;
#[cfg(test)]
mod go_back_n_tests;
pub mod hook;
pub mod nextseg;
pub mod pacer;
pub mod receiver;
pub mod sender;

pub use config::TcpConfig;
pub use receiver::TcpReceiver;
pub use sender::{TcpSender, MAX_FLIGHT_SEGMENTS};

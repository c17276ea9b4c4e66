//! TCP: NewReno/CUBIC window, SACK loss recovery (RFC 6675), RTO (RFC 6298), sans-IO.
//!
//! | file | concern |
//! |---|---|
//! | `config.rs` | per-flow settings (MSS, initial window, RTO bounds, delayed ACKs, controller) |
//! | `segments.rs` | the flow's byte stream cut into segments, write by write |
//! | `scoreboard.rs` | per-segment SACK scoreboard, `pipe`, `IsLost` (RFC 6675 sec. 4) |
//! | `nextseg.rs` | NextSeg rules (3) and (4) of fast recovery: the tail of a window (RFC 6675 sec. 4) |
//! | `pacer.rs` | the pacing clock of paced senders (R-TCP): one packet per `wire bits / rate` |
//! | `rtt.rs` | SRTT/RTTVAR/RTO estimator with exponential backoff (RFC 6298) |
//! | `sender.rs` | handshake, send loop, ACK processing, fast recovery, timeouts |
//! | `receiver.rs` | cumulative ACK, SACK blocks most recent first, delayed ACKs |

pub mod config;
pub mod nextseg;
pub mod pacer;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod segments;
pub mod sender;

pub use config::TcpConfig;
pub use receiver::TcpReceiver;
pub use sender::TcpSender;

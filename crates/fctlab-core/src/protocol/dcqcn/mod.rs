//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015):
//! QCN's rate law carried over ECN. The switch (CP) marks ECN on its egress queue, the receiver
//! (NP) turns marks into congestion notifications (CNPs), the sender (RP) cuts its rate on a CNP
//! and climbs back by timer and byte counter.
//!
//! | part | file |
//! |---|---|
//! | host law (rate), the RP | `host.rs`: [`Dcqcn`], the cut and alpha (eqs. 1-3) and the increase stages, fast recovery, additive and hyper-additive (eqs. 4-6) |
//! | receiver, the NP | `echo.rs`: [`DcqcnEcho`], at most one CNP per interval N per flow, carried as ECE on an ACK (the registry's `EcnEcho::Dcqcn`) |
//! | switch, the CP | any ECN marking queue; the paper's is `kind = "red"` with `w_q = 1`, `gentle = false`, `spread = false` (Kmin = `min_th`, Kmax = `max_th`, Pmax = `max_p` on the instantaneous queue, `qdisc/aqm.rs`) |
//! | header | none: the IP ECN field and the ACK's ECE flag |
//! | scenario keys | `params.rs`: [`DcqcnKeys`], `protocol = "dcqcn"` |
//!
//! The paced sender (`transport/paced/`) carries the law: the RP's timers are the law's own
//! ([`crate::transport::paced::law::RateControl::next_timer`]), its CNPs the ECE of the ACKs.

pub mod echo;
pub mod host;
pub mod params;

pub use echo::DcqcnEcho;
pub use host::{Dcqcn, DcqcnConfig, HyperStep};
pub use params::DcqcnKeys;

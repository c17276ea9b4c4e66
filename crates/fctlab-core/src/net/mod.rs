//! The network: packets and links (nodes and routes are built from [`crate::topology`]), and
//! what a lossless fabric adds to them: a port's control class, PAUSE state and ingress record
//! (`lossless`), a switch's shared buffer (`mmu`).

pub mod checksum;
pub mod link;
pub mod lossless;
pub mod mmu;
pub mod packet;

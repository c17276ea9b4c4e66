//! The network: packets and links (nodes and routes are built from [`crate::topology`]).

pub mod checksum;
pub mod link;
pub mod packet;

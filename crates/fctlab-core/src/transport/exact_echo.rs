//! The interface of an exact ECN echo, the receiver's state machine of
//! [`super::ecn::EcnMode::Exact`]: each protocol's echo (the registry's `EcnEcho` variants,
//! in their folders) implements it. A leaf: it imports nothing of the registry.

use crate::units::Time;

/// What an exact echo (a variant of the registry's `EcnEcho`, in its protocol's folder)
/// implements: the receiver's state machine from the CE of the data packets to the ECE of its
/// ACKs.
pub trait ExactEcho {
    /// A data packet arrived at `now`, with CE if `ce`, while `pending` packets wait for a
    /// delayed ACK; true if that ACK must leave first, with the ECE [`ExactEcho::ece`] gave
    /// before this call.
    fn on_data(&mut self, ce: bool, pending: u32, now: Time) -> bool;
    /// The ECE of the next ACK.
    fn ece(&self) -> bool;
    /// An ACK carrying [`ExactEcho::ece`] has left (an echo that sends a notification once,
    /// such as a CNP, clears it here).
    fn on_ack_sent(&mut self) {}
}

//! The registry's exact ECN echoes: what a receiver in
//! [`crate::transport::ecn::EcnMode::Exact`] runs, each from its protocol's folder.

use crate::protocol::registry::protocols;
use crate::transport::exact_echo::ExactEcho;
use crate::units::Time;

/// Generates [`EcnEcho`] from the table's `echo` column (`registry.rs`).
macro_rules! ecn_echoes {
    ($($folder:ident { name: $name:literal, title: $title:literal, host_key: $host_key:literal, header: [$($header:tt)*], carries: [$($carries:tt)*], law: [$($law:tt)*], queue: [$($queue:tt)*], qdisc: [$($qdisc:tt)*], cost: [$($cost:tt)*], hook: [$($hook:tt)*], echo: [$($V:ident($E:ident))?], $($more:tt)* })*) => {
        /// The exact ECN echoes fctlab has (RFC 8257 sec. 3.2: an ACK's ECE is the CE of the
        /// packets it covers), statically dispatched: the receiver's state machine of
        /// [`crate::transport::ecn::EcnMode::Exact`].
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub enum EcnEcho {
            $($(
                #[doc = concat!("The echo of ", $name, " (`", stringify!($folder), "/`).")]
                $V(crate::protocol::$folder::$E),
            )?)*
        }

        impl EcnEcho {
            /// A data packet arrived at `now`, with CE if `ce`, while `pending` packets wait
            /// for a delayed ACK; true if that ACK must leave first, with the ECE
            /// [`EcnEcho::ece`] gave before.
            #[inline]
            pub fn on_data(&mut self, ce: bool, pending: u32, now: Time) -> bool {
                match self {
                    $($( EcnEcho::$V(e) => ExactEcho::on_data(e, ce, pending, now), )?)*
                }
            }

            /// An ACK carrying [`EcnEcho::ece`] has left.
            #[inline]
            pub fn on_ack_sent(&mut self) {
                match self {
                    $($( EcnEcho::$V(e) => ExactEcho::on_ack_sent(e), )?)*
                }
            }

            /// The ECE of the next ACK.
            #[inline]
            pub fn ece(&self) -> bool {
                match self {
                    $($( EcnEcho::$V(e) => ExactEcho::ece(e), )?)*
                }
            }
        }
    };
}

protocols!(ecn_echoes);

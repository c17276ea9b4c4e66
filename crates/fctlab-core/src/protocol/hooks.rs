//! The registry's loops beside the window ([`WindowHook`]), generated from the table's `hook`
//! column (`registry.rs`): the sender holds an `Option<Hook>` and matches, no virtual call.

use crate::net::packet::Packet;
use crate::protocol::registry::protocols;
use crate::protocol::{CcKind, LabelCtx};
use crate::transport::conn::scoreboard::Scoreboard;
use crate::transport::conn::{Connection, LowPriorityCopies};
use crate::transport::tcp::hook::WindowHook;
use crate::units::Time;

/// Generates [`HookConfig`] and [`Hook`] from the table's `hook` column (`registry.rs`).
macro_rules! window_hooks {
    ($($folder:ident { name: $name:literal, title: $title:literal, host_key: $host_key:literal, header: [$($header:tt)*], carries: [$($carries:tt)*], law: [$($law:tt)*], queue: [$($queue:tt)*], qdisc: [$($qdisc:tt)*], cost: [$($cost:tt)*], hook: [$($V:ident($H:ident, $C:ident))?], $($more:tt)* })*) => {
        /// A sending loop beside the window loop (config, not state): what [`Hook`] builds.
        #[derive(Copy, Clone, Debug, PartialEq)]
        pub enum HookConfig {
            $($(
                #[doc = concat!("The loop of ", $name, " (`", stringify!($folder), "/`).")]
                $V(crate::protocol::$folder::$C),
            )?)*
        }

        /// A window loop's hook ([`WindowHook`]), statically dispatched.
        #[derive(Clone, Debug)]
        pub enum Hook {
            $($(
                #[doc = concat!("The loop of ", $name, " (`", stringify!($folder), "/`).")]
                $V(crate::protocol::$folder::$H),
            )?)*
        }

        impl HookConfig {
            /// The flow table's `protocol` label of a loss-based window of `kind` with this hook.
            pub fn label(&self, kind: CcKind, at: LabelCtx) -> String {
                match self {
                    $($( HookConfig::$V(_) => crate::protocol::$folder::label(kind.name(), at), )?)*
                }
            }

            /// The protocol whose loop this is, as its row names it (`"rc3"`): the run's memory
            /// estimate names it beside the segments the loop queues at once.
            pub fn protocol(&self) -> &'static str {
                match self {
                    $($( HookConfig::$V(_) => $name, )?)*
                }
            }
        }

        impl Hook {
            /// A fresh hook beside a window loop sending at band `prio`.
            pub fn new(cfg: HookConfig, prio: u8) -> Hook {
                match cfg {
                    $($( HookConfig::$V(c) => Hook::$V(crate::protocol::$folder::$H::new(c, prio)), )?)*
                }
            }
        }

        impl LowPriorityCopies for Hook {
            #[inline]
            fn sends_copies(&self) -> bool {
                match self {
                    $($( Hook::$V(h) => h.sends_copies(), )?)*
                }
            }
            #[inline]
            fn delivered(&mut self, i: u32) {
                match self {
                    $($( Hook::$V(h) => h.delivered(i), )?)*
                }
            }
        }

        impl WindowHook for Hook {
            #[inline]
            fn on_write(&mut self, first: u32, end: u32) {
                match self {
                    $($( Hook::$V(h) => h.on_write(first, end), )?)*
                }
            }
            #[inline]
            fn after_send<F>(&mut self, conn: &mut Connection, send: F)
            where
                F: FnMut(&mut Connection, u32, u8) -> bool,
            {
                match self {
                    $($( Hook::$V(h) => h.after_send(conn, send), )?)*
                }
            }
            #[inline]
            fn holds_back(&self, i: u32, cwnd: u64, mss: u64) -> bool {
                match self {
                    $($( Hook::$V(h) => h.holds_back(i, cwnd, mss), )?)*
                }
            }
            #[inline]
            fn is_repair(&self, board: &Scoreboard, i: u32) -> bool {
                match self {
                    $($( Hook::$V(h) => h.is_repair(board, i), )?)*
                }
            }
            #[inline]
            fn takes_ack(&mut self, conn: &mut Connection, now: Time, pkt: &Packet) -> bool {
                match self {
                    $($( Hook::$V(h) => h.takes_ack(conn, now, pkt), )?)*
                }
            }
            #[inline]
            fn on_ack(&mut self, ack_seg: u32) {
                match self {
                    $($( Hook::$V(h) => h.on_ack(ack_seg), )?)*
                }
            }
            #[inline]
            fn on_timeout(&mut self, una: u32) {
                match self {
                    $($( Hook::$V(h) => h.on_timeout(una), )?)*
                }
            }
            #[inline]
            fn keeps_timer(&self, conn: &Connection) -> bool {
                match self {
                    $($( Hook::$V(h) => h.keeps_timer(conn), )?)*
                }
            }
        }
    };
}

protocols!(window_hooks);

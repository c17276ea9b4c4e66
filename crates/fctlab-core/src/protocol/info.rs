//! What the registry tells of each protocol ([`PROTOCOLS`]), generated from the table
//! (`registry.rs`): its names, header bytes and wire tags, queue kind, metrics and folder.

use crate::protocol::registry::protocols;

/// What the registry knows of a protocol.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProtocolInfo {
    /// Its name, as `transport.protocol` or `transport.cc` spells it.
    pub name: &'static str,
    /// What it is, and where it comes from.
    pub title: &'static str,
    /// The scenario key that selects it on hosts (`transport.protocol = ...` or `transport.cc = ...`).
    pub host_key: &'static str,
    /// The queue kind of its router law (`queues.*.kind`), if it has one.
    pub queue: Option<&'static str>,
    /// Its congestion header's bytes on the wire, on top of TCP/IP's (0: none).
    pub header_bytes: u32,
    /// The series metrics its router law emits, in order.
    pub metrics: &'static [&'static str],
    /// Its folder under `crates/fctlab-core/src/protocol/`.
    pub folder: &'static str,
    /// The wire tags of its congestion header, forward and echo (empty: no header).
    pub wire_tags: &'static [u8],
}

/// `Some(x)` for a present part, `None` for an absent one.
macro_rules! present {
    () => {
        None
    };
    ($x:expr) => {
        Some($x)
    };
}

/// The series metrics of a folder's router law (its `router::METRICS`); none without a law.
macro_rules! law_metrics {
    () => {
        &[]
    };
    ($folder:ident $L:ident) => {
        $crate::protocol::$folder::router::METRICS
    };
}

/// The wire tags of the header a protocol carries (its `header::TAGS`); none without one.
macro_rules! carried_tags {
    () => {
        &[]
    };
    ($carrier:ident) => {
        $crate::protocol::$carrier::header::TAGS
    };
}

macro_rules! protocol_info {
    ($(
        $folder:ident {
            name: $name:literal,
            title: $title:literal,
            host_key: $host_key:literal,
            header: $header:tt,
            carries: [$( $carrier:ident )?],
            law: [$( $L:ident ( $LT:ident ) )?],
            queue: [$( $queue:literal )?],
            $($more:tt)*
        }
    )*) => {
        /// Every protocol fctlab has, in the table's order.
        pub const PROTOCOLS: [ProtocolInfo; [$(stringify!($folder)),*].len()] = [$(
            ProtocolInfo {
                name: $name,
                title: $title,
                host_key: $host_key,
                queue: present!($($queue)?),
                header_bytes: 0 $( + $crate::protocol::$carrier::header::BYTES )?,
                metrics: law_metrics!($( $folder $L )?),
                folder: stringify!($folder),
                wire_tags: carried_tags!($( $carrier )?),
            },
        )*];
    };
}

protocols!(protocol_info);

/// The protocol named `name`, if fctlab has it.
pub fn info(name: &str) -> Option<&'static ProtocolInfo> {
    PROTOCOLS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_folders_are_unique() {
        for (i, p) in PROTOCOLS.iter().enumerate() {
            assert!(PROTOCOLS[..i].iter().all(|q| q.name != p.name && q.folder != p.folder), "{}", p.name);
            assert_eq!(info(p.name), Some(p));
        }
        assert_eq!(info("bbr"), None);
    }
}

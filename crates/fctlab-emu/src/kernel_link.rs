//! What the router process is told of each host whose kernel TCP it carries ([`super::raw`]).
//!
//! The orchestrator (`python/fctlab/emulate/kernel.py`) builds one [`KernelLink`] per host,
//! the Python class `fctlab._core.KernelLink`, checked when it is made: the host's node id, the
//! router end of its veth (a Linux interface name), the host end's IPv4 and MAC addresses. It
//! hands them to the router process as a JSON list ([`to_json`]), which that process decodes
//! with serde and checks again ([`from_json`]) before the router opens its packet socket:
//!
//! ```json
//! [{"node": 3, "ifname": "r3", "host_ip": "198.18.0.14", "host_mac": "02:00:00:00:00:03"}]
//! ```
//!
//! Every error names the field (`kernel_link.ifname`, `kernel_links[2].host_mac`), the value
//! and what was expected.

use fctlab_core::error::{SpecError, SpecResult};
use serde::{Deserialize, Serialize};
use std::net::Ipv4Addr;

/// Longest interface name Linux takes (IFNAMSIZ - 1).
pub const IFNAME_MAX: usize = 15;

/// One host reached over a veth whose router end is in the router's namespace; its values are
/// checked when it is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLink {
    node: u32,
    ifname: String,
    host_ip: Ipv4Addr,
    host_mac: [u8; 6],
}

impl KernelLink {
    /// The link of host `node` whose veth's router end is `ifname`, checked. Errors name the
    /// field without a prefix (`ifname`, `host_ip`, `host_mac`).
    pub fn new(node: u32, ifname: &str, host_ip: Ipv4Addr, host_mac: [u8; 6]) -> SpecResult<KernelLink> {
        check_ifname(ifname)?;
        check_host_ip(host_ip)?;
        check_host_mac(host_mac, &format_mac(host_mac))?;
        Ok(KernelLink { node, ifname: ifname.to_string(), host_ip, host_mac })
    }

    /// As [`KernelLink::new`], the addresses as text: IPv4 dotted quad, MAC as six two-digit
    /// hex octets separated by ':'.
    pub fn parse(node: u32, ifname: &str, host_ip: &str, host_mac: &str) -> SpecResult<KernelLink> {
        KernelLink::new(node, ifname, parse_ip(host_ip)?, parse_mac(host_mac)?)
    }

    /// Topology node id of the host.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// The router end of its veth, e.g. "r3".
    pub fn ifname(&self) -> &str {
        &self.ifname
    }

    /// The host's address.
    pub fn host_ip(&self) -> Ipv4Addr {
        self.host_ip
    }

    /// The host end's MAC address.
    pub fn host_mac(&self) -> [u8; 6] {
        self.host_mac
    }
}

/// A Linux interface name: 1 to [`IFNAME_MAX`] bytes, not "." or "..", without '/', ':' or
/// whitespace (the kernel's `dev_valid_name`).
fn check_ifname(ifname: &str) -> SpecResult<()> {
    let bad_char = |c: char| c == '/' || c == ':' || c == '\0' || c.is_whitespace();
    if ifname.is_empty() || ifname.len() > IFNAME_MAX || ifname == "." || ifname == ".." || ifname.contains(bad_char) {
        return Err(SpecError::new(
            "ifname",
            format!(
                "expected a Linux interface name (1 to {IFNAME_MAX} bytes, without '/', ':' or whitespace, \
                 e.g. \"r3\"), got {ifname:?} ({} bytes)",
                ifname.len()
            ),
        ));
    }
    Ok(())
}

/// A host's own address: not 0.0.0.0, broadcast or multicast.
fn check_host_ip(ip: Ipv4Addr) -> SpecResult<()> {
    if ip.is_unspecified() || ip.is_broadcast() || ip.is_multicast() {
        return Err(SpecError::new(
            "host_ip",
            format!("expected a host's IPv4 address (not 0.0.0.0, broadcast or multicast), got \"{ip}\""),
        ));
    }
    Ok(())
}

/// A host's own MAC: unicast (the first octet's lowest bit clear) and not all zeros; `text` is
/// the value as given.
fn check_host_mac(mac: [u8; 6], text: &str) -> SpecResult<()> {
    if mac[0] & 1 != 0 || mac == [0; 6] {
        return Err(SpecError::new(
            "host_mac",
            format!("expected a unicast MAC address (not multicast, broadcast or all zeros), got {text}"),
        ));
    }
    Ok(())
}

/// An IPv4 address in dotted quad, e.g. "198.18.0.2".
pub fn parse_ip(text: &str) -> SpecResult<Ipv4Addr> {
    text.parse().map_err(|_| {
        SpecError::new("host_ip", format!("expected an IPv4 address (dotted quad, e.g. 198.18.0.2), got {text:?}"))
    })
}

/// Six two-digit hex octets separated by ':' (either case), e.g. "02:00:00:00:00:03".
pub fn parse_mac(text: &str) -> SpecResult<[u8; 6]> {
    let bad = || {
        SpecError::new(
            "host_mac",
            format!("expected a MAC address (six two-digit hex octets separated by ':', e.g. 02:00:00:00:00:03), got {text:?}"),
        )
    };
    let mut mac = [0u8; 6];
    let mut octets = text.split(':');
    for o in &mut mac {
        let hex = octets.next().filter(|h| h.len() == 2 && h.bytes().all(|b| b.is_ascii_hexdigit())).ok_or_else(bad)?;
        *o = u8::from_str_radix(hex, 16).map_err(|_| bad())?;
    }
    if octets.next().is_some() {
        return Err(bad());
    }
    Ok(mac)
}

/// `02:ab:00:00:00:03`.
pub fn format_mac(mac: [u8; 6]) -> String {
    mac.map(|o| format!("{o:02x}")).join(":")
}

/// A [`KernelLink`] as JSON: what the router process is handed.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelLinkJson {
    node: u32,
    ifname: String,
    host_ip: String,
    host_mac: String,
}

/// The JSON list of `links` (see the module doc).
pub fn to_json(links: &[KernelLink]) -> String {
    let list: Vec<KernelLinkJson> = links
        .iter()
        .map(|l| KernelLinkJson {
            node: l.node,
            ifname: l.ifname.clone(),
            host_ip: l.host_ip.to_string(),
            host_mac: format_mac(l.host_mac),
        })
        .collect();
    serde_json::to_string(&list).expect("numbers and strings always serialize")
}

/// The links of a JSON list written by [`to_json`], each checked as [`KernelLink::new`] does;
/// errors name the field as `kernel_links[i].field`.
pub fn from_json(text: &str) -> SpecResult<Vec<KernelLink>> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let list: Vec<KernelLinkJson> = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let msg = fctlab_core::spec_de::json_message(text, e.inner());
        let (path, msg) = fctlab_core::spec_de::join_path(format!("kernel_links{path}"), msg);
        SpecError::new(path, msg)
    })?;
    list.iter()
        .enumerate()
        .map(|(i, l)| {
            KernelLink::parse(l.node, &l.ifname, &l.host_ip, &l.host_mac)
                .map_err(|e| e.within(&format!("kernel_links[{i}]")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(ifname: &str, ip: &str, mac: &str) -> SpecResult<KernelLink> {
        KernelLink::parse(3, ifname, ip, mac)
    }

    #[test]
    fn a_link_is_made_from_its_fields() {
        let l = link("r3", "198.18.0.2", "02:AB:00:00:00:03").unwrap();
        assert_eq!((l.node(), l.ifname(), l.host_ip()), (3, "r3", Ipv4Addr::new(198, 18, 0, 2)));
        assert_eq!(l.host_mac(), [2, 0xab, 0, 0, 0, 3]);
        assert_eq!(format_mac(l.host_mac()), "02:ab:00:00:00:03");
        assert!(link("r0123456789abcd", "198.18.0.2", "02:00:00:00:00:03").is_ok(), "15 bytes");
    }

    #[test]
    fn bad_values_name_the_field_the_value_and_what_was_expected() {
        let cases = [
            (
                ("r0123456789abcde", "198.18.0.2", "02:00:00:00:00:03"),
                "field `ifname`: expected a Linux interface name",
            ),
            (("", "198.18.0.2", "02:00:00:00:00:03"), "got \"\" (0 bytes)"),
            (("r/3", "198.18.0.2", "02:00:00:00:00:03"), "field `ifname`"),
            (("r 3", "198.18.0.2", "02:00:00:00:00:03"), "field `ifname`"),
            (("..", "198.18.0.2", "02:00:00:00:00:03"), "field `ifname`"),
            (("r3", "198.18.0", "02:00:00:00:00:03"), "field `host_ip`: expected an IPv4 address (dotted quad"),
            (("r3", "198.18.0.256", "02:00:00:00:00:03"), "got \"198.18.0.256\""),
            (("r3", "::1", "02:00:00:00:00:03"), "field `host_ip`"),
            (("r3", "255.255.255.255", "02:00:00:00:00:03"), "field `host_ip`: expected a host's IPv4 address"),
            (("r3", "198.18.0.2", "02:00:00:00:00"), "field `host_mac`: expected a MAC address (six two-digit hex"),
            (("r3", "198.18.0.2", "zz:00:00:00:00:03"), "got \"zz:00:00:00:00:03\""),
            (("r3", "198.18.0.2", "2:00:00:00:00:03"), "field `host_mac`"),
            (("r3", "198.18.0.2", "02:00:00:00:00:03:04"), "field `host_mac`"),
            (("r3", "198.18.0.2", "02-00-00-00-00-03"), "field `host_mac`"),
            (("r3", "198.18.0.2", "ff:ff:ff:ff:ff:ff"), "field `host_mac`: expected a unicast MAC address"),
            (("r3", "198.18.0.2", "00:00:00:00:00:00"), "field `host_mac`: expected a unicast MAC address"),
        ];
        for ((ifname, ip, mac), want) in cases {
            let e = link(ifname, ip, mac).unwrap_err().to_string();
            assert!(e.contains(want), "{ifname:?} {ip:?} {mac:?}: {e}");
        }
        let e = KernelLink::new(3, "r3", Ipv4Addr::UNSPECIFIED, [2, 0, 0, 0, 0, 3]).unwrap_err();
        assert_eq!(e.field, "host_ip");
    }

    #[test]
    fn the_json_list_round_trips_and_each_entry_is_checked_again() {
        let links = vec![
            KernelLink::parse(3, "r3", "198.18.0.2", "02:00:00:00:00:03").unwrap(),
            KernelLink::parse(7, "r7", "198.18.0.6", "0a:1b:2c:3d:4e:5f").unwrap(),
        ];
        let text = to_json(&links);
        assert_eq!(
            text,
            r#"[{"node":3,"ifname":"r3","host_ip":"198.18.0.2","host_mac":"02:00:00:00:00:03"},{"node":7,"ifname":"r7","host_ip":"198.18.0.6","host_mac":"0a:1b:2c:3d:4e:5f"}]"#
        );
        assert_eq!(from_json(&text).unwrap(), links);
        assert_eq!(from_json("[]").unwrap(), vec![]);
        let entry = |fields: &str| {
            format!(
                r#"[{{"node":3,"ifname":"r3","host_ip":"198.18.0.2","host_mac":"02:00:00:00:00:03"}}, {{{fields}}}]"#
            )
        };
        let cases = [
            (
                entry(r#""node":7,"ifname":"r7","host_ip":"198.18.0.6","host_mac":"01:00:00:00:00:00""#),
                "field `kernel_links[1].host_mac`: expected a unicast MAC address",
            ),
            (
                entry(
                    r#""node":7,"ifname":"a-very-long-ifname","host_ip":"198.18.0.6","host_mac":"02:00:00:00:00:07""#,
                ),
                "field `kernel_links[1].ifname`: expected a Linux interface name",
            ),
            (
                entry(r#""node":-1,"ifname":"r7","host_ip":"198.18.0.6","host_mac":"02:00:00:00:00:07""#),
                "field `kernel_links[1].node`: invalid value: integer `-1`, expected u32",
            ),
            (
                entry(r#""node":7,"ifname":"r7","host_ip":"198.18.0.6""#),
                "field `kernel_links[1]`: missing field `host_mac`",
            ),
            (
                entry(r#""node":7,"ifname":"r7","host_ip":"198.18.0.6","host_mac":"02:00:00:00:00:07","mtu":1500"#),
                "unknown field `mtu`",
            ),
            ("3,r3,198.18.0.2,02:00:00:00:00:03".to_string(), "field `kernel_links`: "),
            (r#"{"node":3}"#.to_string(), "field `kernel_links`: invalid type: map, expected a sequence"),
        ];
        for (text, want) in cases {
            let e = from_json(&text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}

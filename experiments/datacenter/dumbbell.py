"""The DCTCP experiments' dumbbell (`dctcp-long-flows.toml`): its packets and its round trip."""

#: Bytes per packet on the wire (1460 of payload, 40 of headers).
PKT = 1500
#: The round trip of the base scenario.
RTT = 100e-6

//! # fctlab-core: a deterministic packet-level simulator for flow-completion-time studies
//!
//! Module map (read top-down; each file is one concern):
//!
//! | module | what it holds |
//! |---|---|
//! | [`units`] | `Time` (integer picoseconds), `Rate` (bits/s): the only numbers the event loop sees |
//! | [`quantity`] | scenario quantities with units (`"10Gbps"`, `"40ms"`, `"5MB"`) |
//! | [`error`] | `SpecError`: user errors naming the field, the value and what was expected |
//! | [`rng`] | xoshiro256++ streams, one per consumer, derived from the scenario seed |
//! | [`workload`] | flow sizes (`sizes`), arrival processes (`arrivals`), host pairs, flow lists |
//! | [`topology`] | dumbbell, parking lot, Internet-2 (RC3), fat-tree, graphs from files; host groups |
//! | [`routing`] | static shortest paths (delay, then hops), optional ECMP by flow hash |

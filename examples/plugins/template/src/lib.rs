//! A template fctlab plug-in: a host law and a router law, each the same arithmetic as one of
//! fctlab's built-ins, so that a run with this plug-in gives the built-in's results bit for bit
//! (`experiments/plugins/` checks it).
//!
//! | law | file | fctlab's built-in |
//! |---|---|---|
//! | host law | `newreno.rs` | `transport.cc = "newreno"` (RFC 5681, RFC 6582) |
//! | router law | `rcp.rs` | `queues.*.kind = "rcp"` (the RCP thesis, eq. 3.3 and sec. 3.5) |
//!
//! Copy the folder, rename the package in `Cargo.toml`, replace the laws, and keep the last
//! line: it exports them.

mod newreno;
mod rcp;

fctlab_plugin::export_plugin!(name = "template", host = newreno::NewReno, router = rcp::Rcp);

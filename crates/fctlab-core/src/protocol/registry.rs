//! The registry's table, host side: one row per protocol folder, from which the closed lists of
//! the parts a host runs beside the window are generated.
//!
//! `protocols!(callback)` expands to `callback! { rows }`: a file that needs a list writes a
//! `macro_rules!` callback that matches the rows and builds its items from them. A row names
//! its parts by idents only, the folder and the type names of what the folder's `mod.rs`
//! exports; the callbacks build the paths, so the table itself imports nothing.
//!
//! A row is `folder { key: value, ... }`, the keys always present and in this order; an absent
//! part is an empty list `[]`. A callback ends its row pattern with `$($more:tt)*`, so that a
//! column added at the end leaves it unchanged.
//!
//! | key | value | what it generates |
//! |---|---|---|
//! | `name` | `"rc3"` | its scenario name |
//! | `hook` | `[Variant(HookType, ConfigType)]` | a loop beside the window ([`crate::transport::tcp::hook::WindowHook`]): a [`super::Hook`] and a [`super::HookConfig`] variant, built by `HookType::new(config, prio)`, labelled by the folder's `label(kind, at)` |
//! | `echo` | `[Variant(EchoType)]` | an exact ECN echo at the receiver: an [`super::EcnEcho`] variant (`on_data`, `ece`) |
//!
//! The window host laws (`Controller`, `CcConfig`), the rate host laws (`RateLaw`,
//! `RateConfig`) and the transports' keys (`keys.rs`) are still listed by hand.

/// Calls `$cb! { rows }` with the table (module docs).
macro_rules! protocols {
    ($cb:ident) => {
        $cb! {
            newreno { name: "newreno", hook: [], echo: [], }
            cubic { name: "cubic", hook: [], echo: [], }
            dctcp { name: "dctcp", hook: [], echo: [Dctcp(DctcpEcho)], }
            pfabric { name: "pfabric", hook: [], echo: [], }
            hpcc { name: "hpcc", hook: [], echo: [], }
            rc3 { name: "rc3", hook: [Rc3(Rc3Hook, Rc3Config)], echo: [], }
            rcp { name: "rcp", hook: [], echo: [], }
            rtcp { name: "rtcp", hook: [], echo: [], }
            xcp { name: "xcp", hook: [], echo: [], }
            jetmax { name: "jetmax", hook: [], echo: [], }
            piqi { name: "piqi", hook: [], echo: [], }
        }
    };
}

pub(crate) use protocols;

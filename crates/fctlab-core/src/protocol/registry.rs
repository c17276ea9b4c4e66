//! The registry's table: one row per protocol, from which every closed list is generated.
//!
//! `protocols!(callback)` expands to `callback! { rows }`: a file that needs a list (the
//! headers in `header.rs`, the router laws and the protocols' queue disciplines in `laws.rs`,
//! the host laws in `hosts.rs`, the transports in `keys.rs`, TCP's `cc` choices in
//! `tcp_cc.rs`, ...)
//! writes a `macro_rules!` callback that matches the rows and builds its items from them. A row
//! names its parts by idents only, the folder and the type names; the callbacks build the paths
//! (`$crate::protocol::$folder::header::$T` for a header struct, `$crate::protocol::$folder::$T`
//! for what the folder's `mod.rs` exports), so the table itself imports nothing.
//!
//! A row is `folder { key: value, ... }`, the keys always present and in this order; an absent
//! part is an empty list `[]`. A callback matches the keys it reads and ends its row pattern
//! with `$($more:tt)*`, so that a column added at the end leaves it unchanged.
//!
//! | key | value | what it generates |
//! |---|---|---|
//! | `name` | `"rcp"` | its scenario name ([`super::ProtocolInfo::name`]) |
//! | `title` | `"..."` | what it is and where it comes from |
//! | `host_key` | `"transport.protocol"` or `"transport.cc"` | the scenario key that selects it on hosts |
//! | `header` | `[Fwd(FwdStruct) = TAG => [Echo(EchoStruct) = TAG_ECHO]]`, the echo `[]` if receivers echo nothing | `CongestionHeader`'s variants (structs and tags of `<folder>/header.rs`), their echo, their wire encoding |
//! | `carries` | `[folder]` | whose header its packets carry: the info row's header bytes and wire tags (`BYTES`, `TAGS` of that folder's `header.rs`) |
//! | `law` | `[Variant(LawType)]` | its router law: a [`super::Law`] variant; the law's series metrics are its `router::METRICS` |
//! | `queue` | `["rcp"]` | the queue kind (`queues.*.kind`) its routers run |
//! | `qdisc` | `[Variant(PortType)]` | queue disciplines of its own: a [`super::ProtocolQueue`] variant each |
//! | `cost` | `[Variant at 2]` | its law (of `law`) is timed by the router-cost benchmark (`qdisc/cost.rs`), on the port the folder's `router::cost_port` builds, at that place in its table (seed 003's order: XCP, RCP, JetMax, PIQI-RCP; then HPCC) |
//! | `hook` | `[Variant(HookType, ConfigType)]` | a loop beside the window ([`crate::transport::tcp::hook::WindowHook`]): a [`super::Hook`] and a [`super::HookConfig`] variant, built by `HookType::new(config, prio)`, labelled by the folder's `label(kind, at)` |
//! | `echo` | `[Variant(EchoType)]` | an exact ECN echo at the receiver: an [`super::EcnEcho`] variant, implementing [`crate::transport::exact_echo::ExactEcho`] (`on_data`, `ece`, `on_ack_sent`) |
//! | `loss` | `[Variant(Type)]` | a loss-based window (NewReno, CUBIC): a [`super::CcKind`] and a [`super::LossBased`] variant, built by `Type::new(hystart)`, `cc = "<name>"` in a TCP part (`hosts.rs`) |
//! | `window` | `[Variant(Config => Controller)]` | a window host law: a [`super::CcConfig`] variant holding `Config`, a [`super::Controller`] variant holding `Controller`, which `Config` builds, labels and describes as a [`super::WindowConfig`] (`hosts.rs`) |
//! | `rate` | `[Variant(Config => Law), ...]` | rate host laws: a [`super::RateConfig`] variant holding `Config` and a [`super::RateLaw`] variant holding `Law` each, which `Config` builds and labels as a [`super::RateLawConfig`] (`hosts.rs`) |
//! | `keys` | `[Variant = "name" => Keys]` | a transport: `protocol = "name"` in a scenario's `transport`, its own keys parsed into `Keys` (a [`super::keys::Protocol`] and a [`super::keys::TransportKeys`] variant, after `tcp`; `keys.rs`) |
//! | `kinds` | `[Variant = "name" => Keys, ...]` | queue kinds: a `QueueKind` variant each (`crate::scenario`), `kind = "name"` in a scenario's `queues`, its keys parsed into the folder's `Keys`, which builds the port ([`crate::qdisc::KindKeys`], in the folder's `kind.rs`) |
//! | `tcp_cc` | `[Variant = "name" => Keys]` | a window of `protocol = "tcp"` beside the loss-based ones: `cc = "name"` in a scenario's `transport`, a [`super::tcp_cc::CcChoice`] variant; its own keys (DCTCP's `dctcp_g`, `dctcp_alpha`) parsed into the folder's `Keys` as `protocol = "tcp"`'s, inherited from `[transport]` only with that `cc`, and `Keys` ([`super::tcp_cc::CcKeys`], in the folder's `params.rs`) turns the TCP part's choice (`hystart`, `ecn`) into its `TcpConfig` (`tcp_cc.rs`) |
//!
//! A type a row names is exported by its folder's `mod.rs` (`pub use host::XcpConfig;`), a
//! header struct is its `header.rs`'s.
//!
//! Adding a protocol is its folder (its `mod.rs` exporting what the row names), its row here,
//! and its `pub mod <folder>;` line in `mod.rs`, which stays written by hand (rustfmt and
//! rust-analyzer follow only written `mod` lines). `docs/protocols.md`'s tutorial adds one,
//! and the test suite builds it.

/// Calls `$cb! { rows }` with the table (module docs).
macro_rules! protocols {
    ($cb:ident) => {
        $cb! {
            newreno {
                name: "newreno",
                title: "TCP NewReno with SACK (RFC 5681, RFC 6582, RFC 6675)",
                host_key: "transport.cc",
                header: [],
                carries: [],
                law: [],
                queue: [],
                qdisc: [],
                cost: [],
                hook: [],
                echo: [],
                loss: [NewReno(NewReno)],
                window: [],
                rate: [],
                keys: [],
                kinds: [],
                tcp_cc: [],
            }
            cubic {
                name: "cubic",
                title: "TCP CUBIC (RFC 9438) with HyStart (Linux) or HyStart++ (RFC 9406)",
                host_key: "transport.cc",
                header: [],
                carries: [],
                law: [],
                queue: [],
                qdisc: [],
                cost: [],
                hook: [],
                echo: [],
                loss: [Cubic(Cubic)],
                window: [],
                rate: [],
                keys: [],
                kinds: [],
                tcp_cc: [],
            }
            dctcp {
                name: "dctcp",
                title: "DCTCP, Data Center TCP (Alizadeh et al. 2010; RFC 8257)",
                host_key: "transport.cc",
                header: [],
                carries: [],
                law: [],
                queue: ["step"],
                qdisc: [],
                cost: [],
                hook: [],
                echo: [Dctcp(DctcpEcho)],
                loss: [],
                window: [Dctcp(DctcpConfig => Dctcp)],
                rate: [],
                keys: [],
                kinds: [],
                tcp_cc: [Dctcp = "dctcp" => DctcpKeys],
            }
            pfabric {
                name: "pfabric",
                title: "pFabric, minimal near-optimal datacenter transport (Alizadeh et al. 2013)",
                host_key: "transport.cc",
                header: [PFabric(PFabricHeader) = TAG => []],
                carries: [pfabric],
                law: [],
                queue: ["pfabric"],
                qdisc: [PFabric(PFabricQueue)],
                cost: [],
                hook: [],
                echo: [],
                loss: [],
                window: [PFabric(PFabricConfig => PFabric)],
                rate: [],
                keys: [],
                kinds: [Pfabric = "pfabric" => PFabricKeys],
                tcp_cc: [PFabric = "pfabric" => PFabricCcKeys],
            }
            hpcc {
                name: "hpcc",
                title: "HPCC, high precision congestion control (Li et al. 2019)",
                host_key: "transport.protocol",
                header: [Hpcc(IntStack) = TAG => [HpccFeedback(IntStack) = TAG_ECHO]],
                carries: [hpcc],
                law: [Hpcc(HpccLaw)],
                queue: ["hpcc"],
                qdisc: [],
                cost: [Hpcc at 5],
                hook: [],
                echo: [],
                loss: [],
                window: [Hpcc(HpccConfig => Hpcc)],
                rate: [],
                keys: [Hpcc = "hpcc" => HpccKeys],
                kinds: [Hpcc = "hpcc" => HpccQueueKeys],
                tcp_cc: [],
            }
            rc3 {
                name: "rc3",
                title: "RC3, recursively cautious congestion control (the RC3 paper)",
                host_key: "transport.protocol",
                header: [],
                carries: [],
                law: [],
                queue: ["prio"],
                qdisc: [],
                cost: [],
                hook: [Rc3(Rc3Hook, Rc3Config)],
                echo: [],
                loss: [],
                window: [],
                rate: [],
                keys: [Rc3 = "rc3" => Rc3Keys],
                kinds: [],
                tcp_cc: [],
            }
            rcp {
                name: "rcp",
                title: "RCP, the rate control protocol (Dukkipati's thesis)",
                host_key: "transport.protocol",
                header: [Rcp(RcpHeader) = TAG => [RcpFeedback(RcpEcho) = TAG_ECHO]],
                carries: [rcp],
                law: [Rcp(RcpLaw)],
                queue: ["rcp"],
                qdisc: [RcpTcp(RcpTcpPort)],
                cost: [Rcp at 2],
                hook: [],
                echo: [],
                loss: [],
                window: [],
                rate: [Rcp(RcpConfig => RcpHost), Fixed(FixedConfig => FixedRate)],
                keys: [Rcp = "rcp" => RcpKeys],
                kinds: [Rcp = "rcp" => RcpQueueKeys, RcpTcp = "rcp-tcp" => RcpTcpKeys],
                tcp_cc: [],
            }
            rtcp {
                name: "rtcp",
                title: "R-TCP, TCP with RCP's rate as its window (RCP thesis sec. 6.1.1)",
                host_key: "transport.protocol",
                header: [],
                carries: [rcp],
                law: [],
                queue: ["rcp"],
                qdisc: [],
                cost: [],
                hook: [],
                echo: [],
                loss: [],
                window: [Rtcp(RtcpConfig => Rtcp)],
                rate: [],
                keys: [Rtcp = "rtcp" => RtcpKeys],
                kinds: [],
                tcp_cc: [],
            }
            xcp {
                name: "xcp",
                title: "XCP, the explicit control protocol (Katabi et al. 2002; seed 003)",
                host_key: "transport.protocol",
                header: [Xcp(XcpHeader) = TAG => [XcpFeedback(XcpEcho) = TAG_ECHO]],
                carries: [xcp],
                law: [Xcp(XcpLaw)],
                queue: ["xcp"],
                qdisc: [],
                cost: [Xcp at 1],
                hook: [],
                echo: [],
                loss: [],
                window: [Xcp(XcpConfig => Xcp)],
                rate: [],
                keys: [Xcp = "xcp" => XcpKeys],
                kinds: [Xcp = "xcp" => XcpParams],
                tcp_cc: [],
            }
            jetmax {
                name: "jetmax",
                title: "JetMax (Zhang, Leonard, Loguinov; seed 003)",
                host_key: "transport.protocol",
                header: [JetMax(JetMaxHeader) = TAG => [JetMaxFeedback(JetMaxEcho) = TAG_ECHO]],
                carries: [jetmax],
                law: [JetMax(JetMaxLaw)],
                queue: ["jetmax"],
                qdisc: [],
                cost: [JetMax at 3],
                hook: [],
                echo: [],
                loss: [],
                window: [],
                rate: [JetMax(JetMaxConfig => JetMaxHost)],
                keys: [Jetmax = "jetmax" => JetMaxKeys],
                kinds: [Jetmax = "jetmax" => JetMaxParams],
                tcp_cc: [],
            }
            piqi {
                name: "piqi",
                title: "PIQI-RCP (Jain and Loguinov, IWQoS 2007; seed 003)",
                host_key: "transport.protocol",
                header: [Piqi(PiqiHeader) = TAG => [PiqiFeedback(PiqiEcho) = TAG_ECHO]],
                carries: [piqi],
                law: [Piqi(PiqiLaw)],
                queue: ["piqi"],
                qdisc: [],
                cost: [Piqi at 4],
                hook: [],
                echo: [],
                loss: [],
                window: [],
                rate: [Piqi(PiqiConfig => PiqiHost)],
                keys: [Piqi = "piqi" => PiqiKeys],
                kinds: [Piqi = "piqi" => PiqiParams],
                tcp_cc: [],
            }
            swift {
                name: "swift",
                title: "Swift, delay-based datacenter congestion control (Kumar et al. 2020)",
                host_key: "transport.cc",
                header: [],
                carries: [],
                law: [],
                queue: [],
                qdisc: [],
                cost: [],
                hook: [],
                echo: [],
                loss: [],
                window: [Swift(SwiftConfig => Swift)],
                rate: [],
                keys: [],
                kinds: [],
                tcp_cc: [Swift = "swift" => SwiftKeys],
            }
            dcqcn {
                name: "dcqcn",
                title: "DCQCN, congestion control for large-scale RDMA deployments (Zhu et al. 2015)",
                host_key: "transport.protocol",
                header: [],
                carries: [],
                law: [],
                queue: ["red"],
                qdisc: [],
                cost: [],
                hook: [],
                echo: [Dcqcn(DcqcnEcho)],
                loss: [],
                window: [],
                rate: [Dcqcn(DcqcnConfig => Dcqcn)],
                keys: [Dcqcn = "dcqcn" => DcqcnKeys],
                kinds: [],
                tcp_cc: [],
            }
            timely {
                name: "timely",
                title: "TIMELY, RTT-based congestion control for the datacenter (Mittal et al. 2015)",
                host_key: "transport.protocol",
                header: [],
                carries: [],
                law: [],
                queue: [],
                qdisc: [],
                cost: [],
                hook: [],
                echo: [],
                loss: [],
                window: [],
                rate: [Timely(TimelyConfig => Timely)],
                keys: [Timely = "timely" => TimelyKeys],
                kinds: [],
                tcp_cc: [],
            }
        }
    };
}

pub(crate) use protocols;

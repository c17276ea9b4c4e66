//! Transports: the `[transport]` / `[transports]` / `[[host_transport]]` schema, each
//! protocol's profile, and the build steps that pick a profile for every flow (named
//! transports, per-entry transports and mixes, per-host assignment).

use super::stack::{kernel_stack, Stack};
use super::{Nodes, ScenarioSpec};
use crate::error::{SpecError, SpecResult};
use crate::limits::{MAX_HEADER, MAX_MSS};
use crate::protocol::rc3::{Rc3Config, Rc3Window};
use crate::protocol::{JETMAX_HEADER, PIQI_HEADER, RCP_HEADER, XCP_HEADER};
use crate::quantity::{BytesQ, RateQ, TimeQ};
use crate::rng::Rng;
use crate::topology::{NodeKind, Topology};
use crate::transport::cc::{CcConfig, CcKind, HyStartMode, RtcpConfig};
use crate::transport::paced::law::RateConfig;
use crate::transport::paced::PacedConfig;
use crate::transport::tcp::TcpConfig;
use crate::units::{Rate, Time};
use crate::world::{AppTemplate, Profile};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Transport protocols.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// TCP with SACK.
    #[default]
    Tcp,
    /// RC3: TCP plus the recursive low-priority loop.
    Rc3,
    /// RCP: paced at the rate routers stamp (needs `rcp` queues on the path).
    Rcp,
    /// XCP: window moved by the routers' feedback, no slow start (needs `xcp` queues).
    Xcp,
    /// R-TCP: TCP whose window is RCP's rate x RTT, paced at that rate (needs `rcp` queues).
    Rtcp,
    /// JetMax: paced at a rate that closes 60% of the gap to the bottleneck's offer every RTT
    /// (needs `jetmax` queues).
    Jetmax,
    /// PIQI-RCP: paced at a rate that follows the bottleneck's PI-controlled rate once per
    /// router interval (needs `piqi` queues).
    Piqi,
}

impl Protocol {
    /// A rate-based protocol's congestion header (bytes on top of TCP/IP's) and host law,
    /// sending at `unlimited` where no router gives a rate; None for window-based ones.
    fn rate_law(self, unlimited: Rate) -> Option<(u32, RateConfig)> {
        match self {
            Protocol::Rcp => Some((RCP_HEADER, RateConfig::Rcp { unlimited })),
            Protocol::Jetmax => Some((JETMAX_HEADER, RateConfig::JetMax { tau: 0.6, unlimited })),
            Protocol::Piqi => Some((PIQI_HEADER, RateConfig::Piqi { tau1: 0.01, tau2: 0.1, unlimited })),
            Protocol::Tcp | Protocol::Rc3 | Protocol::Xcp | Protocol::Rtcp => None,
        }
    }
}

/// Delayed-ACK settings.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayedAckSpec {
    /// ACK every `count` in-order segments.
    pub count: u32,
    /// Longest wait before an ACK.
    #[serde(default)]
    pub timeout: Option<TimeQ>,
}

/// What the sending application does.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    /// Writes the whole flow at start.
    Bulk {},
    /// Writes `initial` bytes at start, then `chunk` bytes every `interval`, up to the flow size.
    Scheduled {
        /// Bytes at start.
        initial: BytesQ,
        /// Bytes per later write.
        chunk: BytesQ,
        /// Time between later writes.
        interval: TimeQ,
    },
}

/// A transport profile; every field is optional and falls back to `[transport]`, then to
/// the defaults (NewReno, IW 4, MSS 1460, 40-byte headers, RTO 1 s initial / 200 ms min).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    /// Protocol.
    #[serde(default)]
    pub protocol: Option<Protocol>,
    /// Which stack runs the flows: fctlab's own endpoints (default) or the kernel's TCP
    /// (`"linux"`, `fctlab emulate` in namespaces only; see [`super::KernelStack`]).
    #[serde(default)]
    pub stack: Option<Stack>,
    /// Congestion controller: "newreno" or "cubic" for fctlab's stack; for `stack = "linux"`
    /// the name of a kernel module ("cubic", "reno", "bbr", ...; default "cubic").
    #[serde(default)]
    pub cc: Option<String>,
    /// How slow start ends before a loss: "linux" (HyStart's ACK-train and delay detectors,
    /// the default with `cc = "cubic"`, as in Linux), "hystart++" (RFC 9406) or "off" (the
    /// default with `cc = "newreno"`).
    #[serde(default)]
    pub hystart: Option<HyStartMode>,
    /// Initial window, segments.
    #[serde(default)]
    pub iw: Option<u32>,
    /// Payload bytes per segment.
    #[serde(default)]
    pub mss: Option<BytesQ>,
    /// Header bytes per packet.
    #[serde(default)]
    pub header: Option<BytesQ>,
    /// Initial slow-start threshold (default unlimited).
    #[serde(default)]
    pub ssthresh: Option<BytesQ>,
    /// Receive window (default unlimited).
    #[serde(default)]
    pub rwnd: Option<BytesQ>,
    /// RTO before the first RTT sample.
    #[serde(default)]
    pub initial_rto: Option<TimeQ>,
    /// RTO floor.
    #[serde(default)]
    pub min_rto: Option<TimeQ>,
    /// RTO ceiling.
    #[serde(default)]
    pub max_rto: Option<TimeQ>,
    /// RFC 6298's clock granularity G (default 0).
    #[serde(default)]
    pub rto_granularity: Option<TimeQ>,
    /// Delayed ACKs (default: an ACK for every segment).
    #[serde(default)]
    pub delayed_ack: Option<DelayedAckSpec>,
    /// Appropriate byte counting's L in segments (RFC 3465; default 1).
    #[serde(default)]
    pub abc: Option<u32>,
    /// Priority band of the flow's packets (0 = highest).
    #[serde(default)]
    pub priority: Option<u8>,
    /// RC3's low-priority buckets in segments from the tail (default [40, 400, 4000]: P1..P4).
    #[serde(default)]
    pub rc3_buckets: Option<Vec<u32>>,
    /// RC3's window accounting: "pipe" (RFC 6675, default) or "span" (the authors' ns-3.16).
    #[serde(default)]
    pub rc3_window: Option<String>,
    /// RCP: send every flow at this rate and ignore feedback (the thesis's fixed-rate study).
    #[serde(default)]
    pub fixed_rate: Option<RateQ>,
    /// Open with a SYN / SYN-ACK exchange (default true); false only for fixed-rate RCP.
    #[serde(default)]
    pub handshake: Option<bool>,
    /// R-TCP and RCP: fall back to TCP on a path without RCP routers (both) or with a non-RCP
    /// bottleneck (R-TCP) (RCP thesis sec. 6.2.2; default true).
    #[serde(default)]
    pub fallback: Option<bool>,
    /// Application model (default bulk).
    #[serde(default, deserialize_with = "crate::spec_de::tagged_opt")]
    pub app: Option<AppSpec>,
}

/// Largest appropriate-byte-counting limit L (segments per ACK); RFC 3465 recommends 2.
const MAX_ABC: u32 = 64;

/// The rate of a rate-based sender on a path where no router gives one.
const UNLIMITED: Rate = Rate::from_gbps(10);

impl TransportSpec {
    /// `self` with every unset field taken from `base` (RC3's buckets only if the result is RC3,
    /// the fallback only if it is R-TCP or RCP).
    fn over(&self, base: &TransportSpec) -> TransportSpec {
        macro_rules! pick {
            ($($f:ident),*) => { TransportSpec { $($f: self.$f.clone().or_else(|| base.$f.clone()),)* } };
        }
        let mut t = pick!(
            stack,
            protocol,
            cc,
            hystart,
            iw,
            mss,
            header,
            ssthresh,
            rwnd,
            initial_rto,
            min_rto,
            max_rto,
            rto_granularity,
            delayed_ack,
            abc,
            priority,
            rc3_buckets,
            rc3_window,
            fixed_rate,
            handshake,
            fallback,
            app
        );
        if t.protocol != Some(Protocol::Rc3) && self.rc3_buckets.is_none() {
            t.rc3_buckets = None;
        }
        if t.protocol != Some(Protocol::Rc3) && self.rc3_window.is_none() {
            t.rc3_window = None;
        }
        if !matches!(t.protocol, Some(Protocol::Rtcp | Protocol::Rcp)) && self.fallback.is_none() {
            t.fallback = None;
        }
        t
    }

    /// The profile this transport describes: the common TCP settings, the application, then
    /// what the protocol adds (RC3's loop, RCP's pacing, R-TCP's or XCP's controller).
    fn build(&self) -> SpecResult<Profile> {
        let (mut cfg, header) = self.tcp_config()?;
        let app = self.app()?;
        let protocol = self.protocol.unwrap_or_default();
        self.rc3(protocol, &mut cfg)?;
        if self.fallback.is_some() && !matches!(protocol, Protocol::Rtcp | Protocol::Rcp) {
            return Err(SpecError::new("fallback", "only meaningful with protocol = \"rtcp\" or \"rcp\""));
        }
        if let Some((cc_header, law)) = protocol.rate_law(UNLIMITED) {
            return self.paced(protocol, cc_header, law, cfg, header, app);
        }
        if self.fixed_rate.is_some() {
            return Err(SpecError::new("fixed_rate", "only meaningful with protocol = \"rcp\""));
        }
        if self.handshake == Some(false) {
            return Err(SpecError::new("handshake", "expected true, got false: only a fixed-rate RCP sender (protocol = \"rcp\" with fixed_rate) can skip it"));
        }
        let d = TcpConfig::default();
        if protocol == Protocol::Rtcp {
            // Its packets carry the 12-byte RCP header (thesis Fig. 6.2) on the TCP/IP headers.
            cfg.header = header.unwrap_or(d.header + RCP_HEADER);
            let d = RtcpConfig::default();
            cfg.cc = CcConfig::Rtcp(RtcpConfig { fallback: self.fallback.unwrap_or(d.fallback), ..d });
        }
        if matches!(protocol, Protocol::Rtcp | Protocol::Xcp) && self.hystart.is_some() {
            return Err(SpecError::new(
                "hystart",
                "only meaningful with protocol = \"tcp\" or \"rc3\" (a loss-based window's slow start)",
            ));
        }
        if protocol == Protocol::Xcp {
            // The XCP header (cwnd, RTT, feedback: 20 bytes in seed 003) rides on TCP/IP's;
            // a new flow starts from one segment unless `iw` says otherwise.
            cfg.header = header.unwrap_or(d.header + XCP_HEADER);
            cfg.iw = self.iw.unwrap_or(1);
            cfg.cc = CcConfig::Xcp { loss: self.cc_kind()?.unwrap_or(CcKind::NewReno), desired_bps: 100e9 };
        }
        Ok(Profile::Tcp { cfg, app })
    }

    /// The TCP configuration every protocol starts from, and the `header` the user gave.
    fn tcp_config(&self) -> SpecResult<(TcpConfig, Option<u32>)> {
        let d = TcpConfig::default();
        let iw = self.iw.unwrap_or(d.iw);
        if iw == 0 {
            return Err(SpecError::new("iw", "expected an initial window >= 1 segment, got 0"));
        }
        let mss = self.mss.map_or(d.mss as u64, |b| b.0);
        if mss == 0 || mss > MAX_MSS {
            return Err(SpecError::new("mss", format!("expected 1 B <= mss <= 1 MiB, got {mss}")));
        }
        let header = self.header()?;
        let (delack_count, delack_timeout) = self.delayed_ack(&d)?;
        let cfg = TcpConfig {
            mss: mss as u32,
            header: header.unwrap_or(d.header),
            iw,
            initial_ssthresh: self.ssthresh.map_or(d.initial_ssthresh, |b| b.0),
            rwnd: self.rwnd.map_or(d.rwnd, |b| b.0),
            initial_rto: self.initial_rto.map_or(d.initial_rto, |t| t.0),
            min_rto: self.min_rto.map_or(d.min_rto, |t| t.0),
            max_rto: self.max_rto.map_or(d.max_rto, |t| t.0),
            rto_granularity: self.rto_granularity.map_or(d.rto_granularity, |t| t.0),
            delack_count,
            delack_timeout,
            abc: match self.abc {
                None => d.abc,
                Some(l) if (1..=MAX_ABC).contains(&l) => l,
                Some(l) => {
                    return Err(SpecError::new(
                        "abc",
                        format!("expected 1 <= abc <= {MAX_ABC} segments per ACK, got {l}"),
                    ));
                }
            },
            dupthresh: d.dupthresh,
            cc: self.cc_kind()?.map_or(d.cc, CcConfig::Loss),
            hystart: self.hystart.unwrap_or(match self.cc_kind()? {
                // Linux turns HyStart on with CUBIC (`tcp_cubic.hystart = 1`).
                Some(CcKind::Cubic) => HyStartMode::Linux,
                Some(CcKind::NewReno) | None => d.hystart,
            }),
            prio: self.priority.unwrap_or(0),
            rc3: None,
        };
        for (f, t) in [("initial_rto", cfg.initial_rto), ("min_rto", cfg.min_rto), ("max_rto", cfg.max_rto)] {
            if t == Time::ZERO {
                return Err(SpecError::new(f, "expected a duration > 0, got 0"));
            }
        }
        Ok((cfg, header))
    }

    /// The `cc` field as one of fctlab's controllers.
    fn cc_kind(&self) -> SpecResult<Option<CcKind>> {
        match self.cc.as_deref() {
            None => Ok(None),
            Some("newreno") => Ok(Some(CcKind::NewReno)),
            Some("cubic") => Ok(Some(CcKind::Cubic)),
            Some(other) => Err(SpecError::new(
                "cc",
                format!(
                    "expected \"newreno\" or \"cubic\" (fctlab's stack; the kernel's controllers need \
                     stack = \"linux\"), got {other:?}"
                ),
            )),
        }
    }

    /// The `header` field, checked before it is narrowed to the packet's u32 (it used to
    /// wrap modulo 2^32).
    fn header(&self) -> SpecResult<Option<u32>> {
        match self.header {
            Some(BytesQ(h)) if h > MAX_HEADER => {
                Err(SpecError::new("header", format!("expected a header <= {MAX_HEADER} B (64 KiB), got {h}")))
            }
            Some(BytesQ(h)) => Ok(Some(h as u32)),
            None => Ok(None),
        }
    }

    /// The delayed-ACK count and timeout (default: every segment, `d`'s timeout).
    fn delayed_ack(&self, d: &TcpConfig) -> SpecResult<(u32, Time)> {
        match self.delayed_ack {
            Some(DelayedAckSpec { count, timeout }) => {
                if count == 0 {
                    return Err(SpecError::new("delayed_ack.count", "expected >= 1, got 0"));
                }
                Ok((count, timeout.map_or(d.delack_timeout, |t| t.0)))
            }
            None => Ok((1, d.delack_timeout)),
        }
    }

    /// The application, None for bulk.
    fn app(&self) -> SpecResult<Option<AppTemplate>> {
        match self.app {
            None | Some(AppSpec::Bulk {}) => Ok(None),
            Some(AppSpec::Scheduled { initial, chunk, interval }) => {
                if chunk.0 == 0 || interval.0 == Time::ZERO {
                    return Err(SpecError::new("app", "expected chunk > 0 and interval > 0"));
                }
                Ok(Some(AppTemplate::Scheduled { initial: initial.0, chunk: chunk.0, interval: interval.0 }))
            }
        }
    }

    /// RC3's low-priority loop on `cfg` if `protocol` is RC3; refuses `rc3_buckets` otherwise.
    fn rc3(&self, protocol: Protocol, cfg: &mut TcpConfig) -> SpecResult<()> {
        if protocol != Protocol::Rc3 {
            if self.rc3_buckets.is_some() {
                return Err(SpecError::new("rc3_buckets", "only meaningful with protocol = \"rc3\""));
            }
            if self.rc3_window.is_some() {
                return Err(SpecError::new("rc3_window", "only meaningful with protocol = \"rc3\""));
            }
            return Ok(());
        }
        let buckets = self.rc3_buckets.clone().unwrap_or_else(|| vec![40, 400, 4000]);
        let levels = buckets.len() + 1;
        let mut rc3 = Rc3Config::new(&buckets).ok_or_else(|| {
            SpecError::new("rc3_buckets", format!("expected at most 6 buckets, each >= 1 segment, got {buckets:?}"))
        })?;
        rc3.window = match self.rc3_window.as_deref() {
            None | Some("pipe") => Rc3Window::Pipe,
            Some("span") => Rc3Window::Span,
            Some(other) => {
                return Err(SpecError::new("rc3_window", format!("expected \"pipe\" or \"span\", got {other:?}")));
            }
        };
        cfg.rc3 = Some(rc3);
        if cfg.prio as usize + levels > 31 {
            return Err(SpecError::new(
                "priority",
                format!("priority {} leaves no room for {levels} lower bands", cfg.prio),
            ));
        }
        Ok(())
    }

    /// RCP's paced profile: a sender at the routers' stamped rate (or `fixed_rate`), and a
    /// TCP receiver `cfg` echoing the header.
    fn paced(
        &self,
        protocol: Protocol,
        cc_header: u32,
        law: RateConfig,
        cfg: TcpConfig,
        header: Option<u32>,
        app: Option<AppTemplate>,
    ) -> SpecResult<Profile> {
        // The congestion header travels on top of the TCP/IP headers unless `header` says
        // otherwise.
        let header = header.unwrap_or(TcpConfig::default().header + cc_header);
        let rx = TcpConfig { header, ..cfg };
        let handshake = self.handshake.unwrap_or(true);
        if !handshake && self.fixed_rate.is_none() {
            return Err(SpecError::new(
                "handshake",
                "expected true without fixed_rate, got false: an RCP sender learns its rate from the SYN-ACK",
            ));
        }
        let law = match (protocol, self.fixed_rate) {
            (Protocol::Rcp, Some(r)) => RateConfig::Fixed(r.0),
            (_, Some(_)) => return Err(SpecError::new("fixed_rate", "only meaningful with protocol = \"rcp\"")),
            (_, None) => law,
        };
        if self.fixed_rate.is_some() && self.fallback == Some(true) {
            return Err(SpecError::new(
                "fallback",
                "expected false or unset with fixed_rate, got true: a fixed-rate sender ignores feedback",
            ));
        }
        // RCP falls back to TCP (thesis sec. 6.2.2) when the handshake finds no RCP router: the
        // transport's own TCP settings (`iw`, `cc`, ...), its packets without the congestion
        // header.
        let tcp_header = if header > cc_header { header - cc_header } else { header };
        let fallback = (matches!(law, RateConfig::Rcp { .. }) && self.fallback.unwrap_or(true))
            .then_some(TcpConfig { header: tcp_header, ..cfg });
        let paced = PacedConfig {
            mss: cfg.mss,
            header,
            initial_rto: self.initial_rto.map_or(Time::from_ms(500), |t| t.0),
            min_rto: cfg.min_rto,
            law,
            handshake,
            fallback,
        };
        Ok(Profile::Paced { cfg: paced, rx, app })
    }
}

/// Hosts whose flows use a named transport (e.g. half of the hosts of every router run RC3).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostTransportSpec {
    /// Named transport from `[transports]`.
    pub transport: String,
    /// Host names or group names; default: every host.
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// Fraction of those hosts, taken router by router (rounded), chosen by the seed.
    #[serde(default)]
    pub fraction: Option<f64>,
}

/// Picks `round(fraction * n)` of `items` with a seeded partial shuffle, in their order.
pub(super) fn pick_fraction(items: &[usize], fraction: f64, rng: &mut Rng) -> Vec<usize> {
    let k = (fraction * items.len() as f64).round() as usize;
    let mut v = items.to_vec();
    for i in 0..k.min(v.len()) {
        let j = i + rng.below((v.len() - i) as u64) as usize;
        v.swap(i, j);
    }
    let mut chosen = v[..k.min(v.len())].to_vec();
    chosen.sort_unstable();
    chosen
}

/// The transport profiles of a run: the default transport first, then the named ones in
/// name order.
pub(super) struct Profiles<'a> {
    /// The profiles, by profile id.
    pub list: Vec<Profile>,
    /// Their labels: derived for the default, the name for named transports.
    pub labels: Vec<String>,
    /// Named transport -> profile id.
    index: BTreeMap<&'a str, usize>,
}

impl<'a> Profiles<'a> {
    /// Build step: the default transport's profile, then each named one over it.
    pub fn build(spec: &'a ScenarioSpec) -> SpecResult<Profiles<'a>> {
        let mut p = Profiles { labels: Vec::new(), list: Vec::new(), index: BTreeMap::new() };
        p.push(&spec.transport, "transport", None)?;
        for (name, t) in &spec.transports {
            p.index.insert(name, p.list.len());
            p.push(&t.over(&spec.transport), &format!("transports.{name}"), Some(name.clone()))?;
        }
        Ok(p)
    }

    /// Adds the profile of transport `t` (at field path `within`), labelled `name` or by its
    /// settings.
    fn push(&mut self, t: &TransportSpec, within: &str, name: Option<String>) -> SpecResult<()> {
        let profile = match kernel_stack(t, within)? {
            // The kernel runs these flows (`stack = "linux"`): a profile of their own.
            Some(k) => Profile::Kernel(k),
            None => t.build().map_err(|e| e.within(within))?,
        };
        self.labels.push(name.unwrap_or_else(|| profile.label()));
        self.list.push(profile);
        Ok(())
    }

    /// The profile id of named transport `name`, which `field` gives.
    fn id(&self, name: &str, field: String) -> SpecResult<usize> {
        self.index.get(name).copied().ok_or_else(|| {
            let known: Vec<&str> = self.index.keys().copied().collect();
            SpecError::new(
                field,
                format!("unknown transport \"{name}\"; defined in [transports]: [{}]", known.join(", ")),
            )
        })
    }
}

/// How each flow's profile is chosen: its entry's own transport, else its source host's,
/// else the default; then a draw from its entry's mix, if any.
pub(super) struct ProfileChoice {
    /// By workload entry: the profile of its own `transport`, if it names one.
    entry: Vec<Option<usize>>,
    /// By workload entry: (profile, cumulative fraction) of its mix.
    mixes: Vec<Vec<(usize, f64)>>,
    /// By node id: the profile `[[host_transport]]` gave the host.
    host: Vec<Option<usize>>,
    /// By workload entry: the stream its mix draws from.
    mix_rngs: Vec<Rng>,
}

impl ProfileChoice {
    /// Build step: checks and resolves entries' transports, mixes, then host transports.
    pub fn build(
        spec: &ScenarioSpec,
        profiles: &Profiles,
        topo: &Topology,
        nodes: &Nodes,
    ) -> SpecResult<ProfileChoice> {
        let mut entry = Vec::with_capacity(spec.workload.len());
        for (i, w) in spec.workload.iter().enumerate() {
            entry.push(match w.transport() {
                None => None,
                Some(name) => Some(profiles.id(name, format!("workload[{i}].transport"))?),
            });
        }
        let mut mixes = Vec::with_capacity(spec.workload.len());
        for i in 0..spec.workload.len() {
            mixes.push(mix(spec, i, profiles)?);
        }
        let mut host = vec![None; topo.nodes.len()];
        for (i, h) in spec.host_transport.iter().enumerate() {
            let (profile, chosen) = host_assignment(h, i, profiles, topo, nodes, spec.seed)?;
            for m in chosen {
                host[m] = Some(profile);
            }
        }
        let mix_rngs = (0..spec.workload.len()).map(|i| Rng::stream(spec.seed, &format!("workload{i}.mix"))).collect();
        Ok(ProfileChoice { entry, mixes, host, mix_rngs })
    }

    /// The profile of the next flow of workload entry `entry` from host `src`.
    pub fn pick(&mut self, entry: usize, src: usize) -> usize {
        let mut profile = match (self.entry[entry], self.host[src]) {
            (None, Some(p)) => p,
            (own, _) => own.unwrap_or(0),
        };
        if !self.mixes[entry].is_empty() {
            let u = self.mix_rngs[entry].uniform();
            if let Some(&(p, _)) = self.mixes[entry].iter().find(|&&(_, edge)| u < edge) {
                profile = p;
            }
        }
        profile
    }
}

/// Workload entry `i`'s mix as (profile, cumulative fraction), checked.
fn mix(spec: &ScenarioSpec, i: usize, profiles: &Profiles) -> SpecResult<Vec<(usize, f64)>> {
    let mut mix = Vec::new();
    let mut total = 0.0;
    for (k, m) in spec.workload[i].mix().iter().enumerate() {
        let field = format!("workload[{i}].mix[{k}]");
        if !(m.fraction > 0.0 && m.fraction <= 1.0) {
            return Err(SpecError::new(
                format!("{field}.fraction"),
                format!("expected 0 < fraction <= 1, got {}", m.fraction),
            ));
        }
        total += m.fraction;
        mix.push((profiles.id(&m.transport, format!("{field}.transport"))?, total));
    }
    if total > 1.0 + 1e-9 {
        return Err(SpecError::new(format!("workload[{i}].mix"), format!("fractions add up to {total}, more than 1")));
    }
    Ok(mix)
}

/// `[[host_transport]]` entry `i`: its profile, and the hosts that get it (its fraction of
/// its hosts, router by router, in router order).
fn host_assignment(
    h: &HostTransportSpec,
    i: usize,
    profiles: &Profiles,
    topo: &Topology,
    nodes: &Nodes,
    seed: u64,
) -> SpecResult<(usize, Vec<usize>)> {
    let field = format!("host_transport[{i}]");
    let profile = profiles.id(&h.transport, format!("{field}.transport"))?;
    let members = host_members(h, &field, topo, &nodes.hosts)?;
    let fraction = h.fraction.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&fraction) {
        return Err(SpecError::new(
            format!("{field}.fraction"),
            format!("expected a fraction in [0, 1], got {fraction}"),
        ));
    }
    let attach = &nodes.attach;
    let mut rng = Rng::stream(seed, &format!("host_transport{i}"));
    let mut routers: Vec<usize> = members.iter().map(|&m| attach[m]).collect();
    routers.sort_unstable();
    routers.dedup();
    let mut chosen = Vec::new();
    for r in routers {
        let on_r: Vec<usize> = members.iter().copied().filter(|&m| attach[m] == r).collect();
        chosen.extend(pick_fraction(&on_r, fraction, &mut rng));
    }
    Ok((profile, chosen))
}

/// The hosts a `[[host_transport]]` entry names (hosts and host groups), sorted, each once.
fn host_members(h: &HostTransportSpec, field: &str, topo: &Topology, hosts: &[usize]) -> SpecResult<Vec<usize>> {
    let mut members: Vec<usize> = match &h.hosts {
        None => hosts.to_vec(),
        Some(names) => {
            let mut v = Vec::new();
            for (k, name) in names.iter().enumerate() {
                match (topo.groups.get(name), topo.node_by_name(name)) {
                    (Some(g), _) => v.extend(g.iter().copied()),
                    (None, Some(n)) if topo.nodes[n].kind == NodeKind::Host => v.push(n),
                    _ => {
                        return Err(SpecError::new(
                            format!("{field}.hosts[{k}]"),
                            format!("\"{name}\" is neither a host nor a host group"),
                        ))
                    }
                }
            }
            v
        }
    };
    members.sort_unstable();
    members.dedup();
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::super::KernelStack;
    use super::*;

    #[test]
    fn a_kernel_profile_is_planned_as_the_default_transport_with_its_iw() {
        for iw in [None, Some(1), Some(4), Some(1000)] {
            let k = KernelStack { cc: "bbr".into(), iw, prio: 7, field: "transport.stack".into() };
            let default = TransportSpec { iw: Some(iw.unwrap_or(10)), ..TransportSpec::default() };
            let Ok(Profile::Tcp { cfg, app: None }) = default.build() else { panic!("the default transport is TCP") };
            assert_eq!(k.planned_tcp(), cfg, "iw {iw:?}");
        }
    }
}

//! Protocol plug-ins: a host law or a router law that lives outside fctlab, in its user's own
//! folder, named by a scenario and loaded when the scenario is built.
//!
//! | spelling | what is loaded | by |
//! |---|---|---|
//! | `rust:PATH` | a shared library built against the `fctlab-plugin` crate (`examples/plugins/template/`) | `dylib.rs` (dlopen; the API version is checked first) |
//! | `python:FILE:CLASS` | a class in a Python file | the Python front, which registers itself with [`set_python_loader`] |
//!
//! A spelling stands where a built-in's name stands: `transport.cc = "rust:..."` (the window
//! of `protocol = "tcp"`) and `queues.*.kind = "rust:..."` (the law of a drop-tail FIFO, the
//! table's other keys its parameters). Paths are relative to the scenario's folder.
//!
//! | file | what it holds |
//! |---|---|
//! | this file | the spelling, the [`Loader`] of one build, the [`Fault`] a plug-in raises, the traits both kinds of library implement |
//! | `bounds.rs` | the values a host law may give (window, pacing rate), for both kinds of library |
//! | `dylib.rs` | Rust plug-ins: dlopen, the version check, calls through the vtables |
//! | `host.rs` | [`PluginCc`]: a host law plug-in as a [`crate::transport::cc::CongestionControl`] (the registry's `Controller::Plugin`) |
//! | `router.rs` | [`PluginLaw`]: a router law plug-in as a [`crate::qdisc::law::RouterLaw`] (the registry's `Law::Plugin`) |
//!
//! Faults stay contained. A hook that fails (a Rust panic, caught in the library; a Python
//! exception; a window or rate outside `bounds.rs`) leaves the connection or port as it was,
//! and raises the build's [`FaultSlot`] with the plug-in, the hook, the flow (or link) and the
//! message. The event loop checks the slot after each event of a run that has plug-ins, stamps
//! the simulated time and stops; [`crate::world::World::plugin_fault`] gives the fault to the
//! caller, which keeps the results already written. A loaded library is never unloaded (its code may still be referenced by
//! a law), and each build leaks its few plug-in handles (`&'static`, so configurations that
//! name them stay `Copy`).

pub mod bounds;
pub mod dylib;
pub mod host;
pub mod router;

pub use fctlab_plugin::{Header, HostInit, PacketView, Port, RttSample as PluginRttSample, SendCtx, Window};
pub use host::PluginCc;
pub use router::PluginLaw;

use crate::error::{SpecError, SpecResult};
use crate::net::packet::CongestionHeader;
use crate::protocol::header::{header_from_wire, header_to_wire};
use crate::units::Time;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub use fctlab_plugin::abi::{HostTraits, API_VERSION};

/// True if `name` spells a plug-in (`rust:...` or `python:...`), not a built-in.
pub fn is_plugin(name: &str) -> bool {
    name.starts_with("rust:") || name.starts_with("python:")
}

/// A host law of a loaded library: its instances are made per connection.
pub trait HostFactory: Send + Sync {
    /// A law for one connection.
    fn create(&self, init: &HostInit) -> Result<Box<dyn DynHost>, String>;
}

/// One connection's host law, as either kind of library runs it. Err is the fault's message.
/// (Sync because a world is shared read-only with the front between steps; hooks run on one
/// thread at a time.)
#[allow(missing_docs)]
pub trait DynHost: Send + Sync {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Time>) -> Result<(), String>;
    fn on_congestion(&mut self, w: &mut Window, now: Time, flight: u64) -> Result<(), String>;
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight: u64) -> Result<(), String>;
    fn on_recovery_end(&mut self, w: &mut Window, now: Time) -> Result<(), String>;
    fn on_loss_signal(&mut self, w: &mut Window, now: Time) -> Result<(), String>;
    fn on_rtt_sample(&mut self, w: &mut Window, s: &PluginRttSample) -> Result<(), String>;
    fn header(&self, w: &Window, ctx: &SendCtx) -> Result<Header, String>;
    fn on_feedback(&mut self, w: &mut Window, echo: Header, srtt: Option<Time>) -> Result<bool, String>;
    fn traits(&self) -> Result<HostTraits, String>;
}

/// A router law of a loaded library: one instance per port.
pub trait RouterFactory: Send + Sync {
    /// The law of `port`, from its queue table's own keys (JSON text).
    fn create(&self, port: &Port, params: &str) -> Result<Box<dyn DynRouter>, String>;
}

/// One port's router law, as either kind of library runs it. Err is the fault's message.
#[allow(missing_docs)]
pub trait DynRouter: Send + Sync {
    fn on_arrival(&mut self, port: &Port, now: Time, pkt: &PacketView, queued: u64) -> Result<(), String>;
    fn on_departure(&mut self, port: &Port, now: Time, pkt: &mut PacketView, queued: u64) -> Result<(), String>;
    fn first_tick(&self) -> Result<Option<Time>, String>;
    fn tick(&mut self, port: &Port, now: Time, queued: u64) -> Result<Option<Time>, String>;
}

/// A loaded library: the laws it has.
pub trait Library: Send + Sync {
    /// The name its author gave it: a Rust library's `export_plugin!(name = ...)`, a Python
    /// plug-in's class (empty: none).
    fn name(&self) -> String;
    /// Its host law, if it has one.
    fn host(&self) -> Option<&dyn HostFactory>;
    /// Its router law, if it has one.
    fn router(&self) -> Option<&dyn RouterFactory>;
}

/// Loads `python:FILE:CLASS`: the file's path (resolved) and the class name.
pub type PythonLoader = dyn Fn(&Path, &str) -> Result<Box<dyn Library>, String> + Send + Sync;

static PYTHON: OnceLock<Box<PythonLoader>> = OnceLock::new();

/// Lets scenarios name Python plug-ins (the Python front calls it once, at import).
pub fn set_python_loader(loader: Box<PythonLoader>) {
    let _ = PYTHON.set(loader);
}

/// What stopped a run: a plug-in's hook failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The plug-in as the scenario spells it.
    pub plugin: String,
    /// The hook that failed (`on_ack`, `on_departure`, ...).
    pub hook: &'static str,
    /// The flow whose connection or packet it was handling, if any.
    pub flow: Option<u32>,
    /// The link of the port, for a router law.
    pub link: Option<u32>,
    /// When, in simulated time (stamped by the event loop).
    pub time: Option<Time>,
    /// The plug-in's message (the panic's, the exception's, or the header field refused).
    pub message: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "plug-in {} failed in {}", self.plugin, self.hook)?;
        if let Some(flow) = self.flow {
            write!(f, " for flow {flow}")?;
        }
        if let Some(link) = self.link {
            write!(f, " on link {link}")?;
        }
        if let Some(t) = self.time {
            write!(f, " at t = {:.9} s", t.as_secs_f64())?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Fault {}

/// Where a build's plug-ins report their faults; the event loop watches it.
///
/// A fault is raised on the thread that runs the hook, and marked pending there: the loop on
/// that thread stops after the event ([`take_pending`]) and stamps it with the event's time.
/// In a partitioned run the other partitions finish their window (what they do in it does not
/// depend on the fault) and every thread stops at the barrier that follows, so the fault
/// reported, the earliest in simulated time, is the same on any number of threads.
#[derive(Debug, Default)]
pub struct FaultSlot {
    raised: AtomicBool,
    faults: Mutex<Vec<(std::thread::ThreadId, Fault)>>,
}

thread_local! {
    /// A hook on this thread raised a fault the loop has not yet seen.
    static PENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True (once) if a hook on this thread raised a fault since the last call.
#[inline]
pub fn take_pending() -> bool {
    PENDING.with(|p| p.replace(false))
}

impl FaultSlot {
    /// True once a plug-in failed, on any thread.
    #[inline]
    pub fn is_raised(&self) -> bool {
        self.raised.load(Ordering::Relaxed)
    }

    /// Keeps `fault` (unstamped) and marks it pending on this thread.
    pub fn raise(&self, fault: Fault) {
        let me = std::thread::current().id();
        self.faults.lock().unwrap_or_else(|e| e.into_inner()).push((me, fault));
        PENDING.with(|p| p.set(true));
        self.raised.store(true, Ordering::Relaxed);
    }

    /// Stamps this thread's unstamped faults with the time of the event that raised them.
    pub fn stamp(&self, now: Time) {
        let me = std::thread::current().id();
        for (_, f) in self.faults.lock().unwrap_or_else(|e| e.into_inner()).iter_mut().filter(|(t, _)| *t == me) {
            f.time.get_or_insert(now);
        }
    }

    /// The fault that stopped the run: the earliest in simulated time (then by flow, link,
    /// hook), if one was raised.
    pub fn fault(&self) -> Option<Fault> {
        let faults = self.faults.lock().unwrap_or_else(|e| e.into_inner());
        faults.iter().map(|(_, f)| f).min_by_key(|f| (f.time.unwrap_or(Time::MAX), f.flow, f.link, f.hook)).cloned()
    }
}

/// One loaded plug-in, as a build uses it.
pub struct Plugin {
    /// Its spelling in the scenario (`rust:...`, `python:...`).
    pub spec: String,
    lib: Box<dyn Library>,
    /// The build's fault slot.
    pub fault: &'static FaultSlot,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plugin({})", self.spec)
    }
}

impl Plugin {
    /// Raises a fault of this plug-in.
    pub fn fail(&self, hook: &'static str, flow: Option<u32>, link: Option<u32>, message: String) {
        self.fault.raise(Fault { plugin: self.spec.clone(), hook, flow, link, time: None, message });
    }

    /// A short name for labels (the flows table's `protocol` column): `py-` and the Python
    /// class, or `rs-` and the name the library exports (`export_plugin!(name = "vegas")`), the
    /// name its author chose; the library's file name without `lib` and its extension if it
    /// exports none.
    pub fn short_name(&self) -> String {
        let name = self.lib.name();
        match self.spec.strip_prefix("python:") {
            Some(rest) if name.is_empty() => format!("py-{}", rest.rsplit(':').next().unwrap_or(rest)),
            Some(_) => format!("py-{name}"),
            None if !name.is_empty() => format!("rs-{name}"),
            None => {
                let path = self.spec.strip_prefix("rust:").unwrap_or(&self.spec);
                let file = path.rsplit('/').next().unwrap_or(path);
                let stem = file.split('.').next().unwrap_or(file);
                format!("rs-{}", stem.strip_prefix("lib").unwrap_or(stem))
            }
        }
    }

    /// Its host law (checked when the plug-in was named as one).
    pub fn host(&self) -> &dyn HostFactory {
        self.lib.host().expect("checked at load")
    }

    /// Its router law (checked when the plug-in was named as one).
    pub fn router(&self) -> &dyn RouterFactory {
        self.lib.router().expect("checked at load")
    }
}

/// A host law plug-in named in a scenario: compared by identity, printed by its spelling.
#[derive(Copy, Clone)]
pub struct HostPlugin(pub &'static Plugin);

impl PartialEq for HostPlugin {
    fn eq(&self, other: &HostPlugin) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl std::fmt::Debug for HostPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.spec)
    }
}

/// The plug-ins of one scenario build: each spelling loaded once, all reporting to one slot.
#[derive(Debug)]
pub struct Loader {
    base_dir: PathBuf,
    slot: &'static FaultSlot,
    loaded: Mutex<Vec<&'static Plugin>>,
}

impl Loader {
    /// A loader resolving relative paths against `base_dir`.
    pub fn new(base_dir: &Path) -> Arc<Loader> {
        Arc::new(Loader {
            base_dir: base_dir.to_path_buf(),
            slot: Box::leak(Box::default()),
            loaded: Mutex::new(Vec::new()),
        })
    }

    /// The fault slot of the build, if any plug-in was loaded.
    pub fn fault_slot(&self) -> Option<&'static FaultSlot> {
        (!self.loaded.lock().expect("loader").is_empty()).then_some(self.slot)
    }

    /// The plug-in spelled `spec` (at scenario field `field`), loaded on first use.
    fn load(&self, spec: &str, field: &str) -> SpecResult<&'static Plugin> {
        let mut loaded = self.loaded.lock().expect("loader");
        if let Some(p) = loaded.iter().find(|p| p.spec == spec) {
            return Ok(p);
        }
        let lib = self.open(spec).map_err(|msg| SpecError::new(field, format!("plug-in {spec:?}: {msg}")))?;
        let p: &'static Plugin = Box::leak(Box::new(Plugin { spec: spec.to_string(), lib, fault: self.slot }));
        loaded.push(p);
        Ok(p)
    }

    fn open(&self, spec: &str) -> Result<Box<dyn Library>, String> {
        if let Some(path) = spec.strip_prefix("rust:") {
            let path = self.resolve(path)?;
            return dylib::open(&path).map(|l| Box::new(l) as Box<dyn Library>);
        }
        let rest = spec.strip_prefix("python:").expect("a plug-in spelling");
        let (file, class) = rest
            .rsplit_once(':')
            .filter(|(f, c)| !f.is_empty() && !c.is_empty())
            .ok_or_else(|| "expected python:FILE:CLASS, e.g. \"python:my_cc.py:Vegas\"".to_string())?;
        let file = self.resolve(file)?;
        let loader = PYTHON
            .get()
            .ok_or_else(|| "Python plug-ins run under the Python front (`fctlab run`), not this program".to_string())?;
        loader(&file, class)
    }

    /// `path` in the scenario's folder, else in the current folder (where a path given on the
    /// command line is written from).
    fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let p = self.base_dir.join(path);
        if p.is_file() {
            return Ok(p);
        }
        let here = Path::new(path);
        if here.is_relative() && here.is_file() {
            return Ok(here.to_path_buf());
        }
        let cwd = if here.is_relative() { " nor in the current folder" } else { "" };
        Err(format!("no such file: {} (not in the scenario's folder{cwd})", p.display()))
    }

    /// The host law plug-in spelled `spec`, at field `field` (`transport.cc`).
    pub fn host(&self, spec: &str, field: &str) -> SpecResult<HostPlugin> {
        let p = self.load(spec, field)?;
        if p.lib.host().is_none() {
            return Err(SpecError::new(field, format!("plug-in {spec:?} has no host law (only a router law)")));
        }
        Ok(HostPlugin(p))
    }

    /// The router law plug-in spelled `spec` for port `port`, built from `params` (JSON text),
    /// at field `field` (`kind`).
    pub fn router(&self, spec: &str, port: &Port, params: &str, field: &str) -> SpecResult<PluginLaw> {
        let p = self.load(spec, field)?;
        let Some(factory) = p.lib.router() else {
            return Err(SpecError::new(field, format!("plug-in {spec:?} has no router law (only a host law)")));
        };
        let law =
            factory.create(port, params).map_err(|msg| SpecError::new(field, format!("plug-in {spec:?}: {msg}")))?;
        Ok(PluginLaw::new(p, law))
    }
}

/// A congestion header as plug-ins see it.
pub fn to_plugin(h: CongestionHeader) -> Header {
    let (tag, words) = header_to_wire(h);
    Header { tag, words }
}

/// A header a plug-in wrote, as fctlab carries it; Err names the field refused.
pub fn from_plugin(h: Header) -> Result<CongestionHeader, String> {
    header_from_wire(h.tag, h.words)
        .map_err(|field| format!("the header it wrote (tag {}, words {:?}) was refused: field {field}", h.tag, h.words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PLUGIN_TAGS;
    use crate::protocol::xcp::header::XcpHeader;
    use crate::transport::cc::{CcState, CongestionControl, HeaderCtx};

    /// A host law that panics (here: returns Err) on its `fail_at`-th ACK and stamps `header`;
    /// `congestion` is its loss reaction, `pacing` its pacing rate.
    struct Flaky {
        acks: u32,
        fail_at: u32,
        header: Header,
        congestion: fn(&mut Window),
        pacing: u64,
    }

    fn one_mss(w: &mut Window) {
        w.cwnd = w.mss;
    }

    impl DynHost for Flaky {
        fn on_ack(&mut self, w: &mut Window, _: Time, acked: u64, _: Option<Time>) -> Result<(), String> {
            self.acks += 1;
            w.cwnd += acked;
            if self.acks == self.fail_at {
                return Err("boom".into());
            }
            Ok(())
        }
        fn on_congestion(&mut self, w: &mut Window, _: Time, _: u64) -> Result<(), String> {
            (self.congestion)(w);
            Ok(())
        }
        fn on_timeout(&mut self, _: &mut Window, _: Time, _: u64) -> Result<(), String> {
            Ok(())
        }
        fn on_recovery_end(&mut self, _: &mut Window, _: Time) -> Result<(), String> {
            Ok(())
        }
        fn on_loss_signal(&mut self, _: &mut Window, _: Time) -> Result<(), String> {
            Ok(())
        }
        fn on_rtt_sample(&mut self, _: &mut Window, _: &PluginRttSample) -> Result<(), String> {
            Ok(())
        }
        fn header(&self, _: &Window, _: &SendCtx) -> Result<Header, String> {
            Ok(self.header)
        }
        fn on_feedback(&mut self, _: &mut Window, _: Header, _: Option<Time>) -> Result<bool, String> {
            Ok(false)
        }
        fn traits(&self) -> Result<HostTraits, String> {
            Ok(HostTraits { wants_rtt_samples: false, reacts_to_loss: true, pacing_rate_bps: self.pacing })
        }
    }

    struct FlakyLib {
        header: Header,
        congestion: fn(&mut Window),
        pacing: u64,
    }

    impl HostFactory for FlakyLib {
        fn create(&self, init: &HostInit) -> Result<Box<dyn DynHost>, String> {
            if init.flow == 99 {
                return Err("no law for flow 99".into());
            }
            let (header, congestion, pacing) = (self.header, self.congestion, self.pacing);
            Ok(Box::new(Flaky { acks: 0, fail_at: 2, header, congestion, pacing }))
        }
    }

    impl Library for FlakyLib {
        fn name(&self) -> String {
            "Flaky".into()
        }
        fn host(&self) -> Option<&dyn HostFactory> {
            Some(self)
        }
        fn router(&self) -> Option<&dyn RouterFactory> {
            None
        }
    }

    fn plugin(header: Header) -> &'static Plugin {
        law(FlakyLib { header, congestion: one_mss, pacing: u64::MAX })
    }

    fn law(lib: FlakyLib) -> &'static Plugin {
        Box::leak(Box::new(Plugin {
            spec: "python:flaky.py:Flaky".into(),
            lib: Box::new(lib),
            fault: Box::leak(Box::default()),
        }))
    }

    fn st() -> CcState {
        CcState { cwnd: 4000, ssthresh: u64::MAX, mss: 1000, abc: 1000 }
    }

    fn init(flow: u32) -> HostInit {
        HostInit { flow, mss: 1000, header: 40, rwnd: u64::MAX }
    }

    #[test]
    fn a_failing_hook_raises_one_fault_naming_it_and_leaves_the_window() {
        let p = plugin(Header::NONE);
        let mut cc = PluginCc::new(HostPlugin(p), init(3));
        let mut s = st();
        cc.on_ack(&mut s, Time::from_ms(1), 1000, None);
        assert_eq!(s.cwnd, 5000, "the law's window is taken");
        assert!(!p.fault.is_raised());
        cc.on_ack(&mut s, Time::from_ms(2), 1000, None);
        assert_eq!(s.cwnd, 5000, "a failed hook's window is not taken");
        assert!(p.fault.is_raised());
        cc.on_congestion(&mut s, Time::from_ms(3), 5000);
        assert_eq!(s.cwnd, 5000, "a failed law is not called again");
        p.fault.stamp(Time::from_ms(2));
        p.fault.stamp(Time::from_ms(3));
        let f = p.fault.fault().unwrap();
        assert_eq!((f.hook, f.flow, f.time, f.message.as_str()), ("on_ack", Some(3), Some(Time::from_ms(2)), "boom"));
        assert_eq!(
            f.to_string(),
            "plug-in python:flaky.py:Flaky failed in on_ack for flow 3 at t = 0.002000000 s: boom"
        );
    }

    #[test]
    fn a_window_beyond_the_bounds_is_a_fault_naming_the_field_and_is_not_taken() {
        fn wraps(w: &mut Window) {
            w.cwnd = w.cwnd.wrapping_sub(10 * w.cwnd);
        }
        fn huge_ssthresh(w: &mut Window) {
            w.ssthresh = bounds::MAX_WINDOW + 1;
        }
        fn at_the_bounds(w: &mut Window) {
            (w.cwnd, w.ssthresh) = (bounds::MAX_WINDOW, u64::MAX);
        }
        for (congestion, field) in
            [(wraps as fn(&mut Window), "cwnd = 18446744073709515616 B"), (huge_ssthresh, "ssthresh")]
        {
            let p = law(FlakyLib { header: Header::NONE, congestion, pacing: u64::MAX });
            let mut cc = PluginCc::new(HostPlugin(p), init(5));
            let mut s = st();
            cc.on_congestion(&mut s, Time::from_ms(7), 4000);
            assert_eq!((s.cwnd, s.ssthresh), (4000, u64::MAX), "the window is left as it was");
            let f = p.fault.fault().expect("a fault");
            assert_eq!((f.hook, f.flow), ("on_congestion", Some(5)));
            assert!(f.message.starts_with(field) && f.message.contains("expected at most 2^50 B"), "{}", f.message);
        }
        let p = law(FlakyLib { header: Header::NONE, congestion: at_the_bounds, pacing: u64::MAX });
        let mut s = st();
        PluginCc::new(HostPlugin(p), init(5)).on_congestion(&mut s, Time::ZERO, 4000);
        assert_eq!((s.cwnd, s.ssthresh), (bounds::MAX_WINDOW, u64::MAX));
        assert!(!p.fault.is_raised());
    }

    #[test]
    fn a_pacing_rate_beyond_the_bounds_is_a_fault_of_the_new_connection() {
        for bps in [0, bounds::MAX_PACING_RATE + 1] {
            let p = law(FlakyLib { header: Header::NONE, congestion: one_mss, pacing: bps });
            let cc = PluginCc::new(HostPlugin(p), init(8));
            assert_eq!(cc.pacing_rate(), None);
            let f = p.fault.fault().expect("a fault");
            assert_eq!((f.hook, f.flow), ("pacing_rate", Some(8)));
            assert!(f.message.starts_with(&format!("pacing_rate = {bps} bit/s: expected")), "{}", f.message);
        }
    }

    #[test]
    fn a_law_that_cannot_be_made_is_a_fault_of_hook_new() {
        let p = plugin(Header::NONE);
        let mut cc = PluginCc::new(HostPlugin(p), init(99));
        let mut s = st();
        cc.on_ack(&mut s, Time::ZERO, 1000, None);
        assert_eq!(s.cwnd, 4000);
        let f = p.fault.fault().unwrap();
        assert_eq!((f.hook, f.flow, f.message.as_str()), ("new", Some(99), "no law for flow 99"));
    }

    #[test]
    fn a_header_fctlab_would_refuse_from_the_wire_is_a_fault_not_a_packet() {
        let ctx = HeaderCtx { kind: crate::net::packet::PacketKind::Data, srtt: None, sent_bytes: 0, remaining: 0 };
        // XCP's tag with a NaN cwnd.
        let nan = Header { tag: 3, words: [f32::NAN.to_bits(), 0, 0] };
        let p = plugin(nan);
        let cc = PluginCc::new(HostPlugin(p), init(1));
        assert_eq!(cc.header(&st(), ctx), CongestionHeader::None);
        let f = p.fault.fault().unwrap();
        assert_eq!(f.hook, "header");
        assert!(f.message.contains("field cc.cwnd"), "{}", f.message);
        // An infinite window or feedback is refused as NaN is.
        for words in [[f32::INFINITY.to_bits(), 0, 0], [0, 0, f32::INFINITY.to_bits()]] {
            let p = plugin(Header { tag: 3, words });
            let cc = PluginCc::new(HostPlugin(p), init(1));
            assert_eq!(cc.header(&st(), ctx), CongestionHeader::None);
            let f = p.fault.fault().expect("+inf refused");
            assert!(f.message.contains("field cc.cwnd") || f.message.contains("field cc.feedback"), "{}", f.message);
        }
        // A valid one crosses unchanged, a plug-in's own tag with any words.
        let xcp = CongestionHeader::Xcp(XcpHeader { cwnd: 1e4, rtt_us: 5, feedback: 0.5 });
        let p = plugin(to_plugin(xcp));
        assert_eq!(PluginCc::new(HostPlugin(p), init(1)).header(&st(), ctx), xcp);
        let own = Header { tag: PLUGIN_TAGS + 3, words: [u32::MAX; 3] };
        let p = plugin(own);
        assert_eq!(
            PluginCc::new(HostPlugin(p), init(1)).header(&st(), ctx),
            CongestionHeader::Plugin { tag: own.tag, words: own.words }
        );
        assert!(!p.fault.is_raised());
    }

    #[test]
    fn spellings_and_labels() {
        assert!(is_plugin("rust:a.so") && is_plugin("python:a.py:A") && !is_plugin("newreno"));
        let p = plugin(Header::NONE);
        assert_eq!(p.short_name(), "py-Flaky");
        let loader = Loader::new(Path::new("/nonexistent"));
        let e = loader.host("rust:libx.so", "cc").unwrap_err();
        assert_eq!(e.field, "cc");
        assert!(e.message.contains("no such file: /nonexistent/libx.so"), "{}", e.message);
        let e = loader.host("python:x.py", "cc").unwrap_err();
        assert!(e.message.contains("expected python:FILE:CLASS"), "{}", e.message);
        assert!(loader.fault_slot().is_none(), "nothing loaded, nothing to watch");
    }

    #[test]
    fn a_library_that_is_not_a_plugin_is_refused_by_name() {
        // Any shared library without the symbols: the C library.
        let libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib/libc.so.6"]
            .into_iter()
            .find(|p| Path::new(p).exists());
        if let Some(path) = libc {
            let e = dylib::open(Path::new(path)).err().expect("refused");
            assert!(e.contains("not an fctlab plug-in"), "{e}");
        }
        let e = dylib::open(Path::new("/nonexistent.so")).err().expect("refused");
        assert!(e.contains("cannot load it"), "{e}");
    }
}

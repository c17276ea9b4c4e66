//! Python plug-ins: a class in the user's file, called from the event loop.
//!
//! `fctlab.plugins.load_class` imports the file and returns the class; this module wraps it as
//! a [`Library`] for the core's loader (`fctlab_core::plugin`). A host law class is made per
//! connection, `Class(conn)`, a router law class per port, `Class(port, params)`; each hook
//! takes the GIL (the run releases it) and is given reused `Window`, `Port` and `Packet`
//! objects whose fields it may set. A hook the class does not define keeps fctlab's default,
//! decided once at load. An exception is the fault's message, with the file and line it came
//! from. The window's fields and the pacing rate take any number: an int as it is, a float
//! rounded down to a whole byte or bit per second; a negative, NaN or infinite value, or one
//! beyond `fctlab_core::plugin::bounds`, raises an exception naming the field at the line that
//! set it. `docs/extending.md` is the reference of the hooks.

use fctlab_core::plugin::bounds;
use fctlab_core::plugin::{
    DynHost, DynRouter, Header, HostFactory, HostInit, HostTraits, Library, PacketView, PluginRttSample, Port,
    RouterFactory, SendCtx, Window,
};
use fctlab_core::units::Time;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use std::path::Path;

/// The API crate's files (path in the crate, text) as this core was built against them:
/// `fctlab plugin new` copies them beside a new plug-in when no checkout of fctlab holds the
/// crate, so that the plug-in builds anywhere, against the API version this core loads.
pub const API_SOURCES: [(&str, &str); 4] = [
    ("Cargo.toml", include_str!("../../fctlab-plugin/Cargo.toml")),
    ("README.md", include_str!("../../fctlab-plugin/README.md")),
    ("src/lib.rs", include_str!("../../fctlab-plugin/src/lib.rs")),
    ("src/abi.rs", include_str!("../../fctlab-plugin/src/abi.rs")),
];

/// The window a host law hook may change (`w.cwnd`, `w.ssthresh` in bytes; set to any number,
/// rounded down to whole bytes).
#[pyclass(module = "fctlab._core", name = "Window")]
pub struct PyWindow {
    /// Congestion window, bytes.
    #[pyo3(get)]
    cwnd: u64,
    /// Slow-start threshold, bytes (2**64 - 1: unlimited).
    #[pyo3(get)]
    ssthresh: u64,
    /// Maximum segment size, bytes.
    #[pyo3(get)]
    mss: u64,
    /// Most bytes one ACK may add in slow start (appropriate byte counting).
    #[pyo3(get)]
    abc: u64,
}

/// A number a hook gave, in whole units: an int as it is, a float rounded down.
enum Whole {
    Value(u64),
    /// 2^64 or more.
    TooLarge,
}

/// `v` (what a hook gave for `field`) in whole `unit`s; a Python exception naming the field if
/// it is not a number, or is negative, NaN or infinite.
fn whole(field: &str, unit: &str, v: &Bound<'_, PyAny>) -> PyResult<Whole> {
    let shown = || v.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
    let negative = || PyValueError::new_err(format!("{field} = {}: expected {unit} >= 0", shown()));
    if v.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("{field} = {}: expected a number of {unit}", shown())));
    }
    if let Ok(n) = v.extract::<u64>() {
        return Ok(Whole::Value(n));
    }
    if v.hasattr(intern!(v.py(), "__index__"))? {
        // An integer outside u64: negative, or 2^64 or more.
        return if v.lt(0)? { Err(negative()) } else { Ok(Whole::TooLarge) };
    }
    let x: f64 = v.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{field} = {}: expected a number of {unit} (an int, or a float rounded down)",
            shown()
        ))
    })?;
    if x.is_nan() || x == f64::INFINITY {
        return Err(PyValueError::new_err(format!("{field} = {}: expected a finite number of {unit}", shown())));
    }
    if x < 0.0 {
        return Err(negative());
    }
    // 2^64 as a float: the first value a u64 cannot hold.
    Ok(if x >= 18_446_744_073_709_551_616.0 { Whole::TooLarge } else { Whole::Value(x.floor() as u64) })
}

/// `v` as the window field `field`, checked against the bounds of every plug-in's window.
fn window_field(field: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    match whole(field, "bytes", v)? {
        Whole::Value(n) => bounds::window_field(field, n).map_err(PyValueError::new_err),
        Whole::TooLarge => {
            let shown = v.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
            Err(PyValueError::new_err(bounds::window_too_large(field, &shown, bounds::Cause::None)))
        }
    }
}

#[pymethods]
impl PyWindow {
    #[setter]
    fn set_cwnd(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.cwnd = window_field("cwnd", v)?;
        Ok(())
    }
    #[setter]
    fn set_ssthresh(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.ssthresh = window_field("ssthresh", v)?;
        Ok(())
    }
    /// True while cwnd < ssthresh.
    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    fn __repr__(&self) -> String {
        format!("Window(cwnd={}, ssthresh={}, mss={})", self.cwnd, self.ssthresh, self.mss)
    }
}

/// A connection, as given to a host law class.
#[pyclass(module = "fctlab._core", name = "Connection", frozen, get_all)]
pub struct PyConnection {
    /// The flow's id (its row in the flows table).
    flow: u32,
    /// Payload bytes per data packet.
    mss: u32,
    /// Header bytes per packet.
    header: u32,
    /// Receive window, bytes.
    rwnd: u64,
}

/// A router port, as given to a router law (`capacity_bps` may change during a run).
#[pyclass(module = "fctlab._core", name = "Port", get_all)]
pub struct PyPort {
    router: u32,
    link: u32,
    capacity_bps: u64,
}

/// A packet at a router port: `header` (a tuple `(tag, w0, w1, w2)`) and `prio` may be set on
/// departure.
#[pyclass(module = "fctlab._core", name = "Packet")]
pub struct PyPacket {
    #[pyo3(get)]
    flow: u32,
    /// "syn", "synack", "data" or "ack".
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get, set)]
    prio: u8,
    #[pyo3(get)]
    len: u32,
    #[pyo3(get)]
    wire: u32,
    #[pyo3(get)]
    seq: u64,
    #[pyo3(get)]
    ack: u64,
    #[pyo3(get, set)]
    header: (u8, u32, u32, u32),
}

fn kind_name(k: u8) -> &'static str {
    ["syn", "synack", "data", "ack"].get(k as usize).copied().unwrap_or("?")
}

fn tuple(h: Header) -> (u8, u32, u32, u32) {
    (h.tag, h.words[0], h.words[1], h.words[2])
}

fn header(t: (u8, u32, u32, u32)) -> Header {
    Header { tag: t.0, words: [t.1, t.2, t.3] }
}

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

/// The first KeyboardInterrupt a hook raised (a signal handler's exception: Ctrl-C, or SIGTERM
/// under `fctlab.procs.stop_signals`), kept to be raised again by the run instead of the
/// plug-in fault it also causes: a signal is not the plug-in's failure.
static INTERRUPT: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);

/// The KeyboardInterrupt a hook raised since the last call, if one did ([`INTERRUPT`]).
pub fn take_interrupt() -> Option<PyErr> {
    INTERRUPT.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// The message of an exception: its type and text, and where in the user's code it was raised.
/// A KeyboardInterrupt is also kept for [`take_interrupt`].
fn message(py: Python<'_>, e: PyErr) -> String {
    if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
        let mut kept = INTERRUPT.lock().unwrap_or_else(|e| e.into_inner());
        if kept.is_none() {
            *kept = Some(e.clone_ref(py));
        }
    }
    let what = e.value(py).repr().map(|r| r.to_string()).unwrap_or_else(|_| "an exception".into());
    let text = match e.value(py).str() {
        Ok(s) if !s.to_string().is_empty() => {
            format!("{}: {}", e.get_type(py).name().map_or("Error".into(), |n| n.to_string()), s)
        }
        _ => what,
    };
    let place = e.traceback(py).and_then(|tb| {
        let frames = py.import("traceback").ok()?.call_method1("extract_tb", (tb,)).ok()?;
        let last = frames.get_item(frames.len().ok()?.checked_sub(1)?).ok()?;
        let file: String = last.getattr("filename").ok()?.extract().ok()?;
        let line: u64 = last.getattr("lineno").ok()?.extract().ok()?;
        let name: String = last.getattr("name").ok()?.extract().ok()?;
        Some(format!(" ({file}, line {line}, in {name})"))
    });
    format!("{text}{}", place.unwrap_or_default())
}

/// Which optional hooks a class defines (asked once, at load).
#[derive(Copy, Clone, Debug, Default)]
struct Hooks {
    on_ack: bool,
    on_congestion: bool,
    on_timeout: bool,
    on_recovery_end: bool,
    on_loss_signal: bool,
    on_rtt_sample: bool,
    header: bool,
    on_feedback: bool,
    on_arrival: bool,
    on_departure: bool,
    first_tick: bool,
    tick: bool,
}

/// A class in a Python file.
struct PyLibrary {
    class: Py<PyAny>,
    name: String,
    hooks: Hooks,
}

/// Loads `class` from `file` (the core's Python loader).
pub fn load(file: &Path, class: &str) -> Result<Box<dyn Library>, String> {
    Python::attach(|py| {
        let cls = py
            .import("fctlab.plugins")
            .and_then(|m| m.call_method1("load_class", (file, class)))
            .map_err(|e| message(py, e))?;
        let has = |name: &str| cls.hasattr(name).unwrap_or(false);
        let hooks = Hooks {
            on_ack: has("on_ack"),
            on_congestion: has("on_congestion"),
            on_timeout: has("on_timeout"),
            on_recovery_end: has("on_recovery_end"),
            on_loss_signal: has("on_loss_signal"),
            on_rtt_sample: has("on_rtt_sample"),
            header: has("header"),
            on_feedback: has("on_feedback"),
            on_arrival: has("on_arrival"),
            on_departure: has("on_departure"),
            first_tick: has("first_tick"),
            tick: has("tick"),
        };
        let host = hooks.on_ack && hooks.on_congestion;
        if !host && !hooks.on_departure {
            return Err(format!(
                "class {class} has neither a host law's hooks (on_ack and on_congestion) nor a router law's (on_departure)"
            ));
        }
        Ok(Box::new(PyLibrary { class: cls.unbind(), name: class.to_string(), hooks }) as Box<dyn Library>)
    })
}

impl Library for PyLibrary {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn host(&self) -> Option<&dyn HostFactory> {
        (self.hooks.on_ack && self.hooks.on_congestion).then_some(self as &dyn HostFactory)
    }
    fn router(&self) -> Option<&dyn RouterFactory> {
        self.hooks.on_departure.then_some(self as &dyn RouterFactory)
    }
}

/// One connection's host law object.
struct PyHost {
    law: Py<PyAny>,
    window: Py<PyWindow>,
    hooks: Hooks,
}

impl HostFactory for PyLibrary {
    fn create(&self, init: &HostInit) -> Result<Box<dyn DynHost>, String> {
        Python::attach(|py| {
            let conn = PyConnection { flow: init.flow, mss: init.mss, header: init.header, rwnd: init.rwnd };
            let law = self.class.call1(py, (conn,)).map_err(|e| message(py, e))?;
            let window = Py::new(py, PyWindow { cwnd: 0, ssthresh: 0, mss: 0, abc: 0 }).map_err(|e| message(py, e))?;
            Ok(Box::new(PyHost { law, window, hooks: self.hooks }) as Box<dyn DynHost>)
        })
    }
}

impl PyHost {
    /// Calls `name(w, *args)` with the window in and out; returns what the hook returned.
    fn call<'py, A: pyo3::call::PyCallArgs<'py>>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, pyo3::types::PyString>,
        w: &mut Window,
        args: impl FnOnce(Bound<'py, PyWindow>) -> A,
    ) -> Result<Bound<'py, PyAny>, String> {
        let win = self.window.bind(py);
        {
            let mut b = win.borrow_mut();
            (b.cwnd, b.ssthresh, b.mss, b.abc) = (w.cwnd, w.ssthresh, w.mss, w.abc);
        }
        let out = self.law.bind(py).call_method1(name, args(win.clone())).map_err(|e| message(py, e))?;
        let b = win.borrow();
        (w.cwnd, w.ssthresh) = (b.cwnd, b.ssthresh);
        Ok(out)
    }
}

impl DynHost for PyHost {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Time>) -> Result<(), String> {
        Python::attach(|py| {
            self.call(py, intern!(py, "on_ack"), w, |win| (win, secs(now), acked, srtt.map(secs))).map(drop)
        })
    }
    fn on_congestion(&mut self, w: &mut Window, now: Time, flight: u64) -> Result<(), String> {
        Python::attach(|py| self.call(py, intern!(py, "on_congestion"), w, |win| (win, secs(now), flight)).map(drop))
    }
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight: u64) -> Result<(), String> {
        if !self.hooks.on_timeout {
            // RFC 5681 eq. 4, then cwnd = 1 MSS (fctlab's default).
            self.on_congestion(w, now, flight)?;
            w.cwnd = w.mss;
            return Ok(());
        }
        Python::attach(|py| self.call(py, intern!(py, "on_timeout"), w, |win| (win, secs(now), flight)).map(drop))
    }
    fn on_recovery_end(&mut self, w: &mut Window, now: Time) -> Result<(), String> {
        if !self.hooks.on_recovery_end {
            w.cwnd = w.ssthresh;
            return Ok(());
        }
        Python::attach(|py| self.call(py, intern!(py, "on_recovery_end"), w, |win| (win, secs(now))).map(drop))
    }
    fn on_loss_signal(&mut self, w: &mut Window, now: Time) -> Result<(), String> {
        if !self.hooks.on_loss_signal {
            return Ok(());
        }
        Python::attach(|py| self.call(py, intern!(py, "on_loss_signal"), w, |win| (win, secs(now))).map(drop))
    }
    fn on_rtt_sample(&mut self, w: &mut Window, s: &PluginRttSample) -> Result<(), String> {
        let (now, rtt) = (secs(Time(s.now)), secs(Time(s.rtt)));
        Python::attach(|py| self.call(py, intern!(py, "on_rtt_sample"), w, |win| (win, now, rtt)).map(drop))
    }
    fn header(&self, w: &Window, ctx: &SendCtx) -> Result<Header, String> {
        if !self.hooks.header {
            return Ok(Header::NONE);
        }
        let srtt = (ctx.srtt != u64::MAX).then(|| secs(Time(ctx.srtt)));
        let mut w = *w;
        Python::attach(|py| {
            let out =
                self.call(py, intern!(py, "header"), &mut w, |win| (win, kind_name(ctx.kind), srtt, ctx.sent_bytes))?;
            if out.is_none() {
                return Ok(Header::NONE);
            }
            out.extract::<(u8, u32, u32, u32)>()
                .map(header)
                .map_err(|_| format!("header returned {out}, expected None or (tag, w0, w1, w2) of 8- and 32-bit ints"))
        })
    }
    fn on_feedback(&mut self, w: &mut Window, echo: Header, srtt: Option<Time>) -> Result<bool, String> {
        if !self.hooks.on_feedback {
            return Ok(false);
        }
        Python::attach(|py| {
            let out = self.call(py, intern!(py, "on_feedback"), w, |win| (win, tuple(echo), srtt.map(secs)))?;
            Ok(out.is_truthy().unwrap_or(false))
        })
    }
    fn traits(&self) -> Result<HostTraits, String> {
        Python::attach(|py| {
            let law = self.law.bind(py);
            // Its bounds are checked by the core (`bounds::pacing_rate`), as a Rust law's are.
            let pacing = match law.getattr_opt("pacing_rate").map_err(|e| message(py, e))? {
                Some(v) if !v.is_none() => match whole("pacing_rate", "bit/s", &v).map_err(|e| message(py, e))? {
                    Whole::Value(n) if n != u64::MAX => n,
                    _ => return Err(bounds::pacing_rate_refused(&v.to_string())),
                },
                _ => u64::MAX,
            };
            let reacts = match law.getattr_opt("reacts_to_loss").map_err(|e| message(py, e))? {
                Some(v) => v.is_truthy().map_err(|e| message(py, e))?,
                None => true,
            };
            Ok(HostTraits {
                wants_rtt_samples: self.hooks.on_rtt_sample,
                reacts_to_loss: reacts,
                pacing_rate_bps: pacing,
            })
        })
    }
}

/// One port's router law object.
struct PyRouter {
    law: Py<PyAny>,
    port: Py<PyPort>,
    hooks: Hooks,
}

impl RouterFactory for PyLibrary {
    fn create(&self, port: &Port, params: &str) -> Result<Box<dyn DynRouter>, String> {
        Python::attach(|py| {
            let p = Py::new(py, PyPort { router: port.router, link: port.link, capacity_bps: port.capacity_bps })
                .map_err(|e| message(py, e))?;
            let params = py
                .import("json")
                .and_then(|j| j.call_method1("loads", (params,)))
                .and_then(|d| d.cast_into::<PyDict>().map_err(PyErr::from))
                .map_err(|e| message(py, e))?;
            let law = self.class.call1(py, (p.clone_ref(py), params)).map_err(|e| message(py, e))?;
            Ok(Box::new(PyRouter { law, port: p, hooks: self.hooks }) as Box<dyn DynRouter>)
        })
    }
}

impl PyRouter {
    fn port<'py>(&self, py: Python<'py>, port: &Port) -> Bound<'py, PyPort> {
        let p = self.port.bind(py);
        p.borrow_mut().capacity_bps = port.capacity_bps;
        p.clone()
    }

    fn packet(pkt: &PacketView) -> PyPacket {
        PyPacket {
            flow: pkt.flow,
            kind: kind_name(pkt.kind),
            prio: pkt.prio,
            len: pkt.len,
            wire: pkt.wire,
            seq: pkt.seq,
            ack: pkt.ack,
            header: tuple(pkt.header),
        }
    }

    fn next(out: Bound<'_, PyAny>, hook: &str) -> Result<Option<Time>, String> {
        if out.is_none() {
            return Ok(None);
        }
        let s: f64 = out.extract().map_err(|_| format!("{hook} returned {out}, expected seconds or None"))?;
        if !(s.is_finite() && s >= 0.0) {
            return Err(format!("{hook} returned {s}, expected seconds >= 0 or None"));
        }
        Ok(Some(Time::from_secs_f64(s)))
    }
}

impl DynRouter for PyRouter {
    fn on_arrival(&mut self, port: &Port, now: Time, pkt: &PacketView, queued: u64) -> Result<(), String> {
        if !self.hooks.on_arrival {
            return Ok(());
        }
        Python::attach(|py| {
            let args = (self.port(py, port), secs(now), Self::packet(pkt), queued);
            self.law.bind(py).call_method1(intern!(py, "on_arrival"), args).map(drop).map_err(|e| message(py, e))
        })
    }
    fn on_departure(&mut self, port: &Port, now: Time, pkt: &mut PacketView, queued: u64) -> Result<(), String> {
        Python::attach(|py| {
            let p = Bound::new(py, Self::packet(pkt)).map_err(|e| message(py, e))?;
            let args = (self.port(py, port), secs(now), p.clone(), queued);
            self.law.bind(py).call_method1(intern!(py, "on_departure"), args).map_err(|e| message(py, e))?;
            let b = p.borrow();
            pkt.header = header(b.header);
            pkt.prio = b.prio;
            Ok(())
        })
    }
    fn first_tick(&self) -> Result<Option<Time>, String> {
        if !self.hooks.first_tick {
            return Ok(None);
        }
        Python::attach(|py| {
            let out = self.law.bind(py).call_method0(intern!(py, "first_tick")).map_err(|e| message(py, e))?;
            Self::next(out, "first_tick")
        })
    }
    fn tick(&mut self, port: &Port, now: Time, queued: u64) -> Result<Option<Time>, String> {
        if !self.hooks.tick {
            return Ok(None);
        }
        Python::attach(|py| {
            let args = (self.port(py, port), secs(now), queued);
            let out = self.law.bind(py).call_method1(intern!(py, "tick"), args).map_err(|e| message(py, e))?;
            Self::next(out, "tick")
        })
    }
}

//! Rust plug-ins: a shared library built against `fctlab-plugin`, opened with dlopen.
//!
//! `fctlab_plugin_api_version` is read before anything else: a library built against another
//! [`API_VERSION`] is refused with both versions named, before its descriptor (whose layout
//! may differ) is touched. Then `fctlab_plugin` gives the descriptor and its vtables, which
//! every call goes through. A library stays loaded for the life of the process.

use super::{
    DynHost, DynRouter, Header, HostFactory, HostInit, Library, PacketView, Port, RouterFactory, SendCtx, Window,
};
use super::{HostTraits, PluginRttSample, API_VERSION};
use crate::units::Time;
use fctlab_plugin::abi::{Descriptor, HostVTable, RouterVTable, Status, NO_TIME, OK};
use std::ffi::{c_void, CStr, CString};
use std::path::Path;

/// An opened library.
pub struct Dylib {
    desc: &'static Descriptor,
}

// SAFETY: the descriptor and vtables are immutable statics of the library.
unsafe impl Send for Dylib {}
unsafe impl Sync for Dylib {}

fn dlerror() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string valid until the next dl call.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".to_string()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// Opens the library at `path`: refused if it cannot be loaded, is not an fctlab plug-in, or
/// was built against another API version.
pub fn open(path: &Path) -> Result<Dylib, String> {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| "a path with a NUL byte".to_string())?;
    // SAFETY: loading a library runs its initialisers; the user named it as a plug-in.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!("cannot load it: {}", dlerror()));
    }
    let sym = |name: &CStr| {
        // SAFETY: handle is a live library handle.
        let p = unsafe { libc::dlsym(handle, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    };
    let Some(version) = sym(c"fctlab_plugin_api_version") else {
        return Err("not an fctlab plug-in (no fctlab_plugin_api_version symbol: export its laws with \
             fctlab_plugin::export_plugin!)"
            .to_string());
    };
    // SAFETY: the symbol is the macro's `extern "C" fn() -> u32`.
    let version: extern "C" fn() -> u32 = unsafe { std::mem::transmute(version) };
    let theirs = version();
    if theirs != API_VERSION {
        return Err(format!(
            "built against fctlab plug-in API {theirs}, but this fctlab has API {API_VERSION}: rebuild it against \
             the fctlab-plugin crate of this fctlab"
        ));
    }
    let Some(entry) = sym(c"fctlab_plugin") else {
        return Err("no fctlab_plugin symbol (export its laws with fctlab_plugin::export_plugin!)".to_string());
    };
    // SAFETY: same version, so the symbol is `extern "C" fn() -> *const Descriptor`, and the
    // descriptor a static of the library, which is never unloaded.
    let entry: extern "C" fn() -> *const Descriptor = unsafe { std::mem::transmute(entry) };
    let desc = unsafe { &*entry() };
    if desc.api_version != API_VERSION {
        return Err(format!("its descriptor says API {}, this fctlab has API {API_VERSION}", desc.api_version));
    }
    Ok(Dylib { desc })
}

/// The message of the library's last fault in this thread.
#[cold]
#[inline(never)]
fn error(desc: &Descriptor) -> String {
    let mut buf = vec![0u8; 1024];
    // SAFETY: the buffer has `buf.len()` writable bytes.
    let n = unsafe { (desc.last_error)(buf.as_mut_ptr(), buf.len()) };
    buf.truncate(n.min(1024));
    let msg = String::from_utf8_lossy(&buf).into_owned();
    if msg.is_empty() {
        "failed (no message)".to_string()
    } else {
        msg
    }
}

/// A hook's status as a result, the library's message on a fault.
#[inline(always)]
fn check(desc: &Descriptor, s: Status) -> Result<(), String> {
    if s == OK {
        Ok(())
    } else {
        Err(error(desc))
    }
}

/// One law made by a library (a connection's or a port's): freed by the library when dropped.
struct Instance {
    lib: &'static Descriptor,
    law: *mut c_void,
    drop: unsafe extern "C" fn(*mut c_void),
}

// SAFETY: the laws are `Send` in the API crate; a law is used by one thread at a time, and
// shared references to it (a world read between steps) never call it concurrently.
unsafe impl Send for Instance {}
unsafe impl Sync for Instance {}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: `law` came from the vtable's `new` and is dropped once.
        unsafe { (self.drop)(self.law) }
    }
}

impl Instance {
    #[inline(always)]
    fn check(&self, s: Status) -> Result<(), String> {
        check(self.lib, s)
    }
}

impl Library for Dylib {
    fn name(&self) -> String {
        if self.desc.name.is_null() {
            return String::new();
        }
        // SAFETY: the descriptor's name is a static &str of the library (`export_plugin!`).
        let bytes = unsafe { std::slice::from_raw_parts(self.desc.name, self.desc.name_len) };
        String::from_utf8_lossy(bytes).into_owned()
    }
    fn host(&self) -> Option<&dyn HostFactory> {
        (!self.desc.host.is_null()).then_some(self as &dyn HostFactory)
    }
    fn router(&self) -> Option<&dyn RouterFactory> {
        (!self.desc.router.is_null()).then_some(self as &dyn RouterFactory)
    }
}

fn ps(t: Option<Time>) -> u64 {
    t.map_or(NO_TIME, |t| t.ps())
}

fn time(ps: u64) -> Option<Time> {
    (ps != NO_TIME).then_some(Time(ps))
}

/// One connection's law in a library.
struct DylibHost {
    vt: &'static HostVTable,
    i: Instance,
}

impl HostFactory for Dylib {
    fn create(&self, init: &HostInit) -> Result<Box<dyn DynHost>, String> {
        // SAFETY: checked non-null in `host()`; a static of the library.
        let vt = unsafe { &*self.desc.host };
        let mut law = std::ptr::null_mut();
        check(self.desc, unsafe { (vt.new)(init, &mut law) })?;
        Ok(Box::new(DylibHost { vt, i: Instance { lib: self.desc, law, drop: vt.drop } }))
    }
}

// SAFETY (each call): `law` is live, the pointers are to locals of the call.
impl DynHost for DylibHost {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Time>) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_ack)(self.i.law, w, now.ps(), acked, ps(srtt)) })
    }
    fn on_congestion(&mut self, w: &mut Window, now: Time, flight: u64) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_congestion)(self.i.law, w, now.ps(), flight) })
    }
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight: u64) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_timeout)(self.i.law, w, now.ps(), flight) })
    }
    fn on_recovery_end(&mut self, w: &mut Window, now: Time) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_recovery_end)(self.i.law, w, now.ps()) })
    }
    fn on_loss_signal(&mut self, w: &mut Window, now: Time) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_loss_signal)(self.i.law, w, now.ps()) })
    }
    fn on_rtt_sample(&mut self, w: &mut Window, s: &PluginRttSample) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_rtt_sample)(self.i.law, w, s) })
    }
    #[inline]
    fn header(&self, w: &Window, ctx: &SendCtx) -> Result<Header, String> {
        let mut out = Header::NONE;
        self.i.check(unsafe { (self.vt.header)(self.i.law, w, ctx, &mut out) })?;
        Ok(out)
    }
    #[inline]
    fn on_feedback(&mut self, w: &mut Window, echo: Header, srtt: Option<Time>) -> Result<bool, String> {
        let mut follows = false;
        self.i.check(unsafe { (self.vt.on_feedback)(self.i.law, w, &echo, ps(srtt), &mut follows) })?;
        Ok(follows)
    }
    fn traits(&self) -> Result<HostTraits, String> {
        let mut out = HostTraits::default();
        self.i.check(unsafe { (self.vt.traits)(self.i.law, &mut out) })?;
        Ok(out)
    }
}

/// One port's law in a library.
struct DylibRouter {
    vt: &'static RouterVTable,
    i: Instance,
}

impl RouterFactory for Dylib {
    fn create(&self, port: &Port, params: &str) -> Result<Box<dyn DynRouter>, String> {
        // SAFETY: checked non-null in `router()`; a static of the library.
        let vt = unsafe { &*self.desc.router };
        let mut law = std::ptr::null_mut();
        check(self.desc, unsafe { (vt.new)(port, params.as_ptr(), params.len(), &mut law) })?;
        Ok(Box::new(DylibRouter { vt, i: Instance { lib: self.desc, law, drop: vt.drop } }))
    }
}

// SAFETY (each call): `law` is live, the pointers are to locals of the call.
impl DynRouter for DylibRouter {
    #[inline]
    fn on_arrival(&mut self, port: &Port, now: Time, pkt: &PacketView, queued: u64) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_arrival)(self.i.law, port, now.ps(), pkt, queued) })
    }
    #[inline]
    fn on_departure(&mut self, port: &Port, now: Time, pkt: &mut PacketView, queued: u64) -> Result<(), String> {
        self.i.check(unsafe { (self.vt.on_departure)(self.i.law, port, now.ps(), pkt, queued) })
    }
    fn first_tick(&self) -> Result<Option<Time>, String> {
        let mut out = NO_TIME;
        self.i.check(unsafe { (self.vt.first_tick)(self.i.law, &mut out) })?;
        Ok(time(out))
    }
    fn tick(&mut self, port: &Port, now: Time, queued: u64) -> Result<Option<Time>, String> {
        let mut out = NO_TIME;
        self.i.check(unsafe { (self.vt.tick)(self.i.law, port, now.ps(), queued, &mut out) })?;
        Ok(time(out))
    }
}

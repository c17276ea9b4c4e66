//! The C ABI between fctlab and a plug-in library.
//!
//! A library exports two symbols (written by [`export_plugin!`]):
//!
//! | symbol | type | fctlab reads it |
//! |---|---|---|
//! | `fctlab_plugin_api_version` | `extern "C" fn() -> u32` | first: a version other than its own [`API_VERSION`] is refused, both named |
//! | `fctlab_plugin` | `extern "C" fn() -> *const Descriptor` | then: the name and the vtables |
//!
//! Every hook returns a [`Status`]. A panic inside a hook is caught here (no unwinding crosses
//! the boundary), its message kept in a thread-local, and [`FAULT`] returned; fctlab reads the
//! message with [`Descriptor::last_error`]. The library's own panic hook is silenced by the
//! first [`export_plugin!`] call, so a fault prints nothing of its own: fctlab reports it.
//!
//! Law state lives in the library as a `Box<Law>` passed back and forth as `*mut c_void`.
//! Types cross by pointer to `#[repr(C)]` structs; absent times are [`NO_TIME`].

use crate::{Header, HostInit, HostLaw, PacketView, Port, Ps, RouterLaw, RttSample, SendCtx, Window};
use std::cell::RefCell;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The version of this ABI. A change to any `#[repr(C)]` type or vtable raises it.
pub const API_VERSION: u32 = 1;

/// A hook's outcome.
pub type Status = u32;
/// The hook ran.
pub const OK: Status = 0;
/// The hook panicked (or refused): the message is in [`Descriptor::last_error`].
pub const FAULT: Status = 1;

/// An absent time or rate (no RTT sample yet, no tick, no pacing).
pub const NO_TIME: u64 = u64::MAX;

/// What a library offers: its name and the vtables of its laws (null: none).
#[repr(C)]
pub struct Descriptor {
    /// `API_VERSION` of the crate the library was built against.
    pub api_version: u32,
    /// The plug-in's name (UTF-8, not NUL-terminated).
    pub name: *const u8,
    /// Bytes of `name`.
    pub name_len: usize,
    /// The host law, or null.
    pub host: *const HostVTable,
    /// The router law, or null.
    pub router: *const RouterVTable,
    /// Copies the last fault's message (UTF-8) into `buf` (at most `cap` bytes) and returns
    /// its full length.
    pub last_error: unsafe extern "C" fn(buf: *mut u8, cap: usize) -> usize,
}

// SAFETY: a descriptor points at static data only (its name and vtables).
unsafe impl Sync for Descriptor {}

/// A host law's hooks; `law` is the value `new` wrote.
#[repr(C)]
pub struct HostVTable {
    /// Creates a law for `init` into `out`.
    pub new: unsafe extern "C" fn(init: *const HostInit, out: *mut *mut c_void) -> Status,
    /// Frees a law.
    pub drop: unsafe extern "C" fn(law: *mut c_void),
    /// [`HostLaw::on_ack`]; `srtt` is [`NO_TIME`] without a sample.
    pub on_ack: unsafe extern "C" fn(law: *mut c_void, w: *mut Window, now: Ps, acked: u64, srtt: Ps) -> Status,
    /// [`HostLaw::on_congestion`].
    pub on_congestion: unsafe extern "C" fn(law: *mut c_void, w: *mut Window, now: Ps, flight: u64) -> Status,
    /// [`HostLaw::on_timeout`].
    pub on_timeout: unsafe extern "C" fn(law: *mut c_void, w: *mut Window, now: Ps, flight: u64) -> Status,
    /// [`HostLaw::on_recovery_end`].
    pub on_recovery_end: unsafe extern "C" fn(law: *mut c_void, w: *mut Window, now: Ps) -> Status,
    /// [`HostLaw::on_loss_signal`].
    pub on_loss_signal: unsafe extern "C" fn(law: *mut c_void, w: *mut Window, now: Ps) -> Status,
    /// [`HostLaw::on_rtt_sample`].
    pub on_rtt_sample: unsafe extern "C" fn(law: *mut c_void, w: *mut Window, s: *const RttSample) -> Status,
    /// [`HostLaw::header`] into `out`.
    pub header:
        unsafe extern "C" fn(law: *mut c_void, w: *const Window, ctx: *const SendCtx, out: *mut Header) -> Status,
    /// [`HostLaw::on_feedback`]; its answer into `follows`.
    pub on_feedback: unsafe extern "C" fn(
        law: *mut c_void,
        w: *mut Window,
        echo: *const Header,
        srtt: Ps,
        follows: *mut bool,
    ) -> Status,
    /// The constant answers, into `out`: [`HostLaw::wants_rtt_samples`],
    /// [`HostLaw::reacts_to_loss`], [`HostLaw::pacing_rate`] ([`NO_TIME`]: none).
    pub traits: unsafe extern "C" fn(law: *mut c_void, out: *mut HostTraits) -> Status,
}

/// A host law's constant answers.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct HostTraits {
    /// [`HostLaw::wants_rtt_samples`].
    pub wants_rtt_samples: bool,
    /// [`HostLaw::reacts_to_loss`].
    pub reacts_to_loss: bool,
    /// [`HostLaw::pacing_rate`], bit/s ([`NO_TIME`]: none).
    pub pacing_rate_bps: u64,
}

/// A router law's hooks; `law` is the value `new` wrote.
#[repr(C)]
pub struct RouterVTable {
    /// Creates the law of `port` from `params` (JSON text of `params_len` bytes) into `out`.
    pub new:
        unsafe extern "C" fn(port: *const Port, params: *const u8, params_len: usize, out: *mut *mut c_void) -> Status,
    /// Frees a law.
    pub drop: unsafe extern "C" fn(law: *mut c_void),
    /// [`RouterLaw::on_arrival`].
    pub on_arrival: unsafe extern "C" fn(
        law: *mut c_void,
        port: *const Port,
        now: Ps,
        pkt: *const PacketView,
        queued: u64,
    ) -> Status,
    /// [`RouterLaw::on_departure`].
    pub on_departure:
        unsafe extern "C" fn(law: *mut c_void, port: *const Port, now: Ps, pkt: *mut PacketView, queued: u64) -> Status,
    /// [`RouterLaw::first_tick`] into `out` ([`NO_TIME`]: none).
    pub first_tick: unsafe extern "C" fn(law: *mut c_void, out: *mut Ps) -> Status,
    /// [`RouterLaw::tick`], the next tick into `out` ([`NO_TIME`]: none).
    pub tick: unsafe extern "C" fn(law: *mut c_void, port: *const Port, now: Ps, queued: u64, out: *mut Ps) -> Status,
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f`; a panic becomes [`FAULT`] with its message kept for [`last_error`].
fn guard(f: impl FnOnce()) -> Status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => OK,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panicked".to_string());
            fail(msg)
        }
    }
}

/// Keeps `msg` as the last fault and returns [`FAULT`].
fn fail(msg: String) -> Status {
    LAST_ERROR.with(|e| *e.borrow_mut() = msg);
    FAULT
}

/// [`Descriptor::last_error`].
///
/// # Safety
/// `buf` must point at `cap` writable bytes.
pub unsafe extern "C" fn last_error(buf: *mut u8, cap: usize) -> usize {
    LAST_ERROR.with(|e| {
        let e = e.borrow();
        let n = e.len().min(cap);
        // SAFETY: the caller gives `cap` writable bytes at `buf`.
        unsafe { std::ptr::copy_nonoverlapping(e.as_ptr(), buf, n) };
        e.len()
    })
}

/// Silences the library's panic hook (once): a caught panic is reported by fctlab, with the
/// plug-in, the hook, the flow and the time, instead of printed here.
pub fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

fn opt(t: Ps) -> Option<Ps> {
    (t != NO_TIME).then_some(t)
}

// SAFETY (every hook below): fctlab passes the pointer `new` wrote and valid pointers to the
// `#[repr(C)]` arguments, from one thread at a time per law.
unsafe fn law<'a, L>(p: *mut c_void) -> &'a mut L {
    unsafe { &mut *(p as *mut L) }
}

/// A law `new` makes, boxed into `out`; its refusal or panic is a fault.
unsafe fn make<L>(out: *mut *mut c_void, new: impl FnOnce() -> Result<L, String>) -> Status {
    let mut made = Err(String::new());
    let s = guard(|| made = new());
    if s != OK {
        return s;
    }
    match made {
        Ok(law) => {
            unsafe { *out = Box::into_raw(Box::new(law)) as *mut c_void };
            OK
        }
        Err(msg) => fail(msg),
    }
}

/// Frees a law `make` boxed (a panic in its drop is swallowed: the run is over for it).
unsafe extern "C" fn drop_law<L>(p: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(p as *mut L) })));
}

unsafe extern "C" fn host_new<H: HostLaw>(init: *const HostInit, out: *mut *mut c_void) -> Status {
    unsafe { make(out, || H::new(&*init)) }
}

unsafe extern "C" fn host_on_ack<H: HostLaw>(p: *mut c_void, w: *mut Window, now: Ps, acked: u64, srtt: Ps) -> Status {
    guard(|| unsafe { law::<H>(p) }.on_ack(unsafe { &mut *w }, now, acked, opt(srtt)))
}

unsafe extern "C" fn host_on_congestion<H: HostLaw>(p: *mut c_void, w: *mut Window, now: Ps, flight: u64) -> Status {
    guard(|| unsafe { law::<H>(p) }.on_congestion(unsafe { &mut *w }, now, flight))
}

unsafe extern "C" fn host_on_timeout<H: HostLaw>(p: *mut c_void, w: *mut Window, now: Ps, flight: u64) -> Status {
    guard(|| unsafe { law::<H>(p) }.on_timeout(unsafe { &mut *w }, now, flight))
}

unsafe extern "C" fn host_on_recovery_end<H: HostLaw>(p: *mut c_void, w: *mut Window, now: Ps) -> Status {
    guard(|| unsafe { law::<H>(p) }.on_recovery_end(unsafe { &mut *w }, now))
}

unsafe extern "C" fn host_on_loss_signal<H: HostLaw>(p: *mut c_void, w: *mut Window, now: Ps) -> Status {
    guard(|| unsafe { law::<H>(p) }.on_loss_signal(unsafe { &mut *w }, now))
}

unsafe extern "C" fn host_on_rtt_sample<H: HostLaw>(p: *mut c_void, w: *mut Window, s: *const RttSample) -> Status {
    guard(|| unsafe { law::<H>(p) }.on_rtt_sample(unsafe { &mut *w }, unsafe { &*s }))
}

unsafe extern "C" fn host_header<H: HostLaw>(
    p: *mut c_void,
    w: *const Window,
    ctx: *const SendCtx,
    out: *mut Header,
) -> Status {
    guard(|| unsafe { *out = law::<H>(p).header(&*w, &*ctx) })
}

unsafe extern "C" fn host_on_feedback<H: HostLaw>(
    p: *mut c_void,
    w: *mut Window,
    echo: *const Header,
    srtt: Ps,
    follows: *mut bool,
) -> Status {
    guard(|| unsafe { *follows = law::<H>(p).on_feedback(&mut *w, *echo, opt(srtt)) })
}

unsafe extern "C" fn host_traits<H: HostLaw>(p: *mut c_void, out: *mut HostTraits) -> Status {
    guard(|| {
        let h = unsafe { law::<H>(p) };
        let t = HostTraits {
            wants_rtt_samples: h.wants_rtt_samples(),
            reacts_to_loss: h.reacts_to_loss(),
            pacing_rate_bps: h.pacing_rate().unwrap_or(NO_TIME),
        };
        unsafe { *out = t };
    })
}

impl HostVTable {
    /// The vtable of host law `H`.
    pub const fn of<H: HostLaw>() -> HostVTable {
        HostVTable {
            new: host_new::<H>,
            drop: drop_law::<H>,
            on_ack: host_on_ack::<H>,
            on_congestion: host_on_congestion::<H>,
            on_timeout: host_on_timeout::<H>,
            on_recovery_end: host_on_recovery_end::<H>,
            on_loss_signal: host_on_loss_signal::<H>,
            on_rtt_sample: host_on_rtt_sample::<H>,
            header: host_header::<H>,
            on_feedback: host_on_feedback::<H>,
            traits: host_traits::<H>,
        }
    }
}

unsafe extern "C" fn router_new<R: RouterLaw>(
    port: *const Port,
    params: *const u8,
    len: usize,
    out: *mut *mut c_void,
) -> Status {
    unsafe {
        make(out, || {
            let bytes = std::slice::from_raw_parts(params, len);
            match std::str::from_utf8(bytes) {
                Ok(text) => R::new(&*port, text),
                Err(e) => Err(format!("parameters are not UTF-8: {e}")),
            }
        })
    }
}

unsafe extern "C" fn router_on_arrival<R: RouterLaw>(
    p: *mut c_void,
    port: *const Port,
    now: Ps,
    pkt: *const PacketView,
    queued: u64,
) -> Status {
    guard(|| unsafe { law::<R>(p).on_arrival(&*port, now, &*pkt, queued) })
}

unsafe extern "C" fn router_on_departure<R: RouterLaw>(
    p: *mut c_void,
    port: *const Port,
    now: Ps,
    pkt: *mut PacketView,
    queued: u64,
) -> Status {
    guard(|| unsafe { law::<R>(p).on_departure(&*port, now, &mut *pkt, queued) })
}

unsafe extern "C" fn router_first_tick<R: RouterLaw>(p: *mut c_void, out: *mut Ps) -> Status {
    guard(|| unsafe { *out = law::<R>(p).first_tick().unwrap_or(NO_TIME) })
}

unsafe extern "C" fn router_tick<R: RouterLaw>(
    p: *mut c_void,
    port: *const Port,
    now: Ps,
    queued: u64,
    out: *mut Ps,
) -> Status {
    guard(|| unsafe { *out = law::<R>(p).tick(&*port, now, queued).unwrap_or(NO_TIME) })
}

impl RouterVTable {
    /// The vtable of router law `R`.
    pub const fn of<R: RouterLaw>() -> RouterVTable {
        RouterVTable {
            new: router_new::<R>,
            drop: drop_law::<R>,
            on_arrival: router_on_arrival::<R>,
            on_departure: router_on_departure::<R>,
            first_tick: router_first_tick::<R>,
            tick: router_tick::<R>,
        }
    }
}

/// Exports a plug-in's laws from its `cdylib` crate:
///
/// ```ignore
/// fctlab_plugin::export_plugin!(name = "my-cc", host = MyWindow, router = MyRouter);
/// ```
///
/// `host` and `router` are each optional (at least one is needed to be of use).
#[macro_export]
macro_rules! export_plugin {
    (name = $name:literal $(, host = $host:ty)? $(, router = $router:ty)? $(,)?) => {
        /// The fctlab plug-in API this library was built against.
        #[unsafe(no_mangle)]
        pub extern "C" fn fctlab_plugin_api_version() -> u32 {
            $crate::abi::API_VERSION
        }

        /// This library's laws.
        #[unsafe(no_mangle)]
        pub extern "C" fn fctlab_plugin() -> *const $crate::abi::Descriptor {
            $crate::abi::quiet_panics();
            static NAME: &str = $name;
            $(static HOST: $crate::abi::HostVTable = $crate::abi::HostVTable::of::<$host>();)?
            $(static ROUTER: $crate::abi::RouterVTable = $crate::abi::RouterVTable::of::<$router>();)?
            static DESCRIPTOR: $crate::abi::Descriptor = $crate::abi::Descriptor {
                api_version: $crate::abi::API_VERSION,
                name: NAME.as_ptr(),
                name_len: NAME.len(),
                host: {
                    #[allow(unused_mut, unused_assignments)]
                    let mut p: *const $crate::abi::HostVTable = ::std::ptr::null();
                    $(let _: ::std::marker::PhantomData<$host>; p = &HOST;)?
                    p
                },
                router: {
                    #[allow(unused_mut, unused_assignments)]
                    let mut p: *const $crate::abi::RouterVTable = ::std::ptr::null();
                    $(let _: ::std::marker::PhantomData<$router>; p = &ROUTER;)?
                    p
                },
                last_error: $crate::abi::last_error,
            };
            &DESCRIPTOR
        }
    };
}

//! A host law plug-in under fctlab's TCP: the registry's `Controller::Plugin`.
//!
//! The window crosses as the API's [`Window`] (the same four fields as
//! [`CcState`]), headers as their wire form ([`super::to_plugin`], [`super::from_plugin`]: a
//! header fctlab would refuse from the wire is refused here too, as a fault), and the window a
//! hook leaves and the pacing rate are checked against [`super::bounds`] (outside them: a
//! fault). After a fault the law is not called again: the connection keeps its window until
//! the event loop stops.

use super::{
    bounds, from_plugin, to_plugin, DynHost, HostPlugin, HostTraits, Plugin, PluginRttSample, SendCtx, Window,
};
use crate::net::packet::{CongestionHeader, PacketKind};
use crate::transport::cc::{CcState, CongestionControl, Feedback, HeaderCtx, RttSample};
use crate::units::{Rate, Time};
use fctlab_plugin::abi::NO_TIME;
use fctlab_plugin::HostInit;

/// One connection's host law in a plug-in.
pub struct PluginCc {
    plugin: &'static Plugin,
    /// The law; None once a hook failed, or if it could not be made (no more calls).
    law: Option<Box<dyn DynHost>>,
    flow: u32,
    traits: HostTraits,
}

impl std::fmt::Debug for PluginCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PluginCc({}, flow {})", self.plugin.spec, self.flow)
    }
}

fn window(st: &CcState) -> Window {
    Window { cwnd: st.cwnd, ssthresh: st.ssthresh, mss: st.mss, abc: st.abc }
}

/// The window a hook left, refused if outside [`super::bounds`].
fn checked(w: &Window) -> Result<(), String> {
    bounds::window_field("cwnd", w.cwnd)?;
    bounds::window_field("ssthresh", w.ssthresh)?;
    Ok(())
}

/// The law's pacing rate, if any, refused if outside [`super::bounds`].
fn pacing(t: HostTraits) -> Result<(), String> {
    if t.pacing_rate_bps != NO_TIME {
        bounds::pacing_rate(t.pacing_rate_bps)?;
    }
    Ok(())
}

fn back(st: &mut CcState, w: Window) {
    st.cwnd = w.cwnd;
    st.ssthresh = w.ssthresh;
}

impl PluginCc {
    /// The law of `plugin` for the connection `init`. A law that cannot be made is a fault
    /// (raised at once; the connection runs with no law, its window left as it is).
    pub fn new(plugin: HostPlugin, init: HostInit) -> PluginCc {
        let p = plugin.0;
        let made = p.host().create(&init).and_then(|law| law.traits().map(|t| (law, t)));
        let (hook, msg) = match made {
            Ok((law, traits)) => match pacing(traits) {
                Ok(()) => return PluginCc { plugin: p, law: Some(law), flow: init.flow, traits },
                Err(msg) => ("pacing_rate", msg),
            },
            Err(msg) => ("new", msg),
        };
        p.fail(hook, Some(init.flow), None, msg);
        let traits = HostTraits { pacing_rate_bps: NO_TIME, ..HostTraits::default() };
        PluginCc { plugin: p, law: None, flow: init.flow, traits }
    }

    /// Runs `hook` on the window; a failure, or a window outside [`super::bounds`], raises
    /// the fault and leaves `st` as it was.
    #[inline(never)]
    fn call<T: Default>(
        &mut self,
        name: &'static str,
        st: &mut CcState,
        hook: impl FnOnce(&mut dyn DynHost, &mut Window) -> Result<T, String>,
    ) -> T {
        let Some(law) = self.law.as_deref_mut() else { return T::default() };
        let mut w = window(st);
        match hook(law, &mut w).and_then(|v| checked(&w).map(|()| v)) {
            Ok(v) => {
                back(st, w);
                v
            }
            Err(msg) => {
                self.law = None;
                self.plugin.fail(name, Some(self.flow), None, msg);
                T::default()
            }
        }
    }
}

impl CongestionControl for PluginCc {
    #[inline(never)]
    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        let s = PluginRttSample { now: s.now.ps(), rtt: s.rtt.ps(), una: s.una, high: s.high };
        self.call("on_rtt_sample", st, |l, w| l.on_rtt_sample(w, &s))
    }
    #[inline(never)]
    fn wants_rtt_samples(&self) -> bool {
        self.traits.wants_rtt_samples
    }
    #[inline(never)]
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        self.call("on_ack", st, |l, w| l.on_ack(w, now, acked, srtt))
    }
    #[inline(never)]
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.call("on_congestion", st, |l, w| l.on_congestion(w, now, flight))
    }
    #[inline(never)]
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.call("on_timeout", st, |l, w| l.on_timeout(w, now, flight))
    }
    #[inline(never)]
    fn on_recovery_end(&mut self, st: &mut CcState, now: Time) {
        self.call("on_recovery_end", st, |l, w| l.on_recovery_end(w, now))
    }
    #[inline(never)]
    fn on_loss_signal(&mut self, st: &mut CcState, now: Time) {
        self.call("on_loss_signal", st, |l, w| l.on_loss_signal(w, now))
    }
    #[inline(never)]
    fn header(&self, st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        let Some(law) = self.law.as_deref() else { return CongestionHeader::None };
        let kind = match ctx.kind {
            PacketKind::Syn => fctlab_plugin::kind::SYN,
            PacketKind::SynAck => fctlab_plugin::kind::SYN_ACK,
            PacketKind::Data => fctlab_plugin::kind::DATA,
            // A plug-in sees a go-back-N NACK as the ACK it also is.
            PacketKind::Ack | PacketKind::Nack => fctlab_plugin::kind::ACK,
        };
        let sctx = SendCtx { kind, srtt: ctx.srtt.map_or(NO_TIME, |t| t.ps()), sent_bytes: ctx.sent_bytes };
        match law.header(&window(st), &sctx) {
            // No header: the common case, decoded without the wire's checks.
            Ok(super::Header { tag: 0, words: [0, 0, 0] }) => CongestionHeader::None,
            Ok(h) => match from_plugin(h) {
                Ok(h) => h,
                Err(msg) => {
                    self.plugin.fail("header", Some(self.flow), None, msg);
                    CongestionHeader::None
                }
            },
            Err(msg) => {
                // `header` reads the law only: the fault is raised, and the next hook is not run.
                self.plugin.fail("header", Some(self.flow), None, msg);
                CongestionHeader::None
            }
        }
    }
    #[inline(never)]
    fn on_feedback(&mut self, st: &mut CcState, fb: &Feedback) -> bool {
        if fb.echo == CongestionHeader::None {
            return false; // the hook is for ACKs that echo a header
        }
        let (echo, srtt) = (to_plugin(fb.echo), fb.srtt);
        self.call("on_feedback", st, |l, w| l.on_feedback(w, echo, srtt))
    }
    #[inline(never)]
    fn pacing_rate(&self) -> Option<Rate> {
        (self.traits.pacing_rate_bps != NO_TIME).then(|| Rate::from_bps(self.traits.pacing_rate_bps))
    }
    #[inline(never)]
    fn reacts_to_loss(&self) -> bool {
        self.law.is_none() || self.traits.reacts_to_loss
    }
}

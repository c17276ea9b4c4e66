"""NewReno's window (RFC 5681 sec. 3.1, RFC 6582) as a Python plug-in: the same arithmetic as
fctlab's built-in `cc = "newreno"` (HyStart off), so a run with it gives the built-in's flow
completion times bit for bit (`experiments/plugins/` checks it).

    [transport]
    cc = "python:newreno.py:NewReno"

Hooks get the window `w` (`w.cwnd`, `w.ssthresh` in bytes, settable; `w.mss`, `w.abc`), the
time `now` in seconds, and what the event carries. `on_timeout` and `on_recovery_end` are left
to fctlab's defaults (RFC 5681's), as the Rust template does.
"""


class NewReno:
    def __init__(self, conn):
        # conn.flow, conn.mss, conn.header, conn.rwnd: NewReno needs none of them.
        pass

    def on_ack(self, w, now, acked, srtt):
        if acked == 0:
            return
        if w.cwnd < w.ssthresh:
            # RFC 5681 eq. 2 with appropriate byte counting (RFC 3465 sec. 2.2).
            w.cwnd += min(acked, w.abc)
        else:
            # RFC 5681 eq. 3: at least one byte.
            w.cwnd += max(w.mss * w.mss // w.cwnd, 1)

    def on_congestion(self, w, now, flight):
        # RFC 5681 eq. 4.
        w.ssthresh = max(flight // 2, 2 * w.mss)
        w.cwnd = w.ssthresh

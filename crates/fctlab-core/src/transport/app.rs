//! Application models: how much data the sending application hands to its socket, and when.

use crate::units::Time;

/// What the sending application writes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum App {
    /// The whole flow is written at start.
    Bulk {
        /// Flow size in bytes.
        size: u64,
    },
    /// `initial` bytes at start, then `chunk` bytes every `interval` until `total` is written
    /// (e.g. video: 1.5 MB then 64 KB every 100 ms). With `initial = 0` nothing is written at
    /// start and the first chunk comes one interval later.
    Scheduled {
        /// Bytes written at start.
        initial: u64,
        /// Bytes of each later write.
        chunk: u64,
        /// Time between later writes.
        interval: Time,
        /// Bytes written over the whole flow.
        total: u64,
    },
    /// An endless writer that stops at `stop` (long-lived flows).
    LongLived {
        /// When the application stops writing.
        stop: Time,
    },
}

/// Bytes a long-lived writer keeps queued ahead of the sender: far beyond any window.
pub const LONG_LIVED_CHUNK: u64 = 1 << 50;

/// The state of an application model: its pending writes.
#[derive(Clone, Debug)]
pub struct AppState {
    app: App,
    written: u64,
    /// Whether the write at start (which may be empty) has been made.
    started: bool,
    next_write: Option<Time>,
}

impl AppState {
    /// The application of a flow that starts at `start`.
    pub fn new(app: App, start: Time) -> AppState {
        AppState { app, written: 0, started: false, next_write: Some(start) }
    }

    /// Total size of the flow in bytes, if it is finite.
    pub fn total(&self) -> Option<u64> {
        match self.app {
            App::Bulk { size } => Some(size),
            App::Scheduled { total, .. } => Some(total),
            App::LongLived { .. } => None,
        }
    }

    /// When the application next writes (or, for long-lived flows, stops).
    pub fn next_event(&self) -> Option<Time> {
        self.next_write
    }

    /// Runs the writes due at `now`; returns the bytes written (0 if none), and whether a
    /// long-lived writer just stopped.
    pub fn poll(&mut self, now: Time) -> (u64, bool) {
        let Some(at) = self.next_write else { return (0, false) };
        if now < at {
            return (0, false);
        }
        match self.app {
            App::Bulk { size } => {
                self.next_write = None;
                self.written = size;
                (size, false)
            }
            App::Scheduled { initial, chunk, interval, total } => {
                let n = if self.started { chunk.min(total - self.written) } else { initial.min(total) };
                self.started = true;
                self.written += n;
                self.next_write = if self.written < total { Some(at + interval) } else { None };
                (n, false)
            }
            App::LongLived { stop } => {
                if self.written == 0 {
                    self.written = LONG_LIVED_CHUNK;
                    self.next_write = Some(stop);
                    (LONG_LIVED_CHUNK, false)
                } else {
                    self.next_write = None;
                    (0, true)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduled_writes_come_at_the_interval_until_the_total() {
        let app = App::Scheduled { initial: 1000, chunk: 300, interval: Time::from_ms(100), total: 1700 };
        let mut s = AppState::new(app, Time::from_ms(5));
        assert_eq!(s.poll(Time::from_ms(4)), (0, false));
        assert_eq!(s.poll(Time::from_ms(5)), (1000, false));
        assert_eq!(s.next_event(), Some(Time::from_ms(105)));
        assert_eq!(s.poll(Time::from_ms(105)), (300, false));
        assert_eq!(s.poll(Time::from_ms(205)), (300, false));
        assert_eq!(s.poll(Time::from_ms(305)), (100, false));
        assert_eq!(s.next_event(), None);
    }

    #[test]
    fn an_empty_initial_write_starts_with_the_first_chunk_one_interval_later() {
        // initial = 0 used to leave `written` at 0, so every later write was the initial one
        // again: the application wrote nothing, forever.
        let app = App::Scheduled { initial: 0, chunk: 1024, interval: Time::from_us(800), total: 2048 };
        let mut s = AppState::new(app, Time::ZERO);
        assert_eq!(s.poll(Time::ZERO), (0, false));
        assert_eq!(s.next_event(), Some(Time::from_us(800)));
        assert_eq!(s.poll(Time::from_us(800)), (1024, false));
        assert_eq!(s.poll(Time::from_us(1600)), (1024, false));
        assert_eq!(s.next_event(), None);
    }

    #[test]
    fn long_lived_writer_stops_at_its_stop_time() {
        let mut s = AppState::new(App::LongLived { stop: Time::from_secs(2) }, Time::ZERO);
        assert_eq!(s.poll(Time::ZERO), (LONG_LIVED_CHUNK, false));
        assert_eq!(s.next_event(), Some(Time::from_secs(2)));
        assert_eq!(s.poll(Time::from_secs(2)), (0, true));
    }
}

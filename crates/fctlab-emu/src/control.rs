//! The control channel between the orchestrator and an emulation process: text lines.
//!
//! The orchestrator writes to the process's standard input: `host NODE IP:PORT` (the router
//! learns where each host is), `start EPOCH_NS` (run time zero is that `CLOCK_MONOTONIC`
//! instant) and `stop`. End of file counts as `stop`, so a process whose
//! orchestrator died (even by SIGKILL: the kernel closes the pipe) ends its run by itself. The
//! process reports on standard output, one line per event (`ready`, `done FLOW PS`, ...).

use std::io::{self, Write};
use std::net::SocketAddrV4;
use std::os::fd::RawFd;

/// What the orchestrator asks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Run time zero is this `CLOCK_MONOTONIC` instant, ns.
    Start { epoch_ns: u64 },
    /// End the run.
    Stop,
    /// (Router, before `start`) host `node`'s socket is `addr`.
    Host { node: u32, addr: SocketAddrV4 },
}

/// Commands arriving on a descriptor (standard input in the processes).
pub struct Control {
    fd: RawFd,
    buf: Vec<u8>,
    eof: bool,
}

impl Control {
    /// Commands read from `fd`.
    pub fn new(fd: RawFd) -> Control {
        Control { fd, buf: Vec::new(), eof: false }
    }

    /// Commands read from standard input.
    pub fn stdin() -> Control {
        Control::new(0)
    }

    /// The descriptor, for [`super::sock::wait`].
    pub fn fd(&self) -> RawFd {
        self.fd
    }

    /// Reads once (call when the descriptor is readable) and returns the complete commands; end
    /// of file is [`Command::Stop`]. An unknown line is an error naming it.
    pub fn read(&mut self) -> io::Result<Vec<Command>> {
        if self.eof {
            return Ok(vec![Command::Stop]);
        }
        let mut chunk = [0u8; 4096];
        // SAFETY: chunk is a live buffer of the length given.
        let n = unsafe { libc::read(self.fd, chunk.as_mut_ptr() as *mut libc::c_void, chunk.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN | libc::EINTR) => Ok(Vec::new()),
                _ => Err(e),
            };
        }
        if n == 0 {
            self.eof = true;
            return Ok(vec![Command::Stop]);
        }
        self.buf.extend_from_slice(&chunk[..n as usize]);
        let mut out = Vec::new();
        while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=i).collect();
            let line = String::from_utf8_lossy(&line);
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["stop"] => out.push(Command::Stop),
                ["host", node, addr] => match (node.parse(), addr.parse()) {
                    (Ok(node), Ok(addr)) => out.push(Command::Host { node, addr }),
                    _ => return Err(io::Error::other(format!("control: expected `host NODE IP:PORT`, got {line:?}"))),
                },
                ["start", ns] => match ns.parse() {
                    Ok(epoch_ns) => out.push(Command::Start { epoch_ns }),
                    Err(_) => {
                        return Err(io::Error::other(format!("control: expected `start NANOSECONDS`, got {line:?}")))
                    }
                },
                _ => return Err(io::Error::other(format!("control: expected `start NS` or `stop`, got {line:?}"))),
            }
        }
        Ok(out)
    }
}

/// Writes one event line to standard output and flushes it (the orchestrator reads it at once).
pub fn say(line: &str) {
    let mut out = io::stdout().lock();
    // A closed pipe means the orchestrator is gone; the run ends through the control channel.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipe() -> (RawFd, RawFd) {
        let mut fds = [0; 2];
        // SAFETY: fds has room for the two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        (fds[0], fds[1])
    }

    fn write(fd: RawFd, s: &str) {
        // SAFETY: s is a live buffer of the length given.
        unsafe { libc::write(fd, s.as_ptr() as *const libc::c_void, s.len()) };
    }

    #[test]
    fn commands_split_across_reads_and_end_of_file_stops() {
        let (r, w) = pipe();
        let mut c = Control::new(r);
        write(w, "start 12");
        assert_eq!(c.read().unwrap(), vec![]);
        write(w, "34\nhost 3 127.0.0.1:99\nstop\n");
        let addr = "127.0.0.1:99".parse().unwrap();
        assert_eq!(
            c.read().unwrap(),
            vec![Command::Start { epoch_ns: 1234 }, Command::Host { node: 3, addr }, Command::Stop]
        );
        write(w, "bogus\n");
        assert!(c.read().unwrap_err().to_string().contains("bogus"));
        // SAFETY: closing our own descriptors.
        unsafe {
            libc::close(w);
        }
        assert_eq!(c.read().unwrap(), vec![Command::Stop]);
        unsafe {
            libc::close(r);
        }
    }
}

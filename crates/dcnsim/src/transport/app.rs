//! Applications that decide how much data a flow may send (the flow is then
//! "application-limited": it sends only bytes the application has written).
//!
//! The one application so far is ns-3's On-Off source as the DCTCP-vs-Swift study used it
//! (`docs/reproductions/dctcp-vs-swift-paper.md`, "Common setup", the traffic row): while ON it
//! writes at `rate` into a TCP send buffer of `send_buffer` bytes; while OFF it writes
//! nothing, and the transport keeps draining what is buffered. The send buffer holds every
//! byte not yet cumulatively acknowledged (sent or not), so the application can be at most
//! `send_buffer` bytes ahead of the cumulative ACK. Like ns-3's
//! `OnOffApplication::StartApplication`, the first interval after `start` is an OFF
//! interval; nothing is written at or after `stop`.
//!
//! The model is a fluid writer: `written(t) = min(written(t0) + rate · ON-time in [t0, t),
//! acked + send_buffer)`. It is exact when it is re-evaluated at every change of `acked`
//! (the transport does so on each ACK). ns-3 writes 1000-byte chunks and retries a refused
//! chunk every chunk time (1.6 µs at 5 Gbps); at a 1 Gbps link that difference is below
//! one packet.

use serde::{Deserialize, Serialize};

use crate::transport::SendState;
use crate::units::values::{BytesVal, RateVal, TimeVal};
use crate::units::{Rate, Time};

/// Which application drives the flows of a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// ns-3's On-Off source (constant ON and OFF durations, OFF first).
    Onoff,
}

/// `[workload.app]`: an application per flow. Defaults are the DCTCP-vs-Swift study's
/// (`docs/reproductions/dctcp-vs-swift-paper.md`, "Common setup": app rate 5 Gbps, ns-3 defaults
/// of 1 s ON / 1 s OFF, ns-3's 131072-byte `TcpSocket::SndBufSize`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppCfg {
    pub kind: AppKind,
    /// Writing rate while ON.
    #[serde(default = "default_rate")]
    pub rate: RateVal,
    /// Length of every ON interval.
    #[serde(default = "default_period")]
    pub on: TimeVal,
    /// Length of every OFF interval; the application starts with one.
    #[serde(default = "default_period")]
    pub off: TimeVal,
    /// Send buffer: how far the application may run ahead of the cumulative ACK.
    #[serde(default = "default_send_buffer")]
    pub send_buffer: BytesVal,
}

fn default_rate() -> RateVal {
    RateVal(Rate::gbps(5))
}
fn default_period() -> TimeVal {
    TimeVal(Time::from_ms(1000))
}
fn default_send_buffer() -> BytesVal {
    BytesVal(128 * 1024)
}

impl AppCfg {
    /// Checks ranges; `Err` names the sub-field and what is allowed.
    pub fn validate(&self, payload: u64) -> Result<(), (&'static str, String)> {
        if self.on.0 == Time::ZERO {
            return Err(("on", "must be positive".into()));
        }
        if self.send_buffer.0 < payload {
            return Err((
                "send_buffer",
                format!("{} bytes is smaller than one packet's payload ({payload} bytes)", self.send_buffer.0),
            ));
        }
        Ok(())
    }
}

/// Picoseconds · bits/s that make one byte: 8 bits × 10^12 ps/s.
const BYTE: u128 = 8 * 1_000_000_000_000;

/// The On-Off application of one flow.
#[derive(Clone, Debug)]
pub struct OnOffApp {
    rate: Rate,
    on: Time,
    off: Time,
    send_buffer: u64,
    /// First OFF interval begins here (the source's start time).
    start: Time,
    /// No writing at or after this time.
    stop: Time,
    /// Bytes written so far, as of `evaluated_at`.
    written: u64,
    /// Fraction of a byte of rate budget not yet written, in bit·ps/s units (< `BYTE`).
    carry: u128,
    evaluated_at: Time,
}

impl OnOffApp {
    pub fn new(cfg: &AppCfg, start: Time, stop: Time) -> OnOffApp {
        OnOffApp {
            rate: cfg.rate.0,
            on: cfg.on.0,
            off: cfg.off.0,
            send_buffer: cfg.send_buffer.0,
            start,
            stop,
            written: 0,
            carry: 0,
            evaluated_at: start,
        }
    }

    /// Total ON time in [start, t) (and before `stop`).
    pub fn on_time_before(&self, t: Time) -> Time {
        let t = t.min(self.stop);
        if t <= self.start {
            return Time::ZERO;
        }
        let period = self.on.0 + self.off.0;
        let d = t.0 - self.start.0;
        let (cycles, into) = (d / period, d % period);
        Time(cycles * self.on.0 + into.saturating_sub(self.off.0))
    }

    /// The earliest time at which the total ON time since `start` reaches `on_time`, or
    /// `None` if that is at or after `stop`.
    fn time_of_on_total(&self, on_time: Time) -> Option<Time> {
        let period = self.on.0 + self.off.0;
        let (cycles, rest) = (on_time.0 / self.on.0, on_time.0 % self.on.0);
        let t = if rest == 0 {
            // Reached exactly at the end of an ON interval (or at once for zero).
            if cycles == 0 {
                self.start
            } else {
                Time(self.start.0 + cycles * period)
            }
        } else {
            Time(self.start.0 + cycles * period + self.off.0 + rest)
        };
        (on_time <= self.on_time_before(self.stop)).then_some(t)
    }

    /// Bytes the application has written by `now`, given that `acked` bytes have left the
    /// send buffer (cumulatively acknowledged). Call with non-decreasing `now` and `acked`.
    pub fn written(&mut self, now: Time, acked: u64) -> u64 {
        if now > self.evaluated_at {
            let on = self.on_time_before(now) - self.on_time_before(self.evaluated_at);
            let budget = self.carry + self.rate.0 as u128 * on.0 as u128;
            let cap = acked + self.send_buffer;
            let by_rate = self.written as u128 + budget / BYTE;
            if by_rate >= cap as u128 {
                // The buffer is full: the writer waits, so no budget carries over.
                self.written = self.written.max(cap);
                self.carry = 0;
            } else {
                self.written = by_rate as u64;
                self.carry = budget % BYTE;
            }
            self.evaluated_at = now;
        }
        self.written
    }

    /// Why `need` bytes are not written yet at `now` (after [`written`](Self::written) at
    /// `now`): `Some(t)`, the time the writer will have reached `need` if the buffer has
    /// room (the caller waits for an ACK otherwise), or `None` if it never will (stopped).
    pub fn ready_at(&self, now: Time, need: u64) -> Option<Time> {
        if need <= self.written {
            return Some(now);
        }
        // ON time needed for the missing bytes, rounded up to whole picoseconds.
        let missing = (need - self.written) as u128 * BYTE - self.carry;
        let rate = self.rate.0 as u128;
        let on_needed = Time(missing.div_ceil(rate) as u64);
        let t = self.time_of_on_total(self.on_time_before(now) + on_needed)?;
        Some(t.max(now))
    }

    /// The transport's question (`Flow::send_state`): may a flow whose cumulative ACK
    /// covers `acked` bytes send a packet ending at byte `need`? `None`: yes; otherwise
    /// what it waits for: an ACK that frees send-buffer room (`Blocked`), the writer
    /// (`PacedUntil`), or nothing ever again (`Blocked` after `stop`).
    pub fn wait_for(&mut self, now: Time, acked: u64, need: u64) -> Option<SendState> {
        if self.written(now, acked) >= need {
            return None;
        }
        if need > acked + self.send_buffer {
            return Some(SendState::Blocked);
        }
        Some(match self.ready_at(now, need) {
            Some(t) => SendState::PacedUntil(t),
            None => SendState::Blocked,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> AppCfg {
        AppCfg {
            kind: AppKind::Onoff,
            rate: RateVal(Rate::gbps(5)),
            on: TimeVal(Time::from_ms(1000)),
            off: TimeVal(Time::from_ms(1000)),
            send_buffer: BytesVal(131_072),
        }
    }

    fn s(x: f64) -> Time {
        Time::from_secs_f64(x)
    }

    /// The study's timeline (`docs/reproductions/dctcp-vs-swift-paper.md`, "Common setup"):
    /// sources start at 2 s with an OFF second, so the ON intervals are [3, 4), [5, 6), ...
    /// until the stop at T − 1 = 14 s.
    #[test]
    fn starts_with_an_off_interval_and_counts_on_time_per_cycle() {
        let app = OnOffApp::new(&cfg(), s(2.0), s(14.0));
        assert_eq!(app.on_time_before(s(2.0)), Time::ZERO);
        assert_eq!(app.on_time_before(s(2.999)), Time::ZERO, "the first second is OFF");
        assert_eq!(app.on_time_before(s(3.25)), s(0.25));
        assert_eq!(app.on_time_before(s(4.0)), s(1.0));
        assert_eq!(app.on_time_before(s(5.0)), s(1.0), "OFF again in [4, 5)");
        // ON in [3,4), [5,6), [7,8), [9,10), [11,12), [13,14): six seconds in all.
        assert_eq!(app.on_time_before(s(14.0)), s(6.0));
        assert_eq!(app.on_time_before(s(100.0)), s(6.0), "nothing after the stop");
    }

    /// In a known ON window the writer produces rate × time bytes (5 Gbps × 10 µs =
    /// 6250 B), capped by the send buffer (131072 B are written after 209.7 µs of ON).
    #[test]
    fn writes_rate_times_on_time_capped_by_the_send_buffer() {
        let mut app = OnOffApp::new(&cfg(), s(2.0), s(14.0));
        assert_eq!(app.written(s(2.5), 0), 0, "OFF: nothing written");
        assert_eq!(app.written(s(3.0) + Time::from_us(10), 0), 6250);
        assert_eq!(app.written(s(3.0) + Time::from_us(100), 0), 62_500);
        assert_eq!(app.written(s(3.5), 0), 131_072, "full buffer");
        // 100000 bytes acknowledged free exactly that much room.
        assert_eq!(app.written(s(3.6), 100_000), 231_072);
        // OFF from 4 s: no more writing however much is acknowledged.
        assert_eq!(app.written(s(4.0), 200_000), 331_072);
        assert_eq!(app.written(s(4.9), 331_072), 331_072);
        // Next ON at 5 s: 1 µs of ON time writes 625 bytes.
        assert_eq!(app.written(s(5.0) + Time::from_us(1), 331_072), 331_697);
    }

    /// Evaluating often (as on every ACK) gives the same bytes as evaluating once: the
    /// fraction of a byte each step carries over.
    #[test]
    fn lazy_evaluation_is_exact() {
        let mut once = OnOffApp::new(&cfg(), s(0.0), s(10.0));
        let mut often = once.clone();
        let end = s(1.0) + Time::from_us(20);
        for i in 1..20_000u64 {
            often.written(s(1.0) + Time(i * 1_000 + 3), 0);
        }
        assert_eq!(often.written(end, 0), once.written(end, 0));
        assert_eq!(once.written(end, 0), 12_500);
    }

    /// `ready_at` is the first picosecond at which the bytes exist; OFF time is skipped,
    /// and a stopped application never writes more.
    #[test]
    fn ready_at_skips_off_time_and_ends_at_stop() {
        let mut app = OnOffApp::new(&cfg(), s(2.0), s(6.0));
        app.written(s(2.0), 0);
        // 1500 bytes at 5 Gbps: 2.4 µs of ON time after 3 s.
        let t = app.ready_at(s(2.0), 1500).unwrap();
        assert_eq!(t, s(3.0) + Time::from_ns(2400));
        let mut probe = app.clone();
        assert_eq!(probe.written(t - Time(1), 0), 1499);
        assert_eq!(probe.written(t, 0), 1500);
        // Bytes beyond the first ON second's 625 MB fall into the second ON interval.
        let first_on = 625_000_000u64;
        assert_eq!(app.ready_at(s(2.0), first_on), Some(s(4.0)));
        assert_eq!(app.ready_at(s(2.0), first_on + 625), Some(s(5.0) + Time::from_us(1)));
        // Two ON seconds fit before the stop at 6 s; a third does not.
        assert_eq!(app.ready_at(s(2.0), 2 * first_on), Some(s(6.0)));
        assert_eq!(app.ready_at(s(2.0), 2 * first_on + 1), None);
    }

    /// The transport's view: wait for the writer while the buffer has room, for an ACK
    /// when it is full, for nothing after the stop.
    #[test]
    fn wait_for_tells_the_transport_what_it_waits_on() {
        let mut app = OnOffApp::new(&cfg(), s(2.0), s(4.0));
        assert_eq!(app.wait_for(s(2.0), 0, 1500), Some(SendState::PacedUntil(s(3.0) + Time::from_ns(2400))));
        assert_eq!(app.wait_for(s(3.1), 0, 1500), None);
        assert_eq!(app.wait_for(s(3.1), 0, 131_072 + 1500), Some(SendState::Blocked), "buffer full: an ACK frees room");
        // An ACK of 1500 bytes frees room; the writer fills it in 2.4 µs at 5 Gbps.
        let refill = s(3.1) + Time::from_ns(2400);
        assert_eq!(app.wait_for(s(3.1), 1500, 131_072 + 1500), Some(SendState::PacedUntil(refill)));
        assert_eq!(app.wait_for(refill, 1500, 131_072 + 1500), None);
        // At the stop (4 s) the writer had filled the buffer to 131072 + 131072 bytes.
        assert_eq!(app.written(s(5.0), 131_072), 262_144);
        assert_eq!(app.written(s(6.0), 262_144), 262_144);
        assert_eq!(app.wait_for(s(5.0), 262_144, 262_144 + 1500), Some(SendState::Blocked), "stopped");
    }
}

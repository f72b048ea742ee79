//! Typed units: simulated time in integer picoseconds, link rates in bits per second and
//! byte counts, plus the human-readable forms scenario files use ("800Gbps", "0.5us", "4KiB").
//!
//! Time is an integer so that event order never depends on floating-point rounding
//! (docs/architecture.md).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

pub mod values;

/// A point in (or span of) simulated time, in picoseconds. 2^64 ps is about 213 days.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * 1e12).round() as u64)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    pub fn mul_f64(self, k: f64) -> Time {
        Time((self.0 as f64 * k).round() as u64)
    }
}

impl Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, o: Time) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for Time {
    type Output = Time;
    #[inline]
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps == 0 {
            write!(f, "0s")
        } else if ps % 1_000_000_000_000 == 0 {
            write!(f, "{}s", ps / 1_000_000_000_000)
        } else if ps % 1_000_000_000 == 0 {
            write!(f, "{}ms", ps / 1_000_000_000)
        } else if ps % 1_000_000 == 0 {
            write!(f, "{}us", ps / 1_000_000)
        } else if ps % 1_000 == 0 {
            write!(f, "{}ns", ps / 1_000)
        } else {
            write!(f, "{}ps", ps)
        }
    }
}

/// A link rate in bits per second.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Exact time to serialise `bytes` at this rate, rounded up to a whole picosecond.
    pub fn serialization(self, bytes: u64) -> Time {
        let num = bytes as u128 * 8 * 1_000_000_000_000u128;
        let bps = self.0 as u128;
        Time(num.div_ceil(bps) as u64)
    }
    /// Picoseconds per byte in 48.16 fixed point, so the hot path serialises with one
    /// multiply and a shift instead of a 128-bit division. Exact for every rate that
    /// divides 8e12 (1, 10, 25, 40, 100, 200, 400, 800 Gbps, ...).
    pub fn ps_per_byte_q16(self) -> u64 {
        let num = 8u128 * 1_000_000_000_000u128 << 16;
        (num / self.0 as u128) as u64
    }
    pub fn as_gbps_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Bytes this rate carries in `t`.
    pub fn bytes_in(self, t: Time) -> f64 {
        self.0 as f64 / 8.0 * t.as_secs_f64()
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b % 1_000_000_000_000 == 0 {
            write!(f, "{}Tbps", b / 1_000_000_000_000)
        } else if b % 1_000_000_000 == 0 {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b % 1_000_000 == 0 {
            write!(f, "{}Mbps", b / 1_000_000)
        } else {
            write!(f, "{}bps", b)
        }
    }
}

/// Serialisation time of `bytes` given a precomputed `ps_per_byte_q16`.
#[inline]
pub fn serialization_q16(bytes: u64, ps_per_byte_q16: u64) -> Time {
    Time((bytes * ps_per_byte_q16 + 0xFFFF) >> 16)
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    // "1e3us" is fine, but a unit starting with 'e' would be eaten; none of ours does.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

/// Parses "500ns", "1.5us", "2ms", "1s", "10ps". A bare "0" is accepted.
pub fn parse_time(s: &str) -> Result<Time, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("\"{s}\" is not a time; write e.g. \"500ns\", \"2us\", \"1ms\""))?;
    let scale = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        "" if v == 0.0 => 1.0,
        _ => return Err(format!("\"{s}\": unknown time unit \"{unit}\" (allowed: ps, ns, us, ms, s)")),
    };
    if !(v >= 0.0) || !v.is_finite() {
        return Err(format!("\"{s}\": a time must be zero or positive"));
    }
    Ok(Time((v * scale).round() as u64))
}

/// `parse_rate`'s error for a positive rate that rounds to 0 bps; the scenario reader,
/// whose floor is 1Mbps, recognises it to quote its own floor instead.
pub(crate) const BELOW_ONE_BPS: &str = "rates below 1bps are not supported";

/// Parses "100Gbps", "400Gb/s", "1.6Tbps", "10Mbps".
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("\"{s}\" is not a rate; write e.g. \"100Gbps\""))?;
    let u = unit.trim_end_matches("/s").trim_end_matches("ps");
    let scale = match u {
        "b" | "bit" => 1.0,
        "Kb" | "kb" => 1e3,
        "Mb" => 1e6,
        "Gb" => 1e9,
        "Tb" => 1e12,
        _ => return Err(format!("\"{s}\": unknown rate unit \"{unit}\" (allowed: bps, Kbps, Mbps, Gbps, Tbps)")),
    };
    if !(v > 0.0) || !v.is_finite() {
        return Err(format!("\"{s}\": a rate must be positive"));
    }
    // A positive rate below 0.5 bps would round to 0 bps, and serialising divides by it.
    match (v * scale).round() as u64 {
        0 => Err(format!("\"{s}\": {BELOW_ONE_BPS}")),
        bps => Ok(Rate(bps)),
    }
}

/// Parses "4KiB", "1MB", "1500B", "2GiB" or a bare integer number of bytes.
/// KB/MB/GB are decimal (1000^n), KiB/MiB/GiB binary (1024^n).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("\"{s}\" is not a size; write e.g. \"4KiB\", \"2MB\", \"1500B\""))?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("\"{s}\": unknown size unit \"{unit}\" (allowed: B, KB, MB, GB, KiB, MiB, GiB)")),
    };
    if !(v >= 0.0) || !v.is_finite() {
        return Err(format!("\"{s}\": a size must be zero or positive"));
    }
    Ok((v * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_human_units() {
        assert_eq!(parse_time("500ns").unwrap(), Time::from_ns(500));
        assert_eq!(parse_time("1.5us").unwrap(), Time(1_500_000));
        assert_eq!(parse_time("0").unwrap(), Time::ZERO);
        assert!(parse_time("5").is_err());
        assert!(parse_time("-1us").is_err());
        assert_eq!(parse_rate("100Gbps").unwrap(), Rate::gbps(100));
        assert_eq!(parse_rate("1.6Tb/s").unwrap(), Rate(1_600_000_000_000));
        assert!(parse_rate("0Gbps").is_err());
        assert!(parse_rate("-5Gbps").is_err());
        assert_eq!(parse_bytes("4KiB").unwrap(), 4096);
        assert_eq!(parse_bytes("2MB").unwrap(), 2_000_000);
        assert_eq!(parse_bytes("1500").unwrap(), 1500);
    }

    /// Fuzz target `units` (issue 10): ".2 bps" was accepted as 0 bps, a division by zero
    /// for every serialisation time on that link.
    #[test]
    fn a_rate_that_rounds_to_zero_is_refused() {
        assert!(parse_rate(".2    bps").unwrap_err().contains(BELOW_ONE_BPS));
        assert_eq!(parse_rate("0.5bps").unwrap(), Rate(1));
    }

    #[test]
    fn serialisation_matches_first_principles() {
        // 4096 B at 100 Gbps = 32768 bits / 1e11 bit/s = 327.68 ns.
        assert_eq!(Rate::gbps(100).serialization(4096), Time(327_680));
        assert_eq!(serialization_q16(4096, Rate::gbps(100).ps_per_byte_q16()), Time(327_680));
        // 1500 B at 1 Gbps = 12 us.
        assert_eq!(serialization_q16(1500, Rate::gbps(1).ps_per_byte_q16()), Time::from_us(12));
        // A rate that does not divide 8e12 still rounds up, never down.
        let r = Rate(3_000_000_000);
        assert!(serialization_q16(1000, r.ps_per_byte_q16()) >= r.serialization(1000) - Time(1));
    }
}

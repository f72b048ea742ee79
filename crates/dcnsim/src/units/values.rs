//! Scenario values written with human units, and their serde forms: a time (`"500ns"`),
//! a rate (`"100Gbps"`), a byte count (`"4KiB"` or 1500), a flow size, an initial window,
//! a window cap and a number-or-word. They live beside the units so that every module
//! reading its parameters from a scenario needs `units` only, not the scenario schema.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::units::{parse_bytes, parse_rate, parse_time, Rate, Time, BELOW_ONE_BPS};

#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum Scalar {
    Int(i64),
    // JSON can hold a whole number above i64::MAX, and a resolved scenario does whenever a
    // size written as "1e19" parsed to one; without this it would come back as a Float.
    UInt(u64),
    Float(f64),
    Str(String),
}

pub(crate) fn scalar<'de, D: Deserializer<'de>>(d: D, what: &str) -> Result<Scalar, D::Error> {
    Scalar::deserialize(d).map_err(|_| de::Error::custom(format!("expected {what}")))
}

/// A time written with a unit ("500ns"); a bare 0 is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimeVal(pub Time);

impl<'de> Deserialize<'de> for TimeVal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match scalar(d, "a time such as \"500ns\" or \"2us\"")? {
            Scalar::Str(s) => parse_time(&s).map(TimeVal).map_err(de::Error::custom),
            Scalar::Int(0) => Ok(TimeVal(Time::ZERO)),
            Scalar::Int(v) => {
                Err(de::Error::custom(format!("{v} has no unit; write e.g. \"{v}us\" (units: ps, ns, us, ms, s)")))
            }
            Scalar::UInt(v) => {
                Err(de::Error::custom(format!("{v} has no unit; write e.g. \"{v}us\" (units: ps, ns, us, ms, s)")))
            }
            Scalar::Float(v) => {
                Err(de::Error::custom(format!("{v} has no unit; write e.g. \"{v}us\" (units: ps, ns, us, ms, s)")))
            }
        }
    }
}
impl Serialize for TimeVal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

/// A rate with a unit ("100Gbps").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateVal(pub Rate);

impl<'de> Deserialize<'de> for RateVal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match scalar(d, "a rate such as \"100Gbps\"")? {
            Scalar::Str(s) => match parse_rate(&s) {
                // Below this, serialising a large packet overflows 64-bit picoseconds.
                Ok(r) if r.bps() < 1_000_000 => {
                    Err(de::Error::custom(format!("\"{s}\": rates below 1Mbps are not supported")))
                }
                Ok(r) => Ok(RateVal(r)),
                Err(e) if e.ends_with(BELOW_ONE_BPS) => {
                    Err(de::Error::custom(format!("\"{s}\": rates below 1Mbps are not supported")))
                }
                Err(e) => Err(de::Error::custom(e)),
            },
            Scalar::Int(v) if v <= 0 => {
                Err(de::Error::custom(format!("{v}: a rate must be positive, e.g. \"100Gbps\"")))
            }
            Scalar::Float(v) if v <= 0.0 => {
                Err(de::Error::custom(format!("{v}: a rate must be positive, e.g. \"100Gbps\"")))
            }
            _ => Err(de::Error::custom("a rate needs a unit, e.g. \"100Gbps\" (units: bps, Kbps, Mbps, Gbps, Tbps)")),
        }
    }
}
impl Serialize for RateVal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

/// A byte count: an integer or a string with a unit ("4KiB", "1MB").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BytesVal(pub u64);

impl<'de> Deserialize<'de> for BytesVal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match scalar(d, "a size such as \"4KiB\" or 1500")? {
            Scalar::Str(s) => parse_bytes(&s).map(BytesVal).map_err(de::Error::custom),
            Scalar::Int(v) if v >= 0 => Ok(BytesVal(v as u64)),
            Scalar::UInt(v) => Ok(BytesVal(v)),
            Scalar::Int(v) => Err(de::Error::custom(format!("{v}: a size cannot be negative"))),
            Scalar::Float(v) => {
                Err(de::Error::custom(format!("{v}: a size is a whole number of bytes or a string such as \"4KiB\"")))
            }
        }
    }
}
impl Serialize for BytesVal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

/// A flow size: bytes, or "infinite" (a long-lived flow that sends until its `stop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowSize {
    Bytes(u64),
    Infinite,
}

impl<'de> Deserialize<'de> for FlowSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match scalar(d, "a size such as \"2MB\" or \"infinite\"")? {
            Scalar::Str(s) if s == "infinite" => Ok(FlowSize::Infinite),
            // "0MB" is as empty as 0, which is refused below.
            Scalar::Str(s) => match parse_bytes(&s) {
                Ok(0) => Err(de::Error::custom(format!("\"{s}\": a flow size must be positive"))),
                Ok(b) => Ok(FlowSize::Bytes(b)),
                Err(e) => Err(de::Error::custom(e)),
            },
            Scalar::Int(v) if v > 0 => Ok(FlowSize::Bytes(v as u64)),
            Scalar::UInt(v) => Ok(FlowSize::Bytes(v)),
            _ => Err(de::Error::custom("a flow size is a positive byte count, e.g. \"2MB\", or \"infinite\"")),
        }
    }
}
impl Serialize for FlowSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FlowSize::Bytes(b) => s.serialize_u64(*b),
            FlowSize::Infinite => s.serialize_str("infinite"),
        }
    }
}

/// Initial congestion window: packets, or "bdp" (the flow's own path bandwidth-delay product).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    Packets(u32),
    Bdp,
}

impl<'de> Deserialize<'de> for InitialWindow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match scalar(d, "a packet count or \"bdp\"")? {
            Scalar::Str(s) if s == "bdp" => Ok(InitialWindow::Bdp),
            Scalar::Int(v) if v >= 1 && v <= u32::MAX as i64 => Ok(InitialWindow::Packets(v as u32)),
            _ => Err(de::Error::custom("allowed: a whole number of packets >= 1, or \"bdp\"")),
        }
    }
}
impl Serialize for InitialWindow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            InitialWindow::Packets(p) => s.serialize_u32(*p),
            InitialWindow::Bdp => s.serialize_str("bdp"),
        }
    }
}

/// A cap on wire bytes in flight: `dcqcn.window`, `dctcp.rate.window` and
/// `transport.inflight_cap`. What `bdp` stands for is each field's (README).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WindowCap {
    /// No window: rate based only (the DCQCN paper).
    #[default]
    Off,
    /// A bandwidth-delay product: the unified window of the LAPS artefact (docs/models/dcqcn.md) for DCQCN and
    /// DCTCP (the largest one-way product over every path of every flow), the flow's own
    /// path (bottleneck × unloaded RTT) for `inflight_cap`.
    Bdp,
    /// A fixed window of this many wire bytes.
    Bytes(u64),
}

const WINDOW_ALLOWED: &str = "allowed: \"off\", \"bdp\" (a bandwidth-delay product, docs/scenario.md documents it per field) or a size of at least one byte such as \"100KB\"";

impl<'de> Deserialize<'de> for WindowCap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Str(String),
        }
        let bad = |what: String| de::Error::custom(format!("{what}: {WINDOW_ALLOWED}"));
        match Raw::deserialize(d).map_err(|_| de::Error::custom(WINDOW_ALLOWED))? {
            Raw::Str(s) if s == "off" => Ok(WindowCap::Off),
            Raw::Str(s) if s == "bdp" => Ok(WindowCap::Bdp),
            Raw::Str(s) => match crate::units::parse_bytes(&s) {
                Ok(b) if b > 0 => Ok(WindowCap::Bytes(b)),
                _ => Err(bad(format!("{s:?}"))),
            },
            Raw::Int(v) if v > 0 => Ok(WindowCap::Bytes(v as u64)),
            Raw::Int(v) => Err(bad(v.to_string())),
        }
    }
}

impl Serialize for WindowCap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            WindowCap::Off => s.serialize_str("off"),
            WindowCap::Bdp => s.serialize_str("bdp"),
            WindowCap::Bytes(b) => s.serialize_u64(*b),
        }
    }
}

/// A value that is either a whole number or a word, read before a field's own checks
/// (`history = "auto" | 64`, `queues = "ideal" | 8`, `reorder_wait = "rack" | "3us"`).
#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum NumberOrWord {
    Number(i64),
    Word(String),
}

impl NumberOrWord {
    /// Reads one; anything else (a float, a table) fails with `allowed`.
    pub(crate) fn read<'de, D: Deserializer<'de>>(d: D, allowed: &str) -> Result<Self, D::Error> {
        NumberOrWord::deserialize(d).map_err(|_| de::Error::custom(allowed))
    }
}

//! Results: the ideal (zero-queueing) flow completion time every slowdown rests on,
//! per-flow counters, and the column tables handed to Python. (Time series are sampled
//! in `observe.rs`, packet traces kept in `trace.rs`.)

use crate::units::Time;

/// One link of a path as a packet sees it.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    pub ser_full: Time,
    pub ser_last: Time,
    pub latency: Time,
}

/// Time from the first bit leaving the sender until the last packet has fully arrived,
/// for `n` packets (n − 1 full ones and a last one) crossing `hops` store-and-forward
/// links back to back with no other traffic.
///
/// Let E(i, h) be when packet i leaves link h's serialiser, minus the latencies before h
/// (every packet sees the same ones, so they only shift times). Packet i can start on h
/// when it has left h − 1 and packet i − 1 has left h: E(i, h) = max(E(i, h−1), E(i−1, h)) + s(i, h).
/// For identical packets this has the closed form Σ_h s_h + (i − 1)·max_h s_h; the last,
/// shorter packet then takes one more O(hops) pass. The answer is E(n, H) + Σ latencies.
pub fn ideal_fct(hops: &[Hop], n: u64) -> Time {
    let lat: u64 = hops.iter().map(|h| h.latency.0).sum();
    if n <= 1 {
        return Time(hops.iter().map(|h| h.ser_last.0).sum::<u64>() + lat);
    }
    let full = n - 1;
    let mut prefix = 0u64;
    let mut max_s = 0u64;
    let mut last_row = 0u64; // E(n, h-1)
    for h in hops {
        prefix += h.ser_full.0;
        max_s = max_s.max(h.ser_full.0);
        let e_full = prefix + (full - 1) * max_s; // E(n-1, h)
        last_row = last_row.max(e_full) + h.ser_last.0;
    }
    Time(last_row + lat)
}

/// Per-flow counters of ns-3's FlowMonitor, for the data direction of a flow
/// (docs/reproductions/dctcp-vs-swift-paper.md, "Metrics"; the study's metrics are computed from them in Python):
/// packets sent (retransmissions included), packets and wire bytes received (duplicates
/// included, as FlowMonitor counts at the IP layer), the sum of one-way delays of received
/// packets, and the first transmission and last reception times.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowMonitor {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub delay_sum: Time,
    pub first_tx: Option<Time>,
    pub last_rx: Option<Time>,
}

impl FlowMonitor {
    #[inline]
    pub fn on_tx(&mut self, now: Time, wire_bytes: u32) {
        self.tx_packets += 1;
        self.tx_bytes += wire_bytes as u64;
        self.first_tx.get_or_insert(now);
    }

    /// A data packet sent at `sent_at` arrived at its receiver at `now`.
    #[inline]
    pub fn on_rx(&mut self, now: Time, sent_at: Time, wire_bytes: u32) {
        self.rx_packets += 1;
        self.rx_bytes += wire_bytes as u64;
        self.delay_sum += now - sent_at;
        self.last_rx = Some(now);
    }
}

/// A column of a result table.
#[derive(Clone, Debug)]
pub enum Column {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    /// Categorical: `codes[i]` indexes `levels` (a long table's repeated names, e.g. a
    /// time series' metric, cost 4 bytes a row instead of a string each).
    Cat {
        codes: Vec<u32>,
        levels: Vec<String>,
    },
}

/// A table of equal-length named columns.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, c: Column) {
        self.columns.push((name.to_string(), c));
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.column(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }
    pub fn i64s(&self, name: &str) -> &[i64] {
        match self.column(name) {
            Some(Column::I64(v)) => v,
            _ => panic!("no i64 column {name}"),
        }
    }
    /// A categorical column's values, decoded (for tests and small tables).
    pub fn strs(&self, name: &str) -> Vec<&str> {
        match self.column(name) {
            Some(Column::Cat { codes, levels }) => codes.iter().map(|&c| levels[c as usize].as_str()).collect(),
            Some(Column::Str(v)) => v.iter().map(|s| s.as_str()).collect(),
            _ => panic!("no string column {name}"),
        }
    }
    /// Rows of the table.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| match c {
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Cat { codes, .. } => codes.len(),
        })
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute-force the tandem recursion to check the closed form.
    fn brute(hops: &[Hop], n: u64) -> Time {
        let mut prev_row = vec![0u64; hops.len()];
        for i in 0..n {
            let mut left = 0u64;
            for (h, hop) in hops.iter().enumerate() {
                let s = if i + 1 == n { hop.ser_last.0 } else { hop.ser_full.0 };
                let e = left.max(prev_row[h]) + s;
                prev_row[h] = e;
                left = e;
            }
        }
        Time(prev_row[hops.len() - 1] + hops.iter().map(|h| h.latency.0).sum::<u64>())
    }

    #[test]
    fn closed_form_matches_the_recursion() {
        let hops = [
            Hop { ser_full: Time(100), ser_last: Time(10), latency: Time(7) },
            Hop { ser_full: Time(400), ser_last: Time(40), latency: Time(3) },
            Hop { ser_full: Time(100), ser_last: Time(10), latency: Time(5) },
            Hop { ser_full: Time(200), ser_last: Time(20), latency: Time(1) },
        ];
        for n in 1..40 {
            assert_eq!(ideal_fct(&hops, n), brute(&hops, n), "n = {n}");
        }
    }

    #[test]
    fn uniform_path_is_bytes_over_rate_plus_pipeline() {
        // 100 packets of 1 us each over 3 equal hops with 1 us latency each:
        // 100 us at the bottleneck + 2 us to fill the pipeline + 3 us of latency.
        let h = Hop { ser_full: Time::from_us(1), ser_last: Time::from_us(1), latency: Time::from_us(1) };
        assert_eq!(ideal_fct(&[h, h, h], 100), Time::from_us(105));
    }
}

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

/// The ideal FCT of a flow whose packets may take different paths (spraying, flowlets,
/// re-pathing): the same `n` packets cross the first link (the sender's NIC) back to back
/// and the last link (the receiver's) in the order they reach it, but each crosses the
/// links in between on a path of its own, so a short last packet can overtake the full
/// ones and a path-pinned pipeline bound ([`ideal_fct`]) would over-estimate by up to one
/// packet time. Every packet sees `hops`' rates and latencies (the routing's path; the
/// other paths of a fat tree are alike).
///
/// With D_k when packet k leaves the first link and M the serialisation in between, it
/// reaches the last link at A_k = D_k + M_k. That link serves in arrival order, so the
/// last packet is done at max over j of (A_j + the service of j and every packet after it
/// in that order). For the n − 1 identical packets that term is linear in j between the
/// places where the short packet's position changes, so the endpoints suffice.
pub fn ideal_fct_multipath(hops: &[Hop], n: u64) -> Time {
    if n <= 1 || hops.len() <= 1 {
        return ideal_fct(hops, n);
    }
    let lat: u64 = hops.iter().map(|h| h.latency.0).sum();
    let (first, last) = (hops[0], hops[hops.len() - 1]);
    let middle = &hops[1..hops.len() - 1];
    let m_full: u64 = middle.iter().map(|h| h.ser_full.0).sum();
    let m_last: u64 = middle.iter().map(|h| h.ser_last.0).sum();
    let full = n - 1;
    // Arrivals at the last link of full packet k (1-based) and of the short one.
    let arrival_full = |k: u64| k * first.ser_full.0 + m_full;
    let arrival_short = full * first.ser_full.0 + first.ser_last.0 + m_last;
    // Full packets that arrive no earlier than the short one go after it (ties: short first).
    let sf = first.ser_full.0.max(1);
    let k_min = if arrival_short <= m_full { 1 } else { (arrival_short - m_full).div_ceil(sf).max(1) };
    let first_after_short = (k_min <= full).then_some(k_min);
    let short_term =
        arrival_short + last.ser_last.0 + first_after_short.map_or(0, |k| (full - k + 1) * last.ser_full.0);
    let full_term = |k: u64| {
        let short_after = first_after_short.is_none_or(|s| k < s);
        arrival_full(k) + (full - k + 1) * last.ser_full.0 + if short_after { last.ser_last.0 } else { 0 }
    };
    // The endpoints of the linear pieces: the first and last full packet, and the two on
    // either side of the short packet's place (the first and last again when it has none).
    let (after, before) = first_after_short.map_or((1, full), |s| (s, s.saturating_sub(1).max(1)));
    let end = [1, full, after, before].into_iter().map(full_term).fold(short_term, u64::max);
    Time(end + lat)
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

    /// The multipath bound by brute force: each packet crosses the middle alone, the last
    /// link serves in arrival order (the short packet first on a tie).
    fn brute_multipath(hops: &[Hop], n: u64) -> Time {
        let (first, last) = (hops[0], hops[hops.len() - 1]);
        let mid = &hops[1..hops.len() - 1];
        let mut arrivals: Vec<(u64, u8, u64)> = (1..=n)
            .map(|k| {
                let short = k == n;
                let depart = (k - 1) * first.ser_full.0 + if short { first.ser_last.0 } else { first.ser_full.0 };
                let m: u64 = mid.iter().map(|h| if short { h.ser_last.0 } else { h.ser_full.0 }).sum();
                (depart + m, if short { 0 } else { 1 }, if short { last.ser_last.0 } else { last.ser_full.0 })
            })
            .collect();
        arrivals.sort();
        let mut t = 0;
        for (a, _, s) in arrivals {
            t = t.max(a) + s;
        }
        Time(t + hops.iter().map(|h| h.latency.0).sum::<u64>())
    }

    /// The closed form of the multipath bound matches the brute force, never exceeds the
    /// pinned pipeline bound, and on a 6-hop path of equal links (a 3-tier fat tree) a
    /// 2-packet flow whose short packet overtakes ends one short-packet time earlier.
    #[test]
    fn multipath_bound_matches_brute_force_and_lets_the_short_packet_overtake() {
        let hop = |f: u64, l: u64, lat: u64| Hop { ser_full: Time(f), ser_last: Time(l), latency: Time(lat) };
        let paths = [
            vec![hop(100, 10, 7), hop(400, 40, 3), hop(100, 10, 5), hop(200, 20, 1)],
            vec![hop(100, 90, 1), hop(100, 90, 1), hop(100, 90, 1)],
            vec![hop(300, 30, 1), hop(100, 10, 1), hop(100, 10, 1), hop(100, 10, 1)],
            vec![hop(100, 10, 1), hop(100, 10, 1), hop(100, 10, 1), hop(300, 30, 1)],
            vec![hop(100, 100, 2), hop(50, 50, 2)],
        ];
        for hops in &paths {
            for n in 1..60 {
                let m = ideal_fct_multipath(hops, n);
                assert_eq!(m, brute_multipath(hops, n), "n = {n}, {hops:?}");
                assert!(m <= ideal_fct(hops, n), "n = {n}");
            }
        }
        let h = hop(32_768, 1_024, 500);
        let fat_tree = [h; 6];
        assert_eq!(ideal_fct(&fat_tree, 2), Time(6 * 32_768 + 1_024 + 3_000));
        assert_eq!(ideal_fct_multipath(&fat_tree, 2), Time(6 * 32_768 + 3_000));
    }
}

//! The `coflow` workload: FB2010-like coflows (the workload module's header says what it
//! keeps of the trace and what it invents).

use super::*;

/// The FB2010-like coflow shape (module header: what it keeps of the trace and what it
/// invents). Each table is a CDF in `SizeCdf`'s format, linear between points; counts are
/// rounded to the nearest integer.
pub struct Fb2010Like;

impl Fb2010Like {
    /// Coflow total size S in bytes: the artefact's eight group edges taken as octiles.
    /// Mean 100.2 MB; the last octile (137 MB–1.16 GB) holds 81 % of the bytes.
    pub const SIZES: &'static str = "100000 0\n500000 0.125\n1000000 0.25\n6000000 0.375\n10000000 0.5\n\
        25000000 0.625\n42000000 0.75\n137000000 0.875\n1160000000 1\n";
    /// Mappers M: a quarter single-mapper, 70 % at most 10, up to 150 (the trace's racks).
    pub const MAPPERS: &'static str = "1 0\n1 0.25\n2 0.4\n5 0.55\n10 0.7\n20 0.8\n50 0.9\n100 0.97\n150 1\n";
    /// Reducers R: a third single-reducer, 80 % at most 10, up to 100.
    pub const REDUCERS: &'static str = "1 0\n1 0.35\n2 0.5\n5 0.65\n10 0.8\n20 0.9\n50 0.97\n100 1\n";
}

/// Smallest flow of a coflow whose counts were drawn (`min_flow`'s default): about
/// 1 MB (the trace's smallest reducer input) over 100 mappers; it bounds the flow count
/// of small coflows.
pub const DEFAULT_MIN_FLOW: u64 = 10_000;

/// A `coflow` workload's parameters, validated (`coflow_params`).
#[derive(Clone, Debug)]
pub struct CoflowParams {
    /// Distribution of the total size S (a fixed `size` is a one-point CDF).
    pub sizes: SizeCdf,
    /// Fixed counts, or drawn from these CDFs.
    pub mappers: CountDraw,
    pub reducers: CountDraw,
    /// Drawn counts are trimmed until S/(M·R) is at least this (bytes, ≥ 1). With fixed
    /// counts, S is raised to M·R where it is smaller (one byte per flow).
    pub min_flow: u64,
    /// Offered payload load, a fraction of the hosts' summed link rates.
    pub load: f64,
    pub priority: Option<PrioritySpec>,
    pub equal_load_per_level: bool,
    pub start: Time,
    /// Arrivals at or after `stop` are dropped (`Time::MAX`: only `max_coflows` ends it).
    pub stop: Time,
    pub max_coflows: Option<u32>,
}

#[derive(Clone, Debug)]
pub enum CountDraw {
    Fixed(u32),
    Drawn(SizeCdf),
}

/// One coflow before it becomes flows: every mapper sends to every reducer.
#[derive(Clone, Debug, PartialEq)]
pub struct Coflow {
    pub arrival: Time,
    /// Total payload bytes S.
    pub bytes: u64,
    pub mappers: Vec<u32>,
    pub reducers: Vec<u32>,
    pub priority: u8,
}

impl Coflow {
    /// (src, dst, bytes) of its M·R flows, mapper-major: S/(M·R) each, the remainder of
    /// the division one byte apiece on the first flows, so that they add up to S exactly.
    pub fn flows(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        let n = (self.mappers.len() * self.reducers.len()) as u64;
        let (each, extra) = (self.bytes / n, self.bytes % n);
        self.mappers
            .iter()
            .flat_map(move |&m| self.reducers.iter().map(move |&r| (m, r)))
            .enumerate()
            .map(move |(k, (m, r))| (m, r, each + u64::from((k as u64) < extra)))
    }
}

/// Reads and checks a `coflow` workload's fields; errors name the field and what is allowed.
pub(crate) fn coflow_params(
    w: &WorkloadCfg,
    i: usize,
    d: &Defaults,
    base_dir: &Path,
    start: Time,
) -> Result<CoflowParams, ScenarioError> {
    let sizes = match (&w.size, &w.cdf) {
        (Some(_), Some(_)) => {
            return err(
                &field(i, "size"),
                "give either `size` (every coflow's total) or `cdf` (a distribution), not both",
            )
        }
        (Some(FlowSize::Infinite), _) => {
            return err(&field(i, "size"), "a coflow's total bytes must be finite, e.g. \"10MB\"")
        }
        (Some(FlowSize::Bytes(0)), _) => return err(&field(i, "size"), "must be positive"),
        (Some(FlowSize::Bytes(b)), None) => SizeCdf { points: vec![(*b as f64, 1.0)] },
        (None, Some(file)) => {
            let text = std::fs::read_to_string(base_dir.join(file))
                .map_err(|e| ScenarioError(format!("{}: cannot read {file}: {e}", field(i, "cdf"))))?;
            SizeCdf::parse(&text).map_err(|e| ScenarioError(format!("{}: {file}: {e}", field(i, "cdf"))))?
        }
        (None, None) => SizeCdf::parse(Fb2010Like::SIZES).expect("built-in CDF"),
    };
    let load = match w.load {
        Some(l) if l > 0.0 && l <= 1.0 => l,
        Some(l) => {
            return err(&field(i, "load"), format!("{l}: allowed 0 < load <= 1 (a fraction of the hosts' link rates)"))
        }
        None => return err(&field(i, "load"), "required: offered load, a fraction of the hosts' summed link rates"),
    };
    let stop = match (w.stop, d.duration, w.coflows) {
        (Some(s), _, _) if s.0 <= start => return err(&field(i, "stop"), format!("must be after start ({start})")),
        (Some(s), _, _) => s.0,
        (None, Some(dur), _) => dur,
        (None, None, Some(_)) => Time::MAX,
        (None, None, None) => {
            return err(
                &field(i, "stop"),
                "required (or the scenario's `duration`, or `coflows`): when coflows stop arriving",
            )
        }
    };
    if w.coflows == Some(0) {
        return err(&field(i, "coflows"), "0: allowed 1 or more (or leave it out)");
    }
    let count = |v: Option<u32>, name: &str, table: &str| -> Result<CountDraw, ScenarioError> {
        match v {
            Some(0) => err(&field(i, name), "0: allowed 1 or more (or leave it out to draw it per coflow)"),
            Some(k) => Ok(CountDraw::Fixed(k)),
            None => Ok(CountDraw::Drawn(SizeCdf::parse(table).expect("built-in CDF"))),
        }
    };
    let mappers = count(w.mappers, "mappers", Fb2010Like::MAPPERS)?;
    let reducers = count(w.reducers, "reducers", Fb2010Like::REDUCERS)?;
    let min_flow = match w.min_flow {
        Some(b) if b.0 == 0 => return err(&field(i, "min_flow"), "must be at least 1 byte"),
        Some(b) => b.0,
        None => DEFAULT_MIN_FLOW,
    };
    let equal_load_per_level = w.equal_load_per_level.unwrap_or(false);
    if equal_load_per_level {
        let Some(ranges) = w.priority.as_ref().and_then(|p| p.level_ranges()) else {
            return err(
                &field(i, "equal_load_per_level"),
                "needs `priority` by size ({ edges = [...] } or { levels = N, max = ... }): the load is split over its levels",
            );
        };
        for (level, lo, hi) in ranges {
            if level_probability(&sizes, lo, hi) <= 0.0 {
                return err(
                    &field(i, "equal_load_per_level"),
                    format!(
                        "priority level {level} (coflow sizes {lo} B up to {}) has no probability under the size \
                         distribution, so it cannot carry its share of the load; allowed: priority edges inside the \
                         distribution's range, or equal_load_per_level = false",
                        if hi == u64::MAX { "any".to_string() } else { format!("{hi} B") }
                    ),
                );
            }
        }
    }
    Ok(CoflowParams {
        sizes,
        mappers,
        reducers,
        min_flow,
        load,
        priority: w.priority.clone(),
        equal_load_per_level,
        start,
        stop,
        max_coflows: w.coflows,
    })
}

/// Fixed counts must fit in the workload's hosts (mappers and reducers are distinct).
pub(crate) fn check_coflow_hosts(p: &CoflowParams, n: u32, i: usize) -> Result<(), ScenarioError> {
    let need = |c: &CountDraw| if let CountDraw::Fixed(k) = c { *k } else { 1 };
    let (m, r) = (need(&p.mappers), need(&p.reducers));
    if m as u64 + r as u64 > n as u64 {
        let name = if matches!(p.mappers, CountDraw::Fixed(_)) { "mappers" } else { "reducers" };
        return err(
            &field(i, name),
            format!("{m} mappers and {r} reducers are {} distinct hosts; the workload has {n}", m + r),
        );
    }
    Ok(())
}

/// P(lo ≤ S < hi) under `sizes`.
pub(crate) fn level_probability(sizes: &SizeCdf, lo: u64, hi: u64) -> f64 {
    let upper = if hi == u64::MAX { 1.0 } else { sizes.below(hi as f64) };
    upper - sizes.below(lo as f64)
}

/// Fits drawn counts: M + R ≤ `hosts` (both scaled down in proportion when both are
/// drawn), then M·R ≤ max(1, ⌊S / min_flow⌋) (scaled by the same square root, so a coflow
/// keeps its shape). Fixed counts stay as they are (validated beforehand).
pub(crate) fn fit_counts(m: (u32, bool), r: (u32, bool), bytes: u64, min_flow: u64, hosts: u32) -> (u32, u32) {
    let ((mut m, m_fixed), (mut r, r_fixed)) = (m, r);
    if m + r > hosts {
        match (m_fixed, r_fixed) {
            (false, false) => {
                m = ((m as u64 * hosts as u64) / (m + r) as u64).max(1) as u32;
                r = hosts - m;
            }
            (true, _) => r = hosts - m,
            (false, true) => m = hosts - r,
        }
    }
    let width = (bytes / min_flow).max(1);
    if m as u64 * r as u64 > width {
        match (m_fixed, r_fixed) {
            (false, false) => {
                let f = (width as f64 / (m as f64 * r as f64)).sqrt();
                m = ((m as f64 * f).floor() as u64).clamp(1, width.min(m as u64)) as u32;
                r = (width / m as u64).clamp(1, r as u64) as u32;
            }
            (true, false) => r = (width / m as u64).clamp(1, r as u64) as u32,
            (false, true) => m = (width / r as u64).clamp(1, m as u64) as u32,
            (true, true) => {}
        }
    }
    (m, r)
}

/// The coflows of a `coflow` workload (module header), sorted by arrival (ties: higher
/// level first, then generation order). Each Poisson process (one, or one per level)
/// draws, per coflow: the gap to the next arrival, S, then M and R if drawn, then M + R
/// distinct hosts (a partial shuffle of `hosts`, the first M mapping).
pub fn coflow_arrivals(p: &CoflowParams, hosts: &[u32], host_rates: &[Rate], rng: &mut Rng) -> Vec<Coflow> {
    let capacity_bps: f64 = hosts.iter().map(|&h| host_rates[h as usize].as_gbps_f64() * 1e9).sum();
    // (level, probability slice (a, b] of the size CDF, its size range, share of the load).
    let processes: Vec<(Option<u8>, f64, f64, u64, u64, f64)> = match (&p.priority, p.equal_load_per_level) {
        (Some(spec), true) => {
            let ranges = spec.level_ranges().expect("validated: levels by size");
            let share = 1.0 / ranges.len() as f64;
            ranges
                .into_iter()
                .map(|(l, lo, hi)| {
                    let a = p.sizes.below(lo as f64);
                    let b = if hi == u64::MAX { 1.0 } else { p.sizes.below(hi as f64) };
                    (Some(l), a, b, lo, hi, share)
                })
                .collect()
        }
        _ => vec![(None, 0.0, 1.0, 0, u64::MAX, 1.0)],
    };
    let mut pool = hosts.to_vec();
    let n = hosts.len() as u32;
    let mut out: Vec<(Coflow, usize)> = Vec::new();
    for (pi, &(level, a, b, lo, hi, share)) in processes.iter().enumerate() {
        let mean_bytes = p.sizes.integral(a, b) / (b - a);
        let per_second = share * p.load * capacity_bps / (8.0 * mean_bytes);
        let mut t = p.start.as_secs_f64();
        let mut made = 0u32;
        loop {
            if p.max_coflows.is_some_and(|k| made >= k) {
                break;
            }
            t += rng.exponential(per_second);
            let arrival = Time::from_secs_f64(t);
            if arrival >= p.stop {
                break;
            }
            made += 1;
            // u in (a, b]: inside the level's slice of the CDF.
            let u = b - (b - a) * rng.next_f64();
            let bytes = (p.sizes.quantile(u).round() as u64).clamp(lo.max(1), hi.saturating_sub(1).max(1));
            let mut draw = |c: &CountDraw| match c {
                CountDraw::Fixed(k) => (*k, true),
                CountDraw::Drawn(cdf) => ((cdf.quantile(rng.next_f64()).round() as u32).max(1), false),
            };
            let (m, r) = (draw(&p.mappers), draw(&p.reducers));
            let (m, r) = fit_counts(m, r, bytes, p.min_flow, n);
            // At least a byte per flow (only fixed counts can ask for more than S).
            let bytes = bytes.max(m as u64 * r as u64);
            let k = (m + r) as usize;
            for j in 0..k {
                let pick = j + rng.below((pool.len() - j) as u64) as usize;
                pool.swap(j, pick);
            }
            let priority = match (level, &p.priority) {
                (Some(l), _) => l,
                (None, Some(spec)) => spec.level(bytes),
                (None, None) => 0,
            };
            let coflow = Coflow {
                arrival,
                bytes,
                mappers: pool[..m as usize].to_vec(),
                reducers: pool[m as usize..k].to_vec(),
                priority,
            };
            out.push((coflow, pi));
        }
    }
    // Stable: equal arrivals keep process order (highest level first), then generation order.
    out.sort_by_key(|(c, pi)| (c.arrival, *pi));
    let mut coflows: Vec<Coflow> = out.into_iter().map(|(c, _)| c).collect();
    if let Some(k) = p.max_coflows {
        coflows.truncate(k as usize);
    }
    coflows
}

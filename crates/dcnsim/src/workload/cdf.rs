//! Flow-size distributions as CDF points.

/// A flow-size distribution given as points of its CDF, linear in between (the format of
/// the published workload CDF files of the HPCC/pFabric generators: "bytes probability"
/// per line, `#` comments, probabilities rising to 1).
#[derive(Clone, Debug)]
pub struct SizeCdf {
    pub(super) points: Vec<(f64, f64)>,
}

impl SizeCdf {
    pub fn parse(text: &str) -> Result<SizeCdf, String> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut cols = line.split_whitespace().map(str::parse::<f64>);
            let (Some(Ok(x)), Some(Ok(p)), None) = (cols.next(), cols.next(), cols.next()) else {
                return Err(format!("line {}: expected two numbers \"bytes probability\", got {line:?}", n + 1));
            };
            if !(x >= 0.0 && x.is_finite() && (0.0..=1.0).contains(&p)) {
                return Err(format!("line {}: size must be >= 0 and probability in [0, 1]", n + 1));
            }
            if let Some(&(px, pp)) = points.last() {
                if x < px || p < pp {
                    return Err(format!("line {}: sizes and probabilities must not decrease", n + 1));
                }
            }
            points.push((x, p));
        }
        match points.last() {
            None => Err("no points".into()),
            Some(&(_, p)) if (p - 1.0).abs() > 1e-9 => Err(format!("the last probability is {p}, not 1")),
            Some(_) => Ok(SizeCdf { points }),
        }
    }

    /// Mean size: each segment holds its probability mass uniformly between its ends.
    pub fn mean(&self) -> f64 {
        let first = self.points[0];
        let mut mean = first.0 * first.1;
        for w in self.points.windows(2) {
            mean += (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1);
        }
        mean
    }

    /// P(size < x): the probability below `x`, without a point mass sitting at `x`.
    pub fn below(&self, x: f64) -> f64 {
        let first = self.points[0];
        if x <= first.0 {
            return 0.0;
        }
        for w in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            if x1 > x0 && x <= x1 {
                return p0 + (p1 - p0) * (x - x0) / (x1 - x0);
            }
        }
        1.0
    }

    /// ∫ from a to b of `quantile(u)` du, for 0 ≤ a ≤ b ≤ 1: the bytes that the
    /// probability slice (a, b] holds (its conditional mean is this over b − a). The
    /// quantile is constant on a point mass and linear along a segment, so each piece is
    /// a trapezoid.
    pub fn integral(&self, a: f64, b: f64) -> f64 {
        let first = self.points[0];
        let mut total = first.0 * (b.min(first.1) - a).max(0.0);
        for w in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            let (lo, hi) = (a.max(p0), b.min(p1));
            if p1 > p0 && hi > lo {
                let at = |u: f64| x0 + (x1 - x0) * (u - p0) / (p1 - p0);
                total += (hi - lo) * (at(lo) + at(hi)) / 2.0;
            }
        }
        total
    }

    /// The smallest size the distribution can give.
    pub fn min(&self) -> f64 {
        self.points[0].0
    }

    /// The size at cumulative probability `u` in [0, 1) (inverse CDF, linear in segments).
    pub fn quantile(&self, u: f64) -> f64 {
        let first = self.points[0];
        if u <= first.1 {
            return first.0;
        }
        for w in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            if u <= p1 && p1 > p0 {
                return x0 + (x1 - x0) * (u - p0) / (p1 - p0);
            }
        }
        self.points[self.points.len() - 1].0
    }
}

//! Importers: a flow CSV, htsim connection matrices and the HPCC simulator's flow files.

use crate::units::{parse_bytes, parse_time, Time};

type Row = (usize, (u32, u32, u64, Time));

/// CSV with header `src,dst,size,start`: size in bytes or with a unit, start with a unit.
pub fn parse_flow_csv(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err("empty file; expected a header `src,dst,size,start`".into());
    };
    let cols: Vec<&str> = header.split(',').map(|c| c.trim()).collect();
    if cols != ["src", "dst", "size", "start"] {
        return Err(format!("header is `{header}`; expected `src,dst,size,start`"));
    }
    let mut rows = Vec::new();
    for (n, line) in lines {
        let f: Vec<&str> = line.split(',').map(|c| c.trim()).collect();
        if f.len() != 4 {
            return Err(format!("line {}: expected 4 fields, found {}", n + 1, f.len()));
        }
        let src = f[0].parse::<u32>().map_err(|_| format!("line {}: src `{}` is not a host number", n + 1, f[0]))?;
        let dst = f[1].parse::<u32>().map_err(|_| format!("line {}: dst `{}` is not a host number", n + 1, f[1]))?;
        let size = parse_bytes(f[2]).map_err(|e| format!("line {}: size {e}", n + 1))?;
        if size == 0 {
            return Err(format!("line {}: size must be positive", n + 1));
        }
        let start = parse_time(f[3]).map_err(|e| format!("line {}: start {e}", n + 1))?;
        rows.push((n + 1, (src, dst, size, start)));
    }
    Ok(rows)
}

/// The `Nodes N` header of an htsim connection matrix, if it has one (htsim runs the
/// matrix on N hosts, so the scenario must have that many: checked by the caller).
pub fn htsim_cm_nodes(text: &str) -> Result<Option<u32>, String> {
    for (n, raw) in text.lines().enumerate() {
        let toks: Vec<&str> = raw.split_whitespace().collect();
        if toks.first() == Some(&"Nodes") {
            let v = toks.get(1).ok_or_else(|| format!("line {}: `Nodes` has no count", n + 1))?;
            return v.parse().map(Some).map_err(|_| format!("line {}: `Nodes {v}` is not a host count", n + 1));
        }
    }
    Ok(None)
}

/// htsim connection matrix: `Nodes N`, `Connections M`, then lines
/// `SRC->DST id ID start START_US size BYTES`. Start times are in microseconds, as in htsim.
/// Triggers and failures are not supported and are reported as such.
pub fn parse_htsim_cm(text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    let mut declared: Option<usize> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let ln = n + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        match toks[0] {
            "Nodes" => continue,
            "Connections" => {
                declared = toks.get(1).and_then(|t| t.parse().ok());
                continue;
            }
            "Triggers" | "Failures" => {
                if toks.get(1).map(|t| *t != "0").unwrap_or(false) {
                    return Err(format!("line {ln}: {} are not supported by dcnsim's importer", toks[0]));
                }
                continue;
            }
            _ => {}
        }
        let (s, d) = toks[0]
            .split_once("->")
            .ok_or_else(|| format!("line {ln}: expected `SRC->DST ...`, found `{}`", toks[0]))?;
        let src = s.parse::<u32>().map_err(|_| format!("line {ln}: `{s}` is not a host number"))?;
        let dst = d.parse::<u32>().map_err(|_| format!("line {ln}: `{d}` is not a host number"))?;
        let mut start = Time::ZERO;
        let mut size = None;
        let mut k = 1;
        while k < toks.len() {
            let val = toks.get(k + 1).ok_or_else(|| format!("line {ln}: `{}` has no value", toks[k]))?;
            match toks[k] {
                "id" | "priority" => {}
                "start" => {
                    let us: f64 =
                        val.parse().map_err(|_| format!("line {ln}: start `{val}` is not a number of microseconds"))?;
                    if us < 0.0 {
                        return Err(format!("line {ln}: negative start"));
                    }
                    start = Time::from_secs_f64(us * 1e-6);
                }
                "size" => {
                    size = Some(val.parse::<u64>().map_err(|_| format!("line {ln}: size `{val}` is not a byte count"))?)
                }
                "trigger" | "send_done_trigger" | "recv_done_trigger" => {
                    return Err(format!(
                        "line {ln}: `{}` (connection triggers) is not supported by dcnsim's importer",
                        toks[k]
                    ))
                }
                other => {
                    return Err(format!("line {ln}: unknown attribute `{other}` (known: id, start, size, priority)"))
                }
            }
            k += 2;
        }
        let size = size.ok_or_else(|| format!("line {ln}: no `size`"))?;
        if size == 0 {
            return Err(format!("line {ln}: size must be positive"));
        }
        rows.push((ln, (src, dst, size, start)));
    }
    if let Some(m) = declared {
        if m != rows.len() {
            return Err(format!("`Connections {m}` but {} connection lines", rows.len()));
        }
    }
    Ok(rows)
}

/// The HPCC simulator's `flow.txt` (the HPCC paper's ns-3 simulator, also used by
/// ConWeave's and LAPS's artefacts): a first line with the flow count N, then N lines
/// `SRC DST PG DPORT SIZE START` with the size in bytes and the start in seconds. The
/// priority group and destination port are read and not used (dcnsim has one data class
/// unless a workload sets `priority`). docs/formats.md, "HPCC flow files".
pub fn parse_hpcc_flows(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((n0, first)) = lines.next() else {
        return Err("empty file; expected the flow count on the first line".into());
    };
    let declared: usize =
        first.trim().parse().map_err(|_| format!("line {}: `{}` is not a flow count", n0 + 1, first.trim()))?;
    let mut rows = Vec::new();
    for (n, line) in lines {
        let ln = n + 1;
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 6 {
            return Err(format!("line {ln}: expected 6 fields `SRC DST PG DPORT SIZE START`, found {}", f.len()));
        }
        let src = f[0].parse::<u32>().map_err(|_| format!("line {ln}: src `{}` is not a node number", f[0]))?;
        let dst = f[1].parse::<u32>().map_err(|_| format!("line {ln}: dst `{}` is not a node number", f[1]))?;
        for (v, what) in [(f[2], "priority group"), (f[3], "destination port")] {
            v.parse::<u32>().map_err(|_| format!("line {ln}: {what} `{v}` is not a number"))?;
        }
        let size = f[4].parse::<u64>().map_err(|_| format!("line {ln}: size `{}` is not a byte count", f[4]))?;
        if size == 0 {
            return Err(format!("line {ln}: size must be positive"));
        }
        let secs: f64 = f[5].parse().map_err(|_| format!("line {ln}: start `{}` is not a number of seconds", f[5]))?;
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(format!("line {ln}: start `{}` must be a non-negative number of seconds", f[5]));
        }
        rows.push((ln, (src, dst, size, Time::from_secs_f64(secs))));
    }
    if rows.len() != declared {
        return Err(format!("the first line declares {declared} flows but {} flow lines follow", rows.len()));
    }
    Ok(rows)
}

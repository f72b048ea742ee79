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

const FAILURE_USAGE: &str =
    "expected `failure switch_type AGG switch_id S link_id L` (htsim fails the L-th core uplink of aggregation switch S)";

/// One link-failure line of an htsim connection matrix: `failure switch_type AGG
/// switch_id S link_id L` takes down the cable between aggregation switch S (numbered
/// across pods, pod by pod) and its L-th core, as htsim's fat tree does (it accepts only
/// `AGG`). The `Failures N` header must count them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CmFailure {
    pub line: usize,
    pub agg_switch: u32,
    pub uplink: u32,
}

/// The link failures of an htsim connection matrix (see `CmFailure`).
pub fn htsim_cm_failures(text: &str) -> Result<Vec<CmFailure>, String> {
    let mut out = Vec::new();
    let mut declared = None;
    for (n, raw) in text.lines().enumerate() {
        let ln = n + 1;
        let toks: Vec<&str> = raw.split_whitespace().collect();
        match toks.first() {
            Some(&"Failures") => {
                let v = toks.get(1).ok_or_else(|| format!("line {ln}: `Failures` has no count"))?;
                declared = Some(v.parse::<usize>().map_err(|_| format!("line {ln}: `Failures {v}` is not a count"))?);
            }
            Some(&"failed") => return Err(format!("line {ln}: {FAILURE_USAGE}")),
            Some(&"failure") => {
                let (mut kind, mut agg, mut link) = (None, None, None);
                for pair in toks[1..].chunks(2) {
                    let [key, val] = pair else {
                        return Err(format!("line {ln}: `{}` has no value; {FAILURE_USAGE}", pair[0]));
                    };
                    let num = || val.parse::<u32>().map_err(|_| format!("line {ln}: {key} `{val}` is not a number"));
                    match *key {
                        "switch_type" => kind = Some(*val),
                        "switch_id" => agg = Some(num()?),
                        "link_id" => link = Some(num()?),
                        other => {
                            return Err(format!("line {ln}: unknown failure attribute `{other}`; {FAILURE_USAGE}"))
                        }
                    }
                }
                match kind {
                    Some("AGG") => {}
                    Some(k @ ("TOR" | "CORE")) => {
                        return Err(format!(
                            "line {ln}: switch_type {k}: htsim fails only aggregation-to-core links (switch_type AGG)"
                        ))
                    }
                    Some(k) => return Err(format!("line {ln}: switch_type `{k}`; expected AGG (htsim also names TOR and CORE but fails only AGG links)")),
                    None => return Err(format!("line {ln}: no switch_type; {FAILURE_USAGE}")),
                }
                let (Some(agg_switch), Some(uplink)) = (agg, link) else {
                    return Err(format!("line {ln}: {FAILURE_USAGE}"));
                };
                out.push(CmFailure { line: ln, agg_switch, uplink });
            }
            _ => {}
        }
    }
    match declared {
        None if !out.is_empty() => {
            return Err(format!(
                "line {}: failure lines need a `Failures N` header (htsim checks the count)",
                out[0].line
            ))
        }
        Some(m) if m != out.len() => return Err(format!("`Failures {m}` but {} failure lines", out.len())),
        _ => {}
    }
    Ok(out)
}

/// What an htsim connection waits for before it starts (`FlowSpec::after`,
/// `after_acked`, `after_count`), in connection-line order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CmWait {
    pub after: Vec<u32>,
    pub after_acked: Vec<u32>,
    pub count: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TriggerKind {
    Oneshot,
    Multishot,
    Barrier(u32),
}

/// One connection line's trigger attributes.
#[derive(Default)]
struct CmTriggers {
    waits_for: Option<u32>,
    send_done: Option<u32>,
    recv_done: Option<u32>,
}

/// htsim connection matrix: `Nodes N`, `Connections M`, `Triggers T`, then lines
/// `SRC->DST id ID start START_US size BYTES` (start in microseconds, as in htsim), with
/// optional `trigger T` (start when trigger T fires instead of at a time),
/// `send_done_trigger T` (fire T when the sender has every byte acknowledged) and
/// `recv_done_trigger T` (fire T when the receiver has every byte), and trigger lines
/// `trigger id T oneshot|multishot|barrier N`. htsim's semantics (docs/formats.md): a
/// oneshot trigger starts all its connections at its first firing; a multishot one starts
/// its next connection (in file order) at each firing; a barrier starts all of them at its
/// N-th firing. Link-failure lines are read by `htsim_cm_failures`.
pub fn parse_htsim_cm(text: &str) -> Result<Vec<Row>, String> {
    parse_htsim_cm_with_triggers(text).map(|(rows, _)| rows)
}

/// `parse_htsim_cm`, with what each connection waits for.
pub fn parse_htsim_cm_with_triggers(text: &str) -> Result<(Vec<Row>, Vec<CmWait>), String> {
    let mut rows = Vec::new();
    let mut attrs: Vec<CmTriggers> = Vec::new();
    let mut kinds: std::collections::BTreeMap<u32, (usize, TriggerKind)> = Default::default();
    let mut declared: Option<usize> = None;
    let mut declared_triggers: Option<usize> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let ln = n + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        let count = || toks.get(1).and_then(|t| t.parse::<usize>().ok());
        match toks[0] {
            "Nodes" => continue,
            "Connections" => {
                declared = count();
                continue;
            }
            "Triggers" => {
                declared_triggers = count();
                continue;
            }
            // Link failures: read by `htsim_cm_failures` and applied when the fabric is built.
            "Failures" | "failure" => continue,
            "failed" => return Err(format!("line {ln}: {FAILURE_USAGE}")),
            "trigger" => {
                let (id, kind) = parse_trigger_line(&toks, ln)?;
                if let Some((first, _)) = kinds.insert(id, (ln, kind)) {
                    return Err(format!("line {ln}: trigger {id} is declared twice (first on line {first})"));
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
        let mut start = None;
        let mut size = None;
        let mut t = CmTriggers::default();
        let mut k = 1;
        while k < toks.len() {
            let val = toks.get(k + 1).ok_or_else(|| format!("line {ln}: `{}` has no value", toks[k]))?;
            let trigger_id = || val.parse::<u32>().map_err(|_| format!("line {ln}: trigger `{val}` is not a number"));
            match toks[k] {
                "id" | "priority" | "prio" => {}
                "start" => {
                    let us: f64 =
                        val.parse().map_err(|_| format!("line {ln}: start `{val}` is not a number of microseconds"))?;
                    if us < 0.0 {
                        return Err(format!("line {ln}: negative start"));
                    }
                    start = Some(Time::from_secs_f64(us * 1e-6));
                }
                "size" => {
                    size = Some(val.parse::<u64>().map_err(|_| format!("line {ln}: size `{val}` is not a byte count"))?)
                }
                "trigger" => t.waits_for = Some(trigger_id()?),
                "send_done_trigger" => t.send_done = Some(trigger_id()?),
                "recv_done_trigger" => t.recv_done = Some(trigger_id()?),
                other => {
                    return Err(format!(
                        "line {ln}: unknown attribute `{other}` (known: id, start, size, prio, priority, trigger, send_done_trigger, recv_done_trigger)"
                    ))
                }
            }
            k += 2;
        }
        if start.is_some() && t.waits_for.is_some() {
            return Err(format!("line {ln}: a connection has either `start` or `trigger`, not both"));
        }
        let size = size.ok_or_else(|| format!("line {ln}: no `size`"))?;
        if size == 0 {
            return Err(format!("line {ln}: size must be positive"));
        }
        rows.push((ln, (src, dst, size, start.unwrap_or(Time::ZERO))));
        attrs.push(t);
    }
    if let Some(m) = declared {
        if m != rows.len() {
            return Err(format!("`Connections {m}` but {} connection lines", rows.len()));
        }
    }
    if let Some(m) = declared_triggers {
        if m != kinds.len() {
            return Err(format!("`Triggers {m}` but {} trigger lines", kinds.len()));
        }
    }
    let waits = trigger_waits(&rows, &attrs, &kinds)?;
    Ok((rows, waits))
}

/// `trigger id T oneshot`, `trigger id T multishot` or `trigger id T barrier N`.
fn parse_trigger_line(toks: &[&str], ln: usize) -> Result<(u32, TriggerKind), String> {
    let usage = "expected `trigger id T oneshot`, `trigger id T multishot` or `trigger id T barrier N`";
    if toks.get(1) != Some(&"id") || toks.len() < 4 {
        return Err(format!("line {ln}: {usage}"));
    }
    let id = toks[2].parse::<u32>().map_err(|_| format!("line {ln}: trigger id `{}` is not a number", toks[2]))?;
    let kind = match (toks[3], toks.get(4)) {
        ("oneshot", None) => TriggerKind::Oneshot,
        ("multishot", None) => TriggerKind::Multishot,
        ("barrier", Some(n)) => match n.parse::<u32>() {
            Ok(n) if n > 0 => TriggerKind::Barrier(n),
            _ => return Err(format!("line {ln}: barrier count `{n}` must be a positive number")),
        },
        _ => return Err(format!("line {ln}: {usage}")),
    };
    Ok((id, kind))
}

/// Turns the triggers into each connection's wait: the connections that fire trigger T
/// (by delivery or by acknowledgement), and how many of their firings start each of T's
/// connections.
fn trigger_waits(
    rows: &[Row],
    attrs: &[CmTriggers],
    kinds: &std::collections::BTreeMap<u32, (usize, TriggerKind)>,
) -> Result<Vec<CmWait>, String> {
    let mut waits = vec![CmWait::default(); rows.len()];
    // Who fires and who waits on each trigger, in connection order, in one pass (a
    // generated collective has about as many triggers as connections).
    #[derive(Default)]
    struct Uses {
        delivered: Vec<u32>,
        acked: Vec<u32>,
        targets: Vec<usize>,
    }
    let mut uses: std::collections::HashMap<u32, Uses> = Default::default();
    for (c, a) in attrs.iter().enumerate() {
        for t in [a.waits_for, a.send_done, a.recv_done].into_iter().flatten() {
            if !kinds.contains_key(&t) {
                return Err(format!(
                    "line {}: trigger {t} is not declared (add a line `trigger id {t} oneshot`, `multishot` or `barrier N`)",
                    rows[c].0
                ));
            }
        }
        if let Some(t) = a.recv_done {
            uses.entry(t).or_default().delivered.push(c as u32);
        }
        if let Some(t) = a.send_done {
            uses.entry(t).or_default().acked.push(c as u32);
        }
        if let Some(t) = a.waits_for {
            uses.entry(t).or_default().targets.push(c);
        }
    }
    for (&t, &(decl, kind)) in kinds {
        let Some(Uses { delivered, acked, targets }) = uses.get(&t) else { continue };
        let firings = (delivered.len() + acked.len()) as u32;
        if targets.is_empty() {
            continue;
        }
        let never = |why: String| {
            Err(format!(
                "line {}: trigger {t} {why}, so connection line {} would never start",
                decl, rows[targets[0]].0
            ))
        };
        if firings == 0 {
            return never("is fired by no connection (send_done_trigger or recv_done_trigger)".into());
        }
        for (k, &c) in targets.iter().enumerate() {
            let count = match kind {
                TriggerKind::Oneshot => 1,
                TriggerKind::Barrier(n) if n > firings => {
                    return never(format!("is a barrier of {n} but only {firings} connections fire it"))
                }
                TriggerKind::Barrier(n) => n,
                TriggerKind::Multishot if k as u32 >= firings => {
                    return Err(format!(
                        "line {decl}: multishot trigger {t} fires {firings} times, so its connection {} (line {}) would never start",
                        k + 1,
                        rows[c].0
                    ))
                }
                TriggerKind::Multishot => k as u32 + 1,
            };
            waits[c] = CmWait { after: delivered.clone(), after_acked: acked.clone(), count };
        }
    }
    Ok(waits)
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

//! Checks of every value serde's types cannot express (ranges, cross-field consistency),
//! made before anything is built.

use super::*;

pub(super) fn validate_numbers(s: &Scenario) -> Result<(), ScenarioError> {
    if !(1..=256).contains(&s.threads) {
        return err("threads", format!("{}: allowed 1 to 256", s.threads));
    }
    let t = &s.topology;
    let tr = &s.transport;
    let mtu = t.mtu.0;
    if mtu <= tr.header.0 {
        return err("topology.mtu", format!("{mtu} bytes leaves no payload after the {}-byte header", tr.header.0));
    }
    if mtu > 1 << 20 {
        return err("topology.mtu", format!("{mtu} bytes: allowed up to 1MiB"));
    }
    if tr.header.0 == 0 {
        return err("transport.header", "must be at least 1 byte (an ACK is a bare header)");
    }
    check_fraction("topology.failed_links", t.failed_links)?;
    check_fraction("topology.loss_rate", t.loss_rate)?;
    let sw = &s.switch;
    if sw.buffer.0 < mtu {
        return err("switch.buffer", format!("{} bytes is smaller than one MTU ({mtu} bytes)", sw.buffer.0));
    }
    if let Some(aqm) = &sw.aqm {
        if sw.ecn.is_some() {
            return err("switch.aqm", "a port runs one queue management: give [switch.aqm] or [switch.ecn], not both");
        }
        aqm.validate("switch.aqm")?;
    }
    let ecn = sw.ecn.clone().unwrap_or_default();
    if ecn.enabled {
        ecn.red().validate("switch.ecn")?;
    }
    if ecn.reference_rate.is_some_and(|r| r.0.bps() == 0) {
        return err("switch.ecn.reference_rate", "0: allowed a rate above 0 (the rate the thresholds are given for)");
    }
    let (ack_policy, ack_ratio) = s.ack_settings();
    if ack_ratio == 0 {
        return err("transport.ack_ratio", "0: allowed 1 (per-packet ACKs) or more");
    }
    if tr.dupack_threshold == 0 {
        return err("transport.dupack_threshold", "0: allowed 1 or more (3 is standard)");
    }
    if tr.rto_min.0 == Time::ZERO {
        return err("transport.rto_min", "must be positive");
    }
    if tr.rto_max.0 < tr.rto_min.0 {
        return err("transport.rto_max", "must be at least rto_min");
    }
    if !(tr.dctcp.g > 0.0 && tr.dctcp.g <= 1.0) {
        return err("transport.dctcp.g", format!("{}: allowed 0 < g <= 1", tr.dctcp.g));
    }
    if !(0.0..=1.0).contains(&tr.dctcp.alpha_init) {
        return err("transport.dctcp.alpha_init", format!("{}: allowed 0 <= alpha_init <= 1", tr.dctcp.alpha_init));
    }
    if let Err((field, msg)) = tr.prioplus.validate() {
        return err(&format!("transport.prioplus.{field}"), msg);
    }
    if let Err((field, msg)) = tr.swift.validate() {
        return err(&format!("transport.swift.{field}"), msg);
    }
    if let Err((field, msg)) = tr.ledbat.validate() {
        return err(&format!("transport.ledbat.{field}"), msg);
    }
    if let Err((field, msg)) = tr.hpcc.validate() {
        return err(&format!("transport.hpcc.{field}"), msg);
    }
    if let Err((field, msg)) = tr.mprdma.validate() {
        return err(&format!("transport.mprdma.{field}"), msg);
    }
    if let Err((field, msg)) = tr.dcqcn.validate() {
        return err(&format!("transport.dcqcn.{field}"), msg);
    }
    if let Err((field, msg)) = tr.nscc.validate() {
        return err(&format!("transport.nscc.{field}"), msg);
    }
    if let Err((field, msg)) = tr.dctcp.validate() {
        return err(&format!("transport.dctcp.{field}"), msg);
    }
    if let Err((field, msg)) = tr.d2tcp.validate() {
        return err(&format!("transport.d2tcp.{field}"), msg);
    }
    tr.validate_path_policies()?;
    if let Err((field, msg)) = tr.plb.validate() {
        return err(&format!("transport.plb.{field}"), msg);
    }
    if let Err((field, msg)) = tr.eqds.validate() {
        return err(&format!("transport.eqds.{field}"), msg);
    }
    if let Err((field, msg)) = tr.conga.validate() {
        return err(&format!("transport.conga.{field}"), msg);
    }
    if let Err((field, msg)) = tr.conweave.validate() {
        return err(&format!("transport.conweave.{field}"), msg);
    }
    if let Err((field, msg)) = tr.laps.validate() {
        return err(&format!("transport.laps.{field}"), msg);
    }
    let laps_used = tr.lb == LbName::Laps || s.workload.iter().any(|w| w.lb == Some(LbName::Laps));
    if laps_used && tr.loss_recovery != crate::transport::LossRecovery::Sack {
        return err(
            "transport.loss_recovery",
            "LAPS resends what its per-path loss inference finds lost (selective); allowed with lb = \"laps\": \"sack\"",
        );
    }
    if laps_used && ack_policy != crate::transport::AckPolicy::Tcp {
        // A LAPS ACK carries a one-way latency where others carry the cumulative ACK, so a
        // bitmap relative to the cumulative ACK would mean nothing to its sender.
        return err(
            "transport.ack_policy",
            "LAPS acknowledges every data packet with its latency; allowed with lb = \"laps\": \"tcp\"",
        );
    }
    if laps_used && ack_ratio != 1 {
        return err(
            "transport.ack_ratio",
            format!("{}: LAPS acknowledges every data packet (its latency samples and loss inference need it); allowed with lb = \"laps\": 1", ack_ratio),
        );
    }
    if sw.trimming && !sw.ack_priority {
        return err(
            "switch.trimming",
            "trimmed headers travel in the priority queue; set ack_priority = true (the default) or trimming = false",
        );
    }
    if let Some(pfc) = sw.pfc.as_ref().filter(|p| p.enabled) {
        if !sw.ack_priority && pfc.lossless.contains(&PfcClass::Control) {
            return err(
                "switch.pfc.lossless",
                "with switch.ack_priority = false ACKs wait in the data queues and travel in the data's class; allowed [\"data\"]",
            );
        }
        if pfc.class_change != crate::net::pfc::ClassChange::None && !pfc.per_priority {
            return err(
                "switch.pfc.class_change",
                "moves packets between per-priority classes; set switch.pfc.per_priority = true (and scheduler = \"priority\")",
            );
        }
        if pfc.lossless.is_empty() {
            return err(
                "switch.pfc.lossless",
                "empty: allowed a list of \"data\" and/or \"control\" (or enabled = false)",
            );
        }
        if pfc.lossless.len() == 2 && pfc.lossless[0] == pfc.lossless[1] {
            return err("switch.pfc.lossless", "lists a class twice; allowed \"data\", \"control\"");
        }
        if let (Some(xon), Some(xoff)) = (pfc.xon, pfc.xoff) {
            if xon.0 >= xoff.0 {
                return err("switch.pfc.xon", format!("{} is not below xoff ({})", xon.0, xoff.0));
            }
        }
        if let Some(d) = &pfc.dynamic {
            if let Some(field) = [("xoff", pfc.xoff.is_some()), ("xon", pfc.xon.is_some())].iter().find(|f| f.1) {
                return err(
                    &format!("switch.pfc.{}", field.0),
                    "set together with switch.pfc.dynamic, whose threshold replaces it; allowed: one of the two",
                );
            }
            if d.alpha_shift > 16 {
                return err("switch.pfc.dynamic.alpha_shift", format!("{}: allowed 0..=16", d.alpha_shift));
            }
            match (d.buffer, d.buffer_per_port) {
                (Some(_), Some(_)) | (None, None) => {
                    return err("switch.pfc.dynamic", "give exactly one of buffer (per switch) and buffer_per_port");
                }
                (Some(BytesVal(0)), _) => return err("switch.pfc.dynamic.buffer", "0 bytes: allowed a positive size"),
                (_, Some(BytesVal(0))) => {
                    return err("switch.pfc.dynamic.buffer_per_port", "0 bytes: allowed a positive size")
                }
                _ => {}
            }
        }
        if pfc.xoff.is_some_and(|x| x.0 < mtu) {
            return err(
                "switch.pfc.xoff",
                format!("{} bytes: allowed at least one MTU ({mtu} bytes)", pfc.xoff.unwrap().0),
            );
        }
    }
    if tr.dctcp.min_cwnd_pkts == 0 || tr.newreno.min_cwnd_pkts == 0 {
        return err("transport.min_cwnd_pkts", "allowed 1 or more");
    }
    if let Some(d) = s.duration {
        if d.0 == Time::ZERO {
            return err("duration", "must be positive");
        }
    }
    if let Some(i) = s.output.sample_interval {
        if i.0 == Time::ZERO {
            return err("output.sample_interval", "must be positive");
        }
    }
    if let Some(o) = &s.observe {
        match o.interval {
            None => return err("observe.interval", "required: the sampling period, e.g. \"1us\""),
            Some(i) if i.0 == Time::ZERO => return err("observe.interval", "must be positive"),
            _ => {}
        }
    }
    if s.trace.as_ref().is_some_and(|t| t.max_events == 0) {
        return err("trace.max_events", "allowed 1 or more");
    }
    let drr = &s.switch.drr;
    if drr.quantum.0 == 0 || drr.weights.contains(&0) {
        return err("switch.drr", "quantum and both weights must be positive");
    }
    if s.switch.scheduler == Scheduler::Drr {
        let w = drr.weights;
        let smallest = s.switch.buffer.0 * w[0].min(w[1]) as u64 / (w[0] + w[1]) as u64;
        if smallest < mtu {
            return err(
                "switch.buffer",
                format!("a DRR class's share ({smallest} bytes) is smaller than one MTU ({mtu} bytes)"),
            );
        }
    }
    let ar = &s.switch.ar;
    if ar.levels.is_empty()
        || ar.levels.windows(2).any(|w| w[0] >= w[1])
        || ar.levels.iter().any(|&b| !(b > 0.0 && b <= 1.0))
    {
        return err("switch.ar.levels", "allowed: ascending fractions of the buffer in (0, 1], e.g. [0.05, 0.1, 0.2]");
    }
    if s.transport.reps.buffer == 0 {
        return err("transport.reps.buffer", "allowed: 1 or more entropies");
    }
    if s.workload.is_empty() {
        return err(
            "workload",
            "no [[workload]] given; add one (kinds: permutation, incast, all_to_all, hsdp_ring, training, traffic_mode, poisson, coflow, flows, htsim_cm, hpcc_flows)",
        );
    }
    Ok(())
}

//! PFC (`[switch.pfc]`, `net/pfc/mod.rs`) acceptance checks from issue 4 and the SMaRTT
//! paper's RoCEv2 baseline (docs/models/pfc.md): a lossless incast drops nothing and pauses its senders, and the
//! classic PFC victim: head-of-line blocking spreads a congested port's pauses to a flow
//! whose own path is uncongested (DCQCN paper §2). Senders use `cc = "none"` (line rate,
//! the SMaRTT paper's simulated RoCEv2 without DCQCN), so every number below follows from link
//! rates alone.

use crate::common::*;

use dcnsim::Time;

const MTU: u64 = 4096;
const HEADER: u64 = 64;

fn incast_files() -> Vec<(&'static str, &'static str)> {
    vec![("flows.csv", "src,dst,size,start\n1,0,4MB,0\n2,0,4MB,0\n")]
}

/// Issue 4 acceptance: "a 2:1 incast on a lossless fabric drops nothing and counts pause
/// frames". Two line-rate senders share one 100 Gbps port, so the switch must hold back
/// 100 Gbps: without PFC its 200 KB buffer overflows (checked, so the scenario is a real
/// test), with PFC nothing is dropped, both senders' NIC ports receive PAUSE frames, and
/// since the receiver's link never idles the incast completes in the time its bytes take
/// on that link: 2 × 4 MB in 4032-byte payloads of 4096-byte frames at 100 Gbps, plus one
/// packet's path latency (conservation of work at a lossless, work-conserving port).
#[test]
fn lossless_incast_drops_nothing_and_pauses_both_senders() {
    let files = incast_files();
    let mut lossy = sim_with_files(&incast_toml(false), &files);
    lossy.run();
    assert!(lossy.counters.drops > 0, "without PFC the 200 KB buffer must overflow");

    let mut s = sim_with_files(&incast_toml(true), &files);
    s.run();
    assert_eq!(s.counters.drops, 0);
    assert_eq!(s.flows_finished(), 2);
    assert!(s.flows.iter().all(|f| f.receiver.delivered == 4_000_000));
    let pfc = s.pfc.as_ref().expect("PFC on");
    assert_eq!(pfc.headroom_overflows, 0, "the default headroom absorbed every in-flight byte");
    for sender in [1usize, 2] {
        let up = s.routing.host_up_port[sender];
        assert!(pfc.stats[up as usize].pause_frames > 0, "sender {sender} was never paused");
    }
    let receiver_up = s.routing.host_up_port[0];
    assert_eq!(pfc.stats[receiver_up as usize].pause_frames, 0, "the receiver only sends ACKs");
    assert!(pfc.total_pause_frames() >= pfc.total_resume_frames());

    let payload = MTU - HEADER;
    let wire_per_flow = 4_000_000u64.div_ceil(payload) * HEADER + 4_000_000;
    let drain = dcnsim::Rate::gbps(100).serialization(2 * wire_per_flow);
    let finish = s.flows.iter().map(|f| f.receiver.finish.unwrap()).max().unwrap();
    let slack = Time::from_us(2) + Time::from_ns(2 * 328); // two links + two serialisations
    assert!(finish >= drain, "finished in {finish}, faster than the link allows ({drain})");
    eprintln!("lossless 2:1 incast: finished {finish}, link drain {drain}, pauses {}", pfc.total_pause_frames());
    assert!(
        finish <= drain + slack + Time(drain.0 / 100),
        "lossless incast took {finish}, expected {drain} + one packet's path"
    );
}

/// 2:1 incast of 4 MB per sender on a 100 Gbps star with a 200 KB buffer per port.
fn incast_toml(pfc: bool) -> String {
    let pfc_line = if pfc { "pfc = { lossless = [\"data\"] }" } else { "" };
    format!(
        r#"
        duration = "5ms"
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        [switch]
        buffer = "200KB"
        ecn = {{ enabled = false }}
        {pfc_line}
        [transport]
        cc = "none"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#
    )
}

/// The victim scenarios' network: a dumbbell of 4 + 4 hosts at 100 Gbps with a 200 Gbps
/// middle link, 300 KB switch buffers, no ECN, no congestion control; `switch` is added to
/// `[switch]` and `workloads` at the end.
fn victim_dumbbell(switch: &str, workloads: &str) -> String {
    format!(
        "duration = \"3ms\"\n[topology]\nkind = \"dumbbell\"\nhosts = 8\nlink_rate = \"100Gbps\"\n\
         link_latency = \"1us\"\nbottleneck_rate = \"200Gbps\"\n[switch]\nbuffer = \"300KB\"\n\
         ecn = {{ enabled = false }}\n{switch}\n[transport]\ncc = \"none\"\n{workloads}\n"
    )
}

/// The classic PFC victim (DCQCN paper §2; docs/models/pfc.md). Dumbbell: left
/// switch L with hosts 0-3, right switch R with hosts 4-7, 100 Gbps host links, a
/// 200 Gbps L-R link. Hosts 0, 5 and 6 send to host 4 (a 3:1 incast at R's port to 4);
/// host 1 sends to host 7: the victim, whose path L→R→7 has room for it (0→4 and 1→7
/// together need at most 200 Gbps of L→R).
///
/// Analytic expectation. R's port to 4 serves 100 Gbps among three lossless inputs that
/// each deliver 100 Gbps of its traffic while unpaused, so each input (the L link among
/// them) gets 1/3 of it: flow 0→4 runs at 100/3 Gbps. Everything PFC does to the L→R
/// link (pause it while 0→4's bytes pile up in R) it does to both flows in L's FIFO, and
/// at L hosts 0 and 1 are indistinguishable line-rate senders, so the link carries them
/// equally: the victim also runs at 100/3 Gbps, its fair share of the paused link's
/// throughput, although nothing on its own path is congested. Without PFC (drop-tail) it
/// runs at its line rate, 100 Gbps, less its 64-byte headers.
#[test]
fn pfc_victim_flow_falls_to_its_share_of_the_paused_link() {
    let toml = |pfc: bool| {
        victim_dumbbell(if pfc { "pfc = {}" } else { "" }, "[[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"")
    };
    let files = [("flows.csv", "src,dst,size,start\n0,4,1GB,0\n5,4,1GB,0\n6,4,1GB,0\n1,7,1GB,0\n")];
    let goodput_gbps = |pfc: bool| -> (Vec<f64>, dcnsim::Simulation) {
        let mut s = sim_with_files(&toml(pfc), &files);
        // Measure after a 1 ms warm-up, over 2 ms.
        s.run_until(Time::from_ms(1));
        let before: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
        s.run_until(Time::from_ms(3));
        let rates =
            s.flows.iter().zip(&before).map(|(f, b)| (f.receiver.delivered - b) as f64 * 8.0 / 2e-3 / 1e9).collect();
        (rates, s)
    };
    let payload_share = (MTU - HEADER) as f64 / MTU as f64;

    let (lossy, _) = goodput_gbps(false);
    let victim_alone = 100.0 * payload_share;
    assert!(
        (lossy[3] - victim_alone).abs() / victim_alone < 0.03,
        "without PFC the victim runs at line rate: {:.1} Gbps vs {victim_alone:.1}",
        lossy[3]
    );

    let (rates, s) = goodput_gbps(true);
    eprintln!("victim scenario, Gbps with PFC: {rates:?}; without: {lossy:?}");
    assert_eq!(s.counters.drops, 0);
    let share = 100.0 / 3.0 * payload_share;
    for (i, name) in [(0, "incast flow through L"), (3, "victim")] {
        let r = rates[i];
        assert!((r - share).abs() / share < 0.15, "{name}: {r:.1} Gbps, expected 100/3 × payload = {share:.1}");
    }
    // The three incast inputs together fill the receiver's link (work conservation).
    let incast: f64 = rates[..3].iter().sum();
    assert!((incast - 100.0 * payload_share).abs() / (100.0 * payload_share) < 0.03, "incast total {incast:.1}");
    // R's port to the victim's receiver never held a queue worth pausing for: the victim
    // was blocked upstream, not on its own path.
    let to_victim = s.routing.host_down_port[7];
    let pfc = s.pfc.as_ref().unwrap();
    assert!(s.ports[to_victim as usize].stats.max_queue < pfc.thresholds(s.routing.host_up_port[1]).unwrap().xoff);
    let l_to_r = s.ports.iter().position(|p| p.node == 8 && p.peer == 9).unwrap();
    assert!(pfc.stats[l_to_r].pause_frames > 0, "R paused the L→R link");
    assert!(pfc.paused_time(l_to_r as u32, dcnsim::net::pfc::DATA, s.now()) > Time::from_us(100));
}

/// The victim scenario above with two strict-priority queues, the incast at level 2 and
/// the victim at level 1. With one PFC data class (`per_priority = false`) R's PAUSE of the
/// L→R link stops both levels, and each time it lifts L first sends the incast packets
/// queued above the victim's, so the victim is dragged far below its line rate; with
/// per-priority PFC (802.1Qbb's PAUSE per priority) only level 2 stops, and the victim
/// runs at line rate (within 3 %), losslessly. (Had the victim the higher level, strict
/// priority alone would rescue it: it would leave L first whenever the link runs.)
#[test]
fn per_priority_pfc_spares_the_other_level() {
    let toml = |per_priority: bool| {
        victim_dumbbell(
            &format!(
                "scheduler = \"priority\"\npriority = {{ queues = 2 }}\npfc = {{ per_priority = {per_priority} }}"
            ),
            "[[workload]]\nkind = \"flows\"\nfile = \"incast.csv\"\npriority = 2\n\
             [[workload]]\nkind = \"flows\"\nfile = \"victim.csv\"\npriority = 1",
        )
    };
    let files = [
        ("incast.csv", "src,dst,size,start\n0,4,1GB,0\n5,4,1GB,0\n6,4,1GB,0\n"),
        ("victim.csv", "src,dst,size,start\n1,7,1GB,0\n"),
    ];
    let line = 100.0 * (MTU - HEADER) as f64 / MTU as f64;
    let mut victim = Vec::new();
    for per_priority in [false, true] {
        let mut s = sim_with_files(&toml(per_priority), &files);
        s.run_until(Time::from_ms(1));
        let before = s.flows[3].receiver.delivered;
        s.run_until(Time::from_ms(3));
        let gbps = (s.flows[3].receiver.delivered - before) as f64 * 8.0 / 2e-3 / 1e9;
        let pfc = s.pfc.as_ref().unwrap();
        eprintln!("per_priority = {per_priority}: victim {gbps:.1} Gbps, {} pause frames", pfc.total_pause_frames());
        assert_eq!(s.counters.drops, 0, "lossless either way");
        assert!(pfc.total_pause_frames() > 0);
        victim.push(gbps);
    }
    assert!(victim[0] < 0.6 * line, "one data class: the victim is blocked ({:.1} Gbps)", victim[0]);
    assert!((victim[1] - line).abs() / line < 0.03, "per priority: the victim at line rate ({:.1} Gbps)", victim[1]);
}

/// `per_priority` needs physical priority queues; asking for it without them is refused.
#[test]
fn per_priority_pfc_without_priority_queues_is_refused() {
    let e = build_err(
        r#"
        [topology]
        kind = "star"
        hosts = 4
        [switch]
        pfc = { per_priority = true }
        [[workload]]
        kind = "permutation"
        size = "1MB"
        "#,
    );
    assert!(e.contains("switch.pfc.per_priority") && e.contains("scheduler"), "{e}");
}

/// Lossless and lossy classes side by side: with `lossless = ["control"]` data is still
/// dropped when the buffer overflows (PFC does not touch lossy classes).
#[test]
fn a_lossy_data_class_still_drops() {
    let toml = incast_toml(false).replace("[transport]", "pfc = { lossless = [\"control\"] }\n[transport]");
    let mut s = sim_with_files(&toml, &incast_files());
    s.run();
    assert!(s.counters.drops > 0);
    assert_eq!(s.pfc.as_ref().unwrap().total_pause_frames(), 0);
}

/// Bad PFC input names the field and what is allowed.
#[test]
fn bad_pfc_input_names_the_field() {
    let base = incast_toml(false);
    let with = |pfc: &str| base.replace("[transport]", &format!("pfc = {pfc}\n[transport]"));
    let files = incast_files();
    let build_err = |toml: &str| match build_with_files(toml, &files) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.0,
    };
    let e = build_err(&with("{ lossless = [\"video\"] }"));
    assert!(e.contains("switch.pfc.lossless") && e.contains("data"), "{e}");
    let e = build_err(&with("{ lossless = [] }"));
    assert!(e.contains("switch.pfc.lossless"), "{e}");
    let e = build_err(&with("{ xoff = \"100KB\", xon = \"150KB\" }"));
    assert!(e.starts_with("switch.pfc.xon"), "{e}");
    let e = build_err(&with("{ class_change = \"per_hop\" }"));
    assert!(e.starts_with("switch.pfc.class_change") && e.contains("per_priority"), "{e}");
    let e = build_err(&with("{ class_change = \"dateline\" }"));
    assert!(e.contains("class_change") && e.contains("per_hop"), "{e}");
    let e = build_err(&with("{ xof = \"100KB\" }"));
    assert!(e.contains("switch.pfc") && e.contains("xof"), "{e}");
    let small = base.replace("buffer = \"200KB\"", "buffer = \"20KB\"").replace("[transport]", "pfc = {}\n[transport]");
    let e = build_err(&small);
    assert!(e.starts_with("switch.buffer") && e.contains("headroom"), "{e}");
    // ACKs in the data queues travel in the data's class, so a lossless control class
    // would name a class nothing uses.
    let no_prio = with("{ lossless = [\"data\", \"control\"] }").replace("[switch]", "[switch]\nack_priority = false");
    let e = build_err(&no_prio);
    assert!(e.starts_with("switch.pfc.lossless") && e.contains("ack_priority"), "{e}");
    build_with_files(&with("{}").replace("[switch]", "[switch]\nack_priority = false"), &files)
        .expect("ACKs at the data's priority with lossless data is a valid set-up");
}

/// ACKs at the data's priority (`switch.ack_priority = false` with per-priority PFC; the
/// PrioPlus paper's App. A.3 "PrioPlus*" and its artefact's Physical schemes;
/// net/pfc/mod.rs). Star of 3 hosts at 100 Gbps, two strict-priority queues, each level
/// lossless. A level-1 Swift flow runs 0 → 1 throughout; host 2 sends host 0 four level-2
/// bursts of 1.25 MB (100 µs at line rate each) at 200, 400, 600 and 800 µs, so the
/// switch's port to host 0, which carries the level-1 flow's ACKs, is fully taken by
/// level 2 half of the time from 200 µs to 1 ms.
///
/// Expected, from the queueing discipline alone:
/// - ACKs in their own top queue (`ack_priority = true`): the level-1 flow's path and its
///   ACKs never wait behind level 2, so it delivers its line rate over [200 µs, 1 ms]
///   (within 3 %) and is never cut for delay by what level 2 does.
/// - ACKs in the level-1 queue: while a burst holds the port, no ACK reaches host 0, and an
///   ACK-clocked sender can send at most its window. So over the window it delivers at most
///   the off half of the line rate plus one window per burst; and the first ACK after each
///   burst has waited the burst out (≈ 100 µs, several times Swift's target), so Swift
///   makes a delay decrease after each of the four bursts: it slows, not only stalls.
#[test]
fn acks_at_the_data_priority_wait_behind_higher_levels_and_swift_slows() {
    let toml = |ack_priority: bool| {
        format!(
            r#"
            duration = "1500us"
            [topology]
            kind = "star"
            hosts = 3
            link_rate = "100Gbps"
            link_latency = "1us"
            [switch]
            buffer = "4MB"
            ack_priority = {ack_priority}
            scheduler = "priority"
            priority = {{ queues = 2 }}
            ecn = {{ enabled = false }}
            pfc = {{ per_priority = true }}
            [transport]
            cc = "swift"
            [[workload]]
            kind = "flows"
            file = "low.csv"
            priority = 1
            [[workload]]
            kind = "flows"
            file = "high.csv"
            priority = 2
            "#
        )
    };
    let files = [
        ("low.csv", "src,dst,size,start\n0,1,1GB,0\n"),
        (
            "high.csv",
            "src,dst,size,start\n2,0,1250000,200us\n2,0,1250000,400us\n2,0,1250000,600us\n2,0,1250000,800us\n",
        ),
    ];
    let line = 100.0 * (MTU - HEADER) as f64 / MTU as f64;
    let (from, to) = (Time::from_us(200), Time::from_ms(1));
    // (Gbps over the window, delay cuts in it, the window in bytes when it opens)
    let run = |ack_priority: bool| {
        let mut s = sim_with_files(&toml(ack_priority), &files);
        s.run_until(from);
        let (delivered, cuts) = (s.flows[0].receiver.delivered, observed(&s.flows[0], "delay_md"));
        let window = observed(&s.flows[0], "cwnd_pkts") * MTU as f64;
        s.run_until(to);
        let gbps = (s.flows[0].receiver.delivered - delivered) as f64 * 8.0 / (to - from).as_secs_f64() / 1e9;
        let cuts = observed(&s.flows[0], "delay_md") - cuts;
        assert_eq!(s.counters.drops, 0, "lossless");
        assert!(s.flows[1..].iter().all(|f| f.receiver.delivered == 1_250_000), "every burst ends by 1 ms");
        eprintln!(
            "ack_priority = {ack_priority}: level-1 flow {gbps:.1} Gbps, {cuts} delay cuts, window {window:.0} B"
        );
        (gbps, cuts, window)
    };
    let (top_gbps, top_cuts, _) = run(true);
    assert!((top_gbps - line).abs() / line < 0.03, "ACKs on top: line rate ({top_gbps:.1} Gbps)");
    assert_eq!(top_cuts, 0.0, "ACKs on top: nothing level 2 does delays the level-1 flow");
    let (data_gbps, data_cuts, window) = run(false);
    // The ACK clock's bound. Each burst is 311 packets, 1,269,904 bytes on the wire,
    // 101.6 µs of the port; ACKs pass only in the other 393.6 µs of the 800, and into
    // each burst the sender can put at most its window (the one it had at 200 µs, with
    // 10 % for additive increase between bursts).
    let burst_us = 1_269_904.0 * 8.0 / 100e9 * 1e6;
    let off_share = (800.0 - 4.0 * burst_us) / 800.0;
    let bound = off_share * line + 4.0 * 1.1 * window * 8.0 / 800e-6 / 1e9;
    assert!(
        data_gbps < bound,
        "ACKs with the data: the off share plus a window a burst ({data_gbps:.1} Gbps, bound {bound:.1})"
    );
    assert!(data_gbps < 0.6 * line, "{data_gbps:.1} Gbps");
    assert!(data_cuts >= 4.0, "a delay cut after each burst: {data_cuts}");
}

/// A PAUSE and the RESUME that follows it within one packet time of the reverse port must
/// reach the upstream port in that order. Star of 4 hosts at 100 Gbps: hosts 0 and 1 send
/// to host 2 (a 2:1 incast at the switch's port to 2), and host 3 sends to host 0, so the
/// switch's port back to host 0 is busy with 4 KB packets nearly all the time. With
/// `xoff` one byte above one packet and `xon` one packet, the switch pauses host 0 when a
/// second of its packets waits and resumes it when the older one leaves, usually within
/// one packet time of that busy reverse port: both frames wait for the same packet to
/// finish. Were they delivered at the same instant, in the tie-break's order, a RESUME
/// first would leave host 0 paused until more of its bytes arrive (for good, if none do).
/// `Pfc::apply` asserts that every frame finds the opposite state, so this run fails at
/// the first frame out of order: with frames scheduled for the same instant (before
/// `Pfc::frame_departs`), a PAUSE reached host 0's already paused port at 12.2 µs.
///
/// Expected: every flow completes; every PAUSE is matched by a RESUME; and host 3's flow,
/// alone on its path (its packets share the port to host 0 only with ACKs, which go
/// first and are 64 B), runs at line rate: 2 MB of payload in 4096-byte frames at 100 Gbps
/// plus one packet's path. (The incast itself is slow: with one packet of `xoff` and 2 µs
/// of round trip, the port to host 2 idles between RESUME and the next packet.)
#[test]
fn pause_and_resume_arrive_in_the_order_sent() {
    let toml = r#"
        duration = "5ms"
        [topology]
        kind = "star"
        hosts = 4
        link_rate = "100Gbps"
        link_latency = "1us"
        [switch]
        buffer = "200KB"
        ecn = { enabled = false }
        pfc = { xoff = "4097B", xon = "4096B" }
        [transport]
        cc = "none"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#;
    let files = [("flows.csv", "src,dst,size,start\n0,2,2MB,0\n1,2,2MB,0\n3,0,2MB,0\n")];
    let mut s = sim_with_files(toml, &files);
    s.run();
    assert_eq!(s.counters.drops, 0);
    assert_eq!(s.flows_finished(), 3, "a flow hung: host 0 left paused?");
    let pfc = s.pfc.as_ref().expect("PFC on");
    let host0 = s.routing.host_up_port[0] as usize;
    eprintln!(
        "host 0: {} PAUSE, {} RESUME; all: {} / {}",
        pfc.stats[host0].pause_frames,
        pfc.stats[host0].resume_frames,
        pfc.total_pause_frames(),
        pfc.total_resume_frames()
    );
    assert!(pfc.stats[host0].pause_frames > 10, "the scenario must pause host 0 often");
    assert_eq!(pfc.total_pause_frames(), pfc.total_resume_frames());
    // The event log holds every frame the counters count, in time order, and on each port
    // and class a PAUSE and a RESUME alternate, starting with a PAUSE.
    let events = &pfc.events;
    assert_eq!(events.iter().filter(|e| e.pause).count() as u64, pfc.total_pause_frames());
    assert_eq!(events.iter().filter(|e| !e.pause).count() as u64, pfc.total_resume_frames());
    assert!(events.windows(2).all(|w| w[0].time <= w[1].time));
    let mut paused = std::collections::HashMap::new();
    for e in events {
        let was = paused.insert((e.port, e.class), e.pause).unwrap_or(false);
        assert_ne!(
            was,
            e.pause,
            "two {} in a row on port {} class {}",
            if e.pause { "PAUSE" } else { "RESUME" },
            e.port,
            e.class
        );
    }
    let table = s.pfc_events_table().expect("PFC on");
    assert_eq!(table.len(), events.len());

    let payload = MTU - HEADER;
    let wire_per_flow = 2_000_000u64.div_ceil(payload) * HEADER + 2_000_000;
    let line = dcnsim::Rate::gbps(100);
    let slack = Time::from_us(2) + Time::from_ns(2 * 328); // two links + two serialisations
    let alone = s.flows[2].receiver.finish.unwrap();
    let alone_drain = line.serialization(wire_per_flow);
    assert!(alone >= alone_drain && alone <= alone_drain + slack + Time(alone_drain.0 / 100), "{alone}");
}

/// The classic PFC deadlock: five switches in a ring, two hosts on each, every host
/// sending 2 MB at line rate (no congestion control) to the host two switches on. The
/// shortest path is unique (two hops clockwise against three), so every flow crosses one
/// switch in transit and the ring's five clockwise links form a cycle of buffer
/// dependencies: each switch's clockwise egress carries its own hosts' traffic and the
/// previous switch's, fills, and pauses the previous switch's clockwise egress. Once all
/// five are paused with their queues full of packets counted against the link behind
/// them, nothing moves again. So the deadlock counter names at least those five ports
/// (and at most them and the ten host NICs paused behind them), and flows stay unfinished.
/// The same ring with every host sending to the next switch (one hop, nothing in
/// transit) has no cycle: every flow finishes. And a pause that is not a deadlock is not
/// counted: in the 2:1 incast, at the first instant a sender's NIC is held paused, the
/// counter reads 0 (its bytes wait in a queue that can send).
#[test]
fn a_ring_of_transit_traffic_deadlocks_and_is_counted() {
    let mut ring = String::from("a,b,rate,latency\n");
    for i in 0..5 {
        ring += &format!("h{},s{i},100Gbps,1us\nh{},s{i},100Gbps,1us\n", 2 * i, 2 * i + 1);
    }
    for i in 0..5 {
        ring += &format!("s{i},s{},100Gbps,1us\n", (i + 1) % 5);
    }
    let toml = r#"
        duration = "5ms"
        [topology]
        kind = "file"
        file = "ring.csv"
        hosts = 10
        mtu = "1048B"
        [switch]
        buffer = "200KB"
        pfc = { lossless = ["data"] }
        [transport]
        cc = "none"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
    "#;
    // (finished flows, deadlocked ports, drops) with every host sending to the host
    // `hops` switches on.
    let run_ring = |toml: &str, hops: u32| {
        let flows: String = (0..10).map(|h| format!("{h},{},2MB,0\n", (h + 2 * hops) % 10)).collect();
        let mut s =
            sim_with_files(toml, &[("ring.csv", &ring), ("flows.csv", &format!("src,dst,size,start\n{flows}"))]);
        s.run();
        (s.flows_finished(), s.pfc_deadlocked_ports(), s.counters.drops)
    };
    let run = |hops: u32| {
        let (finished, deadlocked, _) = run_ring(toml, hops);
        (finished, deadlocked)
    };
    let (finished, deadlocked) = run(2);
    eprintln!("two hops: {finished} of 10 flows finished, {deadlocked} deadlocked ports");
    assert!(finished < 10 && (5..=15).contains(&deadlocked), "finished {finished}, deadlocked {deadlocked}");
    assert_eq!(run(1), (10, 0));

    // The remedy (`switch.pfc.class_change = "per_hop"`): a packet moves one class up
    // whenever a switch sends it on to a switch, so on the two-hop ring it is counted at
    // its source switch in class 1, at the transit switch in class 2 and at its
    // destination switch in class 3; class c's ingress room waits only on class c + 1
    // downstream, which no cycle can close, so every flow finishes. The three per-priority queues alone, with
    // every packet kept at level 1, still deadlock: the class change is what helps.
    let with_classes = |class_change: &str| {
        let toml = toml.replace(
            "pfc = { lossless = [\"data\"] }",
            &format!(
                "scheduler = \"priority\"\npriority = {{ queues = 3 }}\n\
                 pfc = {{ lossless = [\"data\"], per_priority = true, class_change = \"{class_change}\" }}"
            ),
        );
        run_ring(&toml, 2)
    };
    let (finished, deadlocked, _) = with_classes("none");
    assert!(finished < 10 && deadlocked >= 5, "three queues, one class in use: {finished} finished, {deadlocked}");
    assert_eq!(with_classes("per_hop"), (10, 0, 0), "class change at every hop: every flow, no deadlock, lossless");

    let mut s = sim_with_files(&incast_toml(true), &incast_files());
    let pfc_paused = |s: &dcnsim::Simulation| {
        let pfc = s.pfc.as_ref().unwrap();
        [1usize, 2].iter().any(|&h| pfc.pause_in_force(s.routing.host_up_port[h], dcnsim::net::pfc::DATA))
    };
    let mut t = Time::ZERO;
    while !pfc_paused(&s) {
        t = t + Time::from_ns(100);
        assert!(t < Time::from_ms(1), "no sender paused in the first millisecond");
        s.run_until(t);
    }
    assert_eq!(s.pfc_deadlocked_ports(), 0, "paused at {t}, but not deadlocked");
}

/// k:1 line-rate incast on a 6-host star (one switch, 100 Gbps, 1 µs links) whose
/// lossless ingress queues share one `buffer` by dynamic threshold (`[switch.pfc.dynamic]`,
/// α = 1/4, 4 KiB reserve, headroom carved).
fn dynamic_incast(k: u32, dynamic: &str) -> (String, String) {
    let flows: String = (1..=k).map(|s| format!("{s},0,2MB,0\n")).collect();
    let toml = format!(
        "duration = \"5ms\"\n[topology]\nkind = \"star\"\nhosts = 6\nlink_rate = \"100Gbps\"\n\
         link_latency = \"1us\"\n[switch]\nbuffer = \"200KB\"\necn = {{ enabled = false }}\n\
         pfc = {{ dynamic = {dynamic} }}\n[transport]\ncc = \"none\"\n\
         [[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"\n"
    );
    (toml, format!("src,dst,size,start\n{flows}"))
}

/// Dynamic threshold (docs/models/pfc.md; Choudhury & Hahne): with k ingress queues of
/// one switch congested together, each may hold α/(1 + kα) of the shared pool, P/(4 + k)
/// for α = 1/4, where P is the buffer less 4 KiB reserve and the PFC headroom per queue
/// (6 links here, one lossless class). The incast's senders are symmetric, so each
/// pauses when its pool share reaches P/(4 + k); what it still sends then fills its
/// headroom. Expected: no drop, no headroom overflow, and each sender's largest ingress
/// count between reserve + P/(4 + k) − 1 MTU and that plus its headroom: 2:1 holds more
/// per sender than 4:1, which a fixed xoff would not show.
#[test]
fn dynamic_threshold_shares_the_pool_among_congested_ingress_queues() {
    let buffer: u64 = 1_000_000;
    // The builder's default headroom: 100 Gbps over both links' 1 µs and a 64 B frame's
    // serialisation (25,064 B), plus 3 MTU + 64 B.
    let headroom = 25_064 + 3 * MTU + 64;
    let pool = buffer - 6 * (4096 + headroom);
    let mut peaks = Vec::new();
    for k in [2u32, 4] {
        let (toml, flows) = dynamic_incast(k, &format!("{{ buffer = \"{buffer}B\" }}"));
        let mut s = sim_with_files(&toml, &[("flows.csv", &flows)]);
        s.run();
        assert_eq!((s.counters.drops, s.flows_finished()), (0, k));
        let pfc = s.pfc.as_ref().unwrap();
        assert_eq!(pfc.headroom_overflows, 0);
        let share = 4096 + pool / (4 + k as u64);
        for sender in 1..=k as usize {
            let up = s.routing.host_up_port[sender] as usize;
            let peak = pfc.stats[up].max_ingress;
            eprintln!("{k}:1 sender {sender}: peak ingress {peak} B, DT share {share} B + headroom {headroom} B");
            assert!(pfc.stats[up].pause_frames > 0);
            assert!(peak + MTU >= share && peak <= share + headroom, "{k}:1 sender {sender}: {peak} B");
        }
        peaks.push(pfc.stats[s.routing.host_up_port[1] as usize].max_ingress);
    }
    assert!(peaks[0] > peaks[1], "2:1 holds more per queue than 4:1: {peaks:?}");
}

/// How a pause ends (net/pfc/mod.rs, docs/models/pfc.md). A 4:1 incast on the star with a
/// pool of 12,000 B (buffer less 6 × (4,096 reserve + 37,416 headroom)): the threshold
/// T = (pool − in use) / 4 never exceeds 3,000 B, below the 3 KiB resume offset. Under the
/// PrioPlus artefact's rule (`"offset_or_expiry"`) no queue can then resume by departures;
/// each PAUSE runs out after 65535 quanta of 512 bit times, 335.5392 µs at 100 Gb/s (plus
/// the 64 B frame's 5.12 ns and at most one packet the reverse port is sending, 0.33 µs),
/// since the queue has drained by then and nothing renews it. Under the default rule the
/// queues resume as they empty: every pause is far shorter. No rule drops a packet.
#[test]
fn under_the_artefact_rule_a_pause_that_cannot_resume_runs_out_after_65535_quanta() {
    let headroom = 25_064 + 3 * MTU + 64;
    let buffer = 12_000 + 6 * (4096 + headroom);
    let full_pause_us = 65_535.0 * 512.0 / 100e9 * 1e6;
    let mut longest = Vec::new();
    for resume in ["offset_or_empty", "offset_or_expiry"] {
        let (toml, flows) = dynamic_incast(4, &format!("{{ buffer = \"{buffer}B\", resume = \"{resume}\" }}"));
        let toml = toml.replace("duration = \"5ms\"", "duration = \"40ms\"").replace("2MB", "200KB");
        let flows = flows.replace("2MB", "200KB");
        let mut s = sim_with_files(&toml, &[("flows.csv", &flows)]);
        s.run();
        assert_eq!((s.counters.drops, s.flows_finished()), (0, 4), "{resume}");
        let pfc = s.pfc.as_ref().unwrap();
        assert_eq!(pfc.shared_buffer().unwrap().pool(0), 12_000);
        let mut since = std::collections::HashMap::new();
        let mut pauses_us = Vec::new();
        for e in &pfc.events {
            if e.pause {
                since.insert((e.port, e.class), e.time);
            } else {
                let start = since.remove(&(e.port, e.class)).expect("a RESUME follows a PAUSE");
                pauses_us.push((e.time - start).as_secs_f64() * 1e6);
            }
        }
        assert!(since.is_empty() && pauses_us.len() >= 4, "{resume}: {} pauses", pauses_us.len());
        let max = pauses_us.iter().cloned().fold(0.0, f64::max);
        let min = pauses_us.iter().cloned().fold(f64::MAX, f64::min);
        eprintln!("{resume}: {} pauses, {min:.4} to {max:.4} µs", pauses_us.len());
        if resume == "offset_or_expiry" {
            assert!(min >= full_pause_us && max <= full_pause_us + 0.34, "{min} .. {max} µs");
        }
        longest.push(max);
    }
    assert!(longest[0] < full_pause_us / 10.0, "the default rule resumes as queues drain: {longest:?}");
}

/// The pool is the buffer less, per link into the switch and per lossless class in use,
/// the 4 KiB reserve and (carved) the headroom: with per-priority PFC over 4 priority
/// queues that is 4 classes per link (the unused `DATA` class sets nothing aside). On the
/// 6-link star: 1 MB − 6 × 4 × (4,096 + 37,416) B carved, 1 MB − 6 × 4 × 4,096 B not.
#[test]
fn dynamic_pool_sets_aside_reserve_and_headroom_per_lossless_queue() {
    let headroom = 25_064 + 3 * MTU + 64;
    for (carve, aside) in [(true, 6 * 4 * (4096 + headroom)), (false, 6 * 4 * 4096)] {
        let (toml, flows) = dynamic_incast(2, &format!("{{ buffer = \"1MB\", carve_headroom = {carve} }}"));
        let toml = toml
            .replace("pfc = {", "scheduler = \"priority\"\npriority = { queues = 4 }\npfc = { per_priority = true, ");
        let s = sim_with_files(&toml, &[("flows.csv", &flows)]);
        let sb = s.pfc.as_ref().unwrap().shared_buffer().unwrap();
        assert_eq!(sb.pool(0), 1_000_000 - aside, "carve_headroom = {carve}");
    }
}

/// Each switch has its own pool. Dumbbell (hosts 0–3 on switch L, 4–7 on R, 200 Gbps
/// between): a 2:1 incast from hosts 5 and 6 to 4 fills R's pool and pauses its senders,
/// while L, which carries nothing but ACKs, holds no pool bytes.
#[test]
fn dynamic_pools_are_per_switch() {
    let toml = victim_dumbbell(
        "pfc = { dynamic = { buffer = \"1MB\" } }",
        "[[workload]]\nkind = \"flows\"\nfile = \"incast.csv\"",
    );
    let mut s = sim_with_files(&toml, &[("incast.csv", "src,dst,size,start\n5,4,4MB,0\n6,4,4MB,0\n")]);
    s.run_until(Time::from_us(200));
    let up = |h: usize| s.routing.host_up_port[h];
    let pfc = s.pfc.as_ref().unwrap();
    let sb = pfc.shared_buffer().unwrap();
    let (right, left) = (sb.switch_of(up(5)), sb.switch_of(up(0)));
    assert_ne!(left, right);
    assert_eq!(sb.switch_of(up(6)), right);
    assert!(sb.used(right) > 0 && pfc.stats[up(5) as usize].pause_frames > 0, "R's pool holds the incast");
    assert_eq!(sb.used(left), 0, "L carries nothing into its pool");
}

/// `buffer_per_port` gives each switch that much per link: on the 6-link star, 250 kB per
/// port is the same switch as a 1.5 MB buffer, so the runs agree packet for packet.
#[test]
fn dynamic_buffer_per_port_scales_with_the_switch_ports() {
    let peaks = |dynamic: &str| {
        let (toml, flows) = dynamic_incast(3, dynamic);
        let mut s = sim_with_files(&toml, &[("flows.csv", &flows)]);
        s.run();
        let pfc = s.pfc.as_ref().unwrap();
        let peaks: Vec<u64> = pfc.stats.iter().map(|st| st.max_ingress).collect();
        (peaks, pfc.total_pause_frames(), s.now())
    };
    let per_port = peaks("{ buffer_per_port = \"250KB\" }");
    assert!(per_port.1 > 0, "the incast pauses");
    assert_eq!(per_port, peaks("{ buffer = \"1500KB\" }"));
    assert_ne!(per_port, peaks("{ buffer = \"1000kB\" }"), "a smaller switch pauses sooner");
}

/// A bad `[switch.pfc.dynamic]` is refused, naming the field: a buffer smaller than the
/// reserves and headroom it must set aside, and xoff set beside it.
#[test]
fn bad_dynamic_threshold_input_names_the_field() {
    let files = |f: &str| vec![("flows.csv".to_string(), f.to_string())];
    let (toml, flows) = dynamic_incast(2, "{ buffer = \"100KB\" }");
    let f = files(&flows);
    let f: Vec<(&str, &str)> = f.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let e = build_with_files(&toml, &f).err().expect("100 KB cannot hold 6 headrooms").0;
    assert!(e.starts_with("switch.pfc.dynamic.buffer:") && e.contains("headroom"), "{e}");
    let per_port = toml.replace("buffer = \"100KB\"", "buffer_per_port = \"10KB\"");
    let e = build_with_files(&per_port, &f).err().expect("10 KB a port cannot hold a headroom").0;
    assert!(e.starts_with("switch.pfc.dynamic.buffer_per_port:"), "{e}");
    let carved_free = toml.replace("buffer = \"100KB\"", "buffer = \"100KB\", carve_headroom = false");
    assert!(build_with_files(&carved_free, &f).is_ok(), "without carving, 100 KB leaves a pool");
    let both = toml.replace("pfc = {", "pfc = { xoff = \"50KB\",");
    let e = build_with_files(&both, &f).err().expect("xoff beside dynamic").0;
    assert!(e.starts_with("switch.pfc.xoff") && e.contains("dynamic"), "{e}");
    let two = toml.replace("buffer = \"100KB\"", "buffer = \"1MB\", buffer_per_port = \"1MB\"");
    let e = build_with_files(&two, &f).err().expect("both buffers").0;
    assert!(e.starts_with("switch.pfc.dynamic") && e.contains("buffer_per_port"), "{e}");
    let shift = toml.replace("\"100KB\"", "\"1MB\", alpha_shift = 40");
    let e = build_with_files(&shift, &f).err().expect("alpha_shift 40").0;
    assert!(e.starts_with("switch.pfc.dynamic.alpha_shift"), "{e}");
    let rule = toml.replace("\"100KB\"", "\"1MB\", resume = \"never\"");
    let e = build_with_files(&rule, &f).err().expect("resume = never").0;
    assert!(
        e.starts_with("switch.pfc.dynamic.resume") && e.contains("offset_or_empty") && e.contains("offset_or_expiry"),
        "{e}"
    );
}

/// A lossless dragonfly whose flows are sprayed over minimal and Valiant paths (LAPS with
/// β = 0: uniform over its candidate paths) deadlocks: local and global hops of one class
/// form cycles of pauses. The dragonfly's remedy (`class_change = "per_global_hop"`, a
/// class more per global link: three classes for local-global-local-global-local) leaves
/// no cycle, so the same arrivals all finish, without a drop (docs/models/pfc.md,
/// "Deadlock"). The remedy needs global links: a fat tree refuses it.
#[test]
fn a_dragonfly_with_valiant_paths_deadlocks_and_the_global_class_change_prevents_it() {
    let cdf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workloads/hadoop_fb2015.cdf");
    let toml = format!(
        r#"
        seed = 1
        [topology]
        kind = "dragonfly"
        hosts = 40
        groups = 5
        routers_per_group = 4
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "1048B"
        [switch]
        buffer = "60KB"
        pfc = {{ lossless = ["data"] }}
        [transport]
        cc = "laps"
        lb = "laps"
        laps = {{ beta = 0 }}
        [[workload]]
        kind = "poisson"
        cdf = {:?}
        load = 0.9
        start = "0"
        stop = "200us"
    "#,
        cdf.display().to_string()
    );
    let run = |toml: &str| {
        let mut s = sim(toml);
        s.run();
        (s.flows_finished(), s.flows.len() as u32, s.pfc_deadlocked_ports(), s.counters.drops)
    };
    let (finished, flows, deadlocked, _) = run(&toml);
    assert!(finished < flows && deadlocked >= 10, "one class: {finished} of {flows} finished, {deadlocked} deadlocked");
    let remedy = |class_change: &str| {
        toml.replace(
            "pfc = { lossless = [\"data\"] }",
            &format!(
                "scheduler = \"priority\"\npriority = {{ queues = 3, service = \"drr\" }}\n\
                 pfc = {{ lossless = [\"data\"], per_priority = true, class_change = \"{class_change}\" }}"
            ),
        )
    };
    let (finished, flows, deadlocked, drops) = run(&remedy("per_global_hop"));
    assert_eq!((finished, deadlocked, drops), (flows, 0, 0), "a class per global hop: every flow, no deadlock");
    let fat_tree = remedy("per_global_hop").replace(
        "kind = \"dragonfly\"\n        hosts = 40\n        groups = 5\n        routers_per_group = 4",
        "kind = \"fat_tree\"\n        hosts = 16\n        tiers = 2",
    );
    let e = build_err(&fat_tree);
    assert!(e.starts_with("switch.pfc.class_change") && e.contains("dragonfly"), "{e}");
}

//! Time series and packet traces (issue 9 items 1 and 3) against figures computed from
//! the setting: a bottleneck one long flow saturates is busy all the time and its reverse
//! link carries one ACK header per data packet; counters summed over the samples are
//! the run's totals; a traced packet's events follow the link arithmetic; and observing
//! changes nothing that is simulated.

use crate::common;

use dcnsim::stats::Table;
use dcnsim::Simulation;

/// One DCTCP flow from host 0 to host 1 across a 10 Gbps dumbbell bottleneck (100 Gbps
/// host links), for 2 ms.
fn dumbbell(extra: &str) -> String {
    format!(
        r#"
        duration = "2ms"
        [topology]
        kind = "dumbbell"
        hosts = 2
        link_rate = "100Gbps"
        bottleneck_rate = "10Gbps"
        link_latency = "1us"
        mtu = "4096B"
        [switch]
        buffer = "200KB"
        ecn = {{ kmin = "30KB", kmax = "30KB" }}
        [transport]
        cc = "dctcp"
        header = "64B"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        {extra}
        "#
    )
}

const ONE_FLOW: &str = "src,dst,size,start\n0,1,100MB,0us\n";

fn run(toml: &str) -> Simulation {
    let mut s = common::sim_with_files(toml, &[("flows.csv", ONE_FLOW)]);
    s.run();
    s
}

/// Rows of one (kind, id, metric) series: (time_us, value).
fn series(t: &Table, kind: &str, id: i64, metric: &str) -> Vec<(f64, f64)> {
    let (kinds, metrics) = (t.strs("kind"), t.strs("metric"));
    let (ids, times, values) = (t.i64s("id"), t.f64s("time_us"), t.f64s("value"));
    (0..t.len())
        .filter(|&i| kinds[i] == kind && ids[i] == id && metrics[i] == metric)
        .map(|i| (times[i], values[i]))
        .collect()
}

fn port_id(s: &Simulation, name: &str) -> i64 {
    let t = s.ports_table();
    let i = t.strs("name").iter().position(|n| *n == name).expect("port name");
    t.i64s("port")[i]
}

#[test]
fn a_saturated_bottleneck_is_busy_all_the_time_and_its_reverse_link_carries_the_acks() {
    let s = run(&dumbbell(
        r#"[observe]
        interval = "20us"
        ports = ["s0->s1", "s1->s0"]
        metrics = ["queue", "utilisation", "marks"]"#,
    ));
    let t = s.timeseries().expect("sampled");
    let (forward, reverse) = (port_id(&s, "s0->s1"), port_id(&s, "s1->s0"));
    let busy = series(&t, "port", forward, "utilisation");
    assert_eq!(busy.len(), 100, "2 ms / 20 us intervals (none at time 0)");
    // After slow start the 10 Gbps link never idles: DCTCP keeps a queue of about K.
    for &(time, u) in busy.iter().filter(|(time, _)| *time > 200.0) {
        assert!((0.999..=1.0 + 1e-9).contains(&u), "t = {time} us: utilisation {u}");
    }
    // One 64-byte ACK for every 4096-byte data packet, at the same rate: 64/4096.
    let acks = series(&t, "port", reverse, "utilisation");
    let steady: Vec<f64> = acks.iter().filter(|(time, _)| *time > 200.0).map(|&(_, u)| u).collect();
    let mean = steady.iter().sum::<f64>() / steady.len() as f64;
    assert!((mean - 64.0 / 4096.0).abs() < 2e-4, "reverse utilisation {mean}");
    let queue = series(&t, "port", forward, "queue_bytes");
    assert_eq!(queue.first(), Some(&(0.0, 0.0)), "the first sample is at time 0");
    assert!(queue.iter().all(|&(_, q)| (0.0..=200_000.0).contains(&q)), "bounded by the buffer");
    let marks: f64 = series(&t, "port", forward, "ecn_marks").iter().map(|&(_, m)| m).sum();
    let stats = s.stats().into_iter().find(|(k, _)| *k == "ecn_marks").unwrap().1;
    assert!(marks > 0.0 && marks == stats, "{marks} marks sampled, {stats} in the run's counters");
}

#[test]
fn interval_counters_add_up_to_the_run_totals_when_the_run_ends_between_samples() {
    // An 8-to-1 incast into a small buffer: drops, marks and trims happen, and the run
    // ends (all flows done) between two 7 us ticks: the last sample closes the interval.
    for trimming in [false, true] {
        let toml = format!(
            r#"
            [topology]
            kind = "star"
            hosts = 9
            link_rate = "100Gbps"
            [switch]
            buffer = "40KB"
            trimming = {trimming}
            ecn = {{ kmin = "20KB", kmax = "20KB" }}
            [transport]
            cc = "newreno"
            [[workload]]
            kind = "incast"
            receiver = 0
            senders = 8
            size = "200KB"
            [observe]
            interval = "7us"
            ports = "all"
            metrics = ["marks", "drops", "trims", "cwnd"]
            "#
        );
        let mut s = common::sim(&toml);
        s.run();
        let t = s.timeseries().unwrap();
        let total = |metric: &str| -> f64 {
            let (metrics, values) = (t.strs("metric"), t.f64s("value"));
            (0..t.len()).filter(|&i| metrics[i] == metric).map(|i| values[i]).sum()
        };
        let stat = |name: &str| s.stats().into_iter().find(|(k, _)| *k == name).unwrap().1;
        assert!(stat("drops") + stat("trims") > 0.0, "the incast overflows the buffer");
        for (metric, counter) in [("drops", "drops"), ("trims", "trims"), ("ecn_marks", "ecn_marks")] {
            assert_eq!(total(metric), stat(counter), "{metric}, trimming = {trimming}");
        }
        let last = *t.f64s("time_us").last().unwrap();
        assert_eq!(last, s.now().as_us_f64(), "a last sample at the end of the run");
        assert!(last % 7.0 != 0.0);
    }
}

/// The run's counters apart from those of observation itself.
fn simulated(s: &Simulation) -> Vec<(&'static str, f64)> {
    let observation = ["memory", "timeseries", "trace"];
    s.stats().into_iter().filter(|(k, _)| !observation.iter().any(|o| k.starts_with(o))).collect()
}

#[test]
fn observing_and_tracing_change_nothing_that_is_simulated() {
    let plain = run(&dumbbell(""));
    let watched = run(&dumbbell(
        r#"[observe]
        interval = "5us"
        ports = "all"
        [trace]
        flows = [0]
        ports = ["s0->s1"]
        max_events = 2000"#,
    ));
    let (a, b) = (simulated(&plain), simulated(&watched));
    assert_eq!(a.len(), b.len());
    for ((k, x), (_, y)) in a.iter().zip(&b) {
        // One Sample event every 5 us from 0 to 2 ms; the one at 2 ms would come after
        // the Stop of that instant, so the last sample is taken as the run ends instead.
        let expected = if *k == "events" { x + 400.0 } else { *x };
        assert_eq!(expected, *y, "{k}");
    }
    let (fa, fb) = (plain.flow_table(), watched.flow_table());
    assert_eq!(fa.i64s("delivered"), fb.i64s("delivered"));
    assert_eq!(fa.i64s("tx_packets"), fb.i64s("tx_packets"));
    let lost = watched.stats().into_iter().find(|(k, _)| *k == "trace_events_lost").unwrap().1;
    assert!(lost > 0.0, "the trace stops at max_events");
    let kept = watched.trace_table().unwrap().len();
    assert!((1_900..=2_000).contains(&kept), "{kept} events kept up to the cut");
}

/// Equal links make many events fall on the same picosecond, where a seeded hash of the
/// scheduling order breaks ties: sampling ticks must not shift that order.
#[test]
fn sampling_ticks_leave_simultaneous_events_in_their_order() {
    let toml = |extra: &str| {
        format!(
            r#"
            [topology]
            kind = "leaf_spine"
            hosts = 16
            link_rate = "100Gbps"
            [transport]
            cc = "dctcp"
            lb = "ops"
            [[workload]]
            kind = "permutation"
            size = "500KB"
            {extra}
            "#
        )
    };
    let mut plain = common::sim(&toml(""));
    plain.run();
    let mut watched = common::sim(&toml("[observe]\ninterval = \"300ns\"\nports = \"all\""));
    watched.run();
    let ticks = watched.timeseries().unwrap().f64s("time_us").iter().fold(Vec::new(), |mut v: Vec<f64>, &t| {
        if v.last() != Some(&t) {
            v.push(t);
        }
        v
    });
    let (a, b) = (simulated(&plain), simulated(&watched));
    for ((k, x), (_, y)) in a.iter().zip(&b) {
        // Every tick is an event but the last, taken as the run ends.
        let expected = if *k == "events" { x + ticks.len() as f64 - 1.0 } else { *x };
        assert_eq!(expected, *y, "{k}");
    }
    assert_eq!(plain.flow_table().f64s("fct_us"), watched.flow_table().f64s("fct_us"));
}

#[test]
fn a_traced_packet_follows_the_link_arithmetic() {
    // Two hosts on one switch, 100 Gbps, 1 us links, 4096-byte packets, a 3-packet flow.
    // The run would end when the last byte arrives; a duration lets the ACKs come back.
    let toml = r#"
        duration = "20us"
        [topology]
        kind = "star"
        hosts = 2
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "4096B"
        [transport]
        header = "64B"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        [trace]
        flows = [0]
        "#;
    let mut s = common::sim_with_files(toml, &[("flows.csv", "src,dst,size,start\n0,1,10000,0us\n")]);
    s.run();
    let t = s.trace_table().unwrap();
    let ser = |bytes: f64| bytes * 8.0 / 100e3; // us at 100 Gbps
    let (events, packets, psns) = (t.strs("event"), t.strs("packet"), t.i64s("psn"));
    let (times, sizes, nodes) = (t.f64s("time_us"), t.i64s("size"), t.i64s("node"));
    let of = |kind: &str, packet: &str, psn: i64| -> Vec<(f64, i64, i64)> {
        (0..t.len())
            .filter(|&i| events[i] == kind && packets[i] == packet && psns[i] == psn)
            .map(|i| (times[i], sizes[i], nodes[i]))
            .collect()
    };
    // Payload 4032 per packet: 4032 + 4032 + 1936 bytes, wire sizes 4096, 4096, 2000.
    let wire = [4096.0, 4096.0, 2000.0];
    // Store and forward: the switch starts a packet once it has arrived whole and the
    // previous one has left (the short last packet arrives before that and waits).
    let (mut nic_free, mut switch_free) = (0.0, 0.0);
    for (psn, &w) in wire.iter().enumerate() {
        let psn = psn as i64;
        let leave = nic_free;
        nic_free += ser(w);
        let at_switch = leave + ser(w) + 1.0;
        let start = f64::max(at_switch, switch_free);
        switch_free = start + ser(w);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        let [(d, size, 0), (d2, _, 2)] = of("dequeue", "data", psn)[..] else {
            panic!("one dequeue at the NIC (node 0), one at the switch (node 2)")
        };
        assert!(close(d, leave) && size == w as i64, "NIC dequeue of {psn}: {d}");
        let [(e, _, 2)] = of("enqueue", "data", psn)[..] else { panic!("one enqueue, at the switch") };
        assert!(close(e, at_switch) && close(d2, start), "switch: {e} {d2}");
        let [(r, _, 1)] = of("deliver", "data", psn)[..] else { panic!("delivered once, to host 1") };
        assert!(close(r, switch_free + 1.0), "delivery of {psn}: {r}");
        // The receiver acknowledges at once (cumulative ACK psn + 1); the 64-byte ACK
        // crosses two links back.
        let [(a, 64, 0)] = of("ack", "ack", psn + 1)[..] else { panic!("one ACK reaches host 0") };
        assert!(close(a, r + 2.0 * (ser(64.0) + 1.0)), "ACK of {psn}: {a}");
    }
    assert!(t.f64s("time_us").windows(2).all(|w| w[0] <= w[1]), "the log is in time order");
}

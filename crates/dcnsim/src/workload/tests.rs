//! Unit tests of the workload generators and importers.

use super::*;

/// A hand-made CDF: half the flows uniform in [0, 100] B, half in [100, 300] B. Its mean
/// is 0.5·50 + 0.5·200 = 125 B, which is also ∫(1 − F) = 75 + 50.
const TWO_SEGMENTS: &str = "# comment\n0 0\n100 0.5\n300 1\n";

#[test]
fn size_cdf_mean_and_quantiles_follow_linear_segments() {
    let cdf = SizeCdf::parse(TWO_SEGMENTS).unwrap();
    assert!((cdf.mean() - 125.0).abs() < 1e-9);
    assert_eq!(cdf.quantile(0.25), 50.0);
    assert_eq!(cdf.quantile(0.5), 100.0);
    assert_eq!(cdf.quantile(0.75), 200.0);
    // A point mass: 20 % of flows are exactly 1000 B.
    let steps = SizeCdf::parse("1000 0.2\n2000 1").unwrap();
    assert!((steps.mean() - (0.2 * 1000.0 + 0.8 * 1500.0)).abs() < 1e-9);
    assert!(SizeCdf::parse("0 0\n10 0.9").unwrap_err().contains("not 1"));
    assert!(SizeCdf::parse("0 0\n10 0.6\n5 1").unwrap_err().contains("line 3"));
}

/// P(S < x) and the slice integrals on TWO_SEGMENTS: below 50 B lies a quarter; the
/// upper half (u in (0.5, 1]) is uniform on [100, 300] B, mean 200 B, so it holds
/// 0.5 × 200 = 100 B of the 125 B mean. A point mass of 0.2 at 1000 B: nothing lies
/// below 1000 B, and the slice (0, 0.2] is that mass, 0.2 × 1000 = 200.
#[test]
fn size_cdf_probability_below_and_slice_integrals_follow_the_segments() {
    let cdf = SizeCdf::parse(TWO_SEGMENTS).unwrap();
    assert_eq!(cdf.below(0.0), 0.0);
    assert_eq!(cdf.below(50.0), 0.25);
    assert_eq!(cdf.below(200.0), 0.75);
    assert_eq!(cdf.below(1e9), 1.0);
    assert!((cdf.integral(0.0, 1.0) - 125.0).abs() < 1e-9);
    assert!((cdf.integral(0.5, 1.0) - 100.0).abs() < 1e-9);
    assert!((cdf.integral(0.25, 0.5) - 0.25 * 75.0).abs() < 1e-9, "uniform on [50, 100]");
    let steps = SizeCdf::parse("1000 0.2\n2000 1").unwrap();
    assert_eq!(steps.below(1000.0), 0.0);
    assert!((steps.below(1500.0) - 0.6).abs() < 1e-12);
    assert!((steps.integral(0.0, 0.2) - 200.0).abs() < 1e-9);
    assert!((steps.integral(0.0, 1.0) - steps.mean()).abs() < 1e-9);
}

/// `level_ranges` agrees with `level` at and around every edge. Equal width, 3 levels
/// over [0, 10): ⌊s·3/10⌋ is 0 for s ≤ 3, 1 for 4..=6, 2 from 7: ranges [0, 4), [4, 7),
/// [7, ∞).
#[test]
fn level_ranges_are_the_sizes_each_level_takes() {
    let widths = PrioritySpec::EqualWidth { levels: 3, max: 10 };
    assert_eq!(widths.level_ranges().unwrap(), vec![(3, 0, 4), (2, 4, 7), (1, 7, u64::MAX)]);
    let edges = PrioritySpec::Edges(vec![500, 1000]);
    assert_eq!(edges.level_ranges().unwrap(), vec![(3, 0, 500), (2, 500, 1000), (1, 1000, u64::MAX)]);
    for spec in [widths, edges] {
        for (level, lo, hi) in spec.level_ranges().unwrap() {
            assert_eq!(spec.level(lo), level);
            if hi != u64::MAX {
                assert_eq!(spec.level(hi - 1), level);
                assert_ne!(spec.level(hi), level);
            }
        }
    }
    assert!(PrioritySpec::Level(3).level_ranges().is_none());
}

/// Drawn counts: 150 × 100 on 64 hosts becomes ⌊150·64/250⌋ = 38 mappers and 26
/// reducers; a 1 MB coflow at 10 KB per flow allows 100 flows: 150 × 100 scaled by
/// √(100/15000) gives 12 × ⌊100/12⌋ = 12 × 8. A fixed side stays.
#[test]
fn drawn_counts_are_trimmed_to_the_hosts_and_to_min_flow() {
    assert_eq!(fit_counts((150, false), (100, false), u64::MAX / 2, 1, 64), (38, 26));
    assert_eq!(fit_counts((150, false), (100, false), 1_000_000, 10_000, 1000), (12, 8));
    assert_eq!(fit_counts((20, true), (100, false), 1_000_000, 10_000, 1000), (20, 5));
    assert_eq!(fit_counts((2, true), (1, true), 10, 10_000, 3), (2, 1));
    assert_eq!(fit_counts((100, false), (1, false), 5_000, 10_000, 1000), (1, 1), "one flow below min_flow");
}

fn waiting_on(after: &[u32], gap_us: u64) -> FlowSpec {
    FlowSpec {
        src: 0,
        dst: 1,
        size: 1,
        start: Time::ZERO,
        stop: Time::MAX,
        tag: 0,
        cc: CcName::None,
        lb: LbName::Ecmp,
        app: None,
        priority: 0,
        after: after.to_vec(),
        after_acked: Vec::new(),
        after_count: 0,
        gap: Time::from_us(gap_us),
        group: NO_GROUP,
    }
}

/// Flow 3 waits on 0, 1 and 2 (a barrier), flow 4 on 1 alone: 4 is released by 1's
/// delivery, 3 only by the last of its three, whatever their order.
#[test]
fn a_flow_is_released_when_the_last_of_its_predecessors_is_delivered() {
    let specs =
        [waiting_on(&[], 0), waiting_on(&[], 0), waiting_on(&[], 0), waiting_on(&[0, 1, 2], 7), waiting_on(&[1], 0)];
    let mut d = Dependencies::new(&specs);
    let mut released = Vec::new();
    for f in [2, 1, 0] {
        d.delivered(f, |g, gap| released.push((f, g, gap)));
    }
    assert_eq!(released, vec![(1, 4, Time::ZERO), (0, 3, Time::from_us(7))]);
    assert!(Dependencies::new(&specs[..3]).is_empty(), "nothing waits: no tables");
}

/// 16 hosts at 100 Gb/s offered load 0.5 with a 125 B mean size start 5e7 flows/s each:
/// over 10 µs, 8000 flows in expectation (Poisson, σ ≈ 89) carrying 1 MB in all.
#[test]
fn poisson_arrivals_offer_the_requested_load() {
    let cdf = SizeCdf::parse(TWO_SEGMENTS).unwrap();
    let hosts: Vec<u32> = (0..16).collect();
    let rates = vec![Rate::gbps(100); 16];
    let mut rng = Rng::stream(7, "workload");
    let flows = poisson_arrivals(&cdf, 0.5, &hosts, &rates, Time::ZERO, Time::from_us(10), &mut rng);
    let n = flows.len() as f64;
    assert!((n - 8000.0).abs() < 4.0 * 8000f64.sqrt(), "{n} flows");
    let bytes: u64 = flows.iter().map(|f| f.2).sum();
    assert!((bytes as f64 / 1e6 - 1.0).abs() < 0.05, "{bytes} bytes offered");
    assert!(flows.iter().all(|&(s, d, _, at)| s != d && at < Time::from_us(10)));
    assert!(flows.windows(2).all(|w| w[0].3 <= w[1].3), "sorted by start");
    let mut per_dst = [0u32; 16];
    flows.iter().for_each(|f| per_dst[f.1 as usize] += 1);
    let expected = n / 16.0;
    assert!(per_dst.iter().all(|&c| (c as f64 - expected).abs() < 5.0 * expected.sqrt()), "{per_dst:?}");
}

/// 1024 hosts in 16 pods of 64 (the k = 16 fat tree): every destination lies in
/// another pod and each host receives exactly once. Two pods of 3 and 5 hosts cannot.
#[test]
fn cross_pod_permutation_leaves_every_pod() {
    let hosts: Vec<u32> = (0..1024).collect();
    let pod = |h: u32| h / 64;
    for seed in 0..5 {
        let mut rng = Rng::stream(seed, "t");
        let dst = cross_pod_derangement(&hosts, pod, &mut rng).unwrap();
        assert!(hosts.iter().zip(&dst).all(|(&s, &t)| pod(s) != pod(t)));
        let mut sorted = dst.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, hosts);
    }
    let lopsided: Vec<u32> = (0..8).collect();
    assert!(cross_pod_derangement(&lopsided, |h| u32::from(h >= 3), &mut Rng::stream(1, "t")).is_none());
}

#[test]
fn derangement_has_no_fixed_point_and_is_a_permutation() {
    let mut rng = Rng::stream(5, "workload");
    let hosts: Vec<u32> = (0..64).collect();
    for _ in 0..50 {
        let p = derangement(&hosts, &mut rng);
        assert!(p.iter().zip(&hosts).all(|(a, b)| a != b));
        let mut s = p.clone();
        s.sort();
        assert_eq!(s, hosts);
    }
}

/// Mode 0 at k = 4 (16 hosts), 650 flows requested: i mod 16 gives hosts 0..9 41
/// flows and hosts 10..15 40 flows (650 = 40·16 + 10); host 15 is the receiver, so its
/// 40 are skipped: 650 − ⌊650/16⌋ = 610 flows, all into host 15.
#[test]
fn fixed_hotspot_650_flows_at_k4_gives_610() {
    let mut rng = Rng::stream(1, "workload");
    let pairs = traffic_mode_pairs(TrafficMode::FixedHotspot, 650, 16, &mut rng);
    assert_eq!(pairs.len(), 610);
    assert!(pairs.iter().all(|&(_, d)| d == 15));
    let mut per_sender = [0u32; 16];
    for &(s, _) in &pairs {
        per_sender[s as usize] += 1;
    }
    assert_eq!(per_sender[..10], [41; 10]);
    assert_eq!(per_sender[10..15], [40; 5]);
    assert_eq!(per_sender[15], 0);
    // k = 12 (432 hosts): 3000 requested → 3000 − 6 = 2994; 100 → 100 (host 431 never reached).
    assert_eq!(traffic_mode_pairs(TrafficMode::FixedHotspot, 3000, 432, &mut rng).len(), 2994);
    assert_eq!(traffic_mode_pairs(TrafficMode::FixedHotspot, 100, 432, &mut rng).len(), 100);
    assert_eq!(traffic_mode_pairs(TrafficMode::FixedHotspot, 16, 16, &mut rng).len(), 15);
}

/// Mode 1: exactly F flows, one common receiver, senders uniform over the other 15
/// hosts (each expects F/15; a χ² over 15 cells with 14 degrees of freedom stays below
/// 36.1, its 0.999 quantile).
#[test]
fn random_hotspot_has_one_receiver_and_uniform_senders() {
    let mut rng = Rng::stream(7, "workload");
    let pairs = traffic_mode_pairs(TrafficMode::RandomHotspot, 15_000, 16, &mut rng);
    assert_eq!(pairs.len(), 15_000);
    let recv = pairs[0].1;
    assert!(pairs.iter().all(|&(s, d)| d == recv && s != recv && s < 16));
    let mut count = [0f64; 16];
    for &(s, _) in &pairs {
        count[s as usize] += 1.0;
    }
    let chi2: f64 = (0..16).filter(|&h| h != recv as usize).map(|h| (count[h] - 1000.0).powi(2) / 1000.0).sum();
    assert!(chi2 < 36.1, "chi2 {chi2}");
    // The receiver itself is uniform over hosts across seeds (16 seeds hit > 1 host).
    let recvs: std::collections::HashSet<u32> = (0..16)
        .map(|seed| traffic_mode_pairs(TrafficMode::RandomHotspot, 1, 16, &mut Rng::stream(seed, "workload"))[0].1)
        .collect();
    assert!(recvs.len() > 4);
}

/// Mode 2: exactly F flows, never to oneself; all 16·15 = 240 ordered pairs equally
/// likely (χ² with 239 degrees of freedom below 330, about its 0.9999 quantile).
#[test]
fn random_pairs_are_uniform_over_ordered_pairs() {
    let mut rng = Rng::stream(3, "workload");
    let pairs = traffic_mode_pairs(TrafficMode::RandomPairs, 48_000, 16, &mut rng);
    assert_eq!(pairs.len(), 48_000);
    let mut count = std::collections::HashMap::new();
    for &(s, d) in &pairs {
        assert_ne!(s, d);
        *count.entry((s, d)).or_insert(0f64) += 1.0;
    }
    assert_eq!(count.len(), 240);
    let chi2: f64 = count.values().map(|c| (c - 200.0).powi(2) / 200.0).sum();
    assert!(chi2 < 330.0, "chi2 {chi2}");
}

#[test]
fn parses_htsim_connection_matrix() {
    let cm = "Nodes 16\nConnections 2\n0->5 id 1 start 0 size 2000000\n3->1 id 2 start 12.5 size 4096\n";
    let rows = parse_htsim_cm(cm).unwrap();
    assert_eq!(rows[0].1, (0, 5, 2_000_000, Time::ZERO));
    assert_eq!(rows[1].1, (3, 1, 4096, Time(12_500_000)));
    assert!(parse_htsim_cm("Connections 3\n0->1 id 1 start 0 size 10\n").unwrap_err().contains("Connections 3"));
    assert!(parse_htsim_cm("0->1 id 1 start 0 size 10 trigger 2\n").unwrap_err().contains("trigger"));
}

/// The HPCC simulator's flow file: a count line, then `src dst pg dport size start_s`
/// (its generator's usual 2 s offset kept: 2.000000015 s is 2,000,000,015 ns).
#[test]
fn parses_hpcc_flow_file() {
    let text = "2\n0 5 3 100 2000000 2.000000015\n3 1 3 100 4096 2.5\n";
    let rows = parse_hpcc_flows(text).unwrap();
    assert_eq!(rows[0], (2, (0, 5, 2_000_000, Time::from_ns(2_000_000_015))));
    assert_eq!(rows[1], (3, (3, 1, 4096, Time::from_us(2_500_000))));
    assert!(parse_hpcc_flows("3\n0 5 3 100 10 2\n").unwrap_err().contains("declares 3 flows"));
    assert!(parse_hpcc_flows("1\n0 5 3 100 10\n").unwrap_err().contains("expected 6 fields"));
    assert!(parse_hpcc_flows("1\n0 5 3 100 10 -1\n").unwrap_err().contains("non-negative"));
    assert!(parse_hpcc_flows("x\n").unwrap_err().contains("flow count"));
}

/// htsim's triggers: who waits for whom, and how many firings start each connection.
#[test]
fn htsim_triggers_become_waits() {
    let cm = "Nodes 8\nConnections 6\nTriggers 3\n\
        0->1 id 1 start 0 size 100 send_done_trigger 1\n\
        2->3 id 2 start 0 size 100 recv_done_trigger 2\n\
        4->5 id 3 trigger 1 size 100 recv_done_trigger 2\n\
        6->7 id 4 trigger 2 size 100\n\
        1->0 id 5 trigger 3 size 100\n\
        3->2 id 6 trigger 3 size 100\n\
        trigger id 1 oneshot\ntrigger id 2 barrier 2\ntrigger id 3 multishot\n";
    // Trigger 3 has no firing connection: refused, naming the connection that would wait.
    let err = parse_htsim_cm_with_triggers(cm).unwrap_err();
    assert!(err.contains("trigger 3 is fired by no connection") && err.contains("line 8"), "{err}");
    let cm = cm
        .replace(
            "2->3 id 2 start 0 size 100 recv_done_trigger 2",
            "2->3 id 2 start 0 size 100 recv_done_trigger 2 send_done_trigger 3",
        )
        .replace(
            "4->5 id 3 trigger 1 size 100 recv_done_trigger 2",
            "4->5 id 3 trigger 1 size 100 recv_done_trigger 2 send_done_trigger 3",
        );
    let (rows, waits) = parse_htsim_cm_with_triggers(&cm).unwrap();
    assert_eq!(rows.len(), 6);
    let wait =
        |after: &[u32], acked: &[u32], count| CmWait { after: after.to_vec(), after_acked: acked.to_vec(), count };
    assert_eq!(waits[0], CmWait::default());
    assert_eq!(waits[1], CmWait::default());
    assert_eq!(waits[2], wait(&[], &[0], 1), "oneshot 1: fired when connection 0's sender is done");
    assert_eq!(waits[3], wait(&[1, 2], &[], 2), "barrier 2: both deliveries");
    assert_eq!(waits[4], wait(&[], &[1, 2], 1), "multishot 3: its first connection at the first firing");
    assert_eq!(waits[5], wait(&[], &[1, 2], 2), "and its second at the second");

    let refused = |text: &str| parse_htsim_cm_with_triggers(text).unwrap_err();
    assert!(refused("0->1 size 1 trigger 4\n").contains("trigger 4 is not declared"));
    assert!(refused("0->1 start 0 size 1 trigger 4\ntrigger id 4 oneshot\n").contains("either `start` or `trigger`"));
    let barrier = "0->1 start 0 size 1 recv_done_trigger 4\n2->3 size 1 trigger 4\ntrigger id 4 barrier 2\n";
    assert!(refused(barrier).contains("a barrier of 2 but only 1 connections fire it"));
    let multi = "0->1 start 0 size 1 recv_done_trigger 4\n2->3 size 1 trigger 4\n4->5 size 1 trigger 4\ntrigger id 4 multishot\n";
    assert!(refused(multi).contains("multishot trigger 4 fires 1 times, so its connection 2 (line 3)"));
    assert!(refused("Triggers 2\ntrigger id 4 oneshot\n").contains("`Triggers 2` but 1 trigger lines"));
    assert!(refused("trigger id 4 twice\n").contains("expected `trigger id T oneshot`"));
    assert!(refused("failed 1 2 3\n").contains("expected `failure switch_type AGG switch_id S link_id L`"));
}

#[test]
fn parses_htsim_failure_lines() {
    // htsim's syntax (its connection_matrix loader): a `Failures N` header, then
    // `failure switch_type AGG switch_id S link_id L` lines; the connections ignore them.
    let cm = "Nodes 16\nConnections 1\nFailures 2\n0->5 start 0 size 1000\n\
              failure switch_type AGG switch_id 3 link_id 1\nfailure switch_type AGG switch_id 0 link_id 0\n";
    let failures = htsim_cm_failures(cm).unwrap();
    let got: Vec<(usize, u32, u32)> = failures.iter().map(|f| (f.line, f.agg_switch, f.uplink)).collect();
    assert_eq!(got, [(5, 3, 1), (6, 0, 0)]);
    assert_eq!(parse_htsim_cm(cm).unwrap().len(), 1);
    assert!(htsim_cm_failures("0->5 start 0 size 1\n").unwrap().is_empty());

    let refused = |text: &str| htsim_cm_failures(text).unwrap_err();
    assert!(refused("Failures 2\nfailure switch_type AGG switch_id 0 link_id 0\n")
        .contains("`Failures 2` but 1 failure lines"));
    assert!(refused("failure switch_type AGG switch_id 0 link_id 0\n").contains("need a `Failures N` header"));
    assert!(refused("Failures 1\nfailure switch_type TOR switch_id 0 link_id 0\n")
        .contains("htsim fails only aggregation-to-core links"));
    assert!(refused("Failures 1\nfailure switch_type AGG switch_id x link_id 0\n")
        .contains("switch_id `x` is not a number"));
    assert!(refused("Failures 1\nfailure switch_type AGG switch_id 0\n").contains("expected `failure switch_type AGG"));
    assert!(
        refused("Failures 1\nfailure switch_type AGG port 0 link_id 0\n").contains("unknown failure attribute `port`")
    );
    assert!(refused("Failures 1\nfailed 1 2 3\n").contains("line 2: expected `failure switch_type AGG"));
}

#[test]
fn parses_flow_csv() {
    let rows = parse_flow_csv("src,dst,size,start\n0,1,2MB,0\n2,3,1500,10us\n").unwrap();
    assert_eq!(rows[0].1, (0, 1, 2_000_000, Time::ZERO));
    assert_eq!(rows[1].1, (2, 3, 1500, Time::from_us(10)));
    assert!(parse_flow_csv("a,b\n").unwrap_err().contains("src,dst,size,start"));
    assert!(parse_flow_csv("src,dst,size,start\n0,x,1,0\n").unwrap_err().contains("line 2"));
}

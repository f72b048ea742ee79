//! Delay noise (PrioPlus paper §4.3.2 and §6; docs/models/noise.md) reaches the algorithm, not the network: one
//! Swift flow alone on a 100 Gbps link runs at line rate without noise; with 20 µs of
//! uniform noise on every sample (far above Swift's ~1 µs of target headroom here) the
//! measured delay always looks congested, so the flow throttles itself although no queue
//! ever builds; and a bad noise section is refused with its field.

use crate::common;

fn run(noise: &str) -> (f64, u64) {
    let mut s = common::sim(&format!(
        r#"
        duration = "1ms"
        [topology]
        kind = "star"
        hosts = 2
        link_rate = "100Gbps"
        link_latency = "1us"
        [transport]
        cc = "swift"
        initial_window = "bdp"
        {noise}
        [[workload]]
        kind = "permutation"
        hosts = [0, 1]
        size = "infinite"
        "#
    ));
    s.run();
    let gbps = s.flows[0].receiver.delivered as f64 * 8.0 / 1e-3 / 1e9;
    let max_queue = s.ports.iter().map(|p| p.stats.max_queue).max().unwrap();
    (gbps, max_queue)
}

#[test]
fn noise_slows_a_delay_based_sender_without_any_queue() {
    let (clean, _) = run("");
    let (noisy, queue) = run("delay_noise = { uniform = \"20us\" }");
    eprintln!("Swift alone: {clean:.1} Gbps clean, {noisy:.1} Gbps with 20 us noise (max queue {queue} B)");
    assert!(clean > 90.0, "{clean}");
    assert!(noisy < 0.5 * clean, "{noisy} vs {clean}");
}

/// The build error of a two-host scenario with `noise` as its `delay_noise`.
fn refused(noise: &str) -> String {
    common::build_err(&format!(
        "[topology]\nkind = \"star\"\nhosts = 2\n[transport]\ndelay_noise = {noise}\n\
         [[workload]]\nkind = \"permutation\"\nsize = \"1MB\"\n"
    ))
}

#[test]
fn a_noise_section_without_a_source_is_refused() {
    let e = refused("{ scale = 2.0 }");
    assert!(e.contains("transport.delay_noise.cdf"), "{e}");
}

/// `at = "receiver"` puts the noise into the network (the PrioPlus paper's non-congestive
/// delay, §6.3): the receiving host holds each reply for a uniform draw in [0, R]. 400
/// one-packet flows, one every 20 µs on an idle 100 Gbps star, each complete when their
/// ACK reaches the sender (`output.fct = "sender"`): every FCT is the unloaded one plus
/// one draw, so over the 400 the extra is within [0, R] and averages R / 2 (standard
/// error R / √(12 · 400) = 1.4 % of R; asserted within 6 %). With the noise on the samples
/// (the default) no packet is held and every FCT is the unloaded one.
#[test]
fn noise_at_the_receiver_holds_every_reply_for_a_draw() {
    let flows: String = (0..400).map(|i| format!("0,1,1000,{}us\n", 20 * i)).collect();
    let files = [("flows.csv", format!("src,dst,size,start\n{flows}"))];
    let fcts = |noise: &str| {
        let toml = format!(
            r#"
            [topology]
            kind = "star"
            hosts = 2
            link_rate = "100Gbps"
            link_latency = "1us"
            [transport]
            cc = "swift"
            {noise}
            [output]
            fct = "sender"
            [[workload]]
            kind = "flows"
            file = "flows.csv"
            "#
        );
        let files: Vec<(&str, &str)> = files.iter().map(|(n, c)| (*n, c.as_str())).collect();
        let mut s = common::sim_with_files(&toml, &files);
        s.run();
        let table = s.flow_table();
        table.f64s("fct_us").to_vec()
    };
    let clean = fcts("");
    let unloaded = clean[0];
    assert!(clean.iter().all(|&f| (f - unloaded).abs() < 1e-6), "an idle network: one FCT");
    let on_samples = fcts("delay_noise = { uniform = \"30us\" }");
    assert_eq!(on_samples, clean, "noise on the samples delays no packet");
    let held = fcts("delay_noise = { uniform = \"30us\", at = \"receiver\" }");
    let extra: Vec<f64> = held.iter().map(|f| f - unloaded).collect();
    let mean = extra.iter().sum::<f64>() / extra.len() as f64;
    eprintln!("held replies: mean extra {mean:.2} us over {} flows", extra.len());
    assert!(extra.iter().all(|&x| (-1e-6..=30.0 + 1e-6).contains(&x)), "every extra within [0, R]");
    assert!((mean - 15.0).abs() < 0.06 * 15.0, "mean extra {mean:.2} us, expected R / 2 = 15 us");
}

#[test]
fn a_noise_place_outside_the_two_is_refused() {
    let e = refused("{ uniform = \"1us\", at = \"bottleneck\" }");
    assert!(e.contains("at") && e.contains("samples") && e.contains("receiver"), "{e}");
}

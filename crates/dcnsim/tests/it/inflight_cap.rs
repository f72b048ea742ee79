//! `transport.inflight_cap` (IRN's BDP-FC, Mittal et al., SIGCOMM 2018, §3.1): a cap on
//! bytes in flight on top of the algorithm's window. One flow without congestion control
//! on an idle path is then window-limited, and a window W over a round trip R moves W/R:
//! a cap of one BDP keeps the link full, half a BDP halves the rate, and the bytes in
//! flight never pass the cap.

use crate::common;

use dcnsim::Time;

fn flow(cap: &str) -> (f64, f64, u64, u64) {
    let toml = format!(
        r#"
        seed = 1
        [topology]
        kind = "star"
        hosts = 2
        link_rate = "100Gbps"
        link_latency = "2us"
        mtu = "1000B"
        [transport]
        cc = "none"
        inflight_cap = {cap}
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#
    );
    let mut s = common::sim_with_files(&toml, &[("flows.csv", "src,dst,size,start\n0,1,20MB,0\n")]);
    let bdp = (100e9 / 8.0 * s.flows[0].base_rtt.as_secs_f64()) as u64;
    let mut most = 0u64;
    let mut t = Time::ZERO;
    while !s.is_done() {
        t = t + Time::from_ns(500);
        s.run_until(t);
        most = most.max(s.flows[0].sender.in_flight);
    }
    let f = &s.flows[0];
    let fct = (f.receiver.finish.unwrap() - f.start).as_us_f64();
    (fct, f.ideal_fct.as_us_f64(), most, bdp)
}

#[test]
fn a_bdp_cap_keeps_the_link_full_and_half_a_bdp_halves_the_rate() {
    let (fct, ideal, most, bdp) = flow("\"bdp\"");
    eprintln!("cap bdp ({bdp} B): fct {fct:.1} us, ideal {ideal:.1} us, most in flight {most} B");
    assert!(fct <= 1.02 * ideal, "one BDP in flight fills the link: {fct} vs {ideal}");
    assert!(most <= bdp + 1000, "in flight {most} > cap {bdp}");
    let half = format!("\"{}B\"", bdp / 2);
    let (fct2, _, most2, _) = flow(&half);
    eprintln!("cap {half}: fct {fct2:.1} us, most in flight {most2} B");
    // Rate = W / RTT: half the window, twice the time (to 5 %).
    assert!((fct2 / fct - 2.0).abs() < 0.1, "half a BDP: {fct2} vs {fct}");
    assert!(most2 <= bdp / 2 + 1000);
    let (free, _, _, _) = flow("\"off\"");
    assert!(free <= 1.02 * ideal, "no cap: line rate");
}

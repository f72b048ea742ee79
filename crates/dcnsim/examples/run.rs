//! Runs a scenario file without Python and prints counters: `cargo run --release --example run -- FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run FILE");
    let text = std::fs::read_to_string(&path).expect("read scenario");
    let base = std::path::Path::new(&path).parent().unwrap().to_path_buf();
    let mut sim = match dcnsim::from_toml(&text, &base) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t0 = std::time::Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    for (k, v) in sim.stats() {
        println!("{k:>24} {v}");
    }
    let m = sim.memory();
    println!(
        "{:>24} flows {} packets {} ports {} routing {} events {} (bytes)",
        "memory", m.flows, m.packets, m.ports, m.routing, m.events
    );
    let ev = sim.events_processed() as f64;
    println!("{:>24} {:.3}", "wall_s", wall);
    println!("{:>24} {:.2}M", "events_per_s", ev / wall / 1e6);
    let t = sim.flow_table();
    let mut sd: Vec<f64> = t.f64s("slowdown").iter().copied().filter(|x| x.is_finite()).collect();
    sd.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if !sd.is_empty() {
        println!(
            "{:>24} p50 {:.2} p99 {:.2} max {:.2}",
            "slowdown",
            sd[sd.len() / 2],
            sd[sd.len() * 99 / 100],
            sd[sd.len() - 1]
        );
    }
}

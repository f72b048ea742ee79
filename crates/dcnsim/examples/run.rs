//! Runs a scenario file without Python and prints counters: `cargo run --release --example
//! run -- FILE [THREADS]` (THREADS sets the scenario's `threads`). The last line is a digest
//! of the flow table, to compare runs bit for bit.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run FILE [THREADS]");
    let mut text = std::fs::read_to_string(&path).expect("read scenario");
    if let Some(threads) = std::env::args().nth(2) {
        text = format!("threads = {threads}\n{text}");
    }
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
    println!("{:>24} {:016x}", "flow_table_digest", digest(&t));
}

/// FNV-1a over every value of the table, in order (floats by their bits).
fn digest(t: &dcnsim::stats::Table) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    };
    for (name, c) in &t.columns {
        eat(name.as_bytes());
        match c {
            dcnsim::stats::Column::I64(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
            dcnsim::stats::Column::F64(v) => v.iter().for_each(|x| eat(&x.to_bits().to_le_bytes())),
            dcnsim::stats::Column::Bool(v) => v.iter().for_each(|x| eat(&[*x as u8])),
            dcnsim::stats::Column::Str(v) => v.iter().for_each(|x| eat(x.as_bytes())),
            dcnsim::stats::Column::Cat { codes, .. } => codes.iter().for_each(|x| eat(&x.to_le_bytes())),
        }
    }
    h
}

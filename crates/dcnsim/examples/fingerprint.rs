//! The restructuring safety net: runs each scenario file to its end and prints one line
//! per file with its event count, end time and a 64-bit FNV-1a hash of everything the run
//! is judged by (the counters, every column of the flow table, the time series and the
//! port table). A refactoring that changes any of these lines changed behaviour. The
//! memory counters (`memory_*`) are left out: they measure the simulator's own structs,
//! which a refactoring may resize without changing what is simulated; `--memory` puts
//! them back in.
//!
//! `cargo run --release --example fingerprint -- [--memory] [--skip PREFIX]... [--base DIR] [--until-us T] FILE...`
//! (a `.json` file is read as the scenario's JSON form, anything else as TOML; relative
//! paths in a scenario resolve against `--base`, else its file's folder; `--until-us` stops
//! each run at that simulated time, as the reproductions cap theirs; `--skip` leaves out
//! the counters whose names start with PREFIX, to compare against a run from before a
//! change that added counters).

use dcnsim::stats::{Column, Table};

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, data: &[u8]) {
        for b in data {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
        self.bytes(&[0xff]);
    }
}

fn hash_table(h: &mut Fnv, t: &Table) {
    for (name, column) in &t.columns {
        h.text(name);
        match column {
            Column::I64(v) => v.iter().for_each(|x| h.bytes(&x.to_le_bytes())),
            Column::F64(v) => v.iter().for_each(|x| h.bytes(&x.to_bits().to_le_bytes())),
            Column::Bool(v) => v.iter().for_each(|x| h.bytes(&[*x as u8])),
            Column::Str(v) => v.iter().for_each(|x| h.text(x)),
            Column::Cat { codes, levels } => codes.iter().for_each(|c| h.text(&levels[*c as usize])),
        }
    }
}

fn main() {
    let mut with_memory = false;
    let mut base_dir: Option<std::path::PathBuf> = None;
    let mut until = dcnsim::Time::MAX;
    let mut files = Vec::new();
    let mut skip: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--memory" => with_memory = true,
            "--skip" => skip.extend(args.next()),
            "--base" => base_dir = args.next().map(Into::into),
            "--until-us" => {
                let us: f64 = args.next().and_then(|v| v.parse().ok()).expect("--until-us takes microseconds");
                until = dcnsim::Time((us * 1e6) as u64);
            }
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        eprintln!("usage: fingerprint FILE...");
        std::process::exit(2);
    }
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let base = base_dir.clone().unwrap_or_else(|| std::path::Path::new(&path).parent().unwrap().to_path_buf());
        let scenario = if path.ends_with(".json") {
            dcnsim::Scenario::from_json(&text)
        } else {
            dcnsim::Scenario::from_toml(&text)
        };
        let built = scenario.and_then(|s| dcnsim::build(&s, &base));
        let mut sim = match built {
            Ok(sim) => sim,
            Err(e) => {
                println!("{path} error {e}");
                continue;
            }
        };
        sim.run_until(until);
        let mut h = Fnv::new();
        for (k, v) in sim.stats() {
            if k.starts_with("memory") && !with_memory || skip.iter().any(|p| k.starts_with(p.as_str())) {
                continue;
            }
            h.text(k);
            h.bytes(&v.to_bits().to_le_bytes());
        }
        hash_table(&mut h, &sim.flow_table());
        if let Some(ts) = sim.timeseries() {
            hash_table(&mut h, &ts);
        }
        hash_table(&mut h, &sim.ports_table());
        println!("{path} events {} end_ps {} hash {:016x}", sim.events_processed(), sim.now().0, h.0);
    }
}

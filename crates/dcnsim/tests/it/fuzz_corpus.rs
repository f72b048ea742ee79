//! Replays the committed fuzz corpora (issue 10, "fuzzing: ... CI replays it") on stable:
//! every file under `fuzz/corpus/<target>/` goes through the same check its cargo-fuzz
//! target runs (`dcnsim::fuzzing`), so a parser change that panics on, or breaks a
//! property for, an input the fuzzer once found fails CI without nightly.

use std::path::Path;

#[test]
fn every_fuzz_corpus_file_passes_its_target_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (target, check) in dcnsim::fuzzing::TARGETS {
        let dir = root.join(target);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut files = 0;
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            // A panic names the file, so the failing input is one command away.
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                panic!("fuzz target {target} fails on {}", path.display());
            }
            files += 1;
        }
        // An empty or missing corpus would make this test pass without checking anything.
        assert!(files >= 10, "{}: only {files} corpus files", dir.display());
    }
}

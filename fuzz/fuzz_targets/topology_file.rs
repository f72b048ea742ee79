//! Fuzz target `topology_file` (issue 10): the check lives in `dcnsim::fuzzing::topology_file`, which
//! `crates/dcnsim/tests/fuzz_corpus.rs` also replays over `fuzz/corpus/topology_file/` on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dcnsim::fuzzing::topology_file(data));

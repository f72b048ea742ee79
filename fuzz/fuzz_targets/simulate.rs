//! Fuzz target `simulate` (issue 10): the check lives in `dcnsim::fuzzing::simulate`, which
//! `crates/dcnsim/tests/fuzz_corpus.rs` also replays over `fuzz/corpus/simulate/` on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dcnsim::fuzzing::simulate(data));

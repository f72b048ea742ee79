//! Fuzz target `scenario` (issue 10): the check lives in `dcnsim::fuzzing::scenario`, which
//! `crates/dcnsim/tests/fuzz_corpus.rs` also replays over `fuzz/corpus/scenario/` on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dcnsim::fuzzing::scenario(data));

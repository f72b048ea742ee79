//! Fuzz target `units` (issue 10): the check lives in `dcnsim::fuzzing::units`, which
//! `crates/dcnsim/tests/fuzz_corpus.rs` also replays over `fuzz/corpus/units/` on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dcnsim::fuzzing::units(data));

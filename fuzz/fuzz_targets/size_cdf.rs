//! Fuzz target `size_cdf` (issue 10): the check lives in `dcnsim::fuzzing::size_cdf`, which
//! `crates/dcnsim/tests/fuzz_corpus.rs` also replays over `fuzz/corpus/size_cdf/` on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dcnsim::fuzzing::size_cdf(data));

//! Fuzz target `flow_list` (issue 10): the check lives in `dcnsim::fuzzing::flow_list`, which
//! `crates/dcnsim/tests/fuzz_corpus.rs` also replays over `fuzz/corpus/flow_list/` on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dcnsim::fuzzing::flow_list(data));

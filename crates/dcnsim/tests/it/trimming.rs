//! Packet trimming end to end (docs/models/trimming.md; docs/reproductions/smartt-paper.md, U10),
//! for every
//! algorithm that handles NACKs (NSCC, MNSCC, Swift, MPRDMA): a 16:1 incast
//! into a buffer far below the senders' first windows. Conservation laws, not tuned
//! numbers: every trimmed packet is NACKed, every NACK marks one packet lost and it is
//! retransmitted once, nothing is dropped, and every byte of every flow is delivered
//! exactly once (the receiver counts each PSN once; duplicates would show as extra
//! retransmissions).

use crate::common;

#[test]
fn every_trimmed_packet_is_nacked_and_retransmitted_and_every_byte_delivered() {
    // Each algorithm with the transport settings its own test used.
    let bdp = "initial_window = \"bdp\"";
    let variants = [
        ("nscc", format!("{bdp}\nnscc = {{ mode = \"smartt_paper\" }}")),
        ("nscc", format!("{bdp}\nnscc = {{ mode = \"nscc_htsim\" }}")),
        ("mnscc", format!("{bdp}\nnscc = {{ mode = \"smartt_paper\" }}")),
        // Swift has no NACK reaction of its own: the default treats a NACK as one loss.
        ("swift", bdp.to_string()),
        // MPRDMA treats a NACK as a marked ACK (docs/models/mprdma.md); the SMaRTT paper
        // runs every baseline with trimming (§IV-b).
        ("mprdma", "lb = \"ops\"\nmprdma = { variant = \"mprdma\" }".to_string()),
        ("mprdma", "lb = \"ops\"\nmprdma = { variant = \"htsim_dctcp\" }".to_string()),
    ];
    for (cc, transport) in &variants {
        let mut s = common::sim(&format!(
            r#"
            [topology]
            kind = "star"
            hosts = 17
            link_rate = "100Gbps"
            link_latency = "1us"
            mtu = "4160B"
            [switch]
            buffer = "100KB"
            trimming = true
            ecn = {{ kmin = "20KB", kmax = "80KB", on = "dequeue" }}
            [transport]
            cc = "{cc}"
            {transport}
            [[workload]]
            kind = "incast"
            receiver = 0
            senders = 16
            size = "1MB"
            "#
        ));
        s.run();
        let c = &s.counters;
        let resent: u64 = s.flows.iter().map(|f| f.sender.retransmits).sum();
        let nacked: u64 = s.flows.iter().map(|f| f.sender.nacks).sum();
        let trimmed: u64 = s.flows.iter().map(|f| f.trims).sum();
        println!(
            "{cc} [{transport}]: trims {}, nacks {}, retransmits {resent}, timeouts {}",
            c.trims, c.nacks, c.timeouts
        );
        assert!(c.trims > 0, "{cc}: the incast must overflow the buffer");
        assert_eq!(c.drops, 0, "{cc}: a trimming switch drops nothing");
        assert_eq!(trimmed, c.trims);
        assert_eq!(c.nacks, c.trims, "{cc}: every trimmed header is NACKed");
        assert_eq!(nacked, c.nacks, "{cc}: every NACK marks its packet lost");
        assert_eq!(c.timeouts, 0, "{cc}: NACKs recover everything before any timeout");
        assert_eq!(resent, c.trims, "{cc}: one retransmission per trim");
        for f in &s.flows {
            assert!(f.receiver.finish.is_some(), "{cc}: flow {} unfinished", f.id);
            assert_eq!(f.receiver.delivered, f.size, "{cc}: flow {} delivered bytes", f.id);
        }
        // `switch.trim_victim = "auto"`: uet-htsim's coin (the arrival or the queue's
        // tail, equal odds; every tail here makes room, as all packets are full-size) under
        // `nscc_htsim`, the arrival otherwise. The tail's share of n trims is binomial(n,
        // 1/2): within 5 standard deviations of a half.
        let n = c.trims as f64;
        let share = c.tail_trims as f64 / n;
        if transport.contains("nscc_htsim") {
            assert!((share - 0.5).abs() <= 5.0 * (0.25 / n).sqrt(), "{cc}: tail share {share:.3} of {n} trims");
        } else {
            assert_eq!(c.tail_trims, 0, "{cc}: the paper trims the arrival");
        }
    }
}

//! Unit tests of the shared transport: loss detection, recovery, ACK policies, pacing.

use super::*;
use crate::cc::newreno::{NewReno, NewRenoParams};

fn cfg(ack_ratio: u32) -> TransportConfig {
    TransportConfig {
        header_bytes: 64,
        mtu: 1064,
        ack_ratio,
        ack_policy: AckPolicy::Tcp,
        delayed_ack_timeout: Time::from_us(10),
        dupack_threshold: 3,
        loss_rule: LossRule::Count,
        loss_recovery: LossRecovery::Sack,
        pace_window: false,
        rto_min: Time::from_ms(1),
        rto_max: Time::from_ms(100),
        rto_initial: Time::from_ms(1),
        reps: RepsParams::default(),
        plb: PlbParams::default(),
        ect_always: false,
    }
}

fn flow(size: u64, c: &TransportConfig) -> Flow {
    let cc = Box::new(NewReno::new(&NewRenoParams::default(), c.mtu as u64, 100 * c.mtu as u64));
    let mut f = Flow::new(0, 0, 1, size, Time::ZERO, Time::MAX, 0, cc, c, 7, LbName::Ecmp, 8);
    f.started = true;
    f
}

fn data(psn: u32, ce: bool) -> Packet {
    Packet {
        flow: 0,
        psn,
        sacked_psn: 0,
        size: 1064,
        dst: 1,
        entropy: 0,
        sent_at: Time::ZERO,
        kind: PacketKind::Data,
        flags: flags::ECT | if ce { flags::CE } else { 0 },
        priority: 0,
        hop: 0,
        ext: 0,
    }
}

/// `docs/reproductions/dctcp-vs-swift-paper.md`, A4: with m = 2 and CE pattern 0,0,1,1,0 the
/// sender reconstructs exactly two marked packets.
#[test]
fn a4_receiver_echo_state_machine_with_coalescing() {
    let c = cfg(2);
    let mut f = flow(5 * 1000, &c);
    let mut marked = 0u32;
    let mut acked_to = 0u32;
    for (psn, ce) in [false, false, true, true, false].into_iter().enumerate() {
        let out = f.on_data(Time::ZERO, &data(psn as u32, ce), &c);
        let mut acks: Vec<AckToSend> = out.acks.iter().flatten().copied().collect();
        if out.arm_delayed_ack && psn == 4 {
            if let DelayedAck::Send(a) = f.on_delayed_ack(Time::from_us(10), &c) {
                acks.push(a);
            }
        }
        for a in acks {
            if a.ece {
                marked += a.cum - acked_to;
            }
            acked_to = a.cum;
        }
    }
    assert_eq!(acked_to, 5);
    assert_eq!(marked, 2);
}

/// The flush ACK matters: CE pattern 0,1 with m = 2 must report packet 0 unmarked and
/// packet 1 marked, though neither alone fills the coalescing count.
#[test]
fn state_change_flushes_pending_ack() {
    let c = cfg(2);
    let mut f = flow(10 * 1000, &c);
    let o0 = f.on_data(Time::ZERO, &data(0, false), &c);
    assert!(o0.acks.iter().all(|a| a.is_none()));
    let o1 = f.on_data(Time::ZERO, &data(1, true), &c);
    let flush = o1.acks[0].expect("flush ack");
    assert_eq!((flush.cum, flush.ece), (1, false));
}

#[test]
fn reorders_and_reports_duplicates() {
    let c = cfg(1);
    let mut f = flow(4 * 1000, &c);
    let a = f.on_data(Time::ZERO, &data(1, false), &c).acks[1].unwrap();
    assert_eq!((a.cum, a.sacked_psn), (0, 1));
    let a = f.on_data(Time::ZERO, &data(0, false), &c).acks[1].unwrap();
    assert_eq!(a.cum, 2);
    assert_eq!(f.receiver.delivered, 2000);
    f.on_data(Time::ZERO, &data(1, false), &c);
    assert_eq!(f.receiver.delivered, 2000, "a duplicate delivers nothing");
}

#[test]
fn sack_threshold_detects_a_single_loss_and_retransmits_it() {
    let c = cfg(1);
    let mut f = flow(10 * 1000, &c);
    let sent: Vec<Packet> = (0..10).map(|_| f.emit(Time::ZERO, 0)).collect();
    assert_eq!(f.sender.in_flight, 10 * 1064);
    // Packet 2 is lost; 0, 1, 3, 4, 5 arrive.
    for p in [0, 1, 3, 4, 5] {
        let a = f.on_data(Time(1), &sent[p], &c).acks[1].unwrap();
        let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: 0, ..sent[p] };
        f.on_ack(Time(2), &ack, &c);
    }
    assert_eq!(f.sender.cum_acked, 2);
    assert_eq!(f.send_state(Time(2)), SendState::Ready);
    let r = f.emit(Time(2), 0);
    assert_eq!(r.psn, 2);
    assert!(r.has(flags::RETX));
    assert_eq!(f.sender.retransmits, 1);
}

/// NSCC turns SACK-hole loss detection off (`docs/models/nscc.md`;
/// `docs/reproductions/mswift-paper.md`, A9): a
/// packet overtaken by many others is never retransmitted while it is only late.
#[test]
fn nscc_never_retransmits_on_reordering() {
    let c = cfg(1);
    let info = crate::cc::test_info(1064, 1 << 20, Time::from_us(10), 2, Rate::gbps(100), 1 << 20);
    let cc = Box::new(crate::cc::nscc::Nscc::new(&Default::default(), false, &info));
    let mut f = Flow::new(0, 0, 1, 20 * 1000, Time::ZERO, Time::MAX, 0, cc, &c, 7, LbName::Ops, 8);
    f.started = true;
    let sent: Vec<Packet> = (0..20).map(|_| f.emit(Time::ZERO, 0)).collect();
    for p in (0..20).filter(|&p| p != 2) {
        round_trip(&mut f, &sent[p], &c);
    }
    assert_eq!(f.sender.cum_acked, 2);
    assert_eq!(f.send_state(Time(3)), SendState::Blocked, "nothing to retransmit, nothing new");
    round_trip(&mut f, &sent[2], &c);
    assert!(f.sender_done());
    assert_eq!(f.sender.retransmits, 0);
}

/// `TimeoutPolicy::Expired` (`docs/models/transport.md`): the timer is armed for the
/// oldest transmission still out, whatever ACKs of others arrive; each packet out for a
/// whole RTO leaves the bytes in flight and is reported on its own; resends then go
/// only as the window allows. RTO 100 µs; packets 0..3 leave at 0, 1, 2, 3 µs; 0 is
/// acknowledged at 50 µs. The first timeout is due at 1 + 100 = 101 µs (RFC 6298's
/// restart would make it 50 + 100 = 150 µs). The window is 4 packets less one per
/// expired packet: after 1, 2, 3 expire it is 1 packet, so one resend leaves.
#[test]
fn expired_policy_times_out_each_packet_an_rto_after_it_left() {
    struct Htsim(std::sync::Arc<std::sync::Mutex<(u64, u64, u32)>>);
    impl CongestionControl for Htsim {
        fn name(&self) -> &'static str {
            "htsim-like"
        }
        fn on_ack(&mut self, _: &AckSample) {}
        fn on_loss(&mut self, _: &LossEvent) {}
        fn on_timeout(&mut self, _: Time, _: u32) {
            self.0.lock().unwrap().2 += 1;
        }
        fn on_packet_expired(&mut self, _: Time, bytes: u64) {
            let mut g = self.0.lock().unwrap();
            g.0 += 1;
            g.1 += bytes;
        }
        fn cwnd(&self) -> u64 {
            (4 - self.0.lock().unwrap().0.min(3)) * 1064
        }
        fn profile(&self) -> crate::cc::TransportProfile {
            crate::cc::TransportProfile {
                fixed_rto: Some(Time::from_us(100)),
                timeout_policy: TimeoutPolicy::Expired,
                sack_loss_detection: false,
                ..crate::cc::TransportProfile::default()
            }
        }
    }
    let c = cfg(1);
    let seen = std::sync::Arc::new(std::sync::Mutex::new((0, 0, 0)));
    let mut f =
        Flow::new(0, 0, 1, 4 * 1000, Time::ZERO, Time::MAX, 0, Box::new(Htsim(seen.clone())), &c, 7, LbName::Ops, 8);
    f.started = true;
    let us = Time::from_us;
    let sent: Vec<Packet> = (0..4).map(|k| f.emit(us(k), 0)).collect();
    for a in f.on_data(us(49), &sent[0], &c).acks.into_iter().flatten() {
        let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, ..sent[0] };
        f.on_ack(us(50), &ack, &c);
    }
    assert_eq!((f.sender.cum_acked, f.sender.in_flight), (1, 3 * 1064));
    assert!(f.sender.rto_deadline <= us(101), "not restarted by the ACK: {}", f.sender.rto_deadline);
    // A timer armed for packet 0 finds nothing expired and re-arms for packet 1.
    if f.sender.rto_deadline < us(101) {
        assert!(!f.on_timeout(f.sender.rto_deadline, &c));
    }
    assert_eq!(f.sender.rto_deadline, us(101));
    assert!(f.on_timeout(us(101), &c));
    assert_eq!(*seen.lock().unwrap(), (1, 1064, 1));
    assert_eq!((f.sender.in_flight, f.sender.rto_deadline), (2 * 1064, us(102)));
    assert!(f.on_timeout(us(103), &c), "packets 2 and 3 are due at 102 and 103 µs");
    assert_eq!(*seen.lock().unwrap(), (3, 3 * 1064, 2));
    assert_eq!(f.sender.in_flight, 0);
    assert_eq!(f.send_state(us(103)), SendState::Ready);
    assert_eq!(f.emit(us(103), 0).psn, 1);
    assert_eq!(f.send_state(us(103)), SendState::Blocked, "a window of one packet");
    assert_eq!(f.sender.rto_deadline, us(203));
}

/// Records what the transport reports as confirmed losses.
struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<(u32, u32)>>>);
impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack(&mut self, _: &AckSample) {}
    fn on_loss(&mut self, _: &LossEvent) {}
    fn on_loss_confirmed(&mut self, _: Time, runs: &[(u32, u32)]) {
        self.0.lock().unwrap().extend_from_slice(runs);
    }
    fn profile(&self) -> crate::cc::TransportProfile {
        crate::cc::TransportProfile { wants_confirmed_losses: true, ..crate::cc::TransportProfile::default() }
    }

    fn on_timeout(&mut self, _: Time, _: u32) {}
    fn cwnd(&self) -> u64 {
        1 << 30
    }
}

/// Delivers `pkt` to the receiver and its ACK back to the sender, as `sim.rs` does.
fn round_trip(f: &mut Flow, pkt: &Packet, c: &TransportConfig) {
    for a in f.on_data(Time(1), pkt, c).acks.into_iter().flatten() {
        let fl = if a.retx { flags::RETX } else { 0 };
        let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: fl, ..*pkt };
        f.on_ack(Time(2), &ack, c);
    }
}

/// Five packets go missing and are retransmitted. If the retransmissions are what
/// arrives, the five are one confirmed run; if the late originals arrive first (pure
/// reordering), nothing is confirmed, however the copies land afterwards.
#[test]
fn only_retransmissions_that_arrive_first_confirm_a_loss() {
    for originals_arrive in [false, true] {
        let c = cfg(1);
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let cc = Box::new(Recorder(seen.clone()));
        let mut f = Flow::new(0, 0, 1, 12 * 1000, Time::ZERO, Time::MAX, 0, cc, &c, 7, LbName::Ecmp, 8);
        f.started = true;
        let sent: Vec<Packet> = (0..12).map(|_| f.emit(Time::ZERO, 0)).collect();
        for p in [0, 1, 7, 8, 9, 10, 11] {
            round_trip(&mut f, &sent[p], &c);
        }
        let copies: Vec<Packet> = (0..5).map(|_| f.emit(Time(3), 0)).collect();
        assert_eq!(copies.iter().map(|p| p.psn).collect::<Vec<_>>(), vec![2, 3, 4, 5, 6]);
        let (first, second) = if originals_arrive { (&sent[2..7], &copies[..]) } else { (&copies[..], &sent[2..7]) };
        for p in first.iter().chain(second) {
            round_trip(&mut f, p, &c);
        }
        assert!(f.sender_done());
        let runs = seen.lock().unwrap().clone();
        if originals_arrive {
            assert!(runs.is_empty(), "reordering confirmed {runs:?}");
        } else {
            assert_eq!(runs, vec![(2, 2), (2, 3), (2, 4), (2, 5), (2, 6)]);
        }
    }
}

/// RFC 8985 §6.2: the window starts at min_RTT/4, grows by min_RTT/4 at most once per
/// round trip in which an original turned up after its hole was declared, never beyond
/// SRTT, and falls back to min_RTT/4 after 16 loss recoveries without such evidence.
#[test]
fn rack_reorder_window_widens_on_premature_losses_and_decays() {
    struct Rack;
    impl CongestionControl for Rack {
        fn name(&self) -> &'static str {
            "rack"
        }
        fn on_ack(&mut self, _: &AckSample) {}
        fn on_loss(&mut self, _: &LossEvent) {}
        fn on_timeout(&mut self, _: Time, _: u32) {}
        fn cwnd(&self) -> u64 {
            1 << 30
        }
        fn reorder_window(&self) -> ReorderWindow {
            ReorderWindow::Rack
        }
    }
    let c = cfg(1);
    let mut f = Flow::new(0, 0, 1, 1000 * 1000, Time::ZERO, Time::MAX, 0, Box::new(Rack), &c, 7, LbName::Ecmp, 8);
    f.started = true;
    let us = Time::from_us;
    let s = &mut f.sender;
    s.min_rtt = us(8);
    s.srtt = Some(us(10));
    assert_eq!(s.reorder_wait(), us(2));
    s.next_new = 100;
    s.premature_loss();
    assert_eq!(s.reorder_wait(), us(4));
    s.premature_loss();
    assert_eq!(s.reorder_wait(), us(4), "once per round trip");
    s.cum_acked = 100;
    s.next_new = 200;
    s.premature_loss();
    s.cum_acked = 200;
    s.next_new = 300;
    s.premature_loss();
    assert_eq!(s.reorder_wait(), us(8));
    s.cum_acked = 300;
    s.premature_loss();
    assert_eq!(s.reorder_wait(), us(10), "capped at SRTT");
    assert_eq!(s.reo_wnd_persist, 16);
    // 16 loss recoveries: the window returns to min_RTT/4.
    for k in 0..16 {
        let s = &mut f.sender;
        s.recovery_until = Some(s.cum_acked + 1);
        let seq = s.cum_acked;
        f.sender.state.clear();
        f.sender.state.push_back(SENT);
        f.sender.next_new = seq + 1;
        let ack = Packet { psn: seq + 1, sacked_psn: seq, kind: PacketKind::Ack, ..data(seq, false) };
        f.on_ack(Time::from_us(100 + k), &ack, &c);
    }
    assert_eq!(f.sender.reo_wnd_mult, 1);
}

/// A pacing rate spaces packets by their serialisation time at that rate.
#[test]
fn pacing_spaces_packets_at_the_pacing_rate() {
    struct Paced;
    impl CongestionControl for Paced {
        fn name(&self) -> &'static str {
            "paced"
        }
        fn on_ack(&mut self, _: &AckSample) {}
        fn on_loss(&mut self, _: &LossEvent) {}
        fn on_timeout(&mut self, _: Time, _: u32) {}
        fn cwnd(&self) -> u64 {
            1 << 30
        }
        fn pacing_rate(&self) -> Option<Rate> {
            Some(Rate::gbps(1))
        }
    }
    let c = cfg(1);
    let mut f = Flow::new(0, 0, 1, 100_000, Time::ZERO, Time::MAX, 0, Box::new(Paced), &c, 7, LbName::Ecmp, 8);
    f.started = true;
    assert_eq!(f.send_state(Time::ZERO), SendState::Ready);
    f.emit(Time::ZERO, 0);
    // 1064 wire bytes at 1 Gbps = 8.512 us.
    assert_eq!(f.send_state(Time(1)), SendState::PacedUntil(Time(8_512_000)));
    assert_eq!(f.send_state(Time(8_512_000)), SendState::Ready);
}

/// RFC 5681 §4.2: the packet that fills a gap is acknowledged at once, even when ACKs
/// are coalesced, or a sender blocked by a small window waits for the delayed-ACK timer.
#[test]
fn a_gap_filling_packet_is_acked_at_once() {
    let c = cfg(2);
    let mut f = flow(10 * 1000, &c);
    for psn in [0, 2, 3] {
        f.on_data(Time::ZERO, &data(psn, false), &c);
    }
    let out = f.on_data(Time::ZERO, &data(1, false), &c);
    let ack = out.acks[1].expect("immediate ACK for the hole fill");
    assert_eq!(ack.cum, 4);
    assert!(!out.arm_delayed_ack);
}

fn uec(ack_ratio: u32) -> TransportConfig {
    TransportConfig { ack_policy: AckPolicy::Uec, ..cfg(ack_ratio) }
}

/// uet-htsim's UEC receiver (`docs/models/transport.md`, ACK policies): with 4 packets per
/// ACK the first packet is ACKed at once, then every fourth; out-of-order arrivals wait
/// like in-order ones, and the ACK that ends the wait lists them in its bitmap. Arrival
/// order 0, 1, 3, 4, 2, 5, 6, 7, 8: ACKs at 0 (first), at 2 (the 4th since: 1, 3, 4, 2) and
/// at 8 (5, 6, 7, 8).
#[test]
fn uec_policy_coalesces_out_of_order_packets_and_reports_them() {
    let c = uec(4);
    let mut f = flow(20 * 1000, &c);
    let mut acks = Vec::new();
    for psn in [0, 1, 3, 4, 2, 5, 6, 7, 8] {
        acks.extend(f.on_data(Time::ZERO, &data(psn, false), &c).acks.into_iter().flatten().map(|a| (psn, a)));
    }
    let at: Vec<(u32, u32)> = acks.iter().map(|&(psn, a)| (psn, a.cum)).collect();
    assert_eq!(at, [(0, 1), (2, 5), (8, 9)]);
    // Under the TCP policy 3 and 4 (out of order) and 2 (the gap fill) go at once too.
    let t = cfg(4);
    let mut g = flow(20 * 1000, &t);
    let n = [0, 1, 3, 4, 2, 5, 6, 7, 8]
        .iter()
        .filter(|&&psn| g.on_data(Time::ZERO, &data(psn, false), &t).acks[1].is_some())
        .count();
    assert_eq!(n, 4, "TCP: 3, 4, 2 and 8 (the last of 9 packets: 9 * 1000 B is not the flow's end)");
}

/// The bitmap and its base, max(trigger − 63, cum + 1): with 1 missing, the ECN-marked 5
/// is ACKed at once with bits 0..3 for 2..5 (base 2); after 7 the delayed ACK, based at 2
/// too, adds bit 5 for 7.
#[test]
fn uec_bitmap_lists_the_arrivals_above_the_hole() {
    let c = uec(4);
    let mut f = flow(20 * 1000, &c);
    for psn in [0, 2, 3, 4] {
        f.on_data(Time::ZERO, &data(psn, false), &c);
    }
    let a = f.on_data(Time::ZERO, &data(5, true), &c).acks[1].expect("a marked packet is ACKed at once");
    assert_eq!((a.cum, a.sacked_psn, a.sack_base, a.sack_bits, a.ece), (1, 5, 2, 0b1111, true));
    f.on_data(Time::ZERO, &data(7, false), &c);
    let DelayedAck::Send(late) = f.on_delayed_ack(Time::from_us(10), &c) else { panic!("pending ACK") };
    assert_eq!((late.cum, late.sack_base, late.sack_bits), (1, 2, 0b10_1111));
}

/// Coalesced packets far above a hole are still named (the bug this rule fixed: a bitmap
/// anchored at cum + 1 reaches only 64 PSNs, so with PSN 0 missing the three packets of
/// each four-packet ACK above 64 stayed unnamed and expired at the sender). 201 packets
/// are sent, PSNs 1..=200 arrive, one ACK per 4 packets (the last three by the
/// delayed-ACK timer): every one of them ends ACKED at the sender, and PSN 0 does not.
#[test]
fn uec_acks_name_coalesced_packets_far_above_a_hole() {
    let c = uec(4);
    let mut f = flow(201 * 1000, &c);
    let sent: Vec<Packet> = (0..201).map(|_| f.emit(Time::ZERO, 0)).collect();
    let mut acks = Vec::new();
    for p in &sent[1..] {
        acks.extend(f.on_data(Time(1), p, &c).acks.into_iter().flatten());
    }
    if let DelayedAck::Send(a) = f.on_delayed_ack(Time::from_us(20), &c) {
        acks.push(a);
    }
    for a in acks {
        let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: 0, ..sent[0] };
        let info = UecAck { recvd: a.recvd, sack_bits: a.sack_bits, sack_base: a.sack_base };
        f.on_ack_counted(Time(2), &ack, Some(info), &c);
    }
    assert_eq!(f.sender.cum_acked, 0);
    let unnamed: Vec<usize> = (1..201).filter(|&i| f.sender.state[i] != ACKED).collect();
    assert!(unnamed.is_empty(), "PSNs never named: {unnamed:?}");
    assert_ne!(f.sender.state[0], ACKED, "PSN 0 never arrived");
}

/// A sender reading a coalesced ACK: 8 packets out, 1 lost; one ACK (cum 1, for 5,
/// bits for 2..5) and one (cum 1, for 7, bits 2..7) leave exactly packet 1 in flight,
/// and the hole counts as a loss (RFC 6675: 3 PSNs above it acknowledged), so 1 is
/// resent and nothing else.
#[test]
fn sender_takes_the_bitmap_as_acknowledgement() {
    let c = uec(4);
    let mut f = flow(8 * 1000, &c);
    let sent: Vec<Packet> = (0..8).map(|_| f.emit(Time::ZERO, 0)).collect();
    let ack = |cum: u32, sacked: u32, bits: u16| Packet {
        psn: cum,
        sacked_psn: sacked,
        ext: bits,
        kind: PacketKind::Ack,
        flags: 0,
        ..sent[sacked as usize]
    };
    f.on_ack(Time(1), &ack(1, 0, 0), &c);
    f.on_ack(Time(2), &ack(1, 5, 0b1111), &c);
    f.on_ack(Time(3), &ack(1, 7, 0b11_1111), &c);
    assert_eq!(f.sender.cum_acked, 1);
    assert_eq!(f.sender.in_flight, 0, "1 is lost, 0 and 2..7 acknowledged");
    let r = f.emit(Time(3), 0);
    assert_eq!((r.psn, r.has(flags::RETX)), (1, true));
    assert_eq!(f.send_state(Time(3)), SendState::Blocked, "nothing else to resend");
}

/// Go-back-N (RoCEv2): packet 2 of 8 is lost. The receiver accepts 0 and 1, discards
/// 3..7 and sends exactly one NAK (for PSN 2, at the arrival of 3); the sender then
/// resends 2, 3, ..., 7 in order (6 retransmissions, N = 6), and the flow completes
/// with every byte delivered once.
#[test]
fn go_back_n_discards_out_of_order_and_resends_from_the_hole() {
    let mut c = cfg(1);
    c.loss_recovery = LossRecovery::GoBackN;
    let mut f = flow(8 * 1000, &c);
    let sent: Vec<Packet> = (0..8).map(|_| f.emit(Time::ZERO, 0)).collect();
    let mut naks = 0;
    for p in (0..8).filter(|&p| p != 2) {
        let out = f.on_data(Time(1), &sent[p], &c);
        for a in out.acks.into_iter().flatten() {
            if a.sacked_psn >= a.cum {
                naks += 1;
                assert_eq!(a.cum, 2);
            }
            let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: 0, ..sent[p] };
            f.on_ack(Time(2), &ack, &c);
        }
    }
    assert_eq!(naks, 1, "one NAK per gap");
    assert_eq!(f.receiver.rcv_next, 2);
    assert_eq!(f.receiver.delivered, 2000, "out-of-order packets are not kept");
    assert_eq!(f.sender.in_flight, 0, "everything from the hole on is resent");
    let resent: Vec<u32> = (0..6).map(|_| f.emit(Time(3), 0).psn).collect();
    assert_eq!(resent, vec![2, 3, 4, 5, 6, 7]);
    assert_eq!(f.send_state(Time(3)), SendState::Blocked);
    for p in 2..8 {
        let mut pkt = sent[p];
        pkt.flags |= flags::RETX;
        round_trip(&mut f, &pkt, &c);
    }
    assert!(f.sender_done());
    assert_eq!((f.receiver.delivered, f.sender.retransmits), (8000, 6));
}

/// REPS (UEC; `docs/models/reps.md`): an entropy whose ACK came back unmarked is
/// reused, oldest first; a marked one is forgotten; the buffer keeps the newest ones.
#[test]
fn reps_recycles_unmarked_entropies_and_forgets_marked_ones() {
    let c = cfg(1);
    let cc = Box::new(NewReno::new(&NewRenoParams::default(), c.mtu as u64, 100 * c.mtu as u64));
    let mut f = Flow::new(0, 0, 1, 100_000, Time::ZERO, Time::MAX, 0, cc, &c, 7, LbName::Reps, 2);
    f.started = true;
    assert_eq!(f.next_entropy(Time::ZERO, 111, &c), 111, "nothing to recycle yet: a fresh entropy");
    let sent: Vec<Packet> = [10, 20, 30, 40].iter().map(|&e| f.emit(Time::ZERO, e)).collect();
    let ack = |p: &Packet, ece: bool| Packet {
        psn: p.psn + 1,
        sacked_psn: p.psn,
        kind: PacketKind::Ack,
        flags: if ece { flags::ECE } else { 0 },
        ..*p
    };
    f.on_ack(Time(1), &ack(&sent[0], false), &c);
    f.on_ack(Time(1), &ack(&sent[1], true), &c);
    f.on_ack(Time(1), &ack(&sent[2], false), &c);
    f.on_ack(Time(1), &ack(&sent[3], false), &c);
    // 20 was marked; the buffer holds 2, so 10 (oldest) made room for 40.
    assert_eq!(f.next_entropy(Time::ZERO, 999, &c), 30);
    assert_eq!(f.next_entropy(Time::ZERO, 999, &c), 40);
    assert_eq!(f.next_entropy(Time::ZERO, 999, &c), 999);
}

/// What an algorithm hears of through UEC ACKs: every ACK's newly acknowledged bytes and
/// the bytes in flight it reports.
struct Counting(std::sync::Arc<std::sync::Mutex<Vec<(u64, u64)>>>);

impl CongestionControl for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn on_ack(&mut self, a: &AckSample) {
        self.0.lock().unwrap().push((a.newly_acked, a.in_flight));
    }
    fn on_loss(&mut self, _: &LossEvent) {}
    fn on_timeout(&mut self, _: Time, _: u32) {}
    fn cwnd(&self) -> u64 {
        1 << 30
    }
    fn profile(&self) -> crate::cc::TransportProfile {
        crate::cc::TransportProfile { sack_loss_detection: false, ..crate::cc::TransportProfile::default() }
    }
}

/// The received-bytes counter of UEC ACKs (`docs/models/transport.md`): 100 packets of
/// 1,064 wire bytes arrive as 0, then 70..99 (beyond the 64-PSN bitmap of cumulative ACK
/// 1: no ACK names them until the hole fills), then 1..69, ACKed every 4 packets, and
/// every other ACK but the last is lost. The bytes the algorithm hears of add up to the
/// 106,400 bytes delivered, each once; at every ACK the bytes in flight it sees are the
/// bytes sent less the receiver's count at that ACK (nothing is lost), however few PSNs
/// the ACKs named; at the end, zero.
#[test]
fn uec_byte_counter_conserves_bytes_across_coalesced_and_lost_acks() {
    let c = uec(4);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut f = Flow::new(
        0,
        0,
        1,
        100 * 1000,
        Time::ZERO,
        Time::MAX,
        0,
        Box::new(Counting(seen.clone())),
        &c,
        7,
        LbName::Ops,
        8,
    );
    f.started = true;
    let sent: Vec<Packet> = (0..100).map(|_| f.emit(Time::ZERO, 0)).collect();
    let order: Vec<usize> = std::iter::once(0).chain(70..100).chain(1..70).collect();
    let mut expected_in_flight = Vec::new();
    let mut acks = 0;
    for (k, &p) in order.iter().enumerate() {
        for a in f.on_data(Time(1), &sent[p], &c).acks.into_iter().flatten() {
            acks += 1;
            let last = k + 1 == order.len();
            if acks % 2 == 0 && !last {
                continue;
            }
            let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: 0, ..sent[p] };
            let info = UecAck { recvd: a.recvd, sack_bits: a.sack_bits, sack_base: a.sack_base };
            f.on_ack_counted(Time(2), &ack, Some(info), &c);
            expected_in_flight.push(100 * 1064 - a.recvd);
        }
    }
    assert!(f.sender_done());
    let seen = seen.lock().unwrap();
    assert!(acks >= 25 && seen.len() < acks, "coalesced ({acks} ACKs for 100 packets) and some lost");
    assert_eq!(seen.iter().map(|&(newly, _)| newly).sum::<u64>(), 100 * 1064);
    let in_flight: Vec<u64> = seen.iter().map(|&(_, inf)| inf).collect();
    assert_eq!(in_flight, expected_in_flight);
    assert_eq!(*in_flight.last().unwrap(), 0);
}

/// REPS's recycle ratio under coalescing (`docs/models/reps.md`): a flow sends 100
/// packets, and an unmarked ACK comes back after every 4th, naming that packet's entropy.
/// The first 4 choices are fresh; from then on each group of 4 reuses the one recycled
/// entropy and draws 3 fresh: 24 reuses in 100 choices, a ratio of 0.24. With an ACK per
/// packet every choice after the first reuses: 99 of 100.
#[test]
fn reps_recycle_ratio_under_coalesced_acks() {
    for (every, reused) in [(4u32, 24u64), (1, 99)] {
        let c = cfg(1);
        let cc = Box::new(NewReno::new(&NewRenoParams::default(), c.mtu as u64, 1000 * c.mtu as u64));
        let mut f = Flow::new(0, 0, 1, 100_000, Time::ZERO, Time::MAX, 0, cc, &c, 7, LbName::Reps, 256);
        f.started = true;
        for k in 0..100u32 {
            let e = f.next_entropy(Time::ZERO, 1000 + k, &c);
            let p = f.emit(Time::ZERO, e);
            if (k + 1) % every == 0 {
                let ack = Packet { psn: p.psn + 1, sacked_psn: p.psn, kind: PacketKind::Ack, flags: 0, ..p };
                f.on_ack(Time(1), &ack, &c);
            }
        }
        assert_eq!((f.reps.reused, f.reps.fresh), (reused, 100 - reused), "an ACK per {every}");
    }
}

//! Unit tests of the PFC model (docs/models/pfc.md), against hand-worked thresholds.

use super::*;

/// A ring of four pauses is stuck, and so is a node whose bytes all wait on the ring;
/// a chain that ends in a node that can send is not, nor is a node with some bytes in
/// a queue that can move.
#[test]
fn stuck_nodes_are_cycles_and_what_waits_only_on_them() {
    let ring = [(0, 1), (1, 2), (2, 3), (3, 0)];
    assert_eq!(stuck_nodes(4, &ring), vec![true; 4]);
    let mut with_tail = ring.to_vec();
    with_tail.push((4, 0));
    assert_eq!(stuck_nodes(5, &with_tail), vec![true; 5]);
    assert_eq!(stuck_nodes(3, &[(0, 1), (1, 2)]), vec![false; 3]);
    // 5 has bytes behind the ring and behind 6, which can send.
    let mut fork = ring.to_vec();
    fork.extend([(5, 6), (5, 1)]);
    assert_eq!(stuck_nodes(7, &fork), vec![true, true, true, true, false, false, false]);
    assert_eq!(stuck_nodes(2, &[(1, 1)]), vec![false, true], "a self-loop");
}

fn one_link(xoff: u64, xon: u64, headroom: u64) -> Pfc {
    Pfc::new(1 << DATA, 0, vec![Some(PfcThresholds { xoff, xon, headroom })])
}

/// PAUSE exactly when the count first exceeds xoff, once; RESUME exactly when it first
/// falls to xon or below, once (the 802.1Qbb hysteresis).
#[test]
fn pause_above_xoff_resume_at_xon_once_each() {
    let mut pfc = one_link(10_000, 6_000, 5_000);
    let mut frames = Vec::new();
    for h in 0..4u32 {
        frames.push(pfc.arrive(0, h, DATA, 3_000));
    }
    // 3k, 6k, 9k: nothing; 12k > 10k: pause.
    assert_eq!(frames, vec![None, None, None, Some(PfcFrame { port: 0, class: 0, pause: true })]);
    assert_eq!(pfc.arrive(0, 4, DATA, 3_000), None, "already paused");
    // 15k -> 12k -> 9k -> 6k: resume at 6k (= xon).
    let out: Vec<_> = (0..3u32).map(|h| pfc.depart(h, 3_000)).collect();
    assert_eq!(out, vec![None, None, Some(PfcFrame { port: 0, class: 0, pause: false })]);
    assert_eq!(pfc.depart(3, 3_000), None);
    assert_eq!(pfc.headroom_overflows, 0, "15k <= xoff + headroom");
}

/// A lossy class is neither counted nor paused; an ingress link from a host's side
/// (no thresholds) is not counted either.
#[test]
fn lossy_classes_are_not_accounted() {
    let mut pfc = one_link(1, 0, 0);
    assert_eq!(pfc.arrive(0, 0, CONTROL, 100_000), None);
    assert!(!pfc.holds(0));
    let mut hostward = Pfc::new(1, 0, vec![None]);
    assert_eq!(hostward.arrive(0, 0, DATA, 100_000), None);
}

/// Frames for one link leave one serialisation apart even when both are ready at once
/// (a PAUSE and its RESUME within one packet time of the reverse port), so they arrive
/// in the order sent; frames for other links do not wait for them.
#[test]
fn frames_on_one_link_keep_their_order() {
    let mut pfc = Pfc::new(1 << DATA, 0, vec![Some(PfcThresholds { xoff: 1, xon: 0, headroom: 1 }); 2]);
    let ser = Time::from_ps(5_120); // 64 B at 100 Gb/s
    let ready = Time::from_ns(1_000);
    assert_eq!(pfc.frame_departs(0, ready, ser), ready);
    assert_eq!(pfc.frame_departs(0, ready, ser), ready + ser);
    assert_eq!(pfc.frame_departs(1, ready, ser), ready, "another link's frames are independent");
    let later = Time::from_ns(2_000);
    assert_eq!(pfc.frame_departs(0, later, ser), later, "an idle link sends at once");
}

/// Per priority: each level of an ingress link has its own count and its own PAUSE;
/// control stays in its class, and a lossless DATA makes every level lossless.
#[test]
fn per_priority_classes_count_and_pause_each_level_alone() {
    let mut pfc = Pfc::new(1 << DATA, 4, vec![Some(PfcThresholds { xoff: 5_000, xon: 1_000, headroom: 9_000 })]);
    let mut pkt = crate::net::Packet::test_data(0, 0, 3_000);
    let class = |pfc: &Pfc, pkt: &crate::net::Packet| pfc.class_of(pkt);
    pkt.priority = 0;
    assert_eq!(class(&pfc, &pkt), PRIORITY_BASE, "no level: the bottom queue");
    pkt.priority = 9;
    assert_eq!(class(&pfc, &pkt), PRIORITY_BASE + 3, "above the queues: the top one");
    pkt.priority = 2;
    let low = class(&pfc, &pkt);
    pkt.priority = 4;
    let high = class(&pfc, &pkt);
    assert!(pfc.is_lossless(low) && pfc.is_lossless(high) && !pfc.is_lossless(CONTROL));
    assert_eq!(pfc.arrive(0, 0, low, 3_000), None);
    assert_eq!(pfc.arrive(0, 1, high, 3_000), None, "6 kB in all, but 3 kB per level");
    assert_eq!(pfc.arrive(0, 2, low, 3_000), Some(PfcFrame { port: 0, class: low as u8, pause: true }));
    assert!(pfc.apply(PfcFrame { port: 0, class: low as u8, pause: true }, Time::ZERO) == false);
    assert_eq!(pfc.paused_mask(0), 1 << low, "only the low level stops");
    assert_eq!(pfc.depart(0, 3_000), None);
    assert_eq!(pfc.depart(2, 3_000), Some(PfcFrame { port: 0, class: low as u8, pause: false }));
    assert_eq!(pfc.ingress_bytes(0, high), 3_000);
}

/// ACKs at the data's priority: a control packet travels in the class of its level
/// (or `DATA` without per-priority PFC), is counted there, and is paused with that
/// level; without the option it stays in `CONTROL`.
#[test]
fn control_in_data_classes_follows_the_level() {
    let th = vec![Some(PfcThresholds { xoff: 5_000, xon: 1_000, headroom: 9_000 })];
    let mut ack = crate::net::Packet::test_data(0, 0, 64);
    ack.kind = crate::net::PacketKind::Ack;
    ack.priority = 2;
    assert!(ack.is_control());
    let apart = Pfc::new(1 << DATA, 4, th.clone());
    assert_eq!(apart.class_of(&ack), CONTROL);
    let mut with = Pfc::new(1 << DATA, 4, th.clone()).with_control_in_data_classes();
    let level2 = PRIORITY_BASE + 1;
    assert_eq!(with.class_of(&ack), level2);
    assert_eq!(with.arrive(0, 0, level2, 4_000), None);
    assert_eq!(with.arrive(0, 1, level2, 1_500), Some(PfcFrame { port: 0, class: level2 as u8, pause: true }));
    let one_class = Pfc::new(1 << DATA, 0, th).with_control_in_data_classes();
    assert_eq!(one_class.class_of(&ack), DATA);
    assert!(one_class.is_lossless(one_class.class_of(&ack)));
}

/// The class change goes one level up per marked hop, from the bottom level for a packet
/// without one, and stops at the top queue; off, no link raises a class.
#[test]
fn class_per_hop_moves_one_level_up_to_the_top() {
    let th = vec![Some(PfcThresholds { xoff: 5_000, xon: 1_000, headroom: 9_000 })];
    let pfc = Pfc::new(1 << DATA, 3, th.clone()).with_class_change(vec![true]);
    assert_eq!([0, 1, 2, 3, 7].map(|l| pfc.level_after_hop(l)), [2, 2, 3, 3, 3]);
    assert!(pfc.raises_class_from(0));
    let off = Pfc::new(1 << DATA, 3, th.clone()).with_class_change(vec![false]);
    assert!(!off.raises_class_from(0) && !Pfc::new(1 << DATA, 3, th).raises_class_from(0));
}

/// Bytes beyond xoff + headroom are reported, so a test can assert the headroom held.
#[test]
fn headroom_overflow_is_counted() {
    let mut pfc = one_link(1_000, 0, 1_000);
    pfc.arrive(0, 0, DATA, 1_500);
    pfc.arrive(0, 1, DATA, 1_000);
    assert_eq!(pfc.headroom_overflows, 500);
}

/// A pool of 100 kB, α = 1/4, 4,000 B reserved (four 1,000 B packets: none is split
/// between reserve and pool), two switches of two links each.
fn dynamic(headroom: u64) -> Pfc {
    dynamic_with(headroom, DynamicResume::OffsetOrEmpty)
}

fn dynamic_with(headroom: u64, resume: DynamicResume) -> Pfc {
    let th = Some(PfcThresholds { xoff: 0, xon: 0, headroom });
    let shared = SharedBuffer::new(vec![0, 0, 1, 1], vec![100_000, 100_000], 2, 4_000, 3_072, resume);
    Pfc::new(1 << DATA, 0, vec![th; 4]).with_shared_buffer(shared)
}

/// Index of the first of `n` 1,000-byte arrivals on `port` that PAUSEs it.
fn pauses_at(pfc: &mut Pfc, port: u32, first_handle: u32, n: u32) -> Option<u32> {
    (0..n).find(|&k| pfc.arrive(port, first_handle + k, DATA, 1_000).is_some())
}

/// Dynamic threshold: a queue congested alone holds its 4 reserved packets plus
/// α/(1 + α) of the pool, 20 kB (Choudhury & Hahne's steady state, pool share s with
/// s = α(P − s)), and pauses on reaching it.
#[test]
fn dynamic_threshold_alone_holds_alpha_over_one_plus_alpha_of_the_pool() {
    let mut pfc = dynamic(50_000);
    assert_eq!(pauses_at(&mut pfc, 0, 0, 100), Some(4 + 20 - 1));
    assert_eq!(pfc.shared_buffer().unwrap().used(0), 20_000);
    assert_eq!(pfc.shared_buffer().unwrap().used(1), 0);
}

/// Two congested queues of one switch each stop at about α/(1 + 2α) of the pool
/// (16.7 kB), sooner than one alone; a queue of the other switch is not affected.
#[test]
fn dynamic_threshold_shrinks_as_queues_of_one_switch_fill() {
    let mut pfc = dynamic(50_000);
    let mut paused = [None, None];
    for k in 0..40u32 {
        for (q, port) in [0u32, 1].into_iter().enumerate() {
            if paused[q].is_none() && pfc.arrive(port, 100 * port + k, DATA, 1_000).is_some() {
                paused[q] = Some(k);
            }
        }
    }
    // 4 reserved + 17 pooled: 17 kB > 100 kB / 6 ≥ 16 kB.
    assert_eq!(paused, [Some(4 + 17 - 1), Some(4 + 17 - 1)]);
    assert_eq!(pauses_at(&mut pfc, 2, 1_000, 100), Some(4 + 20 - 1), "the other switch's pool is its own");
}

/// Past the pause, bytes go to headroom (overflow beyond it is counted); RESUME once
/// the headroom has drained and the pool share is `resume_offset` below the threshold.
#[test]
fn dynamic_threshold_headroom_then_resume_with_offset() {
    let mut pfc = dynamic(2_500);
    assert_eq!(pauses_at(&mut pfc, 0, 0, 100), Some(23));
    for h in 24..27 {
        assert_eq!(pfc.arrive(0, h, DATA, 1_000), None, "already paused");
    }
    assert_eq!(pfc.headroom_overflows, 500, "3 kB into 2.5 kB of headroom");
    // Drain: 3 headroom packets, then pool share 20 kB − 1 kB·d against threshold
    // 20 kB + 250·d; 20 − d + 3.072 ≤ 20 + 0.25·d from d = 3.
    let frames: Vec<_> = (0..6u32).map(|h| pfc.depart(h, 1_000)).collect();
    let resume = Some(PfcFrame { port: 0, class: DATA as u8, pause: false });
    assert_eq!(frames, vec![None, None, None, None, None, resume]);
}

/// A paused queue's next packet still goes to the pool once the threshold has grown
/// back (other queues drained): admission looks at the share, not at whether headroom
/// is in use. And a packet straddling the reserve's end puts only its excess in the pool.
#[test]
fn dynamic_threshold_admits_to_the_pool_again_after_others_drain() {
    let mut pfc = dynamic(50_000);
    // Port 1 takes 4 kB of reserve and 20 kB of pool; port 0 then pauses at a share of
    // 16 kB (T = (100 − 20 − 16) / 4), its next packet goes to headroom.
    assert_eq!(pauses_at(&mut pfc, 1, 100, 100), Some(23));
    let paused_at = pauses_at(&mut pfc, 0, 0, 100).unwrap();
    assert_eq!(pfc.shared_split(0, DATA), Some((16_000, 0)), "paused by its share");
    pfc.arrive(0, 50, DATA, 1_000);
    assert_eq!(pfc.shared_split(0, DATA), Some((16_000, 1_000)), "T = 16 kB: to headroom");
    for h in 100..124 {
        pfc.depart(h, 1_000);
    }
    pfc.arrive(0, 51, DATA, 1_000);
    assert_eq!(pfc.shared_split(0, DATA), Some((17_000, 1_000)), "T = 21 kB again: to the pool");
    assert_eq!(paused_at, 4 + 16 - 1);
    // 1,500 B packets against the 4,000 B reserve: two fit, the third puts 500 B in the pool.
    let mut straddle = dynamic(50_000);
    for h in 0..3 {
        straddle.arrive(2, h, DATA, 1_500);
    }
    assert_eq!(straddle.shared_split(2, DATA), Some((500, 0)));
    assert_eq!(straddle.shared_buffer().unwrap().used(1), 500);
}

/// The PrioPlus artefact's rule. With under 12 KiB of the pool free (T below the 3 KiB
/// resume offset at α = 1/4), a queue that drains does not resume by its departures; its
/// pause is renewed while it has headroom in use and runs out once it has none. The
/// default rule resumes it as its pool share reaches 0. Pools of 14,000 B; thresholds
/// T = (14,000 − pool bytes in use) / 4, worked by hand in the comments.
#[test]
fn offset_or_expiry_keeps_a_drained_queue_paused_until_its_pause_runs_out() {
    let resume_frame = PfcFrame { port: 0, class: DATA as u8, pause: false };
    for resume in [DynamicResume::OffsetOrEmpty, DynamicResume::OffsetOrExpiry] {
        let th = Some(PfcThresholds { xoff: 0, xon: 0, headroom: 50_000 });
        let shared = SharedBuffer::new(vec![0, 0, 1, 1], vec![14_000, 14_000], 2, 4_000, 3_072, resume);
        let mut pfc = Pfc::new(1 << DATA, 0, vec![th; 4]).with_shared_buffer(shared);
        // Port 1: 4 packets of reserve, then 1, 2, 3 kB of pool against T = 3,500,
        // 3,250, 3,000; at 3 kB, T = 2,750: paused (3,000 ≥ and > 2,750).
        assert_eq!(pauses_at(&mut pfc, 1, 100, 7), Some(6));
        // Port 0: reserve, then 1 kB (T 2,500 after), 2 kB (T 2,250), and the next
        // packet (3 kB > 2,250) goes to headroom: paused.
        assert_eq!(pauses_at(&mut pfc, 0, 0, 7), Some(6));
        assert_eq!(pfc.shared_split(0, DATA), Some((2_000, 1_000)));
        let expire = resume == DynamicResume::OffsetOrExpiry;
        assert_eq!(pfc.pauses_expire(), expire);
        if expire {
            pfc.arm_recheck(0, DATA as u8, Time::from_us(335));
            assert_eq!(pfc.recheck(0, DATA as u8, Time::from_us(334)), Recheck::Stale, "not the armed time");
            assert_eq!(pfc.recheck(0, DATA as u8, Time::from_us(335)), Recheck::Renew, "headroom in use");
        }
        // Departures: headroom first (share 2 kB, T 2,250), then the pool (1 kB, T 2,500;
        // 0, T 2,750), then the reserve. 0 + 3,072 > 2,750: only the default rule resumes.
        let frames: Vec<_> = (0..7u32).map(|h| pfc.depart(h, 1_000)).collect();
        let mut want = vec![None; 7];
        if !expire {
            want[2] = Some(resume_frame);
        }
        assert_eq!(frames, want, "{resume:?}");
        if expire {
            pfc.arm_recheck(0, DATA as u8, Time::from_us(670));
            assert_eq!(pfc.recheck(0, DATA as u8, Time::from_us(670)), Recheck::Expire(resume_frame));
            assert_eq!(pfc.recheck(0, DATA as u8, Time::from_us(670)), Recheck::Stale, "ended once");
        }
    }
}

#[test]
fn frames_survive_the_event_encoding() {
    for f in [
        PfcFrame { port: 0, class: 1, pause: true },
        PfcFrame { port: MAX_PORTS as u32 - 1, class: 0, pause: false },
        PfcFrame { port: 12_345, class: MAX_CLASSES as u8 - 1, pause: true },
    ] {
        assert_eq!(PfcFrame::decode(f.encode()), f);
    }
}

/// Paused time accumulates from PAUSE to RESUME.
#[test]
fn paused_time_is_measured() {
    let mut pfc = one_link(1, 0, 0);
    let f = PfcFrame { port: 0, class: 0, pause: true };
    assert!(!pfc.apply(f, Time::from_us(1)));
    assert!(pfc.is_paused(0, DATA));
    assert!(pfc.apply(PfcFrame { pause: false, ..f }, Time::from_us(4)));
    assert!(!pfc.is_paused(0, DATA));
    assert_eq!(pfc.paused_time(0, DATA, Time::from_us(4)), Time::from_us(3));
    assert_eq!((pfc.stats[0].pause_frames, pfc.stats[0].resume_frames), (1, 1));
    assert_eq!(pfc.paused_time(0, DATA, Time::from_us(9)), Time::from_us(3));
    pfc.apply(f, Time::from_us(10));
    assert_eq!(pfc.paused_time(0, DATA, Time::from_us(12)), Time::from_us(5), "a pause in force counts");
}

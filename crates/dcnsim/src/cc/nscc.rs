//! SMaRTT / UEC NSCC (Bonato et al., "SMaRTT: Sender-based Marked Rapidly-adapting Trimmed
//! & Timed Transport", arXiv 2404.01630 v4, §III, Algorithms 1–4, Eqs. 1–3) and MNSCC
//! ("Congestion Control for Spraying with Congested Paths", Gerstein, Silberstein,
//! Keslassy, arXiv 2509.07907 v2, §III-B). What is modelled, the parameters with their
//! sources and the known deviations: `docs/models/nscc.md`.
//!
//! One window (bytes) covers every path of a sprayed flow. Each ACK is sorted by its ECN
//! echo and its delay against a target (SMaRTT §III-I, Algorithm 1):
//!
//! | ECN | delay ≥ target | reaction |
//! |-----|----------------|----------|
//! | yes | yes | multiplicative decrease from the averaged delay, once per base RTT |
//! | yes | no  | none: the load balancer (REPS) drops the entropy (the transport does that) |
//! | no  | yes | fair increase: about `fi` MTU per RTT whatever the window |
//! | no  | no  | proportional increase (≤ 1 MTU per RTT unscaled), then fair increase |
//!
//! On top: **QuickAdapt** (§III-E) sets the window to the bytes actually delivered in the
//! last target RTT after a trim (NACK), or after a very high delay when switches do not
//! trim, then ignores the feedback of the packets already in flight; **FastIncrease**
//! (§III-F) adds 2 MTU per ACK once a window's worth of bytes came back uncongested.
//! Increase constants scale with the network BDP (or the path's) over a reference BDP (§III-J).
//!
//! Two modes (`docs/models/nscc.md`, "Modes and variants"): `smartt_paper` (default)
//! follows the paper's pseudocode with dcnsim's readings of what it leaves open
//! (`docs/reproductions/smartt-paper.md`, "Decisions and errata"); `nscc_htsim` follows the UEC
//! NSCC of uet-htsim (queueing-delay target, batched increases, η, htsim's QuickAdapt
//! gate and ignore rule). MNSCC is either mode deciding on the median of the last H
//! delays, H = max(min(⌊W/2⌋, 4), 1) (MSwift paper Eq. 9).
//!
//! NSCC tolerates reordering: it never declares a loss from SACK holes (the transport
//! asks `sack_loss_detection`); recovery is by NACK (trimming) and a fixed RTO that only
//! retransmits packets outstanding for a whole RTO (`TimeoutPolicy::Expired`).

mod params;
pub use params::*;

use super::median::{nyquist_history, PercentileWindow};
use super::swift::History;
use super::{AckSample, CongestionControl, FlowInfo, LossEvent, NackSample};
use crate::cc::TransportProfile;
use crate::units::Time;

/// htsim's reference round trip for its scaling constants (uet-htsim's NSCC: 100 Gbps,
/// 12 µs), and the BDP of that reference.
const REFERENCE_RTT: Time = Time::from_us(12);
const HTSIM_REFERENCE_BDP: f64 = 150_000.0;

pub struct Nscc {
    p: NsccParams,
    /// MNSCC: decides on a percentile of recent delays.
    window: Option<PercentileWindow>,
    mtu: f64,
    /// Bottleneck rate of the path, bytes per second.
    rate: f64,
    trimming: bool,
    /// Unloaded RTT; lowered by any smaller sample (`docs/models/nscc.md`).
    brtt: Time,
    /// The fabric's largest unloaded RTT and its BDP (bytes): the network-wide scope's
    /// target and scaling (the flow's own path when the fabric's is unknown).
    net_rtt: Time,
    net_bdp: f64,
    /// The BDP the paper mode's increase constants are scaled against (`bdp_ref`).
    bdp_ref: f64,
    /// Fair Decrease's denominator, bytes: the network BDP (`scope = "network"`) or the
    /// path's, bottleneck rate × base RTT (`scope = "path"`).
    decrease_bdp: f64,
    /// Fair Decrease's wait-to-decrease: moving average of the marked share of the ACKs
    /// over about one network RTT, when it last moved, and the decreases it let through.
    ecn_share: f64,
    ecn_share_at: Time,
    fair_decreases: u64,
    // Derived from `brtt` (`set_base_rtt`).
    trtt: Time,
    maxwnd: f64,
    scale: f64,
    pi: f64,
    // htsim constants (`docs/models/nscc.md`, `nscc_htsim` mode), fixed per flow.
    network_rtt: Time,
    target_q: Time,
    h_alpha: f64,
    h_fi: f64,
    h_eta: f64,
    h_fi_scale: f64,
    min_cwnd: f64,
    cwnd: f64,
    /// The transport's bytes in flight at the latest ACK/NACK (the paper's `unacked`).
    in_flight_now: f64,
    rto: Time,
    /// Averaged RTT (paper) or queueing delay (htsim), seconds; `None` before a sample.
    avg: Option<f64>,
    last_md: Option<Time>,
    /// QuickAdapt: bytes delivered in the current window, which ends at `qa_end` (0: none yet).
    acked: f64,
    qa_end: Time,
    trigger_qa: bool,
    bytes_to_ignore: f64,
    bytes_ignored: f64,
    /// FastIncrease: uncongested bytes in a row, and whether it is on.
    fi_count: f64,
    increasing: bool,
    // htsim batching (SMaRTT §III-G's accumulate variant).
    inc_bytes: f64,
    received: f64,
    last_adjust: Time,
    last_decision_delay: Time,
    md_count: u64,
    qa_count: u64,
    fast_increase_acks: u64,
    ignored_acks: u64,
    nacks: u64,
    timeouts: u64,
    /// `Adjustment::Accumulate`: increases not yet applied, bytes acknowledged since the
    /// last application and when that was. `Sample`: ACKs and bytes since the last sample.
    pending_increase: f64,
    pending_bytes: f64,
    pending_since: Time,
    pending_acks: u32,
}

impl Nscc {
    /// `median`: MNSCC.
    pub fn new(p: &NsccParams, median: bool, info: &FlowInfo) -> Nscc {
        let mtu = info.mtu as f64;
        let rate = info.bottleneck.bps() as f64 / 8.0;
        let (net_rtt, net_bdp) = if info.network_rtt > Time::ZERO {
            (info.network_rtt, info.network_bdp as f64)
        } else {
            (info.base_rtt, rate * info.base_rtt.as_secs_f64())
        };
        let network_wide = p.scope == Scope::Network;
        let network_rtt = p.network_rtt.or(if network_wide { net_rtt } else { info.base_rtt });
        let bdp_ref = match (p.bdp_ref, p.mode) {
            (AutoBytes::Fixed(b), _) => b as f64,
            (AutoBytes::Auto, NsccMode::SmarttPaper) => net_bdp,
            (AutoBytes::Auto, NsccMode::NsccHtsim) => HTSIM_REFERENCE_BDP,
        };
        let auto_q = if info.trimming { network_rtt.mul_f64(0.75) } else { network_rtt };
        let target_q = p.target_qdelay.or(auto_q);
        let mss = (info.mtu - info.header.min(info.mtu - 1)) as f64;
        let sa = rate * network_rtt.as_secs_f64() / bdp_ref;
        let sb = target_q.as_secs_f64() / REFERENCE_RTT.as_secs_f64();
        let drain = Time::from_secs_f64(info.switch_buffer as f64 / rate);
        let window = median.then(|| {
            PercentileWindow::new(match p.history {
                History::Auto => 4,
                History::Fixed(n) => n as usize,
            })
        });
        let mut n = Nscc {
            p: p.clone(),
            window,
            mtu,
            rate,
            trimming: info.trimming,
            brtt: info.base_rtt,
            net_rtt,
            net_bdp,
            bdp_ref,
            decrease_bdp: 0.0,
            ecn_share: 0.0,
            ecn_share_at: Time::ZERO,
            fair_decreases: 0,
            trtt: Time::ZERO,
            maxwnd: 0.0,
            scale: 0.0,
            pi: 0.0,
            network_rtt,
            target_q,
            h_alpha: 4.0 * mss * sa * sb / target_q.as_secs_f64(),
            h_fi: 5.0 * mss * sa,
            h_eta: 0.15 * mss * sa,
            h_fi_scale: 0.25 * sa,
            min_cwnd: p.min_cwnd_pkts * mtu,
            cwnd: 0.0,
            in_flight_now: 0.0,
            rto: p.rto.or(Time::from_us(15) + drain.mul_f64(6.0)),
            avg: None,
            last_md: None,
            acked: 0.0,
            qa_end: Time::ZERO,
            trigger_qa: false,
            bytes_to_ignore: 0.0,
            bytes_ignored: 0.0,
            fi_count: 0.0,
            increasing: false,
            inc_bytes: 0.0,
            received: 0.0,
            last_adjust: Time::ZERO,
            last_decision_delay: Time::ZERO,
            md_count: 0,
            qa_count: 0,
            fast_increase_acks: 0,
            ignored_acks: 0,
            pending_increase: 0.0,
            pending_bytes: 0.0,
            pending_since: Time::ZERO,
            pending_acks: 0,
            nacks: 0,
            timeouts: 0,
        };
        n.set_base_rtt(info.base_rtt);
        n.cwnd = match p.initial_cwnd {
            InitialCwnd::Maxwnd => n.maxwnd,
            InitialCwnd::Bdp => n.rate * n.brtt.as_secs_f64(),
            InitialCwnd::Transport => info.initial_window as f64,
        };
        n.clamp();
        n
    }

    /// Recomputes what depends on the base RTT: target, BDP-scaled constants, largest window.
    fn set_base_rtt(&mut self, brtt: Time) {
        self.brtt = brtt;
        let bdp = self.rate * brtt.as_secs_f64();
        let network_wide = self.p.scope == Scope::Network;
        let queue_rtt = self.p.target_queue_rtt.or(if network_wide { self.net_rtt } else { brtt });
        self.trtt = brtt + queue_rtt.mul_f64(self.p.target_ratio - 1.0);
        // uet-htsim caps every flow's window at 1.5 × the network BDP; the paper's cap is
        // the flow's own path BDP.
        let capped = if network_wide && self.p.mode == NsccMode::NsccHtsim { self.net_bdp } else { bdp };
        self.maxwnd = (self.p.max_cwnd_bdp * capped).max(self.min_cwnd);
        let scaled = if network_wide { self.net_bdp } else { bdp };
        self.decrease_bdp = scaled;
        self.scale = if self.p.bdp_scaling { scaled / self.bdp_ref } else { 1.0 };
        let headroom = (self.trtt - brtt).as_secs_f64();
        self.pi = self.p.pi.unwrap_or(if headroom > 0.0 { brtt.as_secs_f64() / headroom } else { 0.0 });
    }

    pub fn cwnd_bytes(&self) -> f64 {
        self.cwnd
    }

    pub fn max_cwnd(&self) -> f64 {
        self.maxwnd
    }

    pub fn target_rtt(&self) -> Time {
        self.trtt
    }

    fn clamp(&mut self) {
        self.cwnd = self.cwnd.clamp(self.min_cwnd, self.maxwnd);
    }

    fn ignoring(&self) -> bool {
        self.bytes_ignored < self.bytes_to_ignore
    }

    /// The RTT the decisions use: the sample itself, or (MNSCC) a percentile of the last H
    /// samples, H = max(min(⌊W/2⌋, 4), 1) with W the window in packets
    /// (MSwift paper Eq. 9).
    fn decision_rtt(&mut self, sample: Time) -> Time {
        let h = self.history_len();
        let Some(w) = self.window.as_mut() else { return sample };
        w.push(sample);
        w.percentile(h, self.p.percentile).unwrap_or(sample)
    }

    /// MNSCC's H: NSCC adds about one packet per 8 packets or per RTT, whichever is first,
    /// so K = min(W, 8) and H = max(⌊K/2⌋, 1) (MSwift paper Eq. 7–9).
    fn history_len(&self) -> usize {
        match self.p.history {
            History::Auto => nyquist_history((self.cwnd / self.mtu).min(8.0)),
            History::Fixed(n) => n as usize,
        }
    }

    fn ewma(&mut self, x: f64) {
        let g = self.p.ewma_gain;
        self.avg = Some(match self.avg {
            None => x,
            Some(a) => g * x + (1.0 - g) * a,
        });
    }

    /// Eq. 1, at most once per base RTT; a no-op while the average is at or below target.
    fn multiplicative_decrease(&mut self, now: Time, target: f64) {
        if self.last_md.is_some_and(|t| now - t < self.brtt) {
            return;
        }
        let Some(avg) = self.avg.filter(|&a| a > target) else { return };
        self.cwnd *= (1.0 - self.p.beta * (avg - target) / avg).max(1.0 - self.p.max_mdf);
        self.last_md = Some(now);
        self.md_count += 1;
    }

    // ---- smartt_paper ------------------------------------------------------------------

    /// Algorithm 2. `delay_trigger`: without trimming, the high-delay condition of §III-E-a.
    fn quick_adapt(&mut self, now: Time, delay_trigger: bool) -> bool {
        if !self.p.quick_adapt || now < self.qa_end {
            return false;
        }
        let mut adapted = false;
        if self.qa_end != Time::ZERO && (self.trigger_qa || delay_trigger) {
            self.trigger_qa = false;
            adapted = true;
            self.cwnd = (self.acked * self.p.qa_scaling).max(self.mtu);
            if self.p.qa_ignore {
                self.bytes_to_ignore = self.in_flight_now;
            }
            self.bytes_ignored = 0.0;
            self.qa_count += 1;
        }
        self.qa_end = now + self.trtt;
        self.acked = 0.0;
        adapted
    }

    /// Algorithm 3.
    fn fast_increase(&mut self, rtt: Time, ece: bool, newly: f64) -> bool {
        if !self.p.fast_increase {
            return false;
        }
        if rtt.saturating_sub(self.brtt) < self.p.fast_increase_delay.0 && !ece {
            self.fi_count += newly;
            if self.fi_count > self.cwnd || self.increasing {
                self.cwnd += self.p.fast_increase_k * self.mtu;
                self.increasing = true;
                self.fast_increase_acks += 1;
                return true;
            }
        } else {
            self.fi_count = 0.0;
            self.increasing = false;
        }
        false
    }

    /// Algorithm 1 / Eqs. 1–3, or one signal alone (`signals`, Fig. 5).
    fn core_cases(&mut self, now: Time, rtt: Time, ece: bool, newly: f64) {
        let trtt = self.trtt.as_secs_f64();
        if ece && self.p.decrease == Decrease::Fair && self.p.signals != Signals::DelayOnly {
            self.fair_decrease(newly);
            return;
        }
        match self.p.signals {
            Signals::Both => match (ece, rtt >= self.trtt) {
                (true, true) => self.multiplicative_decrease(now, trtt),
                // Case 2: the window stays; REPS does not recycle a marked entropy.
                (true, false) => {
                    if self.p.case2 == Case2::Decrease {
                        self.cwnd -= newly / 2.0;
                    }
                }
                (false, true) => self.increase(self.fair_step(newly)),
                (false, false) => self.proportional_then_fair(rtt, newly),
            },
            Signals::EcnOnly if ece => self.cwnd -= newly / 2.0,
            Signals::EcnOnly => self.proportional_then_fair(self.brtt, newly),
            Signals::DelayOnly if rtt >= self.trtt => self.multiplicative_decrease(now, trtt),
            Signals::DelayOnly => self.proportional_then_fair(rtt, newly),
        }
    }

    /// Eq. 2: about `fi` × scale MTU per window of acknowledged bytes.
    fn fair_step(&self, newly: f64) -> f64 {
        newly / self.cwnd * self.mtu * self.p.fi * self.scale
    }

    /// Case 4: Eq. 3 (at most one MTU per RTT before scaling), then (`fi_after_pi`) Eq. 2.
    fn proportional_then_fair(&mut self, rtt: Time, newly: f64) {
        let trtt = self.trtt.as_secs_f64();
        let r = rtt.as_secs_f64().max(1e-12);
        let proportional = (trtt - r) / r * (newly / self.cwnd) * self.mtu * self.pi * self.scale;
        // Both terms are computed on the window before either is added.
        let fair = self.fair_step(newly);
        self.increase(proportional.min(newly));
        if self.p.fi_after_pi {
            self.increase(fair);
        }
    }

    /// Fair Decrease (`decrease = "fair"`): W −= fd · W · acked / BDP, once the marked
    /// share has passed the wait-to-decrease threshold. The BDP is a constant of the
    /// network in the MSwift paper's model of it (its appendix), so the scope's: the
    /// network's, or with `scope = "path"` the path's, as the increase constants are.
    fn fair_decrease(&mut self, newly: f64) {
        if self.ecn_share <= self.p.wait_to_decrease {
            return;
        }
        self.cwnd -= self.p.fair_decrease_gain * self.cwnd * newly / self.decrease_bdp.max(self.mtu);
        self.fair_decreases += 1;
    }

    /// Wait-to-decrease's moving average of the marked share, over time: each ACK moves it
    /// towards 1 (marked) or 0 by the time since the previous ACK over the network RTT,
    /// so every flow averages over the same span whatever its own RTT or window (an
    /// average over a flow's own window would let a short-RTT flow cross the threshold
    /// more often than a long one on the same queue).
    fn track_ecn_share(&mut self, now: Time, ece: bool) {
        let span = self.net_rtt.as_secs_f64().max(1e-12);
        let gain = (now.saturating_sub(self.ecn_share_at).as_secs_f64() / span).min(1.0);
        self.ecn_share_at = now;
        let marked = if ece { 1.0 } else { 0.0 };
        self.ecn_share += gain * (marked - self.ecn_share);
    }

    fn on_ack_paper(&mut self, a: &AckSample, rtt: Time, raw: Time) {
        let newly = a.newly_acked as f64;
        let feed = if self.p.median_feeds_ewma { rtt } else { raw };
        self.ewma(feed.as_secs_f64());
        if self.p.decrease == Decrease::Fair {
            self.track_ecn_share(a.now, a.ece);
        }
        self.acked += newly;
        self.bytes_ignored += newly;
        if self.ignoring() {
            self.ignored_acks += 1;
            // dcnsim's reading of Algorithm 4 (`docs/models/nscc.md`, `qa_literal`): the
            // measurement window keeps rolling so QuickAdapt never measures
            // over more than one target RTT; it just cannot fire.
            if !self.p.qa_literal && a.now >= self.qa_end && self.qa_end != Time::ZERO {
                self.qa_end = a.now + self.trtt;
                self.acked = 0.0;
            }
            return;
        }
        let delay_trigger = !self.trimming && self.delay_is_extreme(rtt) && self.acked_is_low();
        let adapted = self.quick_adapt(a.now, delay_trigger);
        let fast = self.fast_increase(rtt, a.ece, newly);
        if !(adapted || fast) {
            if let Some(bytes) = self.sampled(newly) {
                self.core_cases(a.now, rtt, a.ece, bytes);
            }
        }
        self.apply_accumulated(a.now, newly);
        self.clamp();
    }

    /// An increase of the window, now or (`Accumulate`) at the next application.
    fn increase(&mut self, bytes: f64) {
        match self.p.adjustment {
            Adjustment::Accumulate => self.pending_increase += bytes,
            _ => self.cwnd += bytes,
        }
    }

    /// `Sample`: whether this ACK is the n-th, and the bytes acknowledged since the last
    /// one; otherwise every ACK counts with its own bytes.
    fn sampled(&mut self, newly: f64) -> Option<f64> {
        if self.p.adjustment != Adjustment::Sample {
            return Some(newly);
        }
        self.pending_acks += 1;
        self.pending_bytes += newly;
        if self.pending_acks < self.p.adjustment_packets {
            return None;
        }
        let bytes = self.pending_bytes;
        self.pending_acks = 0;
        self.pending_bytes = 0.0;
        Some(bytes)
    }

    /// `Accumulate`: applies the pending increases once `adjustment_packets` MTUs have been
    /// acknowledged or a base RTT has passed since the last application.
    fn apply_accumulated(&mut self, now: Time, newly: f64) {
        if self.p.adjustment != Adjustment::Accumulate {
            return;
        }
        self.pending_bytes += newly;
        if self.pending_bytes >= self.p.adjustment_packets as f64 * self.mtu || now - self.pending_since >= self.brtt {
            self.cwnd += self.pending_increase;
            self.pending_increase = 0.0;
            self.pending_bytes = 0.0;
            self.pending_since = now;
        }
    }

    /// Without trimming (§III-E-a, thresholds from uet-htsim; `docs/models/nscc.md`): the
    /// queueing delay exceeds `qa_delay_factor` target queueing delays.
    fn delay_is_extreme(&self, rtt: Time) -> bool {
        let allowed = (self.trtt - self.brtt).mul_f64(self.p.qa_delay_factor);
        rtt.saturating_sub(self.brtt) > allowed
    }

    fn acked_is_low(&self) -> bool {
        self.acked < self.maxwnd / (1u64 << self.p.qa_gate) as f64
    }

    fn on_nack_paper(&mut self, now: Time, bytes: f64) {
        // §III-E: the feedback of the bytes in flight at a QuickAdapt cut is ignored, a
        // NACK's included (uet-htsim skips the decrease too); Algorithm 4's line 16
        // subtracts it anyway (`qa_literal`).
        let pre_cut = self.ignoring();
        self.bytes_ignored += bytes;
        if !pre_cut || self.p.qa_literal {
            self.cwnd -= bytes;
        }
        if !self.ignoring() {
            self.trigger_qa = true;
            self.quick_adapt(now, false);
        } else if self.p.qa_literal {
            self.trigger_qa = true;
        }
        self.clamp();
    }

    // ---- nscc_htsim --------------------------------------------------------------------

    /// The averaged queueing delay; stale high delay without ECN pulls it towards brtt/4
    /// (uet-htsim's NSCC; `docs/models/nscc.md`, `nscc_htsim` mode).
    fn htsim_avg_delay(&mut self, delay: Time, ecn: bool) {
        let x = if !ecn && delay > self.target_q { self.brtt.mul_f64(0.25) } else { delay };
        self.ewma(x.as_secs_f64());
    }

    /// htsim's QuickAdapt. Returns true when the rest of the ACK must be skipped (it fired,
    /// or this is marked feedback of the ignored bytes).
    fn htsim_quick_adapt(&mut self, now: Time, is_loss: bool, ecn: bool, delay: Time) -> bool {
        if !self.p.quick_adapt {
            return false;
        }
        let mut done = false;
        if self.ignoring() && ecn {
            self.ignored_acks += 1;
            done = true;
        } else if now > self.qa_end {
            let threshold = self.target_q.mul_f64(self.p.qa_delay_factor);
            let triggered = self.trigger_qa || is_loss || delay > threshold;
            if self.qa_end != Time::ZERO && triggered && self.acked_is_low() {
                self.cwnd = (self.acked * self.p.qa_scaling).max(self.min_cwnd);
                if self.p.qa_ignore {
                    self.bytes_to_ignore = self.in_flight_now;
                }
                self.bytes_ignored = 0.0;
                self.trigger_qa = false;
                self.qa_count += 1;
                done = true;
            }
            self.acked = 0.0;
            self.qa_end = now + self.brtt + self.target_q;
        }
        if done {
            self.inc_bytes = 0.0;
            self.received = 0.0;
        }
        done
    }

    fn on_ack_htsim(&mut self, a: &AckSample, rtt: Time, raw: Time) {
        let now = a.now;
        let newly = a.newly_acked as f64;
        self.acked += newly;
        self.received += newly;
        self.bytes_ignored += newly;
        let delay = rtt.saturating_sub(self.brtt);
        let feed = if self.p.median_feeds_ewma { delay } else { raw.saturating_sub(self.brtt) };
        self.htsim_avg_delay(feed, a.ece);
        if self.htsim_quick_adapt(now, false, a.ece, delay) {
            self.clamp();
            return;
        }
        let target = self.target_q;
        match (a.ece, delay >= target) {
            (false, true) => self.inc_bytes += self.h_fi * newly,
            (false, false) => {
                let mut fast = false;
                if self.p.fast_increase && delay < self.p.fast_increase_delay.0 {
                    self.fi_count += newly;
                    if self.fi_count > self.cwnd || self.increasing {
                        self.cwnd += newly * self.h_fi_scale;
                        self.increasing = true;
                        self.fast_increase_acks += 1;
                        fast = true;
                    }
                } else {
                    self.fi_count = 0.0;
                    self.increasing = false;
                }
                if !fast {
                    self.inc_bytes += self.h_alpha * newly * (target - delay).as_secs_f64();
                }
            }
            (true, true) => {
                self.fi_count = 0.0;
                self.increasing = false;
                self.multiplicative_decrease(now, target.as_secs_f64());
            }
            (true, false) => {}
        }
        self.clamp();
        if self.received > 8.0 * self.mtu || now - self.last_adjust > self.network_rtt {
            self.cwnd += self.inc_bytes / self.cwnd;
            if now - self.last_adjust >= self.network_rtt {
                self.cwnd += self.h_eta;
                self.last_adjust = now;
            }
            self.inc_bytes = 0.0;
            self.received = 0.0;
        }
        self.clamp();
    }

    fn on_nack_htsim(&mut self, now: Time, bytes: f64) {
        self.bytes_ignored += bytes;
        // A trim stands for a full queue: feed the average a marked sample of one network RTT.
        self.htsim_avg_delay(self.network_rtt, true);
        self.trigger_qa = true;
        let skipped = self.htsim_quick_adapt(now, true, true, self.network_rtt);
        if !skipped {
            self.cwnd -= bytes;
        }
        self.clamp();
    }
}

impl CongestionControl for Nscc {
    fn name(&self) -> &'static str {
        if self.window.is_some() {
            "mnscc"
        } else {
            "nscc"
        }
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile::uec_sender(self.rto)
    }

    fn on_ack(&mut self, a: &AckSample) {
        self.in_flight_now = a.in_flight as f64;
        let raw = a.rtt;
        if raw > Time::ZERO && raw < self.brtt {
            self.set_base_rtt(raw);
        }
        let rtt = self.decision_rtt(raw);
        self.last_decision_delay = rtt;
        match self.p.mode {
            NsccMode::SmarttPaper => self.on_ack_paper(a, rtt, raw),
            NsccMode::NsccHtsim => self.on_ack_htsim(a, rtt, raw),
        }
    }

    /// Never called: NSCC turns SACK-hole loss detection off.
    fn on_loss(&mut self, _ev: &LossEvent) {}

    fn on_nack(&mut self, n: &NackSample) {
        self.nacks += 1;
        self.in_flight_now = n.in_flight as f64;
        match self.p.mode {
            NsccMode::SmarttPaper => self.on_nack_paper(n.now, n.bytes as f64),
            NsccMode::NsccHtsim => self.on_nack_htsim(n.now, n.bytes as f64),
        }
    }

    /// The reaction is per expired packet (`on_packet_expired`).
    fn on_timeout(&mut self, _now: Time, _snd_nxt: u32) {}

    /// `docs/models/nscc.md`, "Timeout": each expired packet is a timeout of its own,
    /// `cwnd = max(cwnd − size, MTU)`. Paper mode: a packet sent before a QuickAdapt cut
    /// takes nothing more off the window (§III-E-a), and, like a NACK, its bytes count as
    /// feedback of the ignore phase (Alg. 4 counts every feedback packet's bytes;
    /// `bytes_to_ignore` is the `unacked` of the cut, which timed-out packets leave), or a
    /// flow whose in-flight bytes at the cut were mostly lost would ignore its ACKs until
    /// it ends.
    fn on_packet_expired(&mut self, _now: Time, bytes: u64) {
        self.timeouts += 1;
        let bytes = bytes as f64;
        if self.p.mode == NsccMode::SmarttPaper {
            let pre_cut = self.ignoring();
            self.bytes_ignored += bytes;
            if pre_cut {
                return;
            }
        }
        self.cwnd = (self.cwnd - bytes).max(self.mtu);
        self.clamp();
    }

    fn cwnd(&self) -> u64 {
        (self.cwnd as u64).max(1)
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("cwnd_pkts", self.cwnd / self.mtu);
        out("maxwnd_pkts", self.maxwnd / self.mtu);
        out("base_rtt_us", self.brtt.as_us_f64());
        out(
            "target_us",
            match self.p.mode {
                NsccMode::SmarttPaper => self.trtt.as_us_f64(),
                NsccMode::NsccHtsim => self.target_q.as_us_f64(),
            },
        );
        out("avg_us", self.avg.unwrap_or(0.0) * 1e6);
        out("decision_delay_us", self.last_decision_delay.as_us_f64());
        out("md", self.md_count as f64);
        out("fair_decreases", self.fair_decreases as f64);
        out("quick_adapt", self.qa_count as f64);
        out("fast_increase_acks", self.fast_increase_acks as f64);
        out("ignored_acks", self.ignored_acks as f64);
        out("nacks", self.nacks as f64);
        out("timeouts", self.timeouts as f64);
        out("rto_us", self.rto.as_us_f64());
    }
}

#[cfg(test)]
mod tests;

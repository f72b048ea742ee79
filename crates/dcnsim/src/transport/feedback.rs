//! What comes back to a sender: ACKs (cumulative, SACK bitmap, the receiver's byte count),
//! NACKs, timeouts and credit stalls; RTT estimation, loss detection and recovery, and the
//! samples and events handed to the congestion control. `docs/models/transport.md`.

use super::*;

impl Flow {
    /// An ACK's SACK bitmap: PSN `base + j` arrived for each bit j (`base` is `cum + 1`
    /// except on UEC ACKs, `UecAck::sack_base`). Returns the wire bytes it newly
    /// acknowledges. (Whether an arrival was an original or its resend is
    /// not in the bitmap, so unlike the ACK's own PSN it teaches loss detection nothing.)
    #[cold]
    pub(super) fn sack_bitmap(&mut self, base: u32, bits: u64) -> u64 {
        let mut newly = 0;
        let mut rest = bits;
        while rest != 0 {
            let psn = base + rest.trailing_zeros();
            rest &= rest - 1;
            let base = self.sender.cum_acked;
            if psn < base || psn >= self.sender.next_new {
                continue;
            }
            self.sender.highest_acked = self.sender.highest_acked.max(psn + 1);
            newly += self.mark_acked(psn, (psn - base) as usize);
        }
        newly
    }

    /// PSN `psn` (index `i` above `cum_acked`) is acknowledged: out of the bytes in flight
    /// unless already counted out as lost. Returns the wire bytes it newly acknowledges.
    #[inline]
    pub(super) fn mark_acked(&mut self, psn: u32, i: usize) -> u64 {
        let st = self.sender.state[i];
        if st == ACKED {
            return 0;
        }
        let sz = self.wire_size(psn) as u64;
        if st != LOST {
            self.sender.in_flight -= sz;
        }
        self.sender.state[i] = ACKED;
        sz
    }

    pub(super) fn update_rtt(&mut self, sample: Time, cfg: &TransportConfig) {
        let s = &mut self.sender;
        s.min_rtt = s.min_rtt.min(sample);
        match s.srtt {
            None => {
                s.srtt = Some(sample);
                s.rttvar = Time(sample.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(sample.0);
                s.rttvar = Time((3 * s.rttvar.0 + err) / 4);
                s.srtt = Some(Time((7 * srtt.0 + sample.0) / 8));
            }
        }
        let base = s.srtt.unwrap().0 + 4 * s.rttvar.0;
        s.rto = s.fixed_rto.unwrap_or(Time(base).max(cfg.rto_min).min(cfg.rto_max));
    }

    /// Processes an ACK that carries no received-bytes counter.
    pub fn on_ack(&mut self, now: Time, ack: &Packet, cfg: &TransportConfig) -> AckOutcome {
        self.on_ack_counted(now, ack, None, cfg)
    }

    /// Processes an ACK at the sender; `uec`: what a UEC ACK carries beyond the packet, the
    /// receiver's byte counter and its 64-bit SACK bitmap with its base. With the counter, the bytes the algorithm hears of are the counter's growth, not
    /// the PSNs this ACK happens to name, and the window counts the reported but still
    /// unnamed bytes as delivered (`docs/models/transport.md`, "The received-bytes
    /// counter"): coalesced and lost ACKs lose nothing.
    pub fn on_ack_counted(
        &mut self,
        now: Time,
        ack: &Packet,
        uec: Option<UecAck>,
        cfg: &TransportConfig,
    ) -> AckOutcome {
        let (recvd, bits, sack_base) = match uec {
            Some(u) => (Some(u.recvd), u.sack_bits, u.sack_base),
            None => (None, ack.ext as u64, ack.psn + 1),
        };
        // LAPS's ACKs carry a one-way latency where others carry the cumulative ACK
        // (LAPS paper §3.5; `docs/models/laps.md`); its sender advances over the PSNs
        // acknowledged in a row.
        let laps = self.lb == LbName::Laps;
        self.sender.timeouts_in_a_row = 0;
        let mut cum = ack.psn;
        let sacked = ack.sacked_psn;
        // The app's writing up to now was capped by the send buffer before this ACK frees it.
        if let Some(app) = self.app.as_mut() {
            app.written(now, self.sender.cum_acked as u64 * self.payload as u64);
        }
        // A flow paced at one window per RTT is limited by its window by construction,
        // though pacing keeps a little less than a window in flight (RFC 7661's test).
        let in_flight_before = if self.sender.pace_window {
            self.sender.in_flight.max(self.sender.cc.cwnd())
        } else {
            self.sender.in_flight
        };
        // PLB's round: the smoothed RTT before this ACK's sample (PLB acts further down,
        // once this ACK has settled what is in flight).
        let mut plb_round = None;
        match self.lb {
            LbName::Reps => self.reps.on_ack(ack.entropy, !ack.has(flags::ECE)),
            LbName::Plb => plb_round = Some(self.sender.srtt.unwrap_or(self.base_rtt)),
            _ => {
                if let Some(p) = self.policy.as_mut() {
                    p.on_ack(now, ack.entropy, ack.has(flags::ECE));
                }
            }
        }
        let mut newly = 0u64;
        let mut progressed = false;
        self.sender.confirmed_runs.clear();
        // Go-back-N: the receiver took only in-order packets, so an ACK whose triggering
        // PSN is at or above its cumulative ACK is a NAK: that packet was discarded.
        let nak = self.sender.go_back_n && sacked >= cum;
        if !self.sender.go_back_n {
            let base = self.sender.cum_acked;
            if sacked >= base && sacked < self.sender.next_new {
                let i = (sacked - base) as usize;
                let st = self.sender.state[i];
                if st == RESENT && ack.has(flags::RETX) {
                    if self.sender.confirms_losses {
                        self.sender.confirm_lost(sacked);
                    }
                } else if st == RESENT || st == LOST {
                    // The original arrived after all: the hole was declared too early.
                    self.sender.premature_loss();
                }
                newly += self.mark_acked(sacked, i);
            }
        }
        if bits != 0 {
            newly += self.sack_bitmap(sack_base, bits);
        }
        if laps {
            let s = &self.sender;
            cum = s.cum_acked + s.state.iter().take_while(|&&st| st == ACKED).count() as u32;
        }
        while self.sender.cum_acked < cum.min(self.sender.next_new) {
            let p = self.sender.cum_acked;
            let st = self.sender.state.pop_front().unwrap();
            self.sender.sent_at.pop_front();
            if st != ACKED {
                let sz = self.wire_size(p) as u64;
                if st != LOST {
                    self.sender.in_flight -= sz;
                }
                newly += sz;
            }
            self.sender.cum_acked += 1;
            progressed = true;
        }
        let s = &mut self.sender;
        if let Some(counter) = recvd {
            s.acked_identified += newly;
            newly = counter.saturating_sub(s.recvd_heard);
            s.recvd_heard = s.recvd_heard.max(counter);
        }
        s.highest_acked = s.highest_acked.max(sacked + 1).max(s.cum_acked);
        if progressed {
            s.backoff = 0;
            if s.recovery_until.is_some_and(|end| s.cum_acked >= end) {
                s.recovery_until = None;
                s.reo_wnd_persist = s.reo_wnd_persist.saturating_sub(1);
                if s.reo_wnd_persist == 0 {
                    s.reo_wnd_mult = 1;
                }
            }
        }
        self.update_rtt(now.saturating_sub(ack.sent_at), cfg);

        if self.sender.sack_loss {
            self.detect_losses(now, cfg);
        }
        if self.sender.go_back_n {
            self.sender.newly_lost.clear();
            self.sender.runs.clear();
            if nak {
                self.go_back(cum);
            }
        }
        if let Some(round) = plb_round {
            // After this ACK (and a go-back-N NAK) has settled what is in flight: PLB's
            // idle re-path needs nothing outstanding (`docs/models/plb.md`).
            self.plb.on_ack(now, ack.has(flags::ECE), round, self.sender.in_flight, &cfg.plb);
        }
        let lost_any = !self.sender.newly_lost.is_empty();
        let rtt = self.measured_delay(now.saturating_sub(ack.sent_at));
        let s = &mut self.sender;

        let sample = AckSample {
            now,
            newly_acked: newly,
            ece: ack.has(flags::ECE),
            rtt,
            cum_ack: s.cum_acked,
            snd_nxt: s.next_new,
            in_flight: s.window_in_flight(),
            in_flight_before,
        };
        s.cc.on_ack(&sample);
        if lost_any {
            s.cc.on_loss(&LossEvent {
                now,
                cum_ack: s.cum_acked,
                snd_nxt: s.next_new,
                // The ACK's own figure: `on_ack` cannot change what is in flight.
                in_flight: sample.in_flight,
                newly_lost: &s.newly_lost,
                runs: &s.runs,
            });
        }
        if !s.confirmed_runs.is_empty() {
            s.cc.on_loss_confirmed(now, &s.confirmed_runs);
        }
        let done = s.cum_acked >= s.n_pkts;
        if done && s.sent_at.capacity() != 0 {
            // Nothing is sent or recovered once everything is acked, but the buffers keep
            // the capacity of the flow's largest window: in a long run, a few hundred
            // bytes for every flow that ever finished (`dcnsim soak`'s RSS growth).
            s.release_buffers();
        }
        if done || s.cum_acked == s.next_new && s.retx.is_empty() {
            // EQDS: a sender stalled for credit keeps its timer (eqds.rs: a lost last pull).
            let stalled = !done && s.credit.as_ref().is_some_and(|c| !c.may_send());
            if let Some(c) = s.credit.as_mut() {
                c.stalled = stalled;
            }
            s.rto_deadline = if stalled { now + s.rto } else { Time::MAX };
        } else if (progressed || lost_any) && s.timeout_policy != TimeoutPolicy::Expired {
            // RFC 6298 (5.3): restart on new data acknowledged. `Expired` keeps the timer
            // on the oldest transmission still out (`docs/models/transport.md`, the timeout
            // policies): a deadline that ACKs made too early finds nothing expired and
            // re-arms for the next.
            s.rto_deadline = now + s.rto;
        }
        AckOutcome { sender_done: done, may_send: !done }
    }

    /// Go-back-N after a NAK for `from`: every outstanding PSN from there on is lost and
    /// is sent again, in order, before new data.
    #[cold]
    #[inline(never)]
    pub(super) fn go_back(&mut self, from: u32) {
        let (header, payload, last_payload) = (self.header, self.payload, self.last_payload);
        let s = &mut self.sender;
        if from < s.cum_acked || from >= s.next_new {
            return;
        }
        for i in (from - s.cum_acked) as usize..s.state.len() {
            if s.state[i] == SENT || s.state[i] == RESENT {
                let psn = s.cum_acked + i as u32;
                s.state[i] = LOST;
                let sz = if psn + 1 == s.n_pkts { last_payload + header } else { payload + header };
                s.in_flight -= sz as u64;
                s.newly_lost.push(psn);
            }
        }
        s.retx.clear();
        for (i, &st) in s.state.iter().enumerate() {
            if st == LOST {
                s.retx.push_back(s.cum_acked + i as u32);
            }
        }
        s.grant_retransmissions();
        if !s.newly_lost.is_empty() {
            s.runs.push((from, s.next_new - 1));
        }
    }

    /// Declares holes lost. A PSN is a hole once `dupack_threshold` PSNs above it have been
    /// acknowledged (`LossRule::Count`, RFC 6675) or once the PSN that far above it has
    /// been (`LossRule::Distance`); it is lost when it has been a hole for the algorithm's
    /// `reorder_wait` (zero: at once). Each PSN becomes a hole at most once; a lost
    /// retransmission is left to the timer. Fills `newly_lost` and, for each, the maximal
    /// run of consecutive lost PSNs it belongs to (`runs`).
    pub(super) fn detect_losses(&mut self, now: Time, cfg: &TransportConfig) {
        let s = &mut self.sender;
        let wait = s.reorder_wait();
        s.newly_lost.clear();
        s.runs.clear();
        let base = s.cum_acked;
        let from = s.loss_scan.max(base);
        let limit = match cfg.loss_rule {
            LossRule::Distance => s.highest_acked.saturating_sub(cfg.dupack_threshold),
            LossRule::Count => {
                // The lowest PSN x with `dupack_threshold` acknowledged PSNs at or above it:
                // everything below x has at least that many acknowledged above it.
                let mut seen = 0;
                let mut x = s.highest_acked;
                while x > from && seen < cfg.dupack_threshold {
                    x -= 1;
                    if s.state[(x - base) as usize] == ACKED {
                        seen += 1;
                    }
                }
                if seen < cfg.dupack_threshold {
                    from
                } else {
                    x
                }
            }
        };
        let mut p = from;
        while p < limit {
            if s.state[(p - base) as usize] == SENT {
                s.holes.push_back((p, now));
            }
            p += 1;
        }
        s.loss_scan = s.loss_scan.max(limit);
        while let Some(&(p, since)) = s.holes.front() {
            if now < since + wait {
                break;
            }
            s.holes.pop_front();
            if p < base || s.state[(p - base) as usize] != SENT {
                continue;
            }
            s.state[(p - base) as usize] = LOST;
            s.retx.push_back(p);
            if s.recovery_until.is_none() {
                s.recovery_until = Some(s.next_new);
            }
            let sz = if p + 1 == s.n_pkts { self.last_payload + self.header } else { self.payload + self.header };
            s.in_flight -= sz as u64;
            s.newly_lost.push(p);
        }
        let outstanding = |st: u8| st == LOST || st == RESENT;
        for &p in &s.newly_lost {
            if s.runs.last().is_some_and(|&(_, hi)| p <= hi) {
                continue;
            }
            let (mut lo, mut hi) = (p, p);
            while lo > base && outstanding(s.state[(lo - 1 - base) as usize]) {
                lo -= 1;
            }
            while hi + 1 < s.next_new && outstanding(s.state[(hi + 1 - base) as usize]) {
                hi += 1;
            }
            s.runs.push((lo, hi));
        }
        // EQDS: the receiver never saw these, so it owes no pulls for their resending.
        if let Some(c) = s.credit.as_mut() {
            c.self_granted += s.newly_lost.len() as u32;
        }
    }

    /// The retransmission timer fired at `now` (and its deadline has passed): every
    /// outstanding packet not yet acknowledged is presumed lost (or, under
    /// `TimeoutPolicy::Expired`, those outstanding for a whole RTO). Returns whether this
    /// was a timeout (something was declared lost).
    pub fn on_timeout(&mut self, now: Time, cfg: &TransportConfig) -> bool {
        let timed_out = self.declare_timeout(now, cfg);
        if timed_out {
            // Timers that expire packets one by one (`TimeoutPolicy::Expired`) fire in
            // bursts; a burst within one RTO is one timeout here.
            let s = &mut self.sender;
            if now >= s.timeout_counted_at + s.rto {
                s.timeouts_in_a_row += 1;
                s.timeout_counted_at = now;
            }
            match self.lb {
                LbName::Reps => self.reps.on_timeout(now, &cfg.reps),
                LbName::Plb => self.plb.on_timeout(now, &cfg.plb),
                _ => {
                    if let Some(p) = self.policy.as_mut() {
                        p.on_timeout(now);
                    }
                }
            }
        }
        timed_out
    }

    pub(super) fn declare_timeout(&mut self, now: Time, cfg: &TransportConfig) -> bool {
        if self.sender.timeout_policy == TimeoutPolicy::Expired {
            return self.timeout_expired(now);
        }
        let s = &mut self.sender;
        s.timeouts += 1;
        s.retx.clear();
        for (i, st) in s.state.iter_mut().enumerate() {
            if *st != ACKED {
                *st = LOST;
                s.retx.push_back(s.cum_acked + i as u32);
            }
        }
        s.in_flight = 0;
        s.loss_scan = s.next_new;
        s.holes.clear();
        s.grant_retransmissions();
        s.cc.on_timeout(now, s.next_new);
        s.backoff = (s.backoff + 1).min(16);
        let backed_off = Time(s.rto.0.saturating_mul(1 << s.backoff)).min(cfg.rto_max);
        s.rto_deadline = now + backed_off;
        true
    }

    /// `TimeoutPolicy::Expired`: declares lost only the packets outstanding for a whole RTO,
    /// telling the algorithm of each, then re-arms the timer for the oldest packet still
    /// out. A timer that finds nothing expired (the packets it was armed for were
    /// acknowledged since) only re-arms. The RTO is fixed by the algorithm, so there is no
    /// backoff.
    pub(super) fn timeout_expired(&mut self, now: Time) -> bool {
        let (header, payload, last_payload) = (self.header, self.payload, self.last_payload);
        let s = &mut self.sender;
        let mut next = Time::MAX;
        let mut expired = false;
        for i in 0..s.state.len() {
            let st = s.state[i];
            if st != SENT && st != RESENT {
                continue;
            }
            let due = s.sent_at[i] + s.rto;
            if due > now {
                next = next.min(due);
                continue;
            }
            let psn = s.cum_acked + i as u32;
            s.state[i] = LOST;
            s.retx.push_back(psn);
            let sz = if psn + 1 == s.n_pkts { last_payload + header } else { payload + header };
            s.in_flight -= sz as u64;
            s.cc.on_packet_expired(now, sz as u64);
            expired = true;
        }
        if expired {
            s.timeouts += 1;
            s.grant_retransmissions();
            s.cc.on_timeout(now, s.next_new);
        }
        // Retransmissions re-arm the timer when they leave (`emit`).
        s.rto_deadline = next;
        expired
    }

    /// A NACK arrived: the transmission of `pkt.psn` sent at `pkt.sent_at` was trimmed.
    /// Marks it lost, queues its retransmission and tells the algorithm. Returns whether
    /// anything changed (a NACK of an older transmission, or of a packet since
    /// acknowledged, is stale).
    pub fn on_nack(&mut self, now: Time, pkt: &Packet) -> bool {
        self.sender.timeouts_in_a_row = 0;
        let psn = pkt.psn;
        let Some(size) = self.mark_lost(psn, pkt.sent_at) else { return false };
        let rtt = self.measured_delay(now.saturating_sub(pkt.sent_at));
        let s = &mut self.sender;
        s.nacks += 1;
        let nack = NackSample {
            now,
            psn,
            bytes: size,
            rtt,
            cum_ack: s.cum_acked,
            snd_nxt: s.next_new,
            in_flight: s.in_flight,
        };
        s.cc.on_nack(&nack);
        true
    }

    /// The transmission of `psn` sent at `sent_at` is lost: unless the PSN was
    /// acknowledged or sent again since, it is queued for retransmission. Returns its wire
    /// size if it was marked.
    pub(super) fn mark_lost(&mut self, psn: u32, sent_at: Time) -> Option<u64> {
        let s = &self.sender;
        if psn < s.cum_acked || psn >= s.next_new {
            return None;
        }
        let i = (psn - s.cum_acked) as usize;
        if !(s.state[i] == SENT || s.state[i] == RESENT) || s.sent_at[i] != sent_at {
            return None;
        }
        let size = self.wire_size(psn) as u64;
        let s = &mut self.sender;
        s.state[i] = LOST;
        s.retx.push_back(psn);
        s.in_flight -= size;
        Some(size)
    }

    /// LAPS's per-path inference (LAPS paper §3.7; `docs/models/laps.md`) found this
    /// transmission lost: it is resent before new data. Returns whether that changed
    /// anything.
    pub fn declare_lost(&mut self, psn: u32, sent_at: Time) -> bool {
        self.mark_lost(psn, sent_at).is_some()
    }

    /// EQDS: the timer fired while the sender was stalled for credit with nothing
    /// outstanding; it grants itself credit (`SenderCredit::on_stall_timeout`). Returns
    /// whether it was such a stall.
    pub fn on_credit_stall(&mut self) -> bool {
        let s = &mut self.sender;
        let unsent = s.n_pkts - s.next_new;
        match s.credit.as_mut() {
            Some(c) if c.stalled => {
                c.on_stall_timeout(unsent);
                s.rto_deadline = Time::MAX;
                true
            }
            _ => false,
        }
    }

    /// Outstanding data exists (the timer matters).
    pub fn has_outstanding(&self) -> bool {
        let s = &self.sender;
        s.cum_acked < s.next_new
    }
}

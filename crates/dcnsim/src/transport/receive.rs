//! The receiving side of a flow: data and trimmed headers arriving, the ACK policy
//! (per packet, coalesced, delayed), ECN echo and DCQCN's CNPs. `docs/models/transport.md`.

use super::*;

impl Flow {
    /// A trimmed header of this flow reached the receiver: the reply is a NACK echoing its
    /// PSN, send time and entropy (`true`), or, if that PSN already arrived, a plain ACK.
    pub fn on_trimmed(&mut self, pkt: &Packet) -> (AckToSend, bool) {
        let r = &self.receiver;
        let psn = pkt.psn;
        let have = psn < r.rcv_next || r.ooo.get((psn - r.rcv_next) as usize) == Some(&true);
        let reply = AckToSend {
            cum: if have { r.rcv_next } else { psn },
            sacked_psn: psn,
            ece: pkt.has(flags::CE),
            sent_at: pkt.sent_at,
            entropy: pkt.entropy,
            retx: false,
            sack_bits: 0,
            sack_base: r.rcv_next + 1,
            recvd: r.recvd_bytes,
        };
        (reply, !have)
    }

    /// Processes a data packet at the receiver.
    pub fn on_data(&mut self, now: Time, pkt: &Packet, cfg: &TransportConfig) -> DataOutcome {
        let payload = self.payload_of(pkt.psn) as u64;
        let n_pkts = self.sender.n_pkts;
        let r = &mut self.receiver;
        let mut out = DataOutcome::default();
        let ce = pkt.has(flags::CE);
        let psn = pkt.psn;

        if cfg.loss_recovery == LossRecovery::GoBackN && psn > r.rcv_next {
            // RoCE receiver: an out-of-sequence packet is discarded; the first one after
            // the expected PSN draws a NAK (an ACK for the expected PSN echoing this one),
            // the rest are dropped silently until the expected PSN arrives.
            if r.nak_sent_for != Some(r.rcv_next) {
                r.nak_sent_for = Some(r.rcv_next);
                r.pending = 0;
                out.acks[1] = Some(AckToSend {
                    cum: r.rcv_next,
                    sacked_psn: psn,
                    ece: ce,
                    sent_at: pkt.sent_at,
                    entropy: pkt.entropy,
                    retx: false,
                    sack_bits: 0,
                    sack_base: r.rcv_next + 1,
                    recvd: r.recvd_bytes,
                });
            }
            return out;
        }
        let uec = cfg.ack_policy == AckPolicy::Uec;
        let first = r.delivered == 0;
        // RFC 5681 §4.2: a segment that fills (part of) a gap is ACKed at once.
        let had_gap = !r.ooo.is_empty();
        let mut duplicate = psn < r.rcv_next;
        let in_order = psn == r.rcv_next;
        if !duplicate {
            let i = (psn - r.rcv_next) as usize;
            if r.ooo.len() <= i {
                r.ooo.resize(i + 1, false);
            }
            if r.ooo[i] {
                duplicate = true;
            } else {
                r.ooo[i] = true;
                r.delivered += payload;
                r.recvd_bytes += pkt.size as u64;
                r.ooo_held += 1;
                if !in_order {
                    r.reordered += 1;
                }
                while r.ooo.front() == Some(&true) {
                    r.ooo.pop_front();
                    r.rcv_next += 1;
                    r.ooo_held -= 1;
                }
            }
        }
        // DCTCP receiver state machine: flush pending ACKs under the old CE state first.
        // (UEC acknowledges a marked packet at once, covering what is pending with it.)
        if ce != r.ce_state {
            if r.pending > 0 && !uec {
                out.acks[0] = Some(AckToSend {
                    cum: if in_order { psn } else { r.rcv_next },
                    sacked_psn: r.last_psn,
                    ece: r.ce_state,
                    sent_at: r.last_sent_at,
                    entropy: r.last_entropy,
                    retx: r.last_retx,
                    sack_bits: 0,
                    sack_base: r.rcv_next + 1,
                    recvd: r.recvd_bytes,
                });
                r.pending = 0;
            }
            r.ce_state = ce;
        }
        if r.pending == 0 {
            r.pending_since = now;
        }
        r.pending += 1;
        r.last_psn = psn;
        r.last_sent_at = pkt.sent_at;
        r.last_entropy = pkt.entropy;
        r.last_retx = pkt.has(flags::RETX) && !duplicate;
        let complete = r.rcv_next >= n_pkts;
        if complete && r.finish.is_none() {
            r.finish = Some(now);
            out.finished_now = true;
            // Everything arrived, so nothing is out of order any more: give back the
            // reorder buffer's capacity (see `Sender::release_buffers`).
            r.ooo = VecDeque::new();
        }
        let at_once =
            if uec { ce || first || pkt.has(flags::ACK_REQUEST) } else { !in_order || had_gap || !r.ooo.is_empty() };
        if r.pending >= cfg.ack_ratio || duplicate || complete || at_once {
            let sack_base = if uec { r.uec_sack_base(psn) } else { r.rcv_next + 1 };
            out.acks[1] = Some(AckToSend {
                cum: r.rcv_next,
                sacked_psn: psn,
                ece: r.ce_state,
                sent_at: pkt.sent_at,
                entropy: pkt.entropy,
                retx: r.last_retx,
                sack_bits: if uec { r.sack_bits_from(sack_base) } else { 0 },
                sack_base,
                recvd: r.recvd_bytes,
            });
            r.pending = 0;
        } else if !r.delayed_ack_pending {
            out.arm_delayed_ack = true;
        }
        out
    }

    /// Whether a CNP should go back for an ECN-marked arrival at `now` (DCQCN's NP: at
    /// most one per the algorithm's interval); records it if so.
    pub fn cnp_due(&mut self, now: Time) -> bool {
        let r = &mut self.receiver;
        let Some(interval) = r.cnp_interval else { return false };
        if r.last_cnp.is_some_and(|t| now < t + interval) {
            return false;
        }
        r.last_cnp = Some(now);
        true
    }

    /// The delayed-ACK timer fired at `now`: acknowledge what is pending if its oldest
    /// packet has waited `timeout`, else say when it will have (the timer armed by a
    /// packet an ACK has since covered fires early).
    pub fn on_delayed_ack(&mut self, now: Time, cfg: &TransportConfig) -> DelayedAck {
        let timeout = cfg.delayed_ack_timeout;
        let r = &mut self.receiver;
        if r.pending == 0 {
            r.delayed_ack_pending = false;
            return DelayedAck::Idle;
        }
        let due = r.pending_since + timeout;
        if now < due {
            return DelayedAck::At(due);
        }
        r.delayed_ack_pending = false;
        r.pending = 0;
        let sack_base = if cfg.ack_policy == AckPolicy::Uec { r.uec_sack_base(r.last_psn) } else { r.rcv_next + 1 };
        DelayedAck::Send(AckToSend {
            cum: r.rcv_next,
            sacked_psn: r.last_psn,
            ece: r.ce_state,
            sent_at: r.last_sent_at,
            entropy: r.last_entropy,
            retx: r.last_retx,
            sack_bits: r.sack_bits_from(sack_base),
            sack_base,
            recvd: r.recvd_bytes,
        })
    }
}

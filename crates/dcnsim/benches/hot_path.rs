//! Micro-benchmarks of the two things every simulated packet pays for, so a regression shows
//! up in isolation rather than as a vague slowdown of `dcnsim bench` (issue 5, item 4):
//! - the event queue: schedule and pop with the queue holding as many pending events as a
//!   busy 1024-host fabric does (about one per port plus one per flow);
//! - one packet's trip through a switch: a 2-host star forwarding a long flow, reported per
//!   data packet (enqueue, serialise, propagate, deliver, ACK back).
//!
//! Run with `cargo bench -p dcnsim --bench hot_path`.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use dcnsim::engine::{Event, EventQueue};
use dcnsim::Time;

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    for pending in [1_000u64, 10_000, 100_000] {
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("schedule_and_pop_{pending}_pending"), |b| {
            let mut q = EventQueue::new(1);
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = |bound: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % bound
            };
            for i in 0..pending {
                q.schedule(Time(next(1_000_000)), Event::PortFree(i as u32));
            }
            // Steady state: each pop schedules one new event a little later, as a port
            // finishing a packet schedules the next.
            b.iter(|| {
                let ev = q.pop_until(Time::MAX).unwrap();
                let now = q.now();
                q.schedule(now + Time(1 + next(1_000_000)), black_box(ev));
            });
        });
    }
    g.finish();
}

fn packet_through_a_switch(c: &mut Criterion) {
    const PACKETS: u64 = 10_000;
    let scenario = format!(
        r#"
        [topology]
        kind = "star"
        hosts = 2
        link_rate = "100Gbps"
        link_latency = "1us"
        [transport]
        cc = "dctcp"
        [[workload]]
        kind = "incast"
        senders = 1
        receiver = 1
        size = "{}B"
        "#,
        PACKETS * 4032 // 4 KiB packets (the default MTU) carry 4032 payload bytes
    );
    let mut g = c.benchmark_group("switch");
    g.throughput(Throughput::Elements(PACKETS));
    g.sample_size(20);
    g.bench_function("one_flow_per_data_packet", |b| {
        b.iter_batched(
            || dcnsim::from_toml(&scenario, std::path::Path::new(".")).expect("scenario"),
            |mut sim| {
                sim.run();
                black_box(sim.events_processed())
            },
            BatchSize::LargeInput,
        );
    });
    g.finish();
}

criterion_group!(benches, event_queue, packet_through_a_switch);
criterion_main!(benches);

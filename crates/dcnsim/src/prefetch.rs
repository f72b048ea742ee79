//! A cache hint: start loading the line holding a value that will be needed soon.
//!
//! The simulation's hot path is memory-bound on large fabrics (ports, queued packets and
//! the packet arena are far larger than the caches, and each event touches a few
//! unrelated lines of them); `Simulation::prefetch_ahead` uses this on the events the
//! queue already knows come next.

/// Hints the CPU to bring `value`'s first cache line into all cache levels. A no-op on
/// architectures other than x86-64; never changes behaviour.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint and cannot fault, whatever the address; this one
    // is also that of a live reference. SSE is part of the x86-64 baseline.
    #[allow(unused_unsafe)]
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

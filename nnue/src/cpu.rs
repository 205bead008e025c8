//! What this CPU can run: the one place the engine's accumulator and evaluation backends and
//! the trainer's kernels ask which SIMD instruction sets are present (detected at run time,
//! so one binary runs everywhere and takes the fastest path the CPU has).
//!
//! Compilers before 1.89 cannot build AVX-512 code (its `target_feature` names were
//! unstable), so a binary they built reports no AVX-512 and has no AVX-512 path.

/// Whether this CPU has AVX2.
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU has AVX2 and FMA (the trainer's AVX2 kernel).
pub fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx2() && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU has AVX-512 F and BW and AVX2 (the engine's AVX-512 path).
#[rustversion::since(1.89)]
pub fn has_avx512_bw() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx2()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// See the module notes: no AVX-512 before Rust 1.89.
#[rustversion::before(1.89)]
pub fn has_avx512_bw() -> bool {
    false
}

/// Whether this CPU has AVX-512 F, VL, BW and DQ, AVX2 and FMA (the trainer's AVX-512 kernel).
#[rustversion::since(1.89)]
pub fn has_avx512_full() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx2_fma()
            && has_avx512_bw()
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512dq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// See the module notes: no AVX-512 before Rust 1.89.
#[rustversion::before(1.89)]
pub fn has_avx512_full() -> bool {
    false
}

#[cfg(test)]
mod tests {
    /// Each set implies the smaller ones it is defined over.
    #[test]
    fn the_sets_nest() {
        assert!(!super::has_avx2_fma() || super::has_avx2());
        assert!(!super::has_avx512_bw() || super::has_avx2());
        assert!(!super::has_avx512_full() || (super::has_avx512_bw() && super::has_avx2_fma()));
    }
}

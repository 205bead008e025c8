//! Vectors of 16 floats for the trainer's kernel (`crate::model`), one implementation per
//! instruction set: [`Portable`] (plain arrays, vectorised by the compiler as it can),
//! [`Avx2`] (two 256-bit registers) and [`Avx512`] (one 512-bit register).
//!
//! Why hand-written: the kernel keeps four or eight accumulators of 16 lanes in registers
//! while it adds ~30 rows into each, and the compiler's vectoriser did not manage that from
//! plain array code (it kept the accumulators in memory or split them into scalars,
//! several times slower).
//!
//! Work that runs on these vectors, or is only compiled for the CPU's instruction set,
//! implements [`PerIsa`]: [`avx2_build`] and [`avx512_build`] compile it a second and third
//! time with the target features of the AVX2 and AVX-512 kernels, and
//! `crate::model::Kernel::run` picks the build for the CPU (the one dispatch of the fused
//! kernel, the general path and the plain reference alike).
//!
//! Safety: [`Avx2`] and [`Avx512`] are tokens. Their `new` is `unsafe`: its caller
//! promises that the CPU has the instructions; only the two builds here make them, and
//! only `Kernel::run` calls those, for a kernel that its CPU-checking constructors made.
//! Each method relies on that promise for its intrinsics; loads and stores take references
//! to whole `[f32; 16]` arrays, so they are always in bounds. The AVX-512 intrinsics are
//! stable from Rust 1.89, so [`Avx512`] exists only there.

/// Operations on 16 floats (`Self::V`), with the same results on every implementation
/// (the horizontal sum adds in the same order everywhere).
pub(crate) trait F32x16: Copy {
    /// The vector.
    type V: Copy;
    /// All zero.
    fn zero(self) -> Self::V;
    /// Every lane `x`.
    fn splat(self, x: f32) -> Self::V;
    /// Reads 16 floats.
    fn load(self, a: &[f32; 16]) -> Self::V;
    /// Writes 16 floats.
    fn store(self, a: &mut [f32; 16], v: Self::V);
    /// `a + b`, lane by lane.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a · b`, lane by lane.
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a.max(0.0).min(1.0)`, lane by lane (a NaN lane gives 0, as `f32::max` does).
    fn clamp01(self, a: Self::V) -> Self::V;
    /// `x` where `0 < a < 1`, else 0, lane by lane.
    fn inside01(self, a: Self::V, x: Self::V) -> Self::V;
    /// The sum of the 16 lanes, by halving: lane j + lane j + 8, then + 4, + 2, + 1.
    fn sum(self, a: Self::V) -> f32;
}

/// Work compiled once per instruction set: [`Self::portable`] for any CPU, and, inside
/// [`avx2_build`] and [`avx512_build`], [`Self::avx2`] and [`Self::avx512`], which run the
/// portable code unless an implementation gives them their own (the fused kernel runs
/// other vectors and column counts there). Every method of an implementation must be
/// `#[inline(always)]`, and so must what it calls: code that is not inlined into the build
/// is compiled for the target's baseline only (right, but slow).
pub(crate) trait PerIsa: Sized {
    /// The work's result.
    type Out;

    /// The work on any CPU.
    fn portable(self) -> Self::Out;

    /// The work compiled with AVX2 and FMA; the token is the proof that the CPU has them.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn avx2(self, _: Avx2) -> Self::Out {
        self.portable()
    }

    /// The work compiled with AVX-512 F, VL, BW and DQ, AVX2 and FMA; the token is the
    /// proof that the CPU has them.
    #[cfg(target_arch = "x86_64")]
    #[rustversion::since(1.89)]
    #[inline(always)]
    fn avx512(self, _: Avx512) -> Self::Out {
        self.portable()
    }
}

/// `work` built with AVX2 and FMA.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn avx2_build<W: PerIsa>(work: W) -> W::Out {
    // SAFETY: the caller promises AVX2, all that `Avx2`'s operations use.
    work.avx2(unsafe { Avx2::new() })
}

/// `work` built with the AVX-512 kernel's features.
///
/// # Safety
/// The CPU must have AVX-512 F, VL, BW and DQ, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[rustversion::since(1.89)]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
pub(crate) unsafe fn avx512_build<W: PerIsa>(work: W) -> W::Out {
    // SAFETY: the caller promises AVX-512 F, all that `Avx512`'s operations use.
    work.avx512(unsafe { Avx512::new() })
}

/// Compilers before 1.89 build no AVX-512 code, and no AVX-512 kernel is made there
/// (`nnue::cpu::has_avx512_full` is false); this stand-in runs the portable build.
///
/// # Safety
/// None needed; `unsafe` to match the AVX-512 build.
#[cfg(target_arch = "x86_64")]
#[rustversion::before(1.89)]
pub(crate) unsafe fn avx512_build<W: PerIsa>(work: W) -> W::Out {
    work.portable()
}

/// Plain arrays (any CPU).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl F32x16 for Portable {
    type V = [f32; 16];
    #[inline(always)]
    fn zero(self) -> [f32; 16] {
        [0.0; 16]
    }
    #[inline(always)]
    fn splat(self, x: f32) -> [f32; 16] {
        [x; 16]
    }
    #[inline(always)]
    fn load(self, a: &[f32; 16]) -> [f32; 16] {
        *a
    }
    #[inline(always)]
    fn store(self, a: &mut [f32; 16], v: [f32; 16]) {
        *a = v;
    }
    #[inline(always)]
    fn add(self, a: [f32; 16], b: [f32; 16]) -> [f32; 16] {
        std::array::from_fn(|j| a[j] + b[j])
    }
    #[inline(always)]
    fn mul(self, a: [f32; 16], b: [f32; 16]) -> [f32; 16] {
        std::array::from_fn(|j| a[j] * b[j])
    }
    // `max(0).min(1)` rather than `clamp`, as the SIMD version computes it.
    #[allow(clippy::manual_clamp)]
    #[inline(always)]
    fn clamp01(self, a: [f32; 16]) -> [f32; 16] {
        std::array::from_fn(|j| a[j].max(0.0).min(1.0))
    }
    #[inline(always)]
    fn inside01(self, a: [f32; 16], x: [f32; 16]) -> [f32; 16] {
        std::array::from_fn(|j| if a[j] > 0.0 && a[j] < 1.0 { x[j] } else { 0.0 })
    }
    #[inline(always)]
    fn sum(self, a: [f32; 16]) -> f32 {
        let mut v = a;
        let mut width = 16;
        while width > 1 {
            width /= 2;
            for j in 0..width {
                v[j] += v[j + width];
            }
        }
        v[0]
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::Avx2;
#[cfg(target_arch = "x86_64")]
#[rustversion::since(1.89)]
pub(crate) use x86::Avx512;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::F32x16;
    use std::arch::x86_64::*;

    /// AVX2: a vector is two 8-float registers.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx2(());

    impl Avx2 {
        /// The token.
        ///
        /// # Safety
        /// The CPU must have AVX2.
        #[inline(always)]
        pub(super) unsafe fn new() -> Avx2 {
            Avx2(())
        }
    }

    // The intrinsics below are AVX (every AVX2 CPU has it): `self`, an `Avx2`, is the
    // proof that the CPU has AVX2 (`Avx2::new`).
    impl F32x16 for Avx2 {
        type V = (__m256, __m256);
        #[inline(always)]
        fn zero(self) -> Self::V {
            // SAFETY: AVX set-zero, registers only; `self` proves AVX2, so AVX.
            unsafe { (_mm256_setzero_ps(), _mm256_setzero_ps()) }
        }
        #[inline(always)]
        fn splat(self, x: f32) -> Self::V {
            // SAFETY: AVX broadcast, registers only; `self` proves AVX2, so AVX.
            unsafe { (_mm256_set1_ps(x), _mm256_set1_ps(x)) }
        }
        #[inline(always)]
        fn load(self, a: &[f32; 16]) -> Self::V {
            // SAFETY: AVX unaligned loads (`self` proves AVX2, so AVX) of floats 0..8 and
            // 8..16 of `a`, a whole `[f32; 16]`.
            unsafe { (_mm256_loadu_ps(a.as_ptr()), _mm256_loadu_ps(a.as_ptr().add(8))) }
        }
        #[inline(always)]
        fn store(self, a: &mut [f32; 16], v: Self::V) {
            // SAFETY: AVX unaligned stores (`self` proves AVX2, so AVX) into floats 0..8
            // and 8..16 of `a`, a whole `[f32; 16]` borrowed mutably.
            unsafe {
                _mm256_storeu_ps(a.as_mut_ptr(), v.0);
                _mm256_storeu_ps(a.as_mut_ptr().add(8), v.1);
            }
        }
        #[inline(always)]
        fn add(self, a: Self::V, b: Self::V) -> Self::V {
            // SAFETY: AVX addition, registers only; `self` proves AVX2, so AVX.
            unsafe { (_mm256_add_ps(a.0, b.0), _mm256_add_ps(a.1, b.1)) }
        }
        #[inline(always)]
        fn mul(self, a: Self::V, b: Self::V) -> Self::V {
            // SAFETY: AVX multiplication, registers only; `self` proves AVX2, so AVX.
            unsafe { (_mm256_mul_ps(a.0, b.0), _mm256_mul_ps(a.1, b.1)) }
        }
        #[inline(always)]
        fn clamp01(self, a: Self::V) -> Self::V {
            // `max(x, 0)` returns its second operand when `x` is NaN, like `f32::max`.
            // SAFETY: AVX max, min and broadcast, registers only; `self` proves AVX2, so AVX.
            let clamp =
                |x| unsafe { _mm256_min_ps(_mm256_max_ps(x, _mm256_setzero_ps()), _mm256_set1_ps(1.0)) };
            (clamp(a.0), clamp(a.1))
        }
        #[inline(always)]
        fn inside01(self, a: Self::V, x: Self::V) -> Self::V {
            // SAFETY: AVX compares, ands and broadcast, registers only; `self` proves AVX2,
            // so AVX.
            let keep = |a, x| unsafe {
                let above = _mm256_cmp_ps::<_CMP_GT_OQ>(a, _mm256_setzero_ps());
                let below = _mm256_cmp_ps::<_CMP_LT_OQ>(a, _mm256_set1_ps(1.0));
                _mm256_and_ps(_mm256_and_ps(above, below), x)
            };
            (keep(a.0, x.0), keep(a.1, x.1))
        }
        #[inline(always)]
        fn sum(self, a: Self::V) -> f32 {
            let mut lanes = [0.0f32; 16];
            self.store(&mut lanes, a);
            super::Portable.sum(lanes)
        }
    }

    /// AVX-512: a vector is one 16-float register.
    #[rustversion::since(1.89)]
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx512(());

    #[rustversion::since(1.89)]
    impl Avx512 {
        /// The token.
        ///
        /// # Safety
        /// The CPU must have AVX-512 F.
        #[inline(always)]
        pub(super) unsafe fn new() -> Avx512 {
            Avx512(())
        }
    }

    // The intrinsics below are AVX-512 F: `self`, an `Avx512`, is the proof that the CPU
    // has it (`Avx512::new`).
    #[rustversion::since(1.89)]
    impl F32x16 for Avx512 {
        type V = __m512;
        #[inline(always)]
        fn zero(self) -> __m512 {
            // SAFETY: AVX-512 F set-zero, registers only; `self` proves AVX-512 F.
            unsafe { _mm512_setzero_ps() }
        }
        #[inline(always)]
        fn splat(self, x: f32) -> __m512 {
            // SAFETY: AVX-512 F broadcast, registers only; `self` proves AVX-512 F.
            unsafe { _mm512_set1_ps(x) }
        }
        #[inline(always)]
        fn load(self, a: &[f32; 16]) -> __m512 {
            // SAFETY: an AVX-512 F unaligned load (`self` proves AVX-512 F) of the 16 floats
            // of `a`, a whole `[f32; 16]`.
            unsafe { _mm512_loadu_ps(a.as_ptr()) }
        }
        #[inline(always)]
        fn store(self, a: &mut [f32; 16], v: __m512) {
            // SAFETY: an AVX-512 F unaligned store (`self` proves AVX-512 F) into the 16
            // floats of `a`, a whole `[f32; 16]` borrowed mutably.
            unsafe { _mm512_storeu_ps(a.as_mut_ptr(), v) }
        }
        #[inline(always)]
        fn add(self, a: __m512, b: __m512) -> __m512 {
            // SAFETY: AVX-512 F addition, registers only; `self` proves AVX-512 F.
            unsafe { _mm512_add_ps(a, b) }
        }
        #[inline(always)]
        fn mul(self, a: __m512, b: __m512) -> __m512 {
            // SAFETY: AVX-512 F multiplication, registers only; `self` proves AVX-512 F.
            unsafe { _mm512_mul_ps(a, b) }
        }
        #[inline(always)]
        fn clamp01(self, a: __m512) -> __m512 {
            // SAFETY: AVX-512 F max, min and broadcast, registers only; `self` proves
            // AVX-512 F.
            unsafe { _mm512_min_ps(_mm512_max_ps(a, _mm512_setzero_ps()), _mm512_set1_ps(1.0)) }
        }
        #[inline(always)]
        fn inside01(self, a: __m512, x: __m512) -> __m512 {
            // SAFETY: AVX-512 F compares to masks and a masked move, registers only; `self`
            // proves AVX-512 F.
            unsafe {
                let above = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(a, _mm512_setzero_ps());
                let below = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, _mm512_set1_ps(1.0));
                _mm512_maskz_mov_ps(above & below, x)
            }
        }
        #[inline(always)]
        fn sum(self, a: __m512) -> f32 {
            let mut lanes = [0.0f32; 16];
            self.store(&mut lanes, a);
            super::Portable.sum(lanes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation of `s` against the portable one, on values around the clamp's edges.
    fn matches_portable<S: F32x16>(s: S) {
        let p = Portable;
        let a: [f32; 16] = std::array::from_fn(|j| j as f32 * 0.17 - 0.6);
        let b: [f32; 16] = std::array::from_fn(|j| 1.3 - j as f32 * 0.11);
        let mut nan = a;
        nan[3] = f32::NAN;
        let out = |v: S::V| {
            let mut o = [0.0f32; 16];
            s.store(&mut o, v);
            o
        };
        let (va, vb) = (s.load(&a), s.load(&b));
        assert_eq!(out(s.zero()), p.zero());
        assert_eq!(out(s.splat(2.5)), p.splat(2.5));
        assert_eq!(out(s.add(va, vb)), p.add(a, b));
        assert_eq!(out(s.mul(va, vb)), p.mul(a, b));
        assert_eq!(out(s.clamp01(va)), p.clamp01(a));
        assert_eq!(out(s.clamp01(s.load(&nan))), p.clamp01(nan));
        assert_eq!(out(s.clamp01(s.load(&nan)))[3], 0.0);
        assert_eq!(out(s.inside01(va, vb)), p.inside01(a, b));
        assert_eq!(out(s.inside01(s.load(&nan), vb)), p.inside01(nan, b));
        assert_eq!(s.sum(va).to_bits(), p.sum(a).to_bits());
    }

    #[test]
    fn the_portable_sum_halves() {
        let a: [f32; 16] = std::array::from_fn(|j| (j + 1) as f32);
        assert_eq!(Portable.sum(a), 136.0);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_matches_portable_where_the_cpu_has_it() {
        if nnue::cpu::has_avx2() {
            // SAFETY: `has_avx2` on the line above found AVX2, all that `Avx2` uses.
            matches_portable(unsafe { Avx2::new() });
        }
    }

    // `rustversion` first: it removes the test before `#[test]` registers it.
    #[rustversion::since(1.89)]
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx512_matches_portable_where_the_cpu_has_it() {
        if nnue::cpu::has_avx512_bw() {
            // SAFETY: `has_avx512_bw` on the line above found AVX-512 F (and BW), all
            // that `Avx512` uses.
            matches_portable(unsafe { Avx512::new() });
        }
    }
}

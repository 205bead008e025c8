//! SplitMix64, the small seedable generator every Luft tool uses where it needs
//! reproducible randomness (Zobrist keys at compile time, opening shuffles, random opening
//! plies, the trainer's weight initialisation and `nnue::Network::random`, batch sampling):
//! one definition, so a seed means the same sequence everywhere. The one exception is the
//! build script's magic-number search (`movegen/build.rs`), which keeps its own xorshift64*:
//! it runs before this crate exists, and only the magics it finds (checked there) leave it.

/// The golden-ratio increment of SplitMix64.
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a bijective mix of 64 bits.
#[inline]
pub const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 generator; the field is its state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 pseudo-random bits (advances the state by [`GOLDEN`] and mixes it).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix(self.0)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// The first output of a generator seeded with `seed`: a stateless hash of 64 bits.
#[inline]
pub const fn hash(seed: u64) -> u64 {
    mix(seed.wrapping_add(GOLDEN))
}

//! FNV-1a 64, the workspace's one checksum: net files (`nnue::file`), data files and packs
//! (`records::record`, `records::pack`), the corpus manifest (`records::manifest`), trainer
//! checkpoints, datagen's quarantine records, `learn`'s journal and arena's synthetic test
//! engine all use these two functions. It lives here, in the crate without dependencies,
//! because every one of them depends on this one. It is not a cryptographic hash: it finds
//! damage (every step is a bijection of the state, so any one changed byte changes the
//! result), not tampering.
//!
//! Source: Fowler, Noll and Vo's FNV-1a, with the published 64-bit offset basis and prime.

/// The 64-bit FNV offset basis: the state before any byte.
pub const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
/// The 64-bit FNV prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

/// FNV-1a 64 continued from `hash` over `bytes`: `fnv1a_extend(FNV_OFFSET, b)` is
/// `fnv1a(b)`, and hashing a stream in pieces gives the hash of the whole.
#[inline]
pub fn fnv1a_extend(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// FNV-1a 64 of `bytes`.
#[inline]
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_extend(FNV_OFFSET, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published test vectors of FNV-1a 64.
    #[test]
    fn published_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a_extend(fnv1a(b"foo"), b"bar"), fnv1a(b"foobar"));
    }
}

//! The net file format. All integers little-endian.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "LUFTNNUE"
//!      8     4  format version (1)
//!     12     4  inputs (768)
//!     16     4  hidden width N (1..=4096)
//!     20     4  output buckets (1..=16)
//!     24     4  QA (255)          28  4  QB (64)          32  4  SCALE (400)
//!     36     4  flags: bit 0 = horizontally mirrored input layer ([`FLAG_MIRRORED`]);
//!                 every other bit must be 0
//!     40     8  architecture hash: FNV-1a 64 of bytes 8..40
//!     48     8  payload length in bytes
//!     56     8  zero
//!     64        payload: feature weights i16 [768][N], feature bias i16 [N],
//!               output weights i16 [buckets][2N], output bias i32 [buckets];
//!               each array zero-padded to a multiple of 64 bytes
//!    end-8   8  checksum: FNV-1a 64 of every byte before it
//! ```
//! The loader checks every field and the length before reading any array, so a truncated,
//! corrupt or foreign file is an error, never a panic or a half-loaded net. A flag bit this
//! build does not know is refused ([`NetError::UnknownFlags`]): it would change what the
//! weights mean. Files with flags 0, all files written before mirroring existed, load as
//! they always did.

use crate::network::{check_shape, Network};
use crate::quantise::{OUTPUT_WEIGHT_MAX, OUTPUT_WEIGHT_MIN};
use crate::{INPUTS, QA, QB, SCALE};
use std::fmt;

/// The first 8 bytes of every net file.
pub const MAGIC: &[u8; 8] = b"LUFTNNUE";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;
const HEADER_LEN: usize = 64;
/// Flag bit 0: the input layer is horizontally mirrored ([`Network::mirrored`]).
pub const FLAG_MIRRORED: u32 = 1;
/// Every flag bit this build reads.
pub const KNOWN_FLAGS: u32 = FLAG_MIRRORED;

/// Why a net file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// The file could not be read.
    Io(String),
    /// Shorter than a header and checksum.
    TooShort(usize),
    /// Not a Luft net file.
    BadMagic,
    /// A format version this build does not read.
    UnsupportedVersion(u32),
    /// An architecture this build cannot run.
    UnsupportedArchitecture(String),
    /// The header's flags hold a bit this build does not know (a net from a newer build
    /// whose inputs this build would misread).
    UnknownFlags(u32),
    /// The architecture hash does not match the header fields.
    HeaderCorrupt,
    /// The file length disagrees with the header.
    WrongLength {
        /// The length the header implies, in bytes.
        expected: usize,
        /// The file's length.
        found: usize,
    },
    /// An array of a net made in memory whose length disagrees with its shape.
    ShapeMismatch {
        /// Which array: "feature weights", "feature bias", "output weights" or "output bias".
        array: &'static str,
        /// The length the shape implies.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// An output weight outside `[OUTPUT_WEIGHT_MIN, OUTPUT_WEIGHT_MAX]` (-128 to 127):
    /// inference multiplies `clamp(acc)` (0..=255) by it in 16 bits, which only that range
    /// keeps exact.
    OutputWeightOutOfRange(i16),
    /// A hidden unit whose bias and 32 largest feature weights (in magnitude) could take
    /// its i16 accumulator past 32767 ([`crate::quantise::check_accumulators`]).
    AccumulatorOverflow {
        /// The hidden unit (0-based).
        unit: usize,
        /// The magnitude it could reach.
        worst: i32,
    },
    /// The checksum does not match the contents.
    ChecksumMismatch {
        /// The checksum in the file.
        stored: u64,
        /// The checksum of the contents.
        computed: u64,
    },
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Io(e) => write!(f, "cannot read net file: {e}"),
            NetError::TooShort(n) => write!(f, "net file too short ({n} bytes)"),
            NetError::BadMagic => write!(f, "not a Luft net file (bad magic)"),
            NetError::UnsupportedVersion(v) => write!(f, "unsupported net format version {v}"),
            NetError::UnsupportedArchitecture(what) => write!(f, "unsupported architecture: {what}"),
            NetError::UnknownFlags(flags) => write!(
                f,
                "net flags {flags:#x} include unknown bits {:#x} (this build knows {KNOWN_FLAGS:#x}: \
                 bit 0, horizontal mirroring); a newer build wrote it?",
                flags & !KNOWN_FLAGS
            ),
            NetError::HeaderCorrupt => write!(f, "net header corrupt (architecture hash mismatch)"),
            NetError::WrongLength { expected, found } => {
                write!(
                    f,
                    "net file truncated or padded: expected {expected} bytes, found {found}"
                )
            }
            NetError::ShapeMismatch {
                array,
                expected,
                found,
            } => write!(f, "net {array}: {found} values where the shape needs {expected}"),
            NetError::OutputWeightOutOfRange(w) => {
                write!(
                    f,
                    "output weight {w} outside [{OUTPUT_WEIGHT_MIN}, {OUTPUT_WEIGHT_MAX}] (would overflow \
                     16-bit inference)"
                )
            }
            NetError::AccumulatorOverflow { unit, worst } => write!(
                f,
                "hidden unit {unit} could reach {worst} and overflow an i16 accumulator"
            ),
            NetError::ChecksumMismatch { stored, computed } => {
                write!(
                    f,
                    "net file corrupt: checksum {stored:016x}, contents hash to {computed:016x}"
                )
            }
        }
    }
}

impl std::error::Error for NetError {}

/// FNV-1a, 64 bit.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

fn padded(len: usize) -> usize {
    len.div_ceil(64) * 64
}

fn payload_len(hidden: usize, buckets: usize) -> usize {
    padded(INPUTS * hidden * 2) + padded(hidden * 2) + padded(buckets * 2 * hidden * 2) + padded(buckets * 4)
}

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&bytes[offset..offset + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(bytes: &[u8], offset: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&bytes[offset..offset + 8]);
    u64::from_le_bytes(b)
}

impl Network {
    /// Serialises the net in the file format above.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + payload_len(self.hidden, self.output_buckets) + 8);
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION,
            INPUTS as u32,
            self.hidden as u32,
            self.output_buckets as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
            if self.mirrored { FLAG_MIRRORED } else { 0 },
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let arch_hash = fnv1a(&out[8..40]);
        out.extend_from_slice(&arch_hash.to_le_bytes());
        out.extend_from_slice(&(payload_len(self.hidden, self.output_buckets) as u64).to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        let pad = |out: &mut Vec<u8>| out.resize(padded(out.len()), 0);
        for array in [&self.feature_weights, &self.feature_bias, &self.output_weights] {
            array.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            pad(&mut out);
        }
        self.output_bias
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        pad(&mut out);
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads and validates a net file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() < HEADER_LEN + 8 {
            return Err(NetError::TooShort(bytes.len()));
        }
        if &bytes[..8] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(NetError::UnsupportedVersion(version));
        }
        if u64_at(bytes, 40) != fnv1a(&bytes[8..40]) {
            return Err(NetError::HeaderCorrupt);
        }
        let unsupported = |what: String| Err(NetError::UnsupportedArchitecture(what));
        let inputs = u32_at(bytes, 12) as usize;
        let hidden = u32_at(bytes, 16) as usize;
        let buckets = u32_at(bytes, 20) as usize;
        let (qa, qb, scale, flags) = (
            u32_at(bytes, 24),
            u32_at(bytes, 28),
            u32_at(bytes, 32),
            u32_at(bytes, 36),
        );
        if inputs != INPUTS {
            return unsupported(format!("{inputs} inputs (this build reads {INPUTS})"));
        }
        check_shape(hidden, buckets)?;
        if (qa, qb, scale) != (QA as u32, QB as u32, SCALE as u32) {
            return unsupported(format!(
                "quantisation QA={qa} QB={qb} scale={scale} (expected {QA}/{QB}/{SCALE})"
            ));
        }
        if flags & !KNOWN_FLAGS != 0 {
            return Err(NetError::UnknownFlags(flags));
        }
        let payload = payload_len(hidden, buckets);
        let expected = HEADER_LEN + payload + 8;
        if bytes.len() != expected || u64_at(bytes, 48) != payload as u64 {
            return Err(NetError::WrongLength {
                expected,
                found: bytes.len(),
            });
        }
        let stored = u64_at(bytes, expected - 8);
        let computed = fnv1a(&bytes[..expected - 8]);
        if stored != computed {
            return Err(NetError::ChecksumMismatch { stored, computed });
        }

        let mut offset = HEADER_LEN;
        let mut read_i16 = |count: usize| {
            let values = bytes[offset..offset + count * 2]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect::<Vec<_>>();
            offset += padded(count * 2);
            values
        };
        let feature_weights = read_i16(INPUTS * hidden);
        let feature_bias = read_i16(hidden);
        let output_weights = read_i16(buckets * 2 * hidden);
        let bias_start = HEADER_LEN + payload - padded(buckets * 4);
        let output_bias = bytes[bias_start..bias_start + buckets * 4]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Network::new(
            hidden,
            buckets,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )
        .map(|net| net.with_mirroring(flags & FLAG_MIRRORED != 0))
    }

    /// Reads a net file from disk.
    pub fn load(path: &std::path::Path) -> Result<Network, NetError> {
        let bytes = std::fs::read(path).map_err(|e| NetError::Io(format!("{}: {e}", path.display())))?;
        Network::from_bytes(&bytes)
    }

    /// A short fingerprint of the net (the file checksum), for logs and data headers.
    pub fn fingerprint(&self) -> u64 {
        let bytes = self.to_bytes();
        u64_at(&bytes, bytes.len() - 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_corruption_is_refused() {
        let net = Network::random(32, 2, 7).unwrap();
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), 64 + payload_len(32, 2) + 8);
        assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()));

        assert_eq!(Network::from_bytes(&bytes[..10]), Err(NetError::TooShort(10)));
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(Network::from_bytes(&bad), Err(NetError::BadMagic));
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert_eq!(Network::from_bytes(&bad), Err(NetError::UnsupportedVersion(9)));
        let mut bad = bytes.clone();
        bad[16] = 48; // hidden changed without fixing the hash
        assert_eq!(Network::from_bytes(&bad), Err(NetError::HeaderCorrupt));
        let truncated = &bytes[..bytes.len() - 100];
        assert!(matches!(
            Network::from_bytes(truncated),
            Err(NetError::WrongLength { .. })
        ));
        let mut bad = bytes.clone();
        bad[1000] ^= 1;
        assert!(matches!(
            Network::from_bytes(&bad),
            Err(NetError::ChecksumMismatch { .. })
        ));
        // A header for another architecture, with a consistent hash.
        let mut other = bytes.clone();
        other[12..16].copy_from_slice(&1024u32.to_le_bytes());
        let hash = fnv1a(&other[8..40]);
        other[40..48].copy_from_slice(&hash.to_le_bytes());
        assert!(matches!(
            Network::from_bytes(&other),
            Err(NetError::UnsupportedArchitecture(_))
        ));
        assert!(matches!(
            Network::load(std::path::Path::new("/nonexistent.nnue")),
            Err(NetError::Io(_))
        ));
    }

    /// A copy of `bytes` with header flags `flags`, hash and checksum made consistent.
    fn with_flags(bytes: &[u8], flags: u32) -> Vec<u8> {
        let mut out = bytes.to_vec();
        out[36..40].copy_from_slice(&flags.to_le_bytes());
        let hash = fnv1a(&out[8..40]);
        out[40..48].copy_from_slice(&hash.to_le_bytes());
        let end = out.len() - 8;
        let checksum = fnv1a(&out[..end]);
        out[end..].copy_from_slice(&checksum.to_le_bytes());
        out
    }

    #[test]
    fn the_mirroring_flag_round_trips_and_unknown_flags_are_refused() {
        let net = Network::random(32, 2, 9).unwrap();
        let plain = net.to_bytes();
        assert_eq!(u32_at(&plain, 36), 0, "a net without mirroring keeps flags 0");
        let mirrored = net.clone().with_mirroring(true);
        let bytes = mirrored.to_bytes();
        assert_eq!(u32_at(&bytes, 36), FLAG_MIRRORED);
        let back = Network::from_bytes(&bytes).unwrap();
        assert!(back.mirrored());
        assert_eq!(back, mirrored);
        assert_ne!(back, net);
        assert_ne!(mirrored.fingerprint(), net.fingerprint());
        // The flag is the only difference between the two files.
        assert_eq!(with_flags(&plain, FLAG_MIRRORED), bytes);
        assert!(!Network::from_bytes(&plain).unwrap().mirrored());
        for flags in [2, 4, 0x8000_0000, 3] {
            let refused = Network::from_bytes(&with_flags(&plain, flags));
            assert_eq!(refused, Err(NetError::UnknownFlags(flags)));
            let text = refused.unwrap_err().to_string();
            assert!(
                text.contains(&format!("unknown bits {:#x}", flags & !1)),
                "{text}"
            );
        }
    }

    #[test]
    fn every_committed_net_keeps_the_rules() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets");
        let mut loaded = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "nnue") {
                Network::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                loaded += 1;
            }
        }
        assert!(loaded >= 1, "no nets in {}", dir.display());
    }

    /// A file with a consistent header and checksum but contents no net may hold: the
    /// loader applies the quantiser's rules.
    fn with_contents(net: &Network, edit: impl Fn(&mut [u8])) -> Vec<u8> {
        let mut bytes = net.to_bytes();
        let end = bytes.len() - 8;
        edit(&mut bytes[HEADER_LEN..end]);
        let checksum = fnv1a(&bytes[..end]);
        bytes[end..].copy_from_slice(&checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn the_loader_applies_the_quantisers_rules() {
        let net = Network::random(32, 1, 7).unwrap();
        let output_weights = padded(INPUTS * 32 * 2) + padded(32 * 2);
        let bytes = with_contents(&net, |payload| {
            payload[output_weights..output_weights + 2].copy_from_slice(&128i16.to_le_bytes())
        });
        assert_eq!(
            Network::from_bytes(&bytes),
            Err(NetError::OutputWeightOutOfRange(128))
        );
        // Unit 3 of 32 features at 1100: 35200 plus its bias.
        let bytes = with_contents(&net, |payload| {
            for feature in 0..32 {
                let at = (feature * 32 + 3) * 2;
                payload[at..at + 2].copy_from_slice(&1100i16.to_le_bytes());
            }
        });
        assert!(matches!(
            Network::from_bytes(&bytes),
            Err(NetError::AccumulatorOverflow { unit: 3, .. })
        ));
    }
}

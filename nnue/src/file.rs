//! The net file format. All integers little-endian. This build writes version 2 and reads
//! versions 1 and 2.
//!
//! Version 2 stores the architecture descriptor ([`crate::Arch`]) in the header:
//!
//! ```text
//! offset  size  field
//!      0     8  magic "LUFTNNUE"
//!      8     4  format version (2)
//!     12     4  inputs (768 x king buckets)
//!     16     4  feature transformer width N (1..=4096)
//!     20     4  output buckets (1..=16)
//!     24     4  QA (255)          28  4  QB (64)          32  4  SCALE (400)
//!     36     4  flags: bit 0 = horizontally mirrored input layer ([`FLAG_MIRRORED`]);
//!                 every other bit must be 0
//!     40     4  activation: 0 ReLU, 1 CReLU, 2 SCReLU
//!     44     4  king buckets K (1..=32; 1: none)
//!     48     4  hidden layers after the transformer L (0..=4)
//!     52    16  their widths, 4 x u32 (unused ones 0)
//!     68    64  king bucket map: a byte per own-view king square a1..h8 (all 0 when K = 1)
//!    132     4  hidden layer encoding: 0 without hidden layers (L = 0); with them 1
//!                 ([`LAYERS_I8`]: i8 weights at QB, i32 biases at QA x QB, CReLU between
//!                 layers, the first layer's inputs SCReLU at QA; `nnue::quantise`)
//!    136     8  architecture hash: FNV-1a 64 of bytes 8..136
//!    144     8  payload length in bytes
//!    152    40  zero
//!    192        payload: feature weights i16 [768 K][N], feature bias i16 [N],
//!               then without hidden layers: output weights i16 [buckets][2N], output
//!               bias i32 [buckets]; with L hidden layers of widths W1..WL, for each of
//!               the L + 1 layers l (inputs I = 2N, W1, .., WL; outputs O = W1, .., WL, 1):
//!               weights i8 [buckets][O][I], bias i32 [buckets][O];
//!               each array zero-padded to a multiple of 64 bytes
//!    end-8   8  checksum: FNV-1a 64 of every byte before it
//! ```
//!
//! Version 1 (every net before king buckets) is the same up to offset 40, then the
//! architecture hash (FNV-1a 64 of bytes 8..40), the payload length and 8 zero bytes; its
//! payload starts at 64 and has 768 feature rows. It reads as the plain or (flag bit 0)
//! mirrored SCReLU descriptor with the standard quantisation, exactly as it always did.
//!
//! The loader checks every field and the length before reading any array, so a truncated,
//! corrupt or foreign file is an error, never a panic or a half-loaded net. A flag bit this
//! build does not know is refused ([`NetError::UnknownFlags`]): it would change what the
//! weights mean. A descriptor this build cannot run (another activation, a hidden layer
//! wider than 256, a width no multiple of 16, another quantisation, another hidden layer
//! encoding) is refused by name
//! ([`NetError::UnsupportedArchitecture`], [`crate::Arch::runnable`]), never loaded and
//! evaluated as something else.
//!
//! [`Network::fingerprint`] stays the checksum of the version 1 file for every net version
//! 1 can describe (plain or mirrored), so the fingerprints recorded in data headers,
//! checkpoints and `nets/README.md` keep naming the same nets.

use crate::arch::{Activation, Arch, FeatureSet, Quantisation, MAX_LAYERS};
use crate::network::{check_shape, Layer, Network};
use crate::quantise::{OUTPUT_WEIGHT_MAX, OUTPUT_WEIGHT_MIN};
use crate::{INPUTS, QA, QB, SCALE};
use output::checksum::fnv1a;
use std::fmt;

/// The first 8 bytes of every net file.
pub const MAGIC: &[u8; 8] = b"LUFTNNUE";

/// The first eight bytes of a trainer checkpoint (`trainer::train::Checkpoint`, the trainer's
/// own format), defined here so that every net loader can tell a checkpoint given for a net
/// ([`NetError::TrainerCheckpoint`]) and the trainer writes the same bytes.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"LUFTCKPT";
/// The format version this build writes.
pub const VERSION: u32 = 2;
/// The format version of every net before king buckets (read, and used for fingerprints).
pub const VERSION_1: u32 = 1;
const HEADER_LEN_V1: usize = 64;
const HEADER_LEN: usize = 192;
/// Where version 2's architecture hash lies (it covers bytes 8 up to here).
const HASH_AT: usize = 136;
/// Flag bit 0: the input layer is horizontally mirrored ([`Network::mirrored`]).
pub const FLAG_MIRRORED: u32 = 1;
/// Every flag bit this build reads.
pub const KNOWN_FLAGS: u32 = FLAG_MIRRORED;
/// The hidden layer encoding (header offset 132) of a net with hidden layers: i8 weights at
/// QB, i32 biases at QA x QB (`nnue::quantise`). A net without hidden layers has 0 there.
pub const LAYERS_I8: u32 = 1;
const LAYERS_AT: usize = 132;

/// Why a net file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// The file could not be read.
    Io(String),
    /// Shorter than a header and checksum.
    TooShort(usize),
    /// Not a Luft net file.
    BadMagic,
    /// A trainer checkpoint ([`CHECKPOINT_MAGIC`]) where a net file was wanted.
    TrainerCheckpoint,
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
    /// A hidden layer's bias beyond `±nnue::quantise::LAYER_BIAS_MAX` (2^30), which could
    /// take a layer's i32 sum past its range.
    LayerBiasOutOfRange(i32),
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
            NetError::TrainerCheckpoint => write!(
                f,
                "a trainer checkpoint, not a net file (`trainer export CHECKPOINT --out NET` makes \
                 a net of it; `trainer train --resume CHECKPOINT` goes on with its run)"
            ),
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
            NetError::LayerBiasOutOfRange(b) => write!(
                f,
                "hidden layer bias {b} beyond +-{} (could overflow a 32-bit layer sum)",
                crate::quantise::LAYER_BIAS_MAX
            ),
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

fn padded(len: usize) -> usize {
    len.div_ceil(64) * 64
}

fn payload_len(inputs: usize, hidden: usize, buckets: usize) -> usize {
    padded(inputs * hidden * 2) + padded(hidden * 2) + padded(buckets * 2 * hidden * 2) + padded(buckets * 4)
}

/// The payload length of `arch` (module documentation), with or without hidden layers.
fn arch_payload_len(arch: &Arch) -> usize {
    let (inputs, hidden, buckets) = (arch.features.inputs(), arch.width, arch.output_buckets);
    if arch.layers.is_empty() {
        return payload_len(inputs, hidden, buckets);
    }
    layer_shapes(arch).fold(padded(inputs * hidden * 2) + padded(hidden * 2), |len, (i, o)| {
        len + padded(buckets * o * i) + padded(buckets * o * 4)
    })
}

/// (inputs, outputs) of each layer after the transformer of `arch` (none without hidden
/// layers).
fn layer_shapes(arch: &Arch) -> impl Iterator<Item = (usize, usize)> + '_ {
    let outs = arch.layers.iter().copied().chain(std::iter::once(1));
    let ins = std::iter::once(2 * arch.width).chain(arch.layers.iter().copied());
    ins.zip(outs).take(if arch.layers.is_empty() {
        0
    } else {
        arch.layers.len() + 1
    })
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

/// The descriptor of a version 1 header (checked: hash, inputs, quantisation, flags).
fn read_header_v1(bytes: &[u8]) -> Result<Arch, NetError> {
    if u64_at(bytes, 40) != fnv1a(&bytes[8..40]) {
        return Err(NetError::HeaderCorrupt);
    }
    let inputs = u32_at(bytes, 12) as usize;
    if inputs != INPUTS {
        return Err(NetError::UnsupportedArchitecture(format!(
            "{inputs} inputs in a version 1 net (it has {INPUTS})"
        )));
    }
    let flags = u32_at(bytes, 36);
    if flags & !KNOWN_FLAGS != 0 {
        return Err(NetError::UnknownFlags(flags));
    }
    let features = FeatureSet::plain().with_mirroring(flags & FLAG_MIRRORED != 0);
    let mut arch = Arch::simple(features, u32_at(bytes, 16) as usize, u32_at(bytes, 20) as usize);
    arch.quantisation = quantisation_at(bytes);
    Ok(arch)
}

/// QA, QB and SCALE at offsets 24, 28 and 32 (both versions).
fn quantisation_at(bytes: &[u8]) -> Quantisation {
    Quantisation {
        qa: u32_at(bytes, 24) as i32,
        qb: u32_at(bytes, 28) as i32,
        scale: u32_at(bytes, 32) as i32,
    }
}

/// The descriptor of a version 2 header, checked against its hash and for consistency
/// (inputs against the king buckets, zero fields); whether this build runs it is
/// [`Arch::runnable`]'s to say.
fn read_header_v2(bytes: &[u8]) -> Result<Arch, NetError> {
    if bytes.len() < HEADER_LEN + 8 {
        return Err(NetError::TooShort(bytes.len()));
    }
    if u64_at(bytes, HASH_AT) != fnv1a(&bytes[8..HASH_AT]) {
        return Err(NetError::HeaderCorrupt);
    }
    if bytes[152..HEADER_LEN].iter().any(|&b| b != 0) {
        return Err(NetError::HeaderCorrupt);
    }
    let bad = |what: String| NetError::UnsupportedArchitecture(what);
    let flags = u32_at(bytes, 36);
    if flags & !KNOWN_FLAGS != 0 {
        return Err(NetError::UnknownFlags(flags));
    }
    let code = u32_at(bytes, 40);
    let activation = Activation::from_code(code).ok_or_else(|| bad(format!("activation code {code}")))?;
    let king_buckets = u32_at(bytes, 44) as usize;
    let mut map = [0u8; 64];
    map.copy_from_slice(&bytes[68..132]);
    let features = FeatureSet::king_buckets(king_buckets, map, flags & FLAG_MIRRORED != 0)
        .map_err(|e| bad(e.to_string()))?;
    if features.bucket_map() != &map {
        return Err(bad(
            "a mirrored king bucket map whose files e-h are not those of a-d".into(),
        ));
    }
    let inputs = u32_at(bytes, 12) as usize;
    if inputs != features.inputs() {
        return Err(bad(format!(
            "{inputs} inputs with {king_buckets} king buckets (768 each)"
        )));
    }
    let count = u32_at(bytes, 48) as usize;
    if count > MAX_LAYERS {
        return Err(bad(format!("{count} hidden layers (at most {MAX_LAYERS})")));
    }
    let widths: Vec<usize> = (0..MAX_LAYERS)
        .map(|i| u32_at(bytes, 52 + 4 * i) as usize)
        .collect();
    if widths[count..].iter().any(|&w| w != 0) {
        return Err(NetError::HeaderCorrupt);
    }
    let encoding = u32_at(bytes, LAYERS_AT);
    match (count, encoding) {
        (0, 0) | (1.., LAYERS_I8) => {}
        (0, _) => return Err(NetError::HeaderCorrupt),
        (_, code) => {
            return Err(bad(format!(
                "hidden layer encoding {code} (this build reads {LAYERS_I8}: i8 weights)"
            )))
        }
    }
    let arch = Arch {
        features,
        width: u32_at(bytes, 16) as usize,
        activation,
        layers: widths[..count].to_vec(),
        output_buckets: u32_at(bytes, 20) as usize,
        quantisation: quantisation_at(bytes),
    };
    arch.check().map_err(|e| bad(e.to_string()))?;
    Ok(arch)
}

/// What a net file's header says: its architecture, version, header length and payload
/// length in bytes (the file is `header_len + payload + 8` bytes, the checksum last).
struct Header {
    arch: Arch,
    version: u32,
    header_len: usize,
    payload: usize,
}

/// Reads and checks a net file's header (version 1 or 2), from at least its first bytes.
/// Errors: those of [`Network::from_bytes`] up to the architecture's checks.
fn read_header(bytes: &[u8]) -> Result<Header, NetError> {
    if bytes.starts_with(CHECKPOINT_MAGIC) {
        return Err(NetError::TrainerCheckpoint);
    }
    if bytes.len() < HEADER_LEN_V1 + 8 {
        return Err(NetError::TooShort(bytes.len()));
    }
    if &bytes[..8] != MAGIC {
        return Err(NetError::BadMagic);
    }
    let version = u32_at(bytes, 8);
    let (arch, header_len) = match version {
        VERSION_1 => (read_header_v1(bytes)?, HEADER_LEN_V1),
        VERSION => (read_header_v2(bytes)?, HEADER_LEN),
        _ => return Err(NetError::UnsupportedVersion(version)),
    };
    arch.runnable()
        .map_err(|e| NetError::UnsupportedArchitecture(e.to_string()))?;
    check_shape(arch.width, arch.output_buckets)?;
    let payload = arch_payload_len(&arch);
    Ok(Header {
        arch,
        version,
        header_len,
        payload,
    })
}

impl Network {
    /// Serialises the net in the current file format (version 2, module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let arch = self.arch();
        let inputs = self.features.inputs();
        let payload = arch_payload_len(&arch);
        let mut out = Vec::with_capacity(HEADER_LEN + payload + 8);
        out.extend_from_slice(MAGIC);
        let mut layers = [0u32; MAX_LAYERS];
        for (slot, w) in layers.iter_mut().zip(&arch.layers) {
            *slot = *w as u32;
        }
        for v in [
            VERSION,
            inputs as u32,
            self.hidden as u32,
            self.output_buckets as u32,
            arch.quantisation.qa as u32,
            arch.quantisation.qb as u32,
            arch.quantisation.scale as u32,
            if self.mirrored() { FLAG_MIRRORED } else { 0 },
            arch.activation.code(),
            self.features.king_buckets_count() as u32,
            arch.layers.len() as u32,
        ]
        .into_iter()
        .chain(layers)
        {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(self.features.bucket_map());
        let encoding = if self.layers.is_empty() { 0 } else { LAYERS_I8 };
        out.extend_from_slice(&encoding.to_le_bytes());
        let arch_hash = fnv1a(&out[8..HASH_AT]);
        out.extend_from_slice(&arch_hash.to_le_bytes());
        out.extend_from_slice(&(payload as u64).to_le_bytes());
        out.resize(HEADER_LEN, 0);
        self.write_payload(&mut out);
        out
    }

    /// The payload and the checksum, appended to a header.
    fn write_payload(&self, out: &mut Vec<u8>) {
        let pad = |out: &mut Vec<u8>| out.resize(padded(out.len()), 0);
        for array in [&self.feature_weights, &self.feature_bias, &self.output_weights] {
            if array.is_empty() {
                continue; // the output weights of a net with hidden layers
            }
            array.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            pad(out);
        }
        if self.layers.is_empty() {
            self.output_bias
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            pad(out);
        }
        for layer in &self.layers {
            out.extend(layer.weights().iter().map(|&w| w as u8));
            pad(out);
            layer
                .bias()
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            pad(out);
        }
        let checksum = fnv1a(out);
        out.extend_from_slice(&checksum.to_le_bytes());
    }

    /// The net in file format version 1, for a net that version can describe (768 inputs,
    /// mirrored or not); `None` for one with king buckets or hidden layers.
    pub fn to_bytes_v1(&self) -> Option<Vec<u8>> {
        if self.features.king_buckets_count() != 1 || !self.layers.is_empty() {
            return None;
        }
        let payload = payload_len(INPUTS, self.hidden, self.output_buckets);
        let mut out = Vec::with_capacity(HEADER_LEN_V1 + payload + 8);
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION_1,
            INPUTS as u32,
            self.hidden as u32,
            self.output_buckets as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
            if self.mirrored() { FLAG_MIRRORED } else { 0 },
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let arch_hash = fnv1a(&out[8..40]);
        out.extend_from_slice(&arch_hash.to_le_bytes());
        out.extend_from_slice(&(payload as u64).to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        self.write_payload(&mut out);
        Some(out)
    }

    /// Reads and validates a net file's bytes (version 1 or 2).
    ///
    /// Errors: [`NetError::TrainerCheckpoint`], [`NetError::TooShort`], [`NetError::BadMagic`],
    /// [`NetError::UnsupportedVersion`], [`NetError::HeaderCorrupt`] (hash, or a field
    /// that must be zero), [`NetError::UnknownFlags`], [`NetError::UnsupportedArchitecture`]
    /// (a descriptor that is malformed or that this build cannot run, named in its one-line
    /// form), [`NetError::WrongLength`], [`NetError::ChecksumMismatch`], and the weight
    /// checks of [`Network::new`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let Header {
            arch,
            version,
            header_len,
            payload,
        } = read_header(bytes)?;
        let (inputs, hidden, buckets) = (arch.features.inputs(), arch.width, arch.output_buckets);
        let expected = header_len + payload + 8;
        let payload_at = if version == VERSION_1 { 48 } else { 144 };
        if bytes.len() != expected || u64_at(bytes, payload_at) != payload as u64 {
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

        let mut offset = header_len;
        let mut read_i16 = |count: usize| {
            let values = bytes[offset..offset + count * 2]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect::<Vec<_>>();
            offset += padded(count * 2);
            values
        };
        let feature_weights = read_i16(inputs * hidden);
        let feature_bias = read_i16(hidden);
        if !arch.layers.is_empty() {
            let mut layers = Vec::new();
            for (fan_in, outputs) in layer_shapes(&arch) {
                let count = buckets * outputs * fan_in;
                let weights = bytes[offset..offset + count].iter().map(|&b| b as i8).collect();
                offset += padded(count);
                let bias = bytes[offset..offset + buckets * outputs * 4]
                    .chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                offset += padded(buckets * outputs * 4);
                layers.push(Layer::new(fan_in, outputs, buckets, weights, bias)?);
            }
            return Network::with_layers(
                arch.features,
                hidden,
                buckets,
                feature_weights,
                feature_bias,
                layers,
            );
        }
        let output_weights = read_i16(buckets * 2 * hidden);
        let bias_start = header_len + payload - padded(buckets * 4);
        let output_bias = bytes[bias_start..bias_start + buckets * 4]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Network::with_features(
            arch.features,
            hidden,
            buckets,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )
    }

    /// Reads a net file from disk: its header first, then as many bytes as the header
    /// says the file holds and one more (so a longer file is refused as padded without
    /// being read: `/dev/zero` or a multi-gigabyte file of something else is never read
    /// whole). Errors: [`NetError::Io`] naming the path, and those of
    /// [`Network::from_bytes`].
    pub fn load(path: &std::path::Path) -> Result<Network, NetError> {
        use std::io::Read;
        let io = |e: std::io::Error| NetError::Io(format!("{}: {e}", path.display()));
        let mut file = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::new();
        (&mut file)
            .take(HEADER_LEN as u64 + 8)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        // A header that does not read is reported by `from_bytes` on what was read; one that
        // does bounds the rest.
        if let Ok(header) = read_header(&bytes) {
            let expected = header.header_len + header.payload + 8;
            let more = (expected + 1).saturating_sub(bytes.len()) as u64;
            file.take(more).read_to_end(&mut bytes).map_err(io)?;
        }
        Network::from_bytes(&bytes)
    }

    /// A short fingerprint of the net, for logs and data headers: the checksum of its
    /// version 1 file where version 1 describes it (so every net's fingerprint stays what it
    /// was), else of its version 2 file.
    pub fn fingerprint(&self) -> u64 {
        let bytes = self.to_bytes_v1().unwrap_or_else(|| self.to_bytes());
        u64_at(&bytes, bytes.len() - 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `load` reads what the header promises and one byte more: a file as it should be
    /// loads, a padded or truncated one is refused with its length, and an endless file
    /// (`/dev/zero`) is refused at once rather than read into memory.
    #[test]
    fn load_reads_no_more_than_the_header_promises() {
        let dir = std::env::temp_dir().join(format!("luft-nnue-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let net = Network::random(32, 2, 7).unwrap();
        let bytes = net.to_bytes();
        let path = dir.join("net.nnue");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(Network::load(&path).unwrap().to_bytes(), bytes);
        let mut padded = bytes.clone();
        padded.extend(std::iter::repeat_n(0u8, 1 << 20));
        std::fs::write(&path, &padded).unwrap();
        let wrong = |e: NetError| match e {
            NetError::WrongLength { expected, found } => (expected, found),
            other => panic!("{other}"),
        };
        // Read up to one byte past the promised length, not the whole megabyte.
        assert_eq!(
            wrong(Network::load(&path).unwrap_err()),
            (bytes.len(), bytes.len() + 1)
        );
        std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
        assert_eq!(
            wrong(Network::load(&path).unwrap_err()),
            (bytes.len(), bytes.len() - 100)
        );
        let zero = std::path::Path::new("/dev/zero");
        if zero.exists() {
            assert!(matches!(Network::load(zero), Err(NetError::BadMagic)));
        }
        let missing = dir.join("missing.nnue");
        match Network::load(&missing) {
            Err(NetError::Io(text)) => assert!(text.contains("missing.nnue"), "{text}"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn round_trip_and_every_corruption_is_refused() {
        let net = Network::random(32, 2, 7).unwrap();
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), 192 + payload_len(768, 32, 2) + 8);
        assert_eq!(u32_at(&bytes, 8), 2);
        assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()));

        assert_eq!(Network::from_bytes(&bytes[..10]), Err(NetError::TooShort(10)));
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(Network::from_bytes(&bad), Err(NetError::BadMagic));
        // A trainer checkpoint's first bytes: named as one, with what makes a net of it.
        let mut checkpoint = bad.clone();
        checkpoint[..8].copy_from_slice(CHECKPOINT_MAGIC);
        let e = Network::from_bytes(&checkpoint).unwrap_err();
        assert_eq!(e, NetError::TrainerCheckpoint);
        assert_eq!(
            Network::from_bytes(&checkpoint[..20]),
            Err(NetError::TrainerCheckpoint)
        );
        assert!(
            e.to_string().contains("`trainer export CHECKPOINT --out NET`"),
            "{e}"
        );
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
        for (mut other, hash_at) in [(bytes.clone(), HASH_AT), (net.to_bytes_v1().unwrap(), 40)] {
            other[12..16].copy_from_slice(&1024u32.to_le_bytes());
            let hash = fnv1a(&other[8..hash_at]);
            other[hash_at..hash_at + 8].copy_from_slice(&hash.to_le_bytes());
            assert!(matches!(
                Network::from_bytes(&other),
                Err(NetError::UnsupportedArchitecture(_))
            ));
        }
        assert!(matches!(
            Network::load(std::path::Path::new("/nonexistent.nnue")),
            Err(NetError::Io(_))
        ));
    }

    /// A copy of `bytes` with header flags `flags`, hash and checksum made consistent.
    fn with_flags(bytes: &[u8], flags: u32) -> Vec<u8> {
        with_field(bytes, 36, flags)
    }

    /// A copy of `bytes` (version 1 or 2) with the u32 at `at` set to `value`, hash and
    /// checksum made consistent.
    fn with_field(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
        let mut out = bytes.to_vec();
        out[at..at + 4].copy_from_slice(&value.to_le_bytes());
        let hash_at = if u32_at(bytes, 8) == VERSION_1 {
            40
        } else {
            HASH_AT
        };
        let hash = fnv1a(&out[8..hash_at]);
        out[hash_at..hash_at + 8].copy_from_slice(&hash.to_le_bytes());
        let end = out.len() - 8;
        let checksum = fnv1a(&out[..end]);
        out[end..].copy_from_slice(&checksum.to_le_bytes());
        out
    }

    #[test]
    fn the_mirroring_flag_round_trips_and_unknown_flags_are_refused() {
        let net = Network::random(32, 2, 9).unwrap();
        for version in [1, 2] {
            let write = |n: &Network| {
                if version == 1 {
                    n.to_bytes_v1().unwrap()
                } else {
                    n.to_bytes()
                }
            };
            mirroring_flag_in(&net, write);
        }
    }

    fn mirroring_flag_in(net: &Network, write: impl Fn(&Network) -> Vec<u8>) {
        let plain = write(net);
        assert_eq!(u32_at(&plain, 36), 0, "a net without mirroring keeps flags 0");
        let mirrored = net.clone().with_mirroring(true);
        let bytes = write(&mirrored);
        assert_eq!(u32_at(&bytes, 36), FLAG_MIRRORED);
        let back = Network::from_bytes(&bytes).unwrap();
        assert!(back.mirrored());
        assert_eq!(back, mirrored);
        assert_ne!(&back, net);
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
                let net = Network::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                // Written again (version 2) it reads back as the same net, and the
                // committed file is exactly one of its two encodings: version 1 (the nets
                // made before version 2, converted or written so) or version 2 (what
                // `trainer export`, and so `learn`'s promotion, writes).
                assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net.clone()));
                let committed = std::fs::read(&path).ok();
                assert!(
                    committed == net.to_bytes_v1() || committed.as_deref() == Some(&net.to_bytes()[..]),
                    "{}: neither the version 1 nor the version 2 encoding of the net it holds",
                    path.display()
                );
                loaded += 1;
            }
        }
        assert!(loaded >= 1, "no nets in {}", dir.display());
    }

    #[test]
    fn committed_nets_evaluate_and_fingerprint_as_before_version_2() {
        // Recorded with the build before version 2 (558e61a): fingerprint, and the
        // evaluations of five positions.
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r1bq1rk1/pp2nppp/2n1p3/3pP3/2pP4/2P2N2/P1Q1BPPP/R1B1K2R b KQ - 3 10",
            "6k1/5pp1/8/8/8/8/5PP1/6K1 b - - 0 40",
        ];
        let recorded: [(&str, u64, [i32; 5]); 14] = [
            ("gen1-32.nnue", 0x3446cdb7839c3a9c, [1, 99, 87, 152, 5]),
            ("gen10-128.nnue", 0x3be6ea3be08cf176, [23, 382, 79, 76, 8]),
            ("gen11-128.nnue", 0x94baa517f2ecca4b, [11, 424, 79, 78, 2]),
            ("gen12-128.nnue", 0xe7027d574b6231cb, [26, 442, 98, 96, 1]),
            ("gen13-128.nnue", 0xb6fb7c36b37d764a, [7, 604, 58, 89, -1]),
            ("gen2-32.nnue", 0x566276bb4436d3aa, [11, 93, 33, 139, 1]),
            ("gen3-32.nnue", 0x70c45fe35a3531d9, [12, 168, 53, 161, 4]),
            ("gen4-128.nnue", 0x9b60ddd367e1a820, [11, 534, 3, 235, 1]),
            ("gen5-128.nnue", 0x8aa94287f866d9f8, [11, 470, 26, 217, 5]),
            ("gen6-128.nnue", 0xc50d680141ad73f4, [11, 454, 93, 191, 7]),
            ("gen7-128.nnue", 0xbed3bd080d6dc983, [15, 418, 68, 143, 2]),
            ("gen8-128.nnue", 0x63534c3510e3ed69, [15, 434, 85, 135, 9]),
            ("gen9-128.nnue", 0xdb7c10cd0d136804, [17, 365, 73, 120, 13]),
            ("material-32.nnue", 0x4d6f44f9fa7054d2, [0, 99, 0, 99, 0]),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets");
        for (name, fingerprint, evals) in recorded {
            let net = Network::load(&dir.join(name)).unwrap();
            let again = Network::from_bytes(&net.to_bytes()).unwrap();
            for n in [&net, &again] {
                assert_eq!(n.fingerprint(), fingerprint, "{name}");
                let now: Vec<i32> = fens
                    .iter()
                    .map(|f| n.evaluate(&movegen::Board::from_fen(f).unwrap()))
                    .collect();
                assert_eq!(now, evals, "{name}");
            }
            assert_eq!(
                net.arch().to_string(),
                "(768 -> N screlu)x2 -> 1xB"
                    .replace('N', &net.hidden().to_string())
                    .replace('B', &net.output_buckets().to_string())
            );
        }
    }

    #[test]
    fn a_king_bucketed_net_round_trips_in_version_2_only() {
        let features = FeatureSet::default_buckets(4, true).unwrap();
        let net = Network::random_with(features, 32, 8, 5).unwrap();
        assert_eq!(net.feature_weights().len(), 4 * 768 * 32);
        assert!(net.to_bytes_v1().is_none());
        let bytes = net.to_bytes();
        assert_eq!(u32_at(&bytes, 12), 4 * 768);
        assert_eq!(u32_at(&bytes, 44), 4);
        assert_eq!(&bytes[68..132], features.bucket_map());
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back, net);
        assert_eq!(back.arch().to_string(), "(768x4hm -> 32 screlu)x2 -> 1x8");
        assert_eq!(back.fingerprint(), u64_at(&bytes, bytes.len() - 8));
        // The map is covered by the hash.
        let mut bad = bytes.clone();
        bad[70] ^= 1;
        assert_eq!(Network::from_bytes(&bad), Err(NetError::HeaderCorrupt));
        // A plain net of the same width is another net.
        assert_ne!(
            Network::random(32, 8, 5).unwrap().fingerprint(),
            net.fingerprint()
        );
    }

    #[test]
    fn descriptors_this_build_cannot_run_are_refused_by_name() {
        let net = Network::random(32, 2, 3).unwrap();
        let bytes = net.to_bytes();
        let refused = |bytes: &[u8]| match Network::from_bytes(bytes) {
            Err(NetError::UnsupportedArchitecture(what)) => what,
            other => panic!("{other:?}"),
        };
        // Another activation: the weights would be evaluated wrongly, so never loaded.
        let e = refused(&with_field(&bytes, 40, 1));
        assert!(
            e.contains("activation crelu") && e.contains("(768 -> 32 crelu)x2 -> 1x2"),
            "{e}"
        );
        assert!(refused(&with_field(&bytes, 40, 0)).contains("activation relu"));
        assert!(refused(&with_field(&bytes, 40, 9)).contains("activation code 9"));
        // Hidden layers wider than the inference runs.
        let layered = with_field(&with_field(&bytes, 48, 2), 52, 512);
        let layered = with_field(&with_field(&layered, 56, 32), LAYERS_AT, LAYERS_I8);
        let e = refused(&layered);
        assert!(e.contains("512 wide") && e.contains("(512 -> 32 -> 1)x2"), "{e}");
        // Hidden layers in the header of a payload without them: the length tells.
        let layered = with_field(&with_field(&bytes, 48, 2), 52, 16);
        let layered = with_field(&with_field(&layered, 56, 32), LAYERS_AT, LAYERS_I8);
        assert!(matches!(
            Network::from_bytes(&layered),
            Err(NetError::WrongLength { .. })
        ));
        // An encoding this build does not know, and an encoding without layers.
        let layered = with_field(&with_field(&bytes, 48, 1), 52, 16);
        let e = refused(&with_field(&layered, LAYERS_AT, 2));
        assert!(e.contains("hidden layer encoding 2"), "{e}");
        assert_eq!(
            Network::from_bytes(&with_field(&bytes, LAYERS_AT, LAYERS_I8)),
            Err(NetError::HeaderCorrupt)
        );
        assert_eq!(
            Network::from_bytes(&with_field(&bytes, 52, 16)),
            Err(NetError::HeaderCorrupt),
            "a width for a layer the count does not have"
        );
        assert!(refused(&with_field(&bytes, 48, 5)).contains("5 hidden layers"));
        // King buckets whose inputs or map disagree.
        assert!(refused(&with_field(&bytes, 44, 2)).contains("bucket 1 has no square"));
        assert!(refused(&with_field(&bytes, 44, 0)).contains("0 king buckets"));
        assert!(refused(&with_field(&bytes, 12, 1536)).contains("1536 inputs"));
        assert!(refused(&with_field(&bytes, 24, 127)).contains("quantisation"));
    }

    #[test]
    fn a_net_with_hidden_layers_round_trips_with_its_layers() {
        for text in [
            "(768 -> 64)x2 -> (16 -> 32 -> 1)x8",
            "(768x4hm -> 32)x2 -> (8 -> 1)x1",
            "(768hm -> 16)x2 -> (4 -> 4 -> 4 -> 4 -> 1)x3",
        ] {
            let arch: Arch = text.parse().unwrap();
            let net = Network::random_arch(&arch, 17).unwrap();
            assert_eq!(net.arch(), arch);
            assert!(net.output_weights().is_empty() && net.bucket_weights(0).is_empty());
            assert_eq!(net.layers().len(), arch.layers.len() + 1);
            assert!(net.to_bytes_v1().is_none());
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), HEADER_LEN + arch_payload_len(&arch) + 8, "{text}");
            assert_eq!(u32_at(&bytes, LAYERS_AT), LAYERS_I8);
            assert_eq!(u32_at(&bytes, 48) as usize, arch.layers.len());
            let back = Network::from_bytes(&bytes).unwrap();
            assert_eq!(back, net, "{text}");
            assert_eq!(back.arch().to_string(), arch.to_string());
            assert_eq!(back.fingerprint(), u64_at(&bytes, bytes.len() - 8));
            // Every byte of the layers is covered: one weight changed is another net.
            let mut other = net.clone();
            other.layers[0] = {
                let l = &net.layers()[0];
                let mut w = l.weights().to_vec();
                w[3] = w[3].wrapping_add(1);
                Layer::new(l.inputs(), l.outputs(), arch.output_buckets, w, l.bias().to_vec()).unwrap()
            };
            assert_ne!(other.to_bytes(), bytes);
            assert_ne!(other.fingerprint(), net.fingerprint());
            let truncated = &bytes[..bytes.len() - 64];
            assert!(matches!(
                Network::from_bytes(truncated),
                Err(NetError::WrongLength { .. })
            ));
        }
        // The layered and the plain net of one transformer are two nets.
        let plain = Network::random(64, 8, 17).unwrap();
        let layered =
            Network::random_arch(&"(768 -> 64)x2 -> (16 -> 32 -> 1)x8".parse().unwrap(), 17).unwrap();
        assert_eq!(plain.feature_weights(), layered.feature_weights());
        assert_ne!(plain.fingerprint(), layered.fingerprint());
    }

    #[test]
    fn the_loader_refuses_a_layer_bias_beyond_its_bound() {
        let arch: Arch = "(768 -> 16)x2 -> (8 -> 1)x1".parse().unwrap();
        let net = Network::random_arch(&arch, 3).unwrap();
        let bias_at = padded(INPUTS * 16 * 2) + padded(16 * 2) + padded(8 * 32);
        let big = crate::quantise::LAYER_BIAS_MAX + 1;
        let bytes = with_contents(&net, |payload| {
            payload[bias_at..bias_at + 4].copy_from_slice(&big.to_le_bytes())
        });
        assert_eq!(
            Network::from_bytes(&bytes),
            Err(NetError::LayerBiasOutOfRange(big))
        );
        assert!(Network::from_bytes(&with_contents(&net, |_| {})).is_ok());
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

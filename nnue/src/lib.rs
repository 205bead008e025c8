//! `nnue`: the one definition of Luft's network that the engine (inference) and the trainer
//! (fitting, export) share: the architecture and its constants, the feature index function,
//! quantisation, the net file format with its validation, and a scalar integer reference
//! forward pass that every faster implementation must match exactly.
//!
//! Architecture (`docs/design/NNUE.md`): 768 inputs (colour x piece x square, per perspective) feed one
//! feature transformer of width N shared by both perspectives; the output layer reads
//! `[side to move, other side]` (2N values after SCReLU) and gives one score per output
//! bucket. N and the bucket count come from the file header, so any net the trainer writes
//! loads. A net may be horizontally mirrored (flag bit 0 of its file): each perspective
//! whose own king is on files e-h then reads the board mirrored across the d/e line
//! ([`feature_index`], [`mirrored_view`]), and may have king buckets. What a net is, its
//! input feature set, widths, activation, output buckets and quantisation, is one value,
//! [`Arch`], with a one-line form such as `(768x4hm -> 256 screlu)x2 -> 1x8` (`arch`),
//! stored in every version 2 net file's header. A net may have hidden layers after the
//! transformer (`(768 -> 64)x2 -> (16 -> 32 -> 1)x8`): dense layers per output bucket
//! ([`Layer`]) with i8 weights and i32 biases, CReLU between them, whose integer forward
//! pass is [`quantise::layer_stack`], the one the engine runs too.
//!
//! Training data (`record`) is datagen's container file. Its settings header (format 3) is
//! a serde structure encoded with `postcard`, the format the trainer's checkpoints use:
//! maintained, with a wire format specified and frozen for 1.x, and small. bincode, the usual
//! choice, is unmaintained and its last release (3.0.0) is deliberately a compile error;
//! wincode is younger and needs a newer Rust than the workspace's. Formats 1 and 2 (text
//! and a hand-written layout) stay readable. `pack` is the compact archive of such files
//! (`datagen pack`, about 2.5 bytes a position), `positions` the lone scored positions of
//! text and bulletformat files (`datagen convert`'s exports), and `source` the one input
//! interface every reader uses, whichever of these it is given; `manifest` lists a corpus
//! folder's packs (`data/selfplay/manifest.toml`).

#![warn(missing_docs)]

pub mod arch;
pub mod cpu;
pub mod file;
pub mod manifest;
pub mod network;
pub mod pack;
pub mod positions;
pub mod quantise;
pub mod record;
pub mod source;

pub use arch::{Activation, Arch, ArchError, FeatureSet, Quantisation, View};
pub use file::NetError;
pub use network::{feature_index, king_mirrors, mirrored_view, output_bucket, Layer, Network};
pub use quantise::{output_centipawns, output_sum, FloatLayer, FloatNet, QuantiseError, QA, QB, SCALE};

/// Number of input features of one king bucket (all of a net without king buckets):
/// 2 colours x 6 piece types x 64 squares.
pub const INPUTS: usize = 768;
/// Largest hidden width a net file may declare.
pub const MAX_HIDDEN: usize = 4096;
/// Largest number of output buckets a net file may declare.
pub const MAX_OUTPUT_BUCKETS: usize = 16;

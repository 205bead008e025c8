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
//! The crate holds the net only (`arch`, `file`, `network`, `quantise`, and `cpu`, the
//! run-time CPU feature detection of the engine's and the trainer's kernels): the engine
//! compiles it whole. The training data, datagen's data files, packs, lone positions and the
//! corpus manifest, is the `records` crate, which the engine does not build.

#![warn(missing_docs)]

pub mod arch;
pub mod cpu;
pub mod file;
pub mod network;
pub mod quantise;

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

//! `trainer`: fits Luft's NNUE on self-play data on the CPU (ndarray + rayon) and exports
//! quantised nets through the `nnue` crate, which the engine loads with the same code.
//!
//! Two training paths: `model::Kernel`, the fused fast kernel for the plain shape
//! (`(768[xK][hm] -> N)x2 -> 1xB`), and `general`, forward and backward for any shape,
//! nets with hidden layers after the transformer included; `train::gradient` picks the
//! kernel wherever it applies. A king-bucketed model may carry a factoriser (768 feature
//! rows shared by every bucket, `model`), which both paths train through the merged net
//! and which export adds into every bucket.
//!
//! Checkpoints (`train::Checkpoint`) are serde structures encoded with `postcard`, inside
//! Luft's own envelope (magic, version, FNV-1a checksum, written atomically). postcard was
//! chosen because its wire format is specified and frozen for the 1.x series, it is
//! maintained, small, and has no default features we need: bincode, the usual choice, is
//! no longer maintained and its last release (3.0.0) is deliberately a compile error;
//! wincode (bincode's format, maintained) is younger (0.x) and needs a newer Rust than the
//! workspace's 1.85 (so does postcard 1.2, hence `~1.1`). Checkpoints of versions 1 and 2,
//! the hand-written layouts of earlier builds, still load through a read-only path.
//! Loss plots are drawn with `plotters` (`plot`), and the command line shows a progress
//! bar (the workspace's `progress` crate, `indicatif`) when stderr is a terminal. A run's
//! `status.json` (`status`, serde_json) tells the tools that drive the trainer where it is.

#![warn(missing_docs)]

pub mod data;
pub mod general;
pub mod model;
pub mod plain;
pub mod plot;
mod simd;
pub mod status;
pub mod train;
pub mod validate;

/// Largest batch (`trainer train --batch-size`): positions are held in memory per batch and
/// counted in 32 bits.
pub const MAX_BATCH_SIZE: usize = 1 << 24;

/// Most epochs a run may ask for (`trainer train --epochs`, learn's `[train] epochs`).
pub const MAX_EPOCHS: u32 = 1_000_000;

/// Most threads (`trainer train --threads`, `trainer validate --threads`).
pub const MAX_THREADS: usize = 256;

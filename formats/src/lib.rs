//! `records`: Luft's training data, as datagen writes it and every reader of games or
//! positions (datagen's commands, the trainer, `learn`, the tests) reads it. What it is:
//! the game record and the chunked, checksummed data file that holds it (`record`, every
//! container version: its reader is the one place that reads the version 1 and 2 files of
//! the first generations), the training filter ([`record::keep_for_training`]), packs (`pack`, the
//! compact archive `datagen pack` writes, about 2.5 bytes a position), lone scored positions
//! in text and bulletformat (`positions`, `datagen convert`'s exports and other tools'
//! files, `datagen import-pgn`'s games being ordinary data files), `source`, the one input
//! interface every reader uses whichever of these it is given, and `manifest`, the corpus
//! manifest (`data/selfplay/manifest.toml`).
//!
//! What it is not: the net. Architecture, feature indexing, quantisation, net files and
//! inference are `nnue`, which the engine compiles; nothing here is built into the engine,
//! and nothing here knows a net beyond the fingerprint and name a data file's header
//! records. The crate lives in `formats/` because `records/` holds the project's
//! experiment records.
//!
//! The data file's settings header (format 3) is a serde structure encoded with `postcard`,
//! the format the trainer's checkpoints use: maintained, with a wire format specified and
//! frozen for 1.x, and small. bincode, the usual choice, is unmaintained and its last
//! release (3.0.0) is deliberately a compile error; wincode is younger and needs a newer
//! Rust than the workspace's. Formats 1 and 2 (text and a hand-written layout) stay
//! readable. Every checksum is `output::checksum`'s FNV-1a 64.

#![warn(missing_docs)]

mod buffered;
pub mod manifest;
pub mod pack;
pub mod positions;
pub mod record;
pub mod source;

//! Luft's copy of pyrrhic-rs 0.2.0, the Syzygy prober under the `tablebase` crate, made safe
//! against damaged table files; the crate's README (below) says what changed.
//!
#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]

pub mod engine_adapter;
mod table;
mod tbprobe;

pub mod tablebases;
pub use engine_adapter::*;
pub use tablebases::*;

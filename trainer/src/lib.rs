//! `trainer`: fits Luft's NNUE on self-play data on the CPU (ndarray + rayon) and exports
//! quantised nets through the `nnue` crate, which the engine loads with the same code.

pub mod data;
pub mod model;
pub mod plain;
pub mod plot;
pub mod train;

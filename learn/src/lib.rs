//! Luft's learning loop as a library: the settings ([`config`]), the journal and the state
//! folded from it ([`journal`]), the loop that drives datagen, the trainer and arena
//! ([`run`]), and the status and report ([`report`]). The `learn` binary is its command line;
//! docs/learn.md is the user's guide.

#![warn(missing_docs)]

pub mod config;
pub mod journal;
pub mod report;
pub mod run;

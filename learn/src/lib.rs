//! Luft's learning loop as a library: the settings ([`config`]), the journal and the state
//! folded from it ([`journal`]), the run directory's layout ([`rundir`]), `learn init`
//! ([`init`]), the stages that drive datagen, the trainer and arena ([`stage`]) and the loop
//! that picks them from the journal ([`run`]), with their children ([`child`]) and the data
//! they count ([`data`]), and the status and report ([`report`]). The `learn` binary is its
//! command line; docs/learn.md is the user's guide.

#![warn(missing_docs)]

pub mod child;
pub mod config;
pub mod data;
pub mod init;
pub mod journal;
pub mod report;
pub mod run;
pub mod rundir;
pub mod stage;

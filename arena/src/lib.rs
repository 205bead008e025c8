//! `arena`: plays UCI engines against each other in paired games and judges the result
//! with the statistics engine developers use (pentanomial SPRT, Elo, nElo, LOS): the match
//! runner of the Luft workspace, which takes fastchess's command lines and writes its output
//! (see `cli` for the options, `report` for the output; the statistics, counts, saved
//! state and time controls are `matchcore`'s), so that OpenBench's worker and
//! engine developers' scripts can run it in fastchess's place; and `arena spsa`, a local
//! SPSA tuner of an engine's parameters (`spsa`, `spsa_run`).

#![warn(missing_docs)]

pub mod cli;
pub mod engine_process;
pub mod log;
pub mod openings;
pub mod pgn_out;
pub mod play;
pub mod progress;
pub mod rating;
pub mod regex;
pub mod report;
pub mod runner;
pub mod sprt_plot;
pub mod spsa;
pub mod spsa_plot;
pub mod spsa_run;

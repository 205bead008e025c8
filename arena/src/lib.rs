//! `arena`: plays UCI engines against each other in paired games and judges the result
//! with the statistics engine developers use (pentanomial SPRT, Elo, nElo, LOS): the match
//! runner of the Luft workspace, in the style of fastchess.

pub mod cli;
pub mod engine_process;
pub mod openings;
pub mod play;
pub mod rating;
pub mod regex;
pub mod runner;
pub mod stats;
pub mod timecontrol;

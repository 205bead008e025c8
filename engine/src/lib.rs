//! `engine`: Luft's search and evaluation. A multithreaded (Lazy SMP) alpha-beta search
//! with a shared lock-free transposition table, a staged move picker, the usual pruning and
//! reductions, and an NNUE evaluation updated incrementally on an accumulator stack; a UCI
//! front end, `bench`, and the `luft` binary (`src/main.rs`).

pub mod accumulator;
pub mod bench;
pub mod correction;
pub mod genfens;
pub mod history;
pub mod move_picker;
pub mod params;
pub mod search;
pub mod see;
pub mod strength;
pub mod threads;
pub mod time_manager;
pub mod tt;
pub mod uci;
pub mod wdl;

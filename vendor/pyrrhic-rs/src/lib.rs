#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]

pub mod engine_adapter;
mod table;
mod tbprobe;

pub mod tablebases;
pub use engine_adapter::*;
pub use tablebases::*;

//! What the arena end-to-end test files share: where the `luft` binary, arena and the
//! misbehaving fault engine are, the openings book, a fresh directory for a test's files,
//! and running arena to collect its exit code and output.

#![allow(dead_code)] // each test file uses a different part

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The arena binary under test.
pub const ARENA: &str = env!("CARGO_BIN_EXE_arena");
/// The engine that misbehaves on request (`args=<mode>`).
pub const FAULT: &str = env!("CARGO_BIN_EXE_arena-fault-engine");
/// The openings book arena ships.
pub const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/luft-8ply.epd");

/// The luft binary the workspace test command builds next to this test
/// (`target/release/luft`, or `target/debug/luft` for a debug test run); a clear failure
/// when it is missing (run `cargo build -p engine`, with `--release` for `--release` tests,
/// first when testing arena alone).
pub fn luft() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lies in target/<profile>/deps");
    let luft = dir.join("luft");
    assert!(
        luft.exists(),
        "{} missing: run `cargo build -p engine` (--release for --release tests) first",
        luft.display()
    );
    luft
}

/// A fresh, empty directory for one test's files (the workspace's one helper,
/// `testing::temp`).
pub use testing::temp as temp_dir;

/// A path for a file `name` (not yet there) in a fresh directory of its own ([`temp_dir`]).
pub fn temp_file(name: &str) -> PathBuf {
    temp_dir(name).join(name)
}

/// The words of `text`, split at white space.
pub fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

/// Runs arena with `args`, in `dir` when given; (exit code, -1 when killed by a signal,
/// stdout, stderr).
pub fn run_arena<S: AsRef<OsStr>>(dir: Option<&Path>, args: &[S]) -> (i32, String, String) {
    let mut command = Command::new(ARENA);
    command.args(args);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let out = command.output().expect("arena starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

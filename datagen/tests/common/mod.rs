//! What datagen's integration tests share: the `datagen` binary as a command (without the
//! environment's `LUFT_DATA`) and run to its end, output bytes as text, a fresh scratch
//! directory for each test, the arguments of a small self-play run, one finished run made
//! once per test binary for the tests to copy, and the games of a data file.

#![allow(dead_code)] // each test file uses a different part

use records::record::scan;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `datagen` binary, without the environment's `LUFT_DATA`.
pub fn datagen() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_datagen"));
    c.env_remove("LUFT_DATA");
    c
}

/// `datagen` with `args`, run to its end.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    datagen().args(args).output().unwrap()
}

/// Output bytes as text (bytes that are not UTF-8 replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh, empty directory for one test's files (the workspace's one helper,
/// `testing::temp`).
pub use testing::temp as temp_dir;

/// The arguments of a small self-play run into `dir`: `threads` threads, `games` games at
/// 200 nodes a move, seed 9 (the nodes are argument 5).
pub fn gen_args(dir: &Path, threads: usize, games: u64) -> Vec<String> {
    [
        "--threads",
        &threads.to_string(),
        "--games",
        &games.to_string(),
        "--nodes",
        "200",
        "--seed",
        "9",
        "--out",
        &dir.display().to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// A finished 12-game run with one thread (`gen_args`), made once per test binary and
/// copied by the tests that damage it (left in target/tmp when the tests end).
pub fn base_run() -> &'static Path {
    static BASE: OnceLock<PathBuf> = OnceLock::new();
    BASE.get_or_init(|| {
        let dir = temp_dir("base");
        let out = run(&gen_args(&dir, 1, 12));
        assert!(out.status.success(), "{}", text(&out.stderr));
        dir
    })
}

/// A fresh directory `name` holding a copy of [`base_run`]'s file.
pub fn copy_of_base(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    std::fs::copy(base_run().join("games-0.bin"), dir.join("games-0.bin")).unwrap();
    dir
}

/// The games of a data file, by a fresh read.
pub fn games_of(path: &Path) -> usize {
    scan(&std::fs::read(path).unwrap()).games.len()
}

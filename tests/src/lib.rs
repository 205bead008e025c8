//! The `tests` package's integration tests (`tests/tests/`) run the workspace's binaries end
//! to end; this library holds what they share.

use std::path::PathBuf;

/// The path of the workspace binary `name` beside the running test executable (cargo puts
/// both in `target/PROFILE/`). Panics, naming the build to run, when it is missing: the
/// workspace test command builds it; for this package alone run `cargo build -p engine -p
/// datagen -p trainer -p arena -p learn` (with `--release` for `--release` tests) first.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test executable lies in target/PROFILE/deps");
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} missing: the workspace test command builds it; for this package alone run \
         `cargo build -p engine -p datagen -p trainer -p arena -p learn` (with --release for \
         --release tests) first",
        path.display()
    );
    path
}

//! What the `learn` package's integration tests (`learn/tests/*.rs`) share: a fresh scratch
//! directory for a test's files. Each test file includes it with `mod common;`; the unit
//! tests have their own in `src/stage/testkit.rs`.

use std::path::PathBuf;

/// A fresh, empty directory for one test's files: `luft-learn-BINARY-NAME-PID` in the
/// system's temporary directory (`std::env::temp_dir()`), where BINARY is the running test
/// executable's name without cargo's hash, `_` written `-` (`status-report` for
/// `tests/status_report.rs`), NAME is `name` and PID this process's id. Whatever an earlier
/// run left at that path is removed first. Names never meet: the tests of one executable
/// pass different `name`s, and executables running at once differ in name and process id.
/// Panics when the directory cannot be emptied or made.
pub fn temp(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let stem = exe
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("the test executable's name is UTF-8");
    let binary = stem.rsplit_once('-').map_or(stem, |(binary, _hash)| binary);
    let dir = std::env::temp_dir().join(format!(
        "luft-learn-{}-{name}-{}",
        binary.replace('_', "-"),
        std::process::id()
    ));
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            panic!("{} left by an earlier run: {e}", dir.display())
        }
        _ => {}
    }
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
    dir
}

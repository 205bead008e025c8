//! The `tests` package's integration tests (`tests/tests/`) run the workspace's binaries end
//! to end; this library holds what they share, and the helpers every test in the workspace
//! shares (each package's tests reach them as `testing`): the one scratch directory
//! ([`temp`]) and a terminal's Ctrl-C sent to a child ([`interrupt`]).

use std::path::PathBuf;
use std::process::{Child, Command};

/// A fresh, empty directory for one test's files: `luft-BINARY-NAME-PID` in the system's
/// temporary directory (`std::env::temp_dir()`), where BINARY is the running test
/// executable's name without cargo's hash, `_` written `-` (`learn-loop` for
/// `tests/tests/learn_loop.rs`), NAME is `name` and PID this process's id. Whatever an earlier
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
        "luft-{}-{name}-{}",
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

/// The path of the workspace binary `name` beside the running test executable (cargo puts
/// both in `target/PROFILE/`). Panics, naming the build to run, when it is missing: the
/// workspace test command builds it; for this package alone run `cargo build -p movegen -p engine -p
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
         `cargo build -p movegen -p engine -p datagen -p trainer -p arena -p learn` (with --release for \
         --release tests) first",
        path.display()
    );
    path
}

/// Sends SIGINT (a terminal's Ctrl-C) to `child`, through `kill -INT PID` (the standard
/// library sends only SIGKILL). Panics when the signal could not be sent (the child gone
/// and reaped, or no `kill` on the PATH).
pub fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("running kill");
    assert!(status.success(), "kill -INT {} failed: {status}", child.id());
}

/// Ctrl-C to `child` while it waits on reading the FIFO at `fifo`: opens the FIFO's writing
/// end (which waits until `child` opens it to read, at most 60 s) and holds it without
/// writing, sends SIGINT, and waits for `child` to end, at most 60 s (then kills it and
/// panics, rather than hang the tests). Returns its output (stdout and stderr piped by the
/// caller).
pub fn interrupt_while_reading(child: Child, fifo: &std::path::Path) -> std::process::Output {
    use std::time::{Duration, Instant};
    let (sent, opened) = std::sync::mpsc::channel();
    let path = fifo.to_path_buf();
    std::thread::spawn(move || sent.send(std::fs::OpenOptions::new().write(true).open(path)));
    let writer = opened
        .recv_timeout(Duration::from_secs(60))
        .expect("the child opens the FIFO")
        .expect("opening the FIFO to write");
    std::thread::sleep(Duration::from_millis(100));
    interrupt(&child);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut child = child;
    while child.try_wait().expect("waiting for the child").is_none() {
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("still running 60 s after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let done = child.wait_with_output().expect("the child's output");
    drop(writer);
    done
}

//! The wait for an earlier run's children: a tool running in the run directory is waited
//! for even when `lock.children` does not list it (a kill between its start and the list's
//! line), and a tool running elsewhere is not.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::stage::testkit::temp;

/// The system's `sleep`, the stand-in for a tool.
fn sleep_tool() -> PathBuf {
    ["/bin/sleep", "/usr/bin/sleep"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .unwrap()
}

/// `sleep SECONDS` started in `dir`.
fn sleeper(dir: &Path, seconds: &str) -> Child {
    Command::new(sleep_tool())
        .arg(seconds)
        .current_dir(dir)
        .spawn()
        .unwrap()
}

#[test]
fn an_unlisted_tool_in_the_run_directory_is_waited_for() {
    let dir = temp("orphan-unlisted");
    let mut child = sleeper(&dir, "1.5");
    let start = Instant::now();
    wait_for_orphans(&dir.join("lock.children"), &dir, &[&sleep_tool()]);
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(1000),
        "returned after {waited:?} while the child ran"
    );
    child.wait().unwrap();
}

#[test]
fn a_tool_running_elsewhere_is_not_waited_for() {
    let dir = temp("orphan-elsewhere");
    let other = temp("orphan-elsewhere-other");
    let mut child = sleeper(&other, "5");
    let start = Instant::now();
    wait_for_orphans(&dir.join("lock.children"), &dir, &[&sleep_tool()]);
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_listed_child_is_waited_for_and_the_list_removed() {
    let dir = temp("orphan-listed");
    let mut child = sleeper(&dir, "1.2");
    let list = dir.join("lock.children");
    let exe = std::fs::canonicalize(sleep_tool()).unwrap();
    std::fs::write(&list, format!("{} {}\n", child.id(), exe.display())).unwrap();
    let start = Instant::now();
    wait_for_orphans(&list, &dir, &[]);
    assert!(
        start.elapsed() >= Duration::from_millis(800),
        "{:?}",
        start.elapsed()
    );
    assert!(!list.exists());
    child.wait().unwrap();
}

/// A failure names the child's last three lines: arena ends a failed match with advice on
/// resuming, and the reason stands before it (it used to show the advice alone).
#[test]
fn the_log_tail_keeps_the_reason_before_a_tools_last_advice() {
    let dir = temp("log-tail");
    let log = dir.join("gate-c1.log");
    std::fs::write(
        &log,
        "Started game 1 of 2\n\ncould not start: /runs/x: Permission denied\n\nTo resume it, run: arena -config file=state.json\n",
    )
    .unwrap();
    assert_eq!(
        log_tail(&log),
        ": Started game 1 of 2 | could not start: /runs/x: Permission denied | To resume it, run: arena -config file=state.json"
    );
    std::fs::write(&log, "one line\n").unwrap();
    assert_eq!(log_tail(&log), ": one line");
    std::fs::write(&log, "\n\n").unwrap();
    assert_eq!(log_tail(&log), "");
    assert_eq!(log_tail(&dir.join("none.log")), "");
}

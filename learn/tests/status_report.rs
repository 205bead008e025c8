//! `learn report` and `learn status` on runs that are not what they expect: a directory that
//! holds no run is an error for both (no report of nothing is written), and a run that is
//! not running shows its open segment as stopped, with no estimate of when it ends. A journal
//! whose last complete line is damaged is an error naming the line for `run`, `status` and
//! `report` alike, and the journal stays as it was.

#![allow(clippy::unwrap_used)]

use learn::journal::{now, Journal, Record};
use std::path::Path;
use std::process::{Command, Output};
use testing::temp;

fn learn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn report_and_status_of_a_directory_without_a_run_are_errors() {
    let dir = temp("empty");
    for command in ["report", "status"] {
        let out = learn(&[command, dir.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{command}: {err}");
        assert!(err.contains("holds no run"), "{command}: {err}");
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "no report of nothing is written"
    );
    let missing = dir.join("no-such-run");
    let out = learn(&["report", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!missing.exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_stopped_run_shows_no_estimate_for_its_open_segment() {
    let dir = temp("stopped");
    let run = dir.join("run");
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    let out = learn(&["init", run.to_str().unwrap(), "--net", net.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (mut journal, _) = Journal::open(&run.join("journal")).unwrap();
    journal
        .append(&Record::SegmentStarted {
            t: now().saturating_sub(600),
            index: 0,
            dir: "data/s000-gen1-32-classical".into(),
            net: "gen1-32".into(),
            openings: "classical".into(),
            target: 2_000_000,
            seed: 7,
        })
        .unwrap();
    journal
        .append(&Record::Stopped {
            t: now().saturating_sub(590),
            why: "interrupted".into(),
        })
        .unwrap();
    drop(journal);
    let out = learn(&["status", run.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = text.lines().find(|l| l.contains("s0 gen1-32")).unwrap();
    assert!(!line.contains("ETA"), "a stopped run has no ETA: {line}");
    assert!(line.contains("stopped"), "{line}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_damaged_only_line_is_an_error_for_run_status_and_report_and_the_journal_stays() {
    let dir = temp("damaged");
    let run = dir.join("run");
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    let out = learn(&["init", run.to_str().unwrap(), "--net", net.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Tools that are there, so that `learn run` gets as far as the journal.
    let mut settings = std::fs::read_to_string(run.join("learn.toml")).unwrap();
    for tool in ["luft", "datagen", "trainer", "arena"] {
        let unset = format!("\n{tool} = \"\"\n");
        assert!(settings.contains(&unset), "{settings}");
        settings = settings.replace(&unset, &format!("\n{tool} = \"/bin/true\"\n"));
    }
    std::fs::write(run.join("learn.toml"), settings).unwrap();
    let mut journal = std::fs::read(run.join("journal")).unwrap();
    assert_eq!(journal.iter().filter(|&&b| b == b'\n').count(), 1);
    journal[10] ^= 1;
    std::fs::write(run.join("journal"), &journal).unwrap();
    for args in [
        &["run", run.to_str().unwrap(), "--for", "3s"][..],
        &["status", run.to_str().unwrap()],
        &["report", run.to_str().unwrap()],
    ] {
        let out = learn(args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("journal line 1 is damaged"), "{args:?}: {err}");
        assert_eq!(
            std::fs::read(run.join("journal")).unwrap(),
            journal,
            "{args:?}: the journal is left as it is"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

//! `learn report` and `learn status` on runs that are not what they expect: a directory that
//! holds no run is an error for both (no report of nothing is written), and a run that is
//! not running shows its open segment as stopped, with no estimate of when it ends. A journal
//! whose last complete line is damaged is an error naming the line for `run`, `status` and
//! `report` alike, and the journal stays as it was. A journal without its start net is an
//! error of all three too, naming what the run left and how to go on from it.

#![allow(clippy::unwrap_used)]

use learn::journal::{now, Journal, Record};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use testing::temp;

fn learn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(args)
        .output()
        .unwrap()
}

/// `learn init RUN --net nets/gen1-32.nnue`, asserted to succeed; the start net's path.
fn init_run(run: &Path) -> PathBuf {
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    let out = learn(&["init", run.to_str().unwrap(), "--net", net.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    net
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
fn a_journal_without_its_start_says_what_is_left_and_how_to_go_on() {
    // A journal emptied (as an older learn could leave it after a damaged line) or cut
    // before its first record: `run`, `status` and `report` each say that the history is
    // lost, name the newest net and the packs that are left, and give the `learn init` that
    // goes on from them; `status` and `report` leave the journal as it was.
    let dir = temp("no-start");
    let run = dir.join("run");
    let net = init_run(&run);
    // A later generation written before the start net's copy: the newest is chosen by
    // generation, not by the time a file was written (a copied directory's order).
    std::fs::copy(&net, run.join("nets/gen2-32.nnue")).unwrap();
    let start = std::fs::read(run.join("nets/gen1-32.nnue")).unwrap();
    std::fs::write(run.join("nets/gen1-32.nnue"), start).unwrap();
    std::fs::create_dir_all(run.join("packs")).unwrap();
    std::fs::write(run.join("packs/s000-gen1-32-classical.pack"), b"pack").unwrap();
    let first_line = std::fs::read(run.join("journal")).unwrap();
    for journal in [Vec::new(), first_line[..first_line.len() / 2].to_vec()] {
        std::fs::write(run.join("journal"), &journal).unwrap();
        for command in ["status", "report", "run"] {
            let out = learn(&[command, run.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.status.code(), Some(1), "{command}: {err}");
            for part in [
                "the journal has no start net",
                " bytes), so this run",
                "history is lost",
                "gen2-32.nnue (the newest of 2 nets in nets/)",
                "1 pack in packs/",
                "`learn init NEW --net ",
                "`--extra-data PACK` for each pack",
                "`[train] extra_data` of ",
            ] {
                assert!(err.contains(part), "{command}: {part:?} not in {err}");
            }
            // `status` and `report` only read; `run` cuts a torn last line (here the only
            // one) as it always does, and nothing else.
            let now = std::fs::read(run.join("journal")).unwrap();
            if command == "run" {
                assert!(now.is_empty(), "{command}: {} bytes left", now.len());
            } else {
                assert_eq!(now, journal, "{command}");
            }
            assert!(!run.join("report.md").exists(), "{command}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_stopped_run_shows_no_estimate_for_its_open_segment() {
    let dir = temp("stopped");
    let run = dir.join("run");
    init_run(&run);
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
    init_run(&run);
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

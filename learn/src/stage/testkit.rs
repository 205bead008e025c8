//! What the stages' unit tests share: a run directory made by `learn init` with the
//! repository's `gen1-32` net, tools that are shell scripts recording their arguments, the
//! journal's records, a stage stepped until the journal says it is done, a kill (the
//! stage's child killed and the context dropped, as `kill -9` leaves a run), a torn last
//! journal line and a damaged one, and the journal's decisions (the records without times), which a resumed
//! stage must repeat.

#![allow(clippy::unwrap_used)]

use super::{Context, Step};
use crate::journal::{GateResult, Journal, Record};
use crate::rundir::RunDir;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use testing::temp;

/// The repository's `nets/gen1-32.nnue`.
pub fn net() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue")
}

/// A run in `DIR/run` made by `learn init` from [`net`], its `learn.toml` replaced by
/// `settings` and `[tools]` naming four shell scripts `DIR/TOOL` (luft, datagen, trainer,
/// arena): each appends its arguments to `DIR/args-TOOL.txt` (a line a run), then runs its
/// body from `bodies` (default `exit 0`).
pub fn new_run(dir: &Path, settings: &str, bodies: &[(&str, &str)]) -> RunDir {
    let run = dir.join("run");
    crate::init::init(&run, &net(), None, &[], false).unwrap();
    let mut tools = String::from("[tools]\n");
    for tool in ["luft", "datagen", "trainer", "arena"] {
        let body = bodies
            .iter()
            .find(|(t, _)| *t == tool)
            .map_or("exit 0", |(_, b)| b);
        let path = dir.join(tool);
        let args = dir.join(format!("args-{tool}.txt"));
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho \"$@\" >> '{}'\n{body}\n", args.display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        tools.push_str(&format!("{tool} = \"{}\"\n", path.display()));
    }
    std::fs::write(run.join("learn.toml"), format!("{settings}\n{tools}")).unwrap();
    RunDir::new(&run).unwrap()
}

/// Appends `records` to the run's journal.
pub fn append(run: &RunDir, records: &[Record]) {
    let (mut journal, _) = Journal::open(&run.journal()).unwrap();
    for r in records {
        journal.append(r).unwrap();
    }
}

/// The run's context, a failure retried at once.
pub fn open(run: &RunDir) -> Context {
    let mut cx = Context::open(run.clone()).unwrap();
    cx.retry_pause = Duration::ZERO;
    cx
}

/// Steps `stage` until `done` says so (at most 30 s).
pub fn finish(cx: &mut Context, stage: &mut impl Step, done: impl Fn(&Context) -> bool) {
    let start = Instant::now();
    while !done(cx) {
        stage.step(cx).unwrap();
        assert!(start.elapsed() < Duration::from_secs(30), "{:#?}", cx.records());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The run's stage `S` stepped, its tool held by the file `stall`, until `ready`; then
/// killed as `kill -9` of `learn` leaves a run: its tool killed, its context dropped. The
/// file is gone after.
pub fn kill_when<S: Step + Default>(run: &RunDir, stall: &Path, ready: impl Fn() -> bool) {
    std::fs::write(stall, "").unwrap();
    let mut cx = open(run);
    let mut stage = S::default();
    wait_for(|| {
        stage.step(&mut cx).unwrap();
        ready()
    });
    if let Some(mut r) = stage.take_child() {
        let _ = r.child.kill();
        let _ = r.child.wait();
    }
    drop(cx);
    std::fs::remove_file(stall).unwrap();
}

/// The run's stage `S` stepped until `done`; then its last record torn: `S` steps again to
/// the same decisions; then the record before it damaged: the run is refused, naming the
/// line.
pub fn torn_then_damaged<S: Step + Default>(run: &RunDir, done: impl Fn(&Context) -> bool) {
    let mut cx = open(run);
    finish(&mut cx, &mut S::default(), &done);
    let reference = decisions(&cx);
    drop(cx);
    let n = lines(run);
    tear(run);
    let mut cx = open(run);
    assert_eq!(cx.records().len(), n - 1, "the torn last record is dropped");
    assert!(!done(&cx));
    finish(&mut cx, &mut S::default(), &done);
    assert_eq!(decisions(&cx), reference);
    drop(cx);
    damage(run, n - 1);
    let e = Context::open(run.clone()).unwrap_err().to_string();
    assert!(e.contains(&format!("line {} is damaged", n - 1)), "{e}");
}

/// Candidate 1 (`gen2-32-c1`, its net the repository's gen1-32 again, in `candidates/`)
/// through the journal: `train_started` (no data), `exported`, `gate_started`, `gate_done`
/// with `result`, `promoted` (its net copied to `nets/gen2-32.nnue`): the first `n` of them.
pub fn candidate(run: &RunDir, result: GateResult, n: usize) {
    std::fs::create_dir_all(run.candidates()).unwrap();
    std::fs::copy(net(), run.candidates().join("gen2-32-c1.nnue")).unwrap();
    if n >= 5 {
        std::fs::copy(net(), run.nets().join("gen2-32.nnue")).unwrap();
    }
    let records = [
        Record::TrainStarted {
            t: 3,
            cand: 1,
            name: "gen2-32-c1".into(),
            dir: "candidates/c1".into(),
            data: Vec::new(),
            segments: Vec::new(),
            args: Vec::new(),
            sweep: None,
        },
        Record::Exported {
            t: 4,
            cand: 1,
            net: "candidates/gen2-32-c1.nnue".into(),
            fingerprint: "0".into(),
            val_loss: None,
            train_secs: 1,
        },
        Record::GateStarted {
            t: 5,
            cand: 1,
            args: Vec::new(),
        },
        Record::GateDone {
            t: 6,
            cand: 1,
            result,
            gate_secs: 1,
        },
        Record::Promoted {
            t: 7,
            cand: 1,
            net: "nets/gen2-32.nnue".into(),
        },
    ];
    append(run, &records[..n]);
}

/// Waits until `what` holds (at most 30 s).
pub fn wait_for(mut what: impl FnMut() -> bool) {
    let start = Instant::now();
    while !what() {
        assert!(start.elapsed() < Duration::from_secs(30), "too slow");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The journal's records without times and durations, as JSON: what a resumed stage must
/// repeat.
pub fn decisions(cx: &Context) -> Vec<String> {
    cx.records()
        .iter()
        .map(|r| {
            let mut v = serde_json::to_value(r).unwrap();
            let o = v.as_object_mut().unwrap();
            for k in ["t", "train_secs", "gate_secs"] {
                o.remove(k);
            }
            v.to_string()
        })
        .collect()
}

/// The arguments `tool` was run with, a line a run.
pub fn calls(dir: &Path, tool: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(format!("args-{tool}.txt")))
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

/// Flips a byte of the JSON of journal line `line` (from 1), so that its checksum no longer
/// matches.
pub fn damage(run: &RunDir, line: usize) {
    let mut bytes = std::fs::read(run.journal()).unwrap();
    let start: usize = bytes
        .split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(<[u8]>::len)
        .sum();
    bytes[start + 3] ^= 1;
    std::fs::write(run.journal(), bytes).unwrap();
}

/// Tears the journal's last line as a kill in the middle of its append leaves it: cut in
/// half, its newline gone.
pub fn tear(run: &RunDir) {
    let mut bytes = std::fs::read(run.journal()).unwrap();
    bytes.pop();
    let start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(start + (bytes.len() - start) / 2);
    std::fs::write(run.journal(), bytes).unwrap();
}

/// The journal's lines.
pub fn lines(run: &RunDir) -> usize {
    std::fs::read(run.journal())
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The run's `learn.toml` with `from` replaced by `to` (which must be there).
pub fn edit_settings(run: &RunDir, from: &str, to: &str) {
    let text = std::fs::read_to_string(run.settings()).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(run.settings(), text.replace(from, to)).unwrap();
}

//! A stage that stopped the run because of a setting is retried with the setting as
//! `learn.toml` says now: a training or gate started (journaled) but not yet under way takes
//! the settings of when it is started, not those of its journal record (journals written
//! before 2026-12-06 hold the whole command line in `train_started` and `gate_started`),
//! and the journal says why the run stopped, with the tool's own words. A `learn.toml` read
//! again during a run that names a tool that is not there is reported and the old settings
//! stay (the run goes on). The tools are shell scripts that write down their arguments and
//! fail (or play on until stopped).

#![allow(clippy::unwrap_used)]
#![cfg(unix)]

use learn::journal::{read, DataSlice, Journal, Record};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use testing::temp;

fn net() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue")
}

/// A tool that appends its arguments to `args` (one line a run), says `complaint` on
/// stderr and exits with `code`.
fn fake_tool(path: &Path, args: &Path, complaint: &str, code: i32) {
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\necho '{complaint}' >&2\nexit {code}\n",
            args.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A run directory made by `learn init`, its journal taken to a candidate that stopped the
/// run (`records`), with `settings` (the mended ones) and fake tools, each writing its
/// arguments to `DIR/args-TOOL.txt`.
fn stopped_run(dir: &Path, settings: &str, records: impl Fn(&Path) -> Vec<Record>) -> PathBuf {
    let run = dir.join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(["init", run.to_str().unwrap(), "--net", net().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut tools = String::from("[tools]\n");
    for (tool, code) in [("luft", 0), ("datagen", 1), ("trainer", 2), ("arena", 3)] {
        let path = dir.join(format!("fake-{tool}"));
        fake_tool(
            &path,
            &dir.join(format!("args-{tool}.txt")),
            &format!("{tool}: this setting is refused"),
            code,
        );
        tools.push_str(&format!("{tool} = \"{}\"\n", path.display()));
    }
    std::fs::write(run.join("learn.toml"), format!("{settings}\n{tools}")).unwrap();
    let (mut journal, _) = Journal::open(&run.join("journal")).unwrap();
    for r in records(&run) {
        journal.append(&r).unwrap();
    }
    run
}

fn segment_and_training(run: &Path, args: &str) -> Vec<Record> {
    vec![
        Record::SegmentStarted {
            t: 1,
            index: 0,
            dir: run.join("data/s000-gen1-32-classical"),
            net: "gen1-32".into(),
            openings: "classical".into(),
            target: 100,
            seed: 7,
        },
        Record::SegmentDone {
            t: 2,
            index: 0,
            games: 1,
            positions: 100,
        },
        Record::TrainStarted {
            t: 3,
            cand: 1,
            name: "gen2-32-c1".into(),
            dir: run.join("candidates/c1"),
            data: vec![DataSlice {
                file: run.join("data/s000-gen1-32-classical/games-0.bin"),
                games: 1,
                positions: 100,
                bytes: 1000,
            }],
            segments: vec![0],
            args: args.split(' ').map(String::from).collect(),
            sweep: None,
        },
    ]
}

fn learn_run(run: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(["run", run.to_str().unwrap(), "--candidates", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the fake tool fails three times: {text}"
    );
    text
}

fn last_stop(run: &Path) -> String {
    read(&run.join("journal"))
        .unwrap()
        .0
        .iter()
        .rev()
        .find_map(|r| match r {
            Record::Stopped { why, .. } => Some(why.clone()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn a_training_stopped_by_a_setting_is_retried_with_the_mended_setting() {
    let dir = temp("train");
    let settings = "[selfplay]\nthreads_busy = 0\n[train]\nbatch_size = 256\nbatches_per_superbatch = 4\n";
    let run = stopped_run(&dir, settings, |run| {
        let mut records = segment_and_training(
            run,
            &format!(
                "train --data {} --hidden 32 --buckets 1 --epochs 16 --wdl 0.3 --lr 0.001 --threads 1 \
                 --seed 1401 --batch-size 0 --batches-per-superbatch 0 --out {} --init {}",
                run.join("data/s000-gen1-32-classical/games-0.bin").display(),
                run.join("candidates/c1").display(),
                run.join("nets/gen1-32.nnue").display()
            ),
        );
        records.push(Record::Stopped {
            t: 4,
            why: "error: trainer for gen2-32-c1 exited with exit status: 2, three times in a row".into(),
        });
        records
    });
    let log = learn_run(&run);
    let started = std::fs::read_to_string(dir.join("args-trainer.txt")).unwrap();
    assert_eq!(started.lines().count(), 3, "{started}\n{log}");
    for line in started.lines() {
        assert!(
            line.contains("--batch-size 256") && line.contains("--batches-per-superbatch 4"),
            "the trainer runs with learn.toml's settings of now: {line}"
        );
        assert!(!line.contains("--batch-size 0"), "{line}");
    }
    let why = last_stop(&run);
    assert!(
        why.contains("gen2-32-c1") && why.contains("trainer: this setting is refused"),
        "the journal says why the run stopped: {why}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_gate_stopped_by_a_setting_is_retried_with_the_mended_setting() {
    let dir = temp("gate");
    let settings = "[selfplay]\nthreads_busy = 0\n[gate]\ntc = \"1+0.01\"\nnodes = 0\n";
    let run = stopped_run(&dir, settings, |run| {
        std::fs::create_dir_all(run.join("candidates")).unwrap();
        std::fs::copy(net(), run.join("candidates/gen2-32-c1.nnue")).unwrap();
        let mut records = segment_and_training(run, "train");
        records.push(Record::Exported {
            t: 4,
            cand: 1,
            net: run.join("candidates/gen2-32-c1.nnue"),
            fingerprint: "0".into(),
            val_loss: None,
            train_secs: 1,
        });
        records.push(Record::GateStarted {
            t: 5,
            cand: 1,
            args: [
                "-engine",
                "cmd=luft",
                "name=gen2-32-c1",
                "-engine",
                "cmd=luft",
                "name=gen1-32",
                "-each",
                "tc=abc",
                "-rounds",
                "750",
            ]
            .map(String::from)
            .to_vec(),
        });
        records.push(Record::Stopped {
            t: 6,
            why: "error: arena for the gate of gen2-32-c1 failed (exit status: 3), three times in a row"
                .into(),
        });
        records
    });
    let log = learn_run(&run);
    let started = std::fs::read_to_string(dir.join("args-arena.txt")).unwrap();
    assert_eq!(started.lines().count(), 3, "{started}\n{log}");
    for line in started.lines() {
        assert!(
            line.contains("tc=1+0.01") && !line.contains("tc=abc"),
            "arena runs with learn.toml's settings of now: {line}"
        );
    }
    let why = last_stop(&run);
    assert!(
        why.contains("gen2-32-c1") && why.contains("arena: this setting is refused"),
        "the journal says why the run stopped: {why}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_reread_learn_toml_naming_a_tool_that_is_not_there_keeps_the_old_settings() {
    let dir = temp("tools");
    let run = stopped_run(&dir, "[selfplay]\nthreads_idle = 1\n", |_| Vec::new());
    // A datagen that plays on until stopped.
    let args = dir.join("args-datagen.txt");
    std::fs::write(
        dir.join("fake-datagen"),
        format!("#!/bin/sh\necho \"$@\" >> '{}'\nexec sleep 60\n", args.display()),
    )
    .unwrap();
    let out = dir.join("out.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(["run", run.to_str().unwrap()])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let wait_for = |what: &dyn Fn() -> bool| {
        let start = std::time::Instant::now();
        while !what() {
            assert!(start.elapsed() < std::time::Duration::from_secs(60), "too slow");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    wait_for(&|| args.exists());
    let settings = std::fs::read_to_string(run.join("learn.toml")).unwrap();
    std::fs::write(
        run.join("learn.toml"),
        settings.replace("fake-luft", "no-such-luft"),
    )
    .unwrap();
    wait_for(&|| {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        text.contains("not applied") || text.contains("learn: stopped")
    });
    testing::interrupt(&child);
    let status = child.wait().unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        status.code() == Some(130)
            && text.contains("learn.toml not applied")
            && text.contains("no-such-luft"),
        "the run goes on with the old tools: {status}\n{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

//! The `learn` loop end to end with the real binaries on tiny settings (a 16-wide start net of random weights,
//! self-play at 200 nodes in segments of 1,500 positions, training of 2 superbatches of 2
//! batches of 256 positions, gates at fixed nodes): two generations decided, then the same run
//! killed with `kill -9` again and again in every stage and resumed, whose journal (times
//! aside), data files, packs and nets must be byte for byte the uninterrupted run's; a
//! second `learn run` on a directory in use is refused. `threads_busy = 0` makes the run one stage at a time, so
//! every record is repeatable. Every promoted net plays a gauntlet (4 games against luft
//! with the start net) before the next candidate, rated by `arena rate`.
//!
//! The binaries are the ones the workspace test command builds (see full_loop.rs).

#![allow(clippy::unwrap_used)]

use learn::journal::{read, Record};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tests::{binary, temp};

const SETTINGS: &str = r#"
[selfplay]
threads_idle = 1
threads_busy = 0
nodes = 200
segment_positions = 1500
dfrc_every = 2
seed = 7
[train]
every_positions = 1500
epochs = 30
epochs_scratch = 30
batches_per_superbatch = 2
batch_size = 256
# a seed at which one of the two candidates is promoted, so a gauntlet is played and killed in
# (the outcome of such tiny gates follows the data: 3 promoted none once the soft budget scaled)
seed = 13
[gate]
nodes = 300
max_games = 16
elo0 = 0.0
elo1 = 100.0
alpha = 0.45
beta = 0.45
max_moves = 120
[gauntlet]
every = 1
nodes = 300
games = 4
anchor = "random16=0"
"#;

/// A run directory started from a 16-wide net of random weights (`gen0-16`), which any
/// trained candidate beats.
fn init(dir: &Path) {
    let net = dir.with_extension("gen0-16.nnue");
    let random = nnue::Network::random(16, 1, 5).unwrap();
    std::fs::write(&net, random.to_bytes()).unwrap();
    let named = dir.with_file_name(format!(
        "{}-gen0-16.nnue",
        dir.file_name().unwrap().to_string_lossy()
    ));
    std::fs::rename(&net, &named).unwrap();
    let net = named;
    let out = Command::new(binary("learn"))
        .args([
            "init",
            dir.to_str().unwrap(),
            "--net",
            net.to_str().unwrap(),
            "--name",
            "gen0-16",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tools = binary("learn").parent().unwrap().to_path_buf();
    let mut text = SETTINGS.to_string();
    // The gauntlet's one opponent: luft with the start net.
    text.push_str(&format!(
        "[[gauntlet.opponents]]\nname = \"random16\"\nengine = [\"cmd={}/luft\", \"option.EvalFile={}\", \"option.Hash=4\"]\n",
        tools.display(),
        net.display()
    ));
    text.push_str(&format!(
        "[tools]\nluft = \"{0}/luft\"\ndatagen = \"{0}/datagen\"\ntrainer = \"{0}/trainer\"\narena = \"{0}/arena\"\n",
        tools.display()
    ));
    std::fs::write(dir.join("learn.toml"), text).unwrap();
}

fn learn_run(dir: &Path) -> Command {
    let mut c = Command::new(binary("learn"));
    c.args(["run", dir.to_str().unwrap(), "--candidates", "2"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// The journal without times, durations, settings and stop records: what must repeat.
fn decisions(dir: &Path) -> Vec<String> {
    let (records, _) = read(&dir.join("journal")).unwrap();
    records
        .iter()
        .filter(|r| !matches!(r, Record::Stopped { .. } | Record::Settings { .. }))
        .map(|r| {
            let mut v = serde_json::to_value(r).unwrap();
            let o = v.as_object_mut().unwrap();
            for k in ["t", "train_secs", "gate_secs"] {
                o.remove(k);
            }
            // Paths differ between the two run directories.
            v.to_string().replace(dir.to_str().unwrap(), "DIR")
        })
        .collect()
}

fn files_under(dir: &Path, sub: &str) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join(sub)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .is_some_and(|x| x == "bin" || x == "nnue" || x == "pack")
            {
                out.push((
                    p.strip_prefix(dir).unwrap().display().to_string(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn two_generations_then_kill_9_in_every_stage_resumes_to_the_same_run() {
    // Uninterrupted.
    let whole = temp("whole");
    init(&whole);
    let out = learn_run(&whole).output().unwrap();
    let log = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let reference = decisions(&whole);
    let decided = reference
        .iter()
        .filter(|r| r.contains("\"kind\":\"promoted\"") || r.contains("\"kind\":\"rejected\""))
        .count();
    assert_eq!(decided, 2, "{log}\n{reference:#?}");
    assert!(
        reference.iter().any(|r| r.contains("\"kind\":\"promoted\"")),
        "{reference:#?}"
    );
    assert!(reference.iter().any(|r| r.contains("\"kind\":\"gate_done\"")));
    // A promotion before the last decision is followed by its gauntlet, rated, before the
    // next candidate trains.
    let kind_at = |i: usize| {
        reference[i]
            .split("\"kind\":\"")
            .nth(1)
            .unwrap_or("")
            .split('"')
            .next()
            .unwrap_or("")
            .to_string()
    };
    let first_promotion = (0..reference.len()).find(|&i| kind_at(i) == "promoted").unwrap();
    let last_decision = (0..reference.len())
        .rev()
        .find(|&i| matches!(kind_at(i).as_str(), "promoted" | "rejected"))
        .unwrap();
    if first_promotion < last_decision {
        let after: Vec<String> = (first_promotion + 1..reference.len()).map(kind_at).collect();
        let rated = after.iter().position(|k| k == "gauntlet_done");
        let trained = after.iter().position(|k| k == "train_started");
        assert!(rated.is_some() && rated < trained, "{reference:#?}");
        let done = &reference[first_promotion + 1 + rated.unwrap()];
        assert!(
            done.contains("\"games\":4") && done.contains("random16"),
            "{done}"
        );
        let dir_of = |d: &Path| d.join("gauntlets");
        assert!(std::fs::read_dir(dir_of(&whole)).unwrap().any(|e| e
            .unwrap()
            .path()
            .join("ratings.txt")
            .exists()));
    }
    // status and report read the run.
    let status = Command::new(binary("learn"))
        .args(["status", whole.to_str().unwrap()])
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(status.contains("best net: gen"), "{status}");
    let report = Command::new(binary("learn"))
        .args(["report", whole.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(report.status.success());
    assert!(whole.join("report.md").exists() && whole.join("report-elo.png").exists());
    assert!(whole.join("candidates.json").exists());
    // Every finished segment is packed, and the pack verifies.
    let packs = |d: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(d.join("packs"))
            .map(|r| {
                r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let done = reference
        .iter()
        .filter(|r| r.contains("\"kind\":\"segment_done\""))
        .count();
    let packed = packs(&whole);
    assert!(
        done >= 1 && packed.len() == done,
        "{packed:?}, {done} segments done"
    );
    for name in &packed {
        let verify = Command::new(binary("datagen"))
            .args(["verify", whole.join("packs").join(name).to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            verify.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&verify.stderr)
        );
    }

    // The same run, killed with -9 at every few records until it is done.
    let dir = temp("kill9");
    init(&dir);
    let start = Instant::now();
    let mut kills: u64 = 0;
    let mut kinds_killed_in = std::collections::BTreeSet::new();
    let kind_count = |kind: &str| {
        read(&dir.join("journal"))
            .unwrap()
            .0
            .iter()
            .filter(|r| serde_json::to_value(r).unwrap()["kind"] == kind)
            .count()
    };
    // Each stage once, then in turn: kill -9 a moment after its next record appears. The
    // run repeats the uninterrupted one, so the next stage is the first one of `reference`
    // still to come that has not been killed in yet (a stage whose last record is behind
    // would never be killed in: the run may end first); once every stage has been, in turn.
    let mut stages = vec!["segment_started", "train_started", "exported", "gate_started"];
    if reference
        .iter()
        .any(|r| r.contains("\"kind\":\"gauntlet_started\""))
    {
        stages.push("gauntlet_started");
    }
    stages.push("segment_done");
    loop {
        let seen = decisions(&dir).len();
        let kind_of = |r: &String| serde_json::from_str::<serde_json::Value>(r).unwrap()["kind"].clone();
        let target = reference
            .get(seen..)
            .unwrap_or_default()
            .iter()
            .find_map(|r| {
                stages
                    .iter()
                    .copied()
                    .find(|&s| kind_of(r) == s && !kinds_killed_in.contains(s))
            })
            .unwrap_or(stages[(kills as usize) % stages.len()]);
        let before = kind_count(target);
        let mut child = learn_run(&dir).spawn().unwrap();
        let finished = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if kind_count(target) > before {
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        match finished {
            Some(status) => {
                let out = child.wait_with_output().unwrap();
                assert!(
                    status.success(),
                    "learn run: {status}\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                break;
            }
            None => {
                std::thread::sleep(Duration::from_millis(40 * (kills % 5)));
                child.kill().unwrap(); // SIGKILL
                child.wait().unwrap();
                kinds_killed_in.insert(target);
                kills += 1;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(600), "too slow");
    }
    assert!(kills >= 5, "{kills} kills");
    for stage in &stages {
        assert!(
            kinds_killed_in.contains(stage),
            "never killed after {stage}: {kinds_killed_in:?}"
        );
    }
    assert_eq!(decisions(&dir), reference);
    assert_eq!(
        packs(&dir),
        packed,
        "a kill in any stage leaves every segment packed"
    );
    assert_eq!(files_under(&dir, "nets"), files_under(&whole, "nets"));
    let nets = |d: &Path| {
        files_under(d, "candidates")
            .into_iter()
            .filter(|f| f.0.ends_with(".nnue") && !f.0.contains("final"))
            .collect::<Vec<_>>()
    };
    assert_eq!(nets(&dir), nets(&whole));
    // The self-play: the same files byte for byte, data files and packs (their headers name
    // the net by file name and fingerprint, nothing of the run's folder), every one clean.
    let (a, b) = (files_under(&dir, "data"), files_under(&whole, "data"));
    assert!(!a.is_empty());
    for (name, bytes) in &a {
        let scan = records::record::scan_reader(&bytes[..], true).unwrap();
        assert!(scan.is_clean(), "{name}");
    }
    let names = |files: &[(String, Vec<u8>)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between the two runs");
    }
    let (a, b) = (files_under(&dir, "packs"), files_under(&whole, "packs"));
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between the two runs");
    }
}

#[test]
fn a_second_runner_on_one_directory_is_refused() {
    let dir = temp("lock");
    init(&dir);
    let first = learn_run(&dir).spawn().unwrap();
    let start = Instant::now();
    while !dir.join("lock.pid").exists() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let second = learn_run(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&second.stderr).into_owned();
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(
        err.contains("another `learn run` holds") && err.contains("one run per directory"),
        "{err}"
    );
    // Ctrl-C (SIGINT) stops the first one cleanly, saying how to resume, and exits 130 (it
    // did not reach its end).
    tests::interrupt(&first);
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("stopped (interrupted)"), "{text}");
}

//! A `learn` run directory belongs to itself, with the real binaries on tiny settings: a run
//! stopped in the middle of self-play, and one stopped in the middle of its gate, is copied
//! (`cp -a`) and the copy run to its first decision; the original is not touched by it (every
//! file byte for byte as it was, nothing added), and the copy keeps every game the original
//! had made (its data file and its gate's PGN start with the original's). The original,
//! then moved to another name, resumes there (the old path is not made again) and decides
//! exactly as the copy did. A run written with absolute paths by the code of 8257eee
//! (`tests/data/learn-absolute-paths`, stopped in its gate at `/srv/luft/runs/old`) resumes
//! in a directory of another name, its gate going on from its 5 saved games.
//!
//! The binaries are the ones the workspace test command builds (see full_loop.rs).

#![allow(clippy::unwrap_used)]

use learn::journal::{read, Record};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tests::{binary, temp};

const SETTINGS: &str = r#"
[selfplay]
threads_idle = 1
threads_busy = 0
nodes = 200
segment_positions = 2000
dfrc_every = 0
seed = 7
[train]
every_positions = 2000
epochs = 2
epochs_scratch = 2
batches_per_superbatch = 2
batch_size = 64
seed = 13
[gate]
nodes = 300
max_games = 24
elo0 = 0.0
elo1 = 100.0
alpha = 0.05
beta = 0.05
max_moves = 120
"#;

/// The `[tools]` of this build.
fn tools() -> String {
    format!(
        "[tools]\nluft = \"{}\"\ndatagen = \"{}\"\ntrainer = \"{}\"\narena = \"{}\"\n",
        binary("luft").display(),
        binary("datagen").display(),
        binary("trainer").display(),
        binary("arena").display()
    )
}

/// A run directory from a 16-wide net of random weights (`gen0-16`).
fn init(dir: &Path) {
    let net = dir.with_file_name(format!(
        "{}-gen0-16.nnue",
        dir.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&net, nnue::Network::random(16, 1, 5).unwrap().to_bytes()).unwrap();
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
    std::fs::write(dir.join("learn.toml"), format!("{SETTINGS}{}", tools())).unwrap();
}

/// `learn run DIR --candidates 1` to its end.
fn run_to_decision(dir: &Path) {
    let out = Command::new(binary("learn"))
        .args(["run", dir.to_str().unwrap(), "--candidates", "1"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `learn run DIR` stopped with Ctrl-C (SIGINT) as soon as `ready` says so.
fn run_until(dir: &Path, ready: impl Fn() -> bool) {
    let mut child = Command::new(binary("learn"))
        .args(["run", dir.to_str().unwrap(), "--candidates", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !ready() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the point to stop at"
        );
        assert!(start.elapsed() < Duration::from_secs(300), "too slow");
        std::thread::sleep(Duration::from_millis(5));
    }
    tests::interrupt(&child);
    assert_eq!(child.wait().unwrap().code(), Some(130));
}

fn kinds(dir: &Path) -> Vec<String> {
    read(&dir.join("journal"))
        .map(|(records, _)| {
            records
                .iter()
                .map(|r| {
                    serde_json::to_value(r).unwrap()["kind"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
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
            v.to_string()
        })
        .collect()
}

/// Every file under `dir` (relative name, bytes).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// `cp -a from to`.
fn copy_dir(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(from).arg(to).status().unwrap();
    assert!(status.success());
}

/// The files of `dir` under `sub` whose names end in `suffix`, with their bytes.
fn files(dir: &Path, sub: &str, suffix: &str) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter(|(p, _)| p.starts_with(sub) && p.to_string_lossy().ends_with(suffix))
        .collect()
}

/// Games in a PGN file.
fn pgn_games(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("[Result "))
        .count()
}

fn gate_games(dir: &Path) -> u64 {
    read(&dir.join("journal"))
        .unwrap()
        .0
        .iter()
        .find_map(|r| match r {
            Record::GateDone { result, .. } => Some(result.games),
            _ => None,
        })
        .unwrap()
}

/// Copies `original` (stopped) to `copy` and runs the copy to its decision: the original is
/// untouched. Then moves the original and runs it: it decides as the copy did.
fn copy_run_move_run(original: &Path) -> PathBuf {
    let copy = original.with_file_name("copy");
    copy_dir(original, &copy);
    let before = snapshot(original);
    run_to_decision(&copy);
    assert!(
        snapshot(original) == before,
        "the copy's run wrote into the original"
    );
    let moved = original.with_file_name("moved");
    std::fs::rename(original, &moved).unwrap();
    run_to_decision(&moved);
    assert!(!original.exists(), "the moved run made its old path again");
    assert_eq!(decisions(&moved), decisions(&copy));
    assert_eq!(files(&moved, "data", ".bin"), files(&copy, "data", ".bin"));
    assert_eq!(
        files(&moved, "candidates", ".nnue"),
        files(&copy, "candidates", ".nnue")
    );
    copy
}

#[test]
fn a_run_copied_in_self_play_is_a_run_of_its_own_and_a_moved_one_resumes() {
    let dir = temp("selfplay");
    let original = dir.join("run");
    init(&original);
    let data = || {
        files(&original, "data", ".bin")
            .iter()
            .map(|(_, b)| b.len())
            .sum::<usize>()
    };
    run_until(&original, || data() > 3000);
    assert!(
        !kinds(&original).contains(&"segment_done".to_string()),
        "stopped in the middle of the segment"
    );
    let played = files(&original, "data", ".bin");
    let copy = copy_run_move_run(&original);
    // The copy kept every game the original had played, and so did the moved run; each
    // finished the segment (with no new game when the original had reached its target just
    // before it stopped, so neither every file nor the total need grow).
    for run in [&copy, &dir.join("moved")] {
        for (name, bytes) in &played {
            let now = std::fs::read(run.join(name)).unwrap();
            assert!(now.starts_with(bytes), "{}: a game was lost", name.display());
        }
        assert!(
            kinds(run).contains(&"segment_done".to_string()),
            "{}: the segment was not finished",
            run.display()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_run_copied_in_its_gate_is_a_run_of_its_own_and_a_moved_one_resumes() {
    let dir = temp("gate");
    let original = dir.join("run");
    init(&original);
    let pgn = original.join("gates/c1/games.pgn");
    run_until(&original, || {
        original.join("gates/c1/state.json").exists() && pgn_games(&pgn) >= 2
    });
    assert!(
        !kinds(&original).contains(&"gate_done".to_string()),
        "stopped in the middle of the gate"
    );
    let played = std::fs::read(&pgn).unwrap();
    let copy = copy_run_move_run(&original);
    for run in [&copy, &dir.join("moved")] {
        let now = std::fs::read(run.join("gates/c1/games.pgn")).unwrap();
        assert!(
            now.starts_with(&played),
            "the games played before the copy are kept"
        );
        assert_eq!(
            pgn_games(&run.join("gates/c1/games.pgn")) as u64,
            gate_games(run),
            "every counted game is in the run's own PGN"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_run_written_with_absolute_paths_resumes_elsewhere() {
    let dir = temp("old");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/learn-absolute-paths");
    let run = dir.join("resumed");
    copy_dir(&fixture, &run);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::create_dir_all(run.join("nets")).unwrap();
    std::fs::create_dir_all(run.join("candidates")).unwrap();
    std::fs::copy(repo.join("nets/gen1-32.nnue"), run.join("nets/gen1-32.nnue")).unwrap();
    std::fs::copy(
        repo.join("nets/gen1-32.nnue"),
        run.join("candidates/gen2-32-c1.nnue"),
    )
    .unwrap();
    std::fs::copy(
        repo.join("arena/openings/luft-8ply.epd"),
        run.join("openings.epd"),
    )
    .unwrap();
    let mut settings = std::fs::read_to_string(run.join("learn.toml")).unwrap();
    settings.push_str(&tools());
    std::fs::write(run.join("learn.toml"), settings).unwrap();
    let saved = std::fs::read(fixture.join("gates/c1/games.pgn")).unwrap();
    run_to_decision(&run);
    let pgn = run.join("gates/c1/games.pgn");
    let now = std::fs::read(&pgn).unwrap();
    assert!(
        now.starts_with(&saved) && now.len() > saved.len(),
        "the gate went on in place"
    );
    assert_eq!(pgn_games(&pgn) as u64, gate_games(&run));
    assert!(gate_games(&run) > 5);
    std::fs::remove_dir_all(&dir).ok();
}

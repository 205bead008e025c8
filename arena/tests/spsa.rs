//! `arena spsa` end to end, on the synthetic engine (`arena-fault-engine spsa`), whose
//! strength peaks at its options X = 30, Y = -20 and whose game results are a function of
//! both sides' values and the opening alone: the tuner started far from the peak ends near
//! it; a run interrupted (SIGTERM), killed (SIGKILL) and resumed ends exactly where an
//! uninterrupted run with the same seed ends; bad input is refused with exit code 3.

// The helpers outside the #[test] functions unwrap too.
#![allow(clippy::unwrap_used)]

mod common;

use arena::spsa_run::{load_state, SpsaState};
use common::{run_arena, temp_dir, ARENA, BOOK, FAULT};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The synthetic engine's peak.
const PEAK: [f64; 2] = [30.0, -20.0];

/// Start far from the peak: X at 80 of [0, 100], Y at 40 of [-50, 50].
const PARAMS: &str = "X, int, 80, 0, 100, 5, 0.2\nY, int, 40, -50, 50, 5, 0.2\n";

/// The command line of a run of `iterations` iterations of 2 pairs, saving to `state`.
fn spsa_args(params: &Path, iterations: u64, seed: u64, state: &Path) -> Vec<String> {
    let line = format!(
        "spsa -engine cmd={FAULT} args=spsa name=stub -each nodes=1 -openings file={BOOK} \
         -concurrency 2 -resign movecount=1 score=1000 -maxmoves 4 \
         -spsa params={} iterations={iterations} pairs=2 seed={seed} print=25 -config outname={}",
        params.display(),
        state.display()
    );
    line.split_whitespace().map(String::from).collect()
}

#[test]
fn spsa_converges_to_the_synthetic_engines_peak() {
    let dir = temp_dir("converge");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let state_path = dir.join("tune.json");
    let started = Instant::now();
    let (code, out, err) = run_arena(None, &spsa_args(&params, 150, 7, &state_path));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let state = load_state(state_path.to_str().unwrap()).unwrap();
    assert_eq!((state.k, state.wdl.iter().sum::<u64>()), (150, 600));
    for (v, peak) in state.theta.iter().zip(PEAK) {
        assert!(
            (v - peak).abs() <= 8.0,
            "theta {:?} is not near the peak {PEAK:?}",
            state.theta
        );
    }
    // The values as `luft spsa` lines and option tokens, every 25 iterations and at the end.
    assert_eq!(out.matches("SPSA iteration ").count(), 6, "{out}");
    let x = state.theta[0].round();
    let y = state.theta[1].round();
    assert!(
        out.contains(&format!(
            "X, int, {x}, 0, 100, 5, 0.2\nY, int, {y}, -50, 50, 5, 0.2\n"
        )),
        "{out}"
    );
    assert!(out.contains(&format!("option.X={x} option.Y={y}")), "{out}");
    assert!(out.contains("SPSA finished: 150 iterations, 600 games"), "{out}");
    // The path: a header, the start and a row per iteration; the picture.
    let csv = std::fs::read_to_string(dir.join("tune.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 152);
    assert_eq!(
        rows[..2],
        ["iteration,games,wins,draws,losses,X,Y", "0,0,0,0,0,80,40"]
    );
    assert!(rows[151].starts_with("150,600,"), "{}", rows[151]);
    let png = std::fs::read(dir.join("tune.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    std::fs::remove_dir_all(&dir).ok();
}

/// The state file's iterations done, once it can be read.
fn iterations_done(path: &Path) -> Option<u64> {
    load_state(path.to_str()?).ok().map(|s| s.k)
}

/// Starts a run and stops it with `signal` once its state counts at least `after`
/// iterations; its exit status code (None: killed by the signal) and stdout.
fn stop_after(args: &[String], state: &Path, after: u64, signal: &str) -> (Option<i32>, String) {
    let child = Command::new(ARENA)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while iterations_done(state).is_none_or(|k| k < after) {
        assert!(
            Instant::now() < deadline,
            "the run did not reach iteration {after}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn same_run(a: &SpsaState, b: &SpsaState) {
    assert_eq!(
        (a.k, a.rng, &a.theta, a.wdl, a.csv_bytes, &a.params),
        (b.k, b.rng, &b.theta, b.wdl, b.csv_bytes, &b.params)
    );
}

#[test]
fn an_interrupted_and_killed_run_resumes_to_the_same_values() {
    let dir = temp_dir("resume");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let iterations = 120;

    // Uninterrupted.
    let whole = dir.join("whole.json");
    let (code, out, err) = run_arena(None, &spsa_args(&params, iterations, 3, &whole));
    assert_eq!(code, 0, "{out}\n{err}");
    let whole_state = load_state(whole.to_str().unwrap()).unwrap();

    // SIGTERM (as Ctrl-C): exit 2, the whole iterations kept, the way to resume named.
    let cut = dir.join("cut.json");
    let args = spsa_args(&params, iterations, 3, &cut);
    let (code, out) = stop_after(&args, &cut, 10, "-TERM");
    let k = iterations_done(&cut).unwrap();
    assert!(k < iterations, "the run ended before it could be stopped");
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(&format!(
            "SPSA was interrupted in iteration {} (its games are played again on resume). The state in {} \
             holds {k} of {iterations} iterations: to resume, run: arena spsa -config file={}",
            k + 1,
            cut.display(),
            cut.display()
        )),
        "{out}"
    );

    // Resumed, then killed outright; a row the killed run wrote beyond its state is cut off.
    let resume = [
        "spsa".to_string(),
        "-config".into(),
        format!("file={}", cut.display()),
    ];
    let (code, _) = stop_after(&resume, &cut, k + 10, "-KILL");
    assert_eq!(code, None, "killed by the signal");
    let killed_at = iterations_done(&cut).unwrap();
    assert!(killed_at < iterations, "the run ended before it could be killed");
    let csv = dir.join("cut.csv");
    let mut text = std::fs::read_to_string(&csv).unwrap();
    text.push_str("999,3996,1,2,1,50.5,");
    std::fs::write(&csv, text).unwrap();

    // Resumed to the end: the same values, the same path.
    let (code, out, err) = run_arena(None, &resume);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains(&format!("Resuming after iteration {killed_at} of {iterations}")),
        "{out}"
    );
    assert!(err.contains("were cut off"), "{err}");
    same_run(&load_state(cut.to_str().unwrap()).unwrap(), &whole_state);
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        std::fs::read_to_string(dir.join("whole.csv")).unwrap()
    );
    // A finished run resumed again plays nothing and prints its values.
    let (code, out, _) = run_arena(None, &resume);
    assert_eq!(code, 0);
    assert!(
        out.contains("SPSA finished: 120 iterations, 480 games\nX, int, "),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_is_refused_with_exit_code_3() {
    let dir = temp_dir("errors");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "X, int, 80, 0, 100, 5, 0.2\nY, int, 60, -50, 50, 5, 0.2\n").unwrap();
    let state = dir.join("s.json");
    // An engine without the tuned options (the fault engine's mode `ok`).
    let mut plain = spsa_args(&params, 5, 1, &state);
    assert_eq!(plain[3], "args=spsa");
    plain.remove(3);
    let mut bad_file = spsa_args(&bad, 5, 1, &state);
    bad_file.push("-rounds".into());
    // A tuned value the engine refuses for an option it declares (the fault engine takes
    // Hash up to 64 of its declared 1 to 1024): the run stops, not tuning a value unused.
    let hash = dir.join("hash.txt");
    std::fs::write(&hash, "Hash, int, 200, 1, 1000, 20, 0.2\n").unwrap();
    for (args, error) in [
        (
            plain,
            "does not declare the options X, Y (for luft, tune a build with the tune feature",
        ),
        (
            spsa_args(&bad, 5, 1, &state),
            "line 2: start (60) must lie in [min, max] = [-50, 50]",
        ),
        (bad_file, "-rounds is not an option of arena spsa"),
        (spsa_args(&hash, 5, 1, &state), "refused option.Hash="),
        (
            vec!["spsa".into(), "-config".into(), "file=/nonexistent/s.json".into()],
            "cannot read /nonexistent/s.json",
        ),
    ] {
        let (code, out, err) = run_arena(None, &args);
        assert_eq!(code, 3, "{args:?}: {out}\n{err}");
        assert!(err.contains(error), "{args:?}: {err}");
    }
    // Help: alone, and in arena's.
    let (code, out, _) = run_arena(None, &["spsa", "-help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("-spsa params=FILE") && out.contains("A_ratio=R"),
        "{out}"
    );
    let (code, out, _) = run_arena(None, &["-help"]);
    assert_eq!(code, 0);
    assert!(out.contains("arena spsa -config file=STATE"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

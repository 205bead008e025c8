//! A `learn` recipe sweep end to end with the real binaries on tiny settings (a 16-wide
//! start net of random weights, self-play at 200 nodes in segments of 400 positions, two
//! recipes each trained for 2 superbatches of 2 batches of 256 positions, a gate at fixed
//! nodes capped at 4 games): the sweep trains both recipes on the older segment, screens them
//! by the real `trainer validate --json` on the newest segment held out, and gates exactly
//! one; the journal's `screened` record holds both recipes' trainer arguments, seeds and
//! finite losses, the losses those of the trainer's JSON; `candidates.json` gives every
//! candidate its recipe and arguments; `learn run` again on the finished run resumes cleanly
//! (no stage done twice).
//!
//! The binaries are the ones the workspace test command builds (see full_loop.rs).

#![allow(clippy::unwrap_used)]

use learn::journal::read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use tests::{binary, temp};

const SETTINGS: &str = r#"
[selfplay]
threads_idle = 1
threads_busy = 0
nodes = 200
segment_positions = 400
dfrc_every = 0
seed = 7
[train]
every_positions = 800
epochs = 2
epochs_scratch = 2
batches_per_superbatch = 2
batch_size = 256
threads = 1
seed = 13
screen_wdl = 0.4
[[train.recipes]]
name = "base"
[[train.recipes]]
name = "lowwdl"
wdl = 0.2
seed = 99
[gate]
nodes = 300
max_games = 4
max_moves = 120
"#;

/// A run directory started from a 16-wide net of random weights (`gen0-16`), with
/// [`SETTINGS`] and the workspace's binaries as its tools.
fn init(dir: &Path) {
    let net = dir.with_file_name(format!(
        "{}-gen0-16.nnue",
        dir.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&net, nnue::Network::random(16, 1, 5).unwrap().to_bytes()).unwrap();
    let out = Command::new(binary("learn"))
        .args(["init", dir.to_str().unwrap(), "--net", net.to_str().unwrap()])
        .args(["--name", "gen0-16"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tools = binary("learn").parent().unwrap().to_path_buf();
    let text = format!(
        "{SETTINGS}[tools]\nluft = \"{0}/luft\"\ndatagen = \"{0}/datagen\"\ntrainer = \"{0}/trainer\"\narena = \"{0}/arena\"\n",
        tools.display()
    );
    std::fs::write(dir.join("learn.toml"), text).unwrap();
}

/// `learn run DIR --candidates 1`, to its end.
fn learn_run(dir: &Path) -> Output {
    Command::new(binary("learn"))
        .args(["run", dir.to_str().unwrap(), "--candidates", "1"])
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// The journal's records as JSON.
fn journal(dir: &Path) -> Vec<serde_json::Value> {
    let (records, _) = read(&dir.join("journal")).unwrap();
    records.iter().map(|r| serde_json::to_value(r).unwrap()).collect()
}

fn of_kind<'a>(records: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    records.iter().filter(|r| r["kind"] == kind).collect()
}

#[test]
fn a_sweep_of_two_recipes_screens_both_by_trainer_validate_and_gates_one() {
    let dir = temp("two");
    init(&dir);
    let out = learn_run(&dir);
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    let records = journal(&dir);

    // Two candidates of one sweep, on the same data, the newest segment held out.
    let started = of_kind(&records, "train_started");
    assert_eq!(started.len(), 2, "{log}");
    let (s1, s2) = (&started[0], &started[1]);
    assert_eq!(
        (&s1["sweep"]["recipe"], &s2["sweep"]["recipe"]),
        (&"base".into(), &"lowwdl".into())
    );
    assert_eq!(s1["data"], s2["data"]);
    let held_out = s1["sweep"]["held_out"].as_array().unwrap().clone();
    assert_eq!(held_out.len(), 1);
    assert!(!s1["segments"].as_array().unwrap().contains(&held_out[0]), "{s1}");
    assert!(!s1["segments"].as_array().unwrap().is_empty(), "{s1}");

    // One screen: both recipes' arguments, seeds and finite losses, read from the trainer's
    // own JSON; the lower loss picked.
    let screened = of_kind(&records, "screened");
    assert_eq!(screened.len(), 1, "{log}");
    let screened = screened[0];
    assert_eq!(screened["wdl"], 0.4);
    assert!(screened["positions"].as_u64().unwrap() > 0);
    let entries = screened["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    let validation: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("candidates/screen-c1.json")).unwrap()).unwrap();
    assert_eq!(screened["positions"], validation["positions"]);
    let mut losses = Vec::new();
    for (e, (recipe, seed, wdl)) in entries.iter().zip([("base", 14, "0.3"), ("lowwdl", 99, "0.2")]) {
        assert_eq!(e["recipe"], recipe);
        let args: Vec<&str> = e["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let arg = |k: &str| args.iter().position(|a| *a == k).map(|i| args[i + 1]);
        assert_eq!(args[0], "train", "{args:?}");
        assert_eq!(arg("--seed"), Some(seed.to_string().as_str()), "{args:?}");
        assert_eq!(arg("--wdl"), Some(wdl), "{args:?}");
        assert_eq!(e["seed"], seed);
        let loss = e["loss"].as_f64().unwrap_or(f64::NAN);
        assert!(loss.is_finite() && loss > 0.0, "{e}");
        let net = validation["nets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["net"].as_str().unwrap().contains(&format!("-{recipe}.nnue")))
            .unwrap();
        assert_eq!(net["losses"][0][0], 0.4);
        assert_eq!(net["losses"][0][1].as_f64(), Some(loss));
        losses.push((loss, e["cand"].as_u64().unwrap()));
    }
    let best = if losses[1].0 < losses[0].0 {
        losses[1].1
    } else {
        losses[0].1
    };
    assert_eq!(screened["picked"], best);

    // Exactly one gate, the picked candidate's, decided.
    let gates = of_kind(&records, "gate_started");
    assert_eq!(gates.len(), 1, "{log}");
    assert_eq!(gates[0]["cand"], best);
    assert_eq!(of_kind(&records, "gate_done").len(), 1);
    let decided = of_kind(&records, "promoted").len() + of_kind(&records, "rejected").len();
    assert_eq!(decided, 1);

    // The provenance: every candidate's recipe and arguments.
    let report = Command::new(binary("learn"))
        .args(["report", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", text(&report));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("candidates.json")).unwrap()).unwrap();
    for (c, e) in json.as_array().unwrap().iter().zip(entries) {
        assert_eq!(c["recipe"]["name"], e["recipe"]);
        assert_eq!(c["trainer_args"], e["args"]);
        assert_eq!(c["screen"]["picked"], e["cand"] == best);
    }

    // Run again after its end: nothing is trained, screened or gated again.
    let again = learn_run(&dir);
    assert!(again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("1 candidate decided"), "{}", text(&again));
    let after = journal(&dir);
    let steps = |r: &[serde_json::Value]| {
        r.iter()
            .filter(|r| !matches!(r["kind"].as_str(), Some("stopped" | "settings")))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(steps(&after), steps(&records));
    std::fs::remove_dir_all(&dir).ok();
}

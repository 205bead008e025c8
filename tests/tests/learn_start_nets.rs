//! Any net can start a `learn` run, with the real binaries on tiny settings: from a
//! king-bucketed mirrored start net and from one with hidden layers, with `[train] arch`
//! empty, the run plays its self-play with it, fine-tunes a candidate of the very same shape
//! (feature set, mirroring, king buckets, hidden layers, output buckets) and gates it to a
//! decision.
//!
//! The binaries are the ones the workspace test command builds (see full_loop.rs).

#![allow(clippy::unwrap_used)]

use learn::journal::{read, Record};
use std::process::{Command, Stdio};
use tests::binary;

const SETTINGS: &str = r#"
[selfplay]
threads_idle = 1
threads_busy = 0
nodes = 200
segment_positions = 300
dfrc_every = 0
seed = 7
[train]
every_positions = 300
epochs = 2
epochs_scratch = 2
batches_per_superbatch = 2
batch_size = 64
seed = 13
[gate]
nodes = 300
max_games = 4
elo0 = 0.0
elo1 = 100.0
alpha = 0.05
beta = 0.05
max_moves = 120
"#;

/// A run from a net of `arch` (random weights) to its first decision; the candidate's
/// architecture and the journal's record of its training.
fn first_candidate(name: &str, arch: &str) -> (nnue::Arch, String) {
    let dir = tests::temp(&format!("start-{name}"));
    let arch: nnue::Arch = arch.parse().unwrap();
    let net = dir.join("gen0-16.nnue");
    std::fs::write(&net, nnue::Network::random_arch(&arch, 3).unwrap().to_bytes()).unwrap();
    let run = dir.join("run");
    let out = Command::new(binary("learn"))
        .args(["init", run.to_str().unwrap(), "--net", net.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tools = format!(
        "[tools]\nluft = \"{}\"\ndatagen = \"{}\"\ntrainer = \"{}\"\narena = \"{}\"\n",
        binary("luft").display(),
        binary("datagen").display(),
        binary("trainer").display(),
        binary("arena").display()
    );
    std::fs::write(run.join("learn.toml"), format!("{SETTINGS}{tools}")).unwrap();
    let out = Command::new(binary("learn"))
        .args(["run", run.to_str().unwrap(), "--candidates", "1"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let train_log = std::fs::read_to_string(run.join("logs/train-c1.log")).unwrap_or_default();
    assert!(out.status.success(), "{arch}: {log}\n{train_log}");
    let (records, _) = read(&run.join("journal")).unwrap();
    let exported = records
        .iter()
        .find_map(|r| match r {
            Record::Exported { net, .. } => Some(net.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        records.iter().any(|r| matches!(r, Record::GateDone { .. })),
        "{log}"
    );
    let candidate = nnue::Network::load(&run.join(exported)).unwrap().arch();
    let result = (candidate, log);
    std::fs::remove_dir_all(&dir).ok();
    result
}

fn assert_keeps_shape(name: &str, arch: &str) {
    let start: nnue::Arch = arch.parse().unwrap();
    let (candidate, log) = first_candidate(name, arch);
    assert_eq!(
        candidate, start,
        "the candidate keeps the start net's shape: {log}"
    );
    assert!(log.contains("fine-tuned from gen0-16"), "{log}");
}

#[test]
fn a_king_bucketed_mirrored_start_net_gives_a_candidate_of_its_shape() {
    assert_keeps_shape("kb", "(768x4hm -> 16 screlu)x2 -> 1x1");
}

#[test]
fn a_start_net_with_hidden_layers_gives_a_candidate_of_its_shape() {
    assert_keeps_shape("layers", "(768 -> 16 screlu)x2 -> (8 -> 1)x1");
}

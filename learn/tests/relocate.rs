//! A run's journal names the run's own files relative to the run directory, so a copied
//! directory is a run of its own and a moved one resumes: a journal written with absolute
//! paths (as `learn` wrote them until 2026-12-06, `tests/data/learn-absolute-paths`, made at
//! `/srv/luft/runs/old`) reads with every path into the run's own tree made relative to it;
//! paths outside it stay as they are.

#![allow(clippy::unwrap_used)]

use learn::journal::{read, Record, Stage, State};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/learn-absolute-paths")
}

#[test]
fn an_old_journal_reads_with_the_runs_own_paths_relative_to_it() {
    let (records, _) = read(&fixture().join("journal")).unwrap();
    let state = State::replay(&records);
    let (name, net, gen) = state.best.clone().unwrap();
    assert_eq!(
        (name.as_str(), net.as_path(), gen),
        ("gen1-32", Path::new("nets/gen1-32.nnue"), 1)
    );
    assert_eq!(state.chain[0].1, Path::new("nets/gen1-32.nnue"));
    assert_eq!(state.segments[0].dir, Path::new("data/s000-gen1-32-classical"));
    let cand = &state.candidates[0];
    assert_eq!(cand.stage, Stage::Gating);
    assert_eq!(cand.dir, Path::new("candidates/c1"));
    assert_eq!(cand.net.as_deref(), Some(Path::new("candidates/gen2-32-c1.nnue")));
    assert_eq!(
        cand.data[0].file,
        Path::new("data/s000-gen1-32-classical/games-0.bin")
    );
    // The frozen command lines (read, never run) name the run's files relatively too; the
    // tools, outside the run, keep their paths.
    assert!(
        cand.args.contains(&"candidates/c1".to_string()),
        "{:?}",
        cand.args
    );
    assert!(
        cand.args.contains(&"nets/gen1-32.nnue".to_string()),
        "{:?}",
        cand.args
    );
    let gate_args = records
        .iter()
        .find_map(|r| match r {
            Record::GateStarted { args, .. } => Some(args.clone()),
            _ => None,
        })
        .unwrap();
    assert!(gate_args.contains(&"option.EvalFile=candidates/gen2-32-c1.nnue".to_string()));
    assert!(gate_args.contains(&"file=openings.epd".to_string()));
    assert!(gate_args.contains(&"cmd=/srv/luft/target/release/luft".to_string()));
    for r in &records {
        let text = serde_json::to_string(r).unwrap();
        assert!(
            !text.contains("/srv/luft/runs/old"),
            "a path into the run is relative: {text}"
        );
    }
}

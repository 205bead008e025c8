//! Nets with hidden layers end to end: a small layered net (and a king-bucketed layered
//! one) trained on a slice of real self-play data through the training loop (the general
//! path) lowers its loss, keeps its layers in the checkpoint, exports, loads, its quantised
//! evaluation stays near the float model's, and the engine's incremental evaluation along
//! random games equals the `nnue` reference.

#![allow(clippy::unwrap_used)]

use engine::Evaluator;
use movegen::{Board, Move};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trainer::data::load_packed;
use trainer::model::Model;
use trainer::train::{train, Checkpoint, TrainConfig};

fn random_line(seed: u64, plies: usize) -> Vec<Move> {
    let mut rng = movegen::rng::SplitMix64(seed);
    let mut board = Board::startpos();
    let mut line = Vec::new();
    for _ in 0..plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.below(moves.len())];
        board.play(mv);
        line.push(mv);
    }
    line
}

#[test]
fn a_net_with_hidden_layers_trains_exports_and_the_engine_runs_it_exactly() {
    let data = std::path::Path::new("/work/shared/data/selfplay/gen13-a.bin");
    if !data.exists() {
        eprintln!("skipped: {} is not here", data.display());
        return;
    }
    let (positions, _) = load_packed(&[data.to_path_buf()]).unwrap();
    let slice = &positions[..positions.len().min(40_000)];
    for (text, seed) in [
        ("(768 -> 32 screlu)x2 -> (16 -> 32 -> 1)x8", 3),
        ("(768x4hm -> 32 screlu)x2 -> (8 -> 1)x8", 4),
    ] {
        let arch: nnue::Arch = text.parse().unwrap();
        let config = TrainConfig {
            hidden: arch.width,
            buckets: arch.output_buckets,
            superbatches: 3,
            batches_per_superbatch: 8,
            batch_size: 1024,
            wdl: 0.5,
            lr: 0.01,
            seed,
        };
        let dir = std::env::temp_dir().join(format!("luft-layers-{}-{seed}", std::process::id()));
        let stop = AtomicBool::new(false);
        let model = Model::random_arch(&arch, seed);
        let trained = train(Checkpoint::new(config, model), slice, &[], 1, &dir, &stop, |_| {}).unwrap();
        let first = trained.history[0].0;
        let last = trained.history.last().unwrap().0;
        assert!(last < first, "{text}: the loss went from {first} to {last}");
        let saved = Checkpoint::load(&dir.join("checkpoint.bin")).unwrap();
        assert_eq!(saved.model, trained.model, "the checkpoint keeps the model and its layers");
        assert_eq!(saved.model.arch(), arch);
        let net = trained.model.to_network().unwrap();
        let loaded = Arc::new(nnue::Network::from_bytes(&net.to_bytes()).unwrap());
        assert_eq!(*loaded, net);
        assert_eq!(loaded.arch().to_string(), text);
        // The float model of the net is the model up to rounding.
        let back = Model::from_network(&loaded).unwrap();
        assert_eq!(back.arch(), arch);
        let mut evaluator = Evaluator::new(loaded.clone());
        let (mut worst, mut sum, mut count) = (0.0f32, 0.0f32, 0);
        let fens = include_str!("../../movegen/tests/data/valid.fens");
        for fen in fens.lines().take(1000) {
            let board = Board::from_fen(fen).unwrap();
            let engine_eval = evaluator.evaluate(&board);
            assert_eq!(engine_eval, loaded.evaluate(&board), "{text} {fen}");
            let float = trained.model.output(&trained.model.position(&board)) * nnue::SCALE as f32;
            let error = (float - engine_eval as f32).abs();
            worst = worst.max(error);
            sum += error;
            count += 1;
        }
        eprintln!("{text}: quantisation error mean {:.2} cp, worst {worst:.1} cp", sum / count as f32);
        assert!(sum / (count as f32) < 10.0 && worst < 60.0, "{text}: mean {} worst {worst}", sum / count as f32);
        for seed in 0..40 {
            let line = random_line(seed, 100);
            let incremental = evaluator.evaluate_line(&Board::startpos(), &line);
            let mut board = Board::startpos();
            for (mv, eval) in line.iter().zip(incremental) {
                board.play(*mv);
                assert_eq!(eval, loaded.evaluate(&board), "{text} {board}");
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

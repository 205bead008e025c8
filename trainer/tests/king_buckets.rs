//! King-bucketed training end to end: a net without king buckets copied into every bucket
//! gives the same output and (summed over the buckets) the same gradient through the fast
//! kernel, so the kernel's slabs of 768 K rows are exact; and a tiny king-bucketed net
//! trained on a slice of real self-play data exports, loads, and the engine's
//! incremental evaluation along random games (king walks across buckets and the d/e line)
//! equals the evaluation from scratch and the `nnue` reference.

#![allow(clippy::unwrap_used)]

mod common;

use common::{boards, random_line, selfplay_slice, temp_dir};
use engine::Evaluator;
use movegen::Board;
use nnue::FeatureSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trainer::data::Position;
use trainer::model::{Kernel, Model};
use trainer::train::{gradient, train, Checkpoint, TrainConfig, Workspace};

#[test]
fn a_plain_net_copied_into_every_king_bucket_keeps_its_output_and_gradient() {
    let plain_net = Model::random_bucketed(32, 2, 7).to_network().unwrap();
    let plain = Model::from_network(&plain_net).unwrap();
    let features = FeatureSet::default_buckets(4, false).unwrap();
    let bucketed = Model::grown_into(&plain_net, features, 32, 2, 0).unwrap();
    assert_eq!(bucketed.features, features);
    assert_eq!(bucketed.layout().inputs, 4 * 768);
    let boards = boards(1500);
    let label = |p: Position, i: usize| Position {
        score: (i % 300) as f32 - 150.0,
        result: (i % 3) as f32 / 2.0,
        ..p
    };
    let a: Vec<Position> = boards
        .iter()
        .enumerate()
        .map(|(i, b)| label(plain.position(b), i))
        .collect();
    let b: Vec<Position> = boards
        .iter()
        .enumerate()
        .map(|(i, b)| label(bucketed.position(b), i))
        .collect();
    // The bucketed positions use rows of every bucket.
    let mut used = [false; 4];
    for p in &b {
        used[usize::from(p.stm[0]) / 768] = true;
    }
    assert_eq!(used, [true; 4]);
    for (p, q) in a.iter().zip(&b) {
        assert!((plain.output(p) - bucketed.output(q)).abs() < 1e-5);
    }
    for kernel in Kernel::available() {
        let mut ws_a = Workspace::bucketed(32, 2, 2, kernel);
        let mut ws_b = Workspace::with_inputs(4 * 768, 32, 2, 2, kernel);
        let loss_a = gradient(&plain, &a, 0.5, &mut ws_a);
        let loss_b = gradient(&bucketed, &b, 0.5, &mut ws_b);
        assert!(
            (loss_a - loss_b).abs() < 1e-9,
            "{} {loss_a} {loss_b}",
            kernel.name()
        );
        let (ga, gb) = (ws_a.mean_gradient(), ws_b.mean_gradient());
        let rows = 768 * 32;
        for i in 0..rows {
            let summed: f32 = (0..4).map(|k| gb[k * rows + i]).sum();
            assert!(
                (ga[i] - summed).abs() < 1e-6,
                "{} weight {i}: {} {summed}",
                kernel.name(),
                ga[i]
            );
        }
        for (x, y) in ga[rows..].iter().zip(&gb[4 * rows..]) {
            assert!((x - y).abs() < 1e-6, "{} {x} {y}", kernel.name());
        }
    }
}

#[test]
fn a_king_bucketed_net_trains_on_selfplay_data_and_the_engine_runs_it_exactly() {
    let slice = selfplay_slice();
    let features = FeatureSet::default_buckets(4, true).unwrap();
    let config = TrainConfig {
        hidden: 32,
        buckets: 8,
        superbatches: 3,
        batches_per_superbatch: 8,
        batch_size: 1024,
        wdl: 0.5,
        wdl_end: None,
        lr: 0.01,
        seed: 3,
        split: trainer::train::ValidationSplit::Games,
    };
    let dir = temp_dir("train");
    let stop = AtomicBool::new(false);
    let model = Model::random_with(features, 32, 8, 3);
    let trained = train(
        Checkpoint::new(config, model),
        &slice,
        &[],
        1,
        &dir,
        &stop,
        |_| {},
    )
    .unwrap();
    let first = trained.history[0].0;
    let last = trained.history.last().unwrap().0;
    assert!(last < first, "the loss went from {first} to {last}");
    // The checkpoint keeps the feature set.
    let saved = Checkpoint::load(&dir.join("checkpoint.bin")).unwrap();
    assert_eq!(saved.model.features, features);
    let net = trained.model.to_network().unwrap();
    let loaded = Arc::new(nnue::Network::from_bytes(&net.to_bytes()).unwrap());
    assert_eq!(*loaded, net);
    assert_eq!(loaded.arch().to_string(), "(768x4hm -> 32 screlu)x2 -> 1x8");
    // Float model and quantised net agree within quantisation error.
    let mut evaluator = Evaluator::new(loaded.clone());
    let mut worst = 0.0f32;
    for board in boards(1000) {
        let engine_eval = evaluator.evaluate(&board);
        assert_eq!(engine_eval, loaded.evaluate(&board));
        let float = trained.model.output(&trained.model.position(&board)) * nnue::SCALE as f32;
        worst = worst.max((float - engine_eval as f32).abs());
    }
    assert!(worst < 25.0, "quantisation error up to {worst} cp");
    // Incremental equals from scratch along random games.
    let (mut plies, mut changes) = (0, 0);
    for seed in 0..60 {
        let line = random_line(seed, 100, true);
        let incremental = evaluator.evaluate_line(&Board::startpos(), &line);
        let mut board = Board::startpos();
        for (mv, eval) in line.iter().zip(incremental) {
            let us = board.side_to_move();
            let before = loaded.view(&board, us);
            board.play(*mv);
            changes += usize::from(loaded.view(&board, us) != before);
            assert_eq!(eval, loaded.evaluate(&board), "{board}");
            plies += 1;
        }
    }
    assert!(
        plies > 3000 && changes > 200,
        "{plies} plies, {changes} view changes"
    );
    std::fs::remove_dir_all(&dir).ok();
}

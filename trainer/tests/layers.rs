//! Nets with hidden layers end to end: a small layered net (and a king-bucketed layered
//! one) trained on a slice of real self-play data through the training loop (the general
//! path) lowers its loss, keeps its layers in the checkpoint, exports, loads, its quantised
//! evaluation stays near the float model's, and the engine's incremental evaluation along
//! random games equals the `nnue` reference.

#![allow(clippy::unwrap_used)]

mod common;

use common::{boards, playouts, random_line, selfplay_slice, temp_dir, text_positions};
use engine::Evaluator;
use movegen::Board;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trainer::model::Model;
use trainer::train::{train, Checkpoint, TrainConfig};

#[test]
fn a_net_with_hidden_layers_trains_exports_and_the_engine_runs_it_exactly() {
    let slice = selfplay_slice();
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
            wdl_end: None,
            lr: 0.01,
            seed,
            split: trainer::train::ValidationSplit::Games,
        };
        let dir = temp_dir(&format!("train-{seed}"));
        let stop = AtomicBool::new(false);
        let model = Model::random_arch(&arch, seed);
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
        assert!(last < first, "{text}: the loss went from {first} to {last}");
        let saved = Checkpoint::load(&dir.join("checkpoint.bin")).unwrap();
        assert_eq!(
            saved.model, trained.model,
            "the checkpoint keeps the model and its layers"
        );
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
        for board in boards(1000) {
            let engine_eval = evaluator.evaluate(&board);
            assert_eq!(engine_eval, loaded.evaluate(&board), "{text} {}", board.to_fen());
            let float = trained.model.output(&trained.model.position(&board)) * nnue::SCALE as f32;
            let error = (float - engine_eval as f32).abs();
            worst = worst.max(error);
            sum += error;
            count += 1;
        }
        eprintln!(
            "{text}: quantisation error mean {:.2} cp, worst {worst:.1} cp",
            sum / count as f32
        );
        assert!(
            sum / (count as f32) < 10.0 && worst < 60.0,
            "{text}: mean {} worst {worst}",
            sum / count as f32
        );
        for seed in 0..40 {
            let line = random_line(seed, 100, false);
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

#[test]
fn trainer_train_takes_both_spellings_of_the_issue_exports_and_the_net_loads() {
    let dir = temp_dir("cli");
    let games: Vec<_> = playouts(60, 5).take(30).collect();
    let data = dir.join("p.txt");
    std::fs::write(&data, text_positions(&games)).unwrap();
    // The exit code, and stdout and stderr together.
    let trainer = |args: &[&str]| {
        let (code, out, err) = common::trainer(args);
        (code, out + &err)
    };
    let data = data.display().to_string();
    for (arch, name) in [
        ("(768 -> 64)x2 -> (16 -> 32 -> 1)x8", "layered"),
        ("(768x4hm -> 64)x2 -> 1x8", "bucketed"),
    ] {
        let out = dir.join(name).display().to_string();
        let (code, err) = trainer(&[
            "train",
            "--data",
            &data,
            "--arch",
            arch,
            "--superbatches",
            "2",
            "--batches-per-superbatch",
            "2",
            "--batch-size",
            "256",
            "--out",
            &out,
        ]);
        assert_eq!(code, 0, "{arch}: {err}");
        let expected: nnue::Arch = arch.parse().unwrap();
        assert!(err.contains(&format!("arch {expected}")), "{err}");
        let exported = dir.join(format!("{name}.nnue"));
        let (code, said) = trainer(&[
            "export",
            &format!("{out}/checkpoint.bin"),
            "--out",
            &exported.display().to_string(),
        ]);
        assert_eq!(code, 0, "{said}");
        let net = nnue::Network::load(&exported).unwrap();
        assert_eq!(net.arch(), expected);
        assert_eq!(
            net,
            nnue::Network::load(&dir.join(name).join("final.nnue")).unwrap()
        );
        let mut evaluator = Evaluator::new(Arc::new(net.clone()));
        let board =
            Board::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        assert_eq!(evaluator.evaluate(&board), net.evaluate(&board));
    }
    // Refused with a reason: --arch with a shorthand, a layer wider than the engine runs,
    // and --init from a plain net into a layered run.
    let out = dir.join("x").display().to_string();
    let (code, err) = trainer(&[
        "train",
        "--data",
        &data,
        "--out",
        &out,
        "--hidden",
        "32",
        "--arch",
        "(768 -> 64)x2 -> 1x8",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    let (code, err) = trainer(&[
        "train",
        "--data",
        &data,
        "--out",
        &out,
        "--arch",
        "(768 -> 64)x2 -> (512 -> 1)x8",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("512 wide"), "{err}");
    let plain = dir.join("bucketed.nnue").display().to_string();
    let (code, err) = trainer(&[
        "train",
        "--data",
        &data,
        "--out",
        &out,
        "--arch",
        "(768x4hm -> 64)x2 -> (16 -> 1)x8",
        "--init",
        &plain,
        "--superbatches",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("starts only from a net of the same shape"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

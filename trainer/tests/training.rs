//! The trainer's correctness: analytic gradients against finite differences, every fast
//! kernel against the plain implementation built for the same CPU features, a smoke training whose loss falls, an exported
//! net that the engine evaluates exactly like the reference forward pass (and like the float
//! model within quantisation error), mirrored or not, a resumed run that continues the
//! same loss curve, a WDL schedule (and its resume), and training from text and
//! bulletformat positions.

#![allow(clippy::unwrap_used)]

mod common;

use common::{boards, bullet_positions, playouts, positions, temp_dir, text_positions, trainer};
use engine::Evaluator;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trainer::data::{sigmoid, Position};
use trainer::model::{Kernel, Model};
use trainer::plain::{PlainGrad, PlainNet};
use trainer::train::{gradient, train, Checkpoint, TrainConfig, Workspace};

#[test]
fn gradients_match_finite_differences() {
    let model = Model::random(32, 9);
    let batch = positions(64, 3, false);
    let wdl = 0.3;
    let mut ws = Workspace::new(32, 1, Kernel::detect());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| gradient(&model, &batch, wdl, &mut ws));
    let analytic = ws.mean_gradient().to_vec();
    let loss = |m: &Model| -> f64 {
        batch
            .iter()
            .map(|p| {
                let e = f64::from(sigmoid(m.output(p))) - f64::from(p.target(wdl));
                e * e
            })
            .sum::<f64>()
            / batch.len() as f64
    };
    // Parameters of every kind: active feature weights, biases, output weights and bias.
    let layout = model.layout();
    let feature = batch[0].stm[0] as usize;
    let indices = [
        feature * 32 + 3,
        batch[5].nstm[2] as usize * 32 + 17,
        layout.ft_bias + 5,
        layout.out_w + 7,
        layout.out_w + 32 + 9,
        layout.out_b,
    ];
    for &i in &indices {
        let eps = 1e-3f32;
        let mut plus = model.clone();
        plus.params[i] += eps;
        let mut minus = model.clone();
        minus.params[i] -= eps;
        let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(eps));
        let a = f64::from(analytic[i]);
        assert!(
            (a - numeric).abs() <= 1e-3 * a.abs().max(numeric.abs()).max(1e-4) + 2e-6,
            "parameter {i}: analytic {a}, numeric {numeric}"
        );
    }
}

#[test]
fn every_kernel_matches_the_plain_implementation_built_for_it() {
    // Every kernel this CPU runs (portable, AVX2 + FMA, AVX-512), each against the plain
    // implementation compiled with the same CPU features, on every parameter.
    for kernel in Kernel::available() {
        kernel_matches_the_plain_implementation(kernel);
    }
}

/// The plain implementation's gradient as a flat vector (the layout of `Layout::new(N)`),
/// divided by the batch size, and its mean loss, built for `kernel`'s CPU features.
fn plain_gradient<const N: usize>(
    kernel: Kernel,
    model: &Model,
    batch: &[Position],
    wdl: f32,
) -> (f64, Vec<f32>) {
    let plain = PlainNet::<N>::from_flat(model.params.as_slice().unwrap());
    let mut grads = vec![PlainGrad::<N>::zeroed()];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let loss = pool.install(|| plain.batch_for(kernel, batch, wdl, &mut grads)) / batch.len() as f64;
    let g = &grads[0];
    let n = batch.len() as f32;
    let mut flat: Vec<f32> = g.ft_w.iter().flatten().map(|x| x / n).collect();
    flat.extend(g.ft_b.iter().map(|x| x / n));
    flat.extend(g.out_w.iter().flatten().map(|x| x / n));
    flat.push(g.out_b / n);
    (loss, flat)
}

fn assert_close(what: &str, a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(1e-3),
            "{what}: parameter {i}: {x} vs {y}"
        );
    }
}

fn kernel_matches_the_plain_implementation(kernel: Kernel) {
    let model = Model::random(64, 4);
    let batch = positions(500, 8, false);
    let mut ws = Workspace::new(64, 1, kernel);
    let loss_fast = gradient(&model, &batch, 0.5, &mut ws);
    let (loss_plain, plain) = plain_gradient::<64>(kernel, &model, &batch, 0.5);
    assert!(
        (loss_fast - loss_plain).abs() < 1e-6,
        "{}: {loss_fast} vs {loss_plain}",
        kernel.name()
    );
    assert_close(kernel.name(), ws.mean_gradient(), &plain);
}

#[test]
fn the_plain_implementation_gives_the_same_gradients_whatever_it_is_built_for() {
    // Built with AVX2 + FMA or AVX-512 enabled, the plain code still computes what its
    // portable build does: the CPU features change the speed, never the result.
    let model = Model::random(128, 6);
    let batch = positions(300, 2, false);
    let (loss, portable) = plain_gradient::<128>(Kernel::portable(), &model, &batch, 0.4);
    for kernel in Kernel::available() {
        let (l, g) = plain_gradient::<128>(kernel, &model, &batch, 0.4);
        assert!((l - loss).abs() < 1e-9, "{}: {l} vs {loss}", kernel.name());
        assert_close(kernel.name(), &g, &portable);
    }
}

fn config(superbatches: u32) -> TrainConfig {
    TrainConfig {
        hidden: 32,
        buckets: 1,
        superbatches,
        batches_per_superbatch: 8,
        batch_size: 512,
        wdl: 0.5,
        wdl_end: None,
        lr: 0.01,
        seed: 5,
        split: trainer::train::ValidationSplit::Games,
    }
}

#[test]
fn smoke_training_lowers_the_loss_and_resume_continues_the_curve() {
    let data = positions(6000, 21, false);
    let (train_set, validation) = trainer::train::split(data, 5);
    let dir = temp_dir("smoke");
    let stop = AtomicBool::new(false);
    let straight = train(
        Checkpoint::new(config(6), Model::random(32, 5)),
        &train_set,
        &validation,
        2,
        &dir.join("a"),
        &stop,
        |_| {},
    )
    .unwrap();
    let first = straight.history[0].0;
    let last = straight.history[5].0;
    assert!(
        last < first * 0.5,
        "training loss fell only from {first} to {last}"
    );
    assert!(
        straight.history[5].1 < straight.history[0].1,
        "validation loss did not fall"
    );
    assert!(dir.join("a/loss.csv").exists() && dir.join("a/loss.png").exists());
    let svg = std::fs::read_to_string(dir.join("a/loss.svg")).unwrap();
    assert!(svg.contains("Training loss, 6 superbatches"), "{svg}");

    // The same run killed after three superbatches, then resumed from its checkpoint.
    let interrupt = AtomicBool::new(false);
    let killed = train(
        Checkpoint::new(config(6), Model::random(32, 5)),
        &train_set,
        &validation,
        2,
        &dir.join("b"),
        &interrupt,
        |line| {
            if line.starts_with("superbatch 3/6 done") {
                interrupt.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        },
    );
    assert!(killed
        .unwrap_err()
        .to_string()
        .starts_with("interrupted; resume from"));
    let bytes = std::fs::read(dir.join("b/checkpoint.bin")).unwrap();
    let reloaded = Checkpoint::from_bytes(&bytes).unwrap();
    assert_eq!(reloaded.superbatches_done, 3);
    assert_eq!(
        Checkpoint::from_bytes(&reloaded.to_bytes().unwrap()).unwrap(),
        reloaded
    );
    let resumed = train(
        reloaded,
        &train_set,
        &validation,
        2,
        &dir.join("b"),
        &stop,
        |_| {},
    )
    .unwrap();
    assert_eq!(resumed.history.len(), 6);
    for (a, b) in straight.history.iter().zip(&resumed.history) {
        assert_eq!(a, b, "the resumed run must retrace the same curve");
    }
    assert_eq!(resumed.model, straight.model);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_wdl_schedule_moves_the_target_from_start_to_end_and_resumes_on_it() {
    use trainer::train::wdl_weight;
    assert_eq!(wdl_weight(0.3, None, 1, 100), 0.3);
    assert_eq!(wdl_weight(0.3, None, 100, 100), 0.3);
    assert_eq!(wdl_weight(0.2, Some(0.4), 1, 101), 0.2);
    assert!((wdl_weight(0.2, Some(0.4), 51, 101) - 0.3).abs() < 1e-6);
    assert!((wdl_weight(0.2, Some(0.4), 101, 101) - 0.4).abs() < 1e-6);
    assert!((wdl_weight(0.4, Some(0.1), 101, 101) - 0.1).abs() < 1e-6);
    assert_eq!(wdl_weight(0.2, Some(0.4), 1, 1), 0.2, "a one-step run");

    let data = positions(3000, 23, false);
    let (train_set, validation) = trainer::train::split(data, 5);
    let dir = temp_dir("wdl-schedule");
    let stop = AtomicBool::new(false);
    let run = |wdl_end: Option<f32>, out: &str| {
        let mut c = config(4);
        c.wdl_end = wdl_end;
        train(
            Checkpoint::new(c, Model::random(32, 5)),
            &train_set,
            &validation,
            1,
            &dir.join(out),
            &stop,
            |_| {},
        )
        .unwrap()
    };
    // A schedule from 0.5 to 0.5 is the constant weight, bit for bit; one to 1.0 is not.
    let constant = run(None, "a");
    assert_eq!(run(Some(0.5), "b").model, constant.model);
    let scheduled = run(Some(1.0), "c");
    assert_ne!(scheduled.model, constant.model);
    // Killed after two superbatches and resumed from the checkpoint: the same run.
    let interrupt = AtomicBool::new(false);
    let mut c = config(4);
    c.wdl_end = Some(1.0);
    let killed = train(
        Checkpoint::new(c, Model::random(32, 5)),
        &train_set,
        &validation,
        1,
        &dir.join("d"),
        &interrupt,
        |line| {
            if line.starts_with("superbatch 2/4 done") {
                interrupt.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        },
    );
    assert!(killed.is_err());
    let reloaded = Checkpoint::from_bytes(&std::fs::read(dir.join("d/checkpoint.bin")).unwrap()).unwrap();
    assert_eq!(reloaded.config.wdl_end, Some(1.0));
    let resumed = train(
        reloaded,
        &train_set,
        &validation,
        1,
        &dir.join("d"),
        &stop,
        |_| {},
    )
    .unwrap();
    assert_eq!(resumed.model, scheduled.model);
    assert_eq!(resumed.history, scheduled.history);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn exported_net_runs_in_the_engine_exactly() {
    // A trained-looking model: random, then a few AdamW steps on real positions.
    let data = positions(3000, 77, false);
    let stop = AtomicBool::new(false);
    let dir = temp_dir("export");
    let c = TrainConfig {
        hidden: 64,
        buckets: 1,
        superbatches: 2,
        batches_per_superbatch: 4,
        batch_size: 512,
        wdl: 0.5,
        wdl_end: None,
        lr: 0.01,
        seed: 1,
        split: trainer::train::ValidationSplit::Games,
    };
    let trained = train(
        Checkpoint::new(c, Model::random(64, 1)),
        &data,
        &[],
        1,
        &dir,
        &stop,
        |_| {},
    )
    .unwrap();
    let net = trained.model.to_network().unwrap();
    let bytes = net.to_bytes();
    let loaded = Arc::new(nnue::Network::from_bytes(&bytes).unwrap());
    let mut evaluator = Evaluator::new(loaded.clone());
    let mut worst = 0.0f32;
    for board in boards(2000) {
        let engine_eval = evaluator.evaluate(&board);
        assert_eq!(engine_eval, loaded.evaluate(&board), "{}", board.to_fen());
        let float = trained.model.output(&Position::from_board(&board, 0.0, 0.5)) * nnue::SCALE as f32;
        worst = worst.max((float - engine_eval as f32).abs());
    }
    assert!(worst < 25.0, "quantisation error up to {worst} cp");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_mirrored_run_exports_a_mirrored_net_the_engine_runs_exactly() {
    let data = positions(3000, 78, true);
    let stop = AtomicBool::new(false);
    let dir = temp_dir("export-mirrored");
    let c = TrainConfig {
        hidden: 32,
        buckets: 2,
        superbatches: 2,
        batches_per_superbatch: 4,
        batch_size: 512,
        wdl: 0.5,
        wdl_end: None,
        lr: 0.01,
        seed: 2,
        split: trainer::train::ValidationSplit::Games,
    };
    let model = Model::random_bucketed(32, 2, 2).with_mirroring(true);
    let trained = train(Checkpoint::new(c, model), &data, &[], 1, &dir, &stop, |_| {}).unwrap();
    assert!(trained.model.mirrored());
    let net = trained.model.to_network().unwrap();
    assert!(net.mirrored());
    let loaded = Arc::new(nnue::Network::from_bytes(&net.to_bytes()).unwrap());
    assert!(loaded.mirrored());
    assert_eq!(*loaded, net);
    let mut evaluator = Evaluator::new(loaded.clone());
    let (mut worst, mut worst_unmirrored) = (0.0f32, 0.0f32);
    for board in boards(2000) {
        let engine_eval = evaluator.evaluate(&board);
        assert_eq!(engine_eval, loaded.evaluate(&board), "{}", board.to_fen());
        let float = trained.model.output(&trained.model.position(&board)) * nnue::SCALE as f32;
        worst = worst.max((float - engine_eval as f32).abs());
        // The same weights read without mirroring: far off wherever a king is on e-h.
        let unmirrored = trained.model.output(&Position::from_board(&board, 0.0, 0.5)) * nnue::SCALE as f32;
        worst_unmirrored = worst_unmirrored.max((unmirrored - engine_eval as f32).abs());
    }
    assert!(worst < 25.0, "quantisation error up to {worst} cp");
    assert!(worst_unmirrored > 100.0, "{worst_unmirrored}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn export_refuses_values_that_overflow() {
    let mut model = Model::random(32, 2);
    let out_w = model.layout().out_w;
    model.params[out_w] = 2.5; // 2.5 * 64 = 160 > 127
    let err = model.to_network().unwrap_err().to_string();
    assert!(err.starts_with("output weight 2.5 quantises to 160"), "{err}");
}

#[test]
fn bucketed_gradients_match_finite_differences() {
    let model = Model::random_bucketed(32, 8, 19);
    let batch = positions(96, 5, false);
    let wdl = 0.4;
    let mut ws = Workspace::bucketed(32, 8, 1, Kernel::detect());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| gradient(&model, &batch, wdl, &mut ws));
    let analytic = ws.mean_gradient().to_vec();
    let loss = |m: &Model| -> f64 {
        batch
            .iter()
            .map(|p| {
                let e = f64::from(sigmoid(m.output(p))) - f64::from(p.target(wdl));
                e * e
            })
            .sum::<f64>()
            / batch.len() as f64
    };
    let layout = model.layout();
    // The bucket of a busy position (many pieces) and of a late one.
    let k_first = model.bucket(&batch[0]);
    let k_last = model.bucket(&batch[95]);
    let indices = [
        batch[0].stm[0] as usize * 32 + 3,
        layout.ft_bias + 5,
        layout.out_w + k_first * 64 + 7,
        layout.out_w + k_last * 64 + 32 + 9,
        layout.out_b + k_first,
        layout.out_b + k_last,
    ];
    for &i in &indices {
        let eps = 1e-3f32;
        let mut plus = model.clone();
        plus.params[i] += eps;
        let mut minus = model.clone();
        minus.params[i] -= eps;
        let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(eps));
        let a = f64::from(analytic[i]);
        assert!(
            (a - numeric).abs() <= 1e-3 * a.abs().max(numeric.abs()).max(1e-4) + 2e-6,
            "parameter {i}: analytic {a}, numeric {numeric}"
        );
    }
    // A bucket no position uses gets no gradient.
    let used: Vec<usize> = batch.iter().map(|p| model.bucket(p)).collect();
    for k in (0..8).filter(|k| !used.contains(k)) {
        assert_eq!(analytic[layout.out_b + k], 0.0, "bucket {k}");
    }
}

#[test]
fn a_grown_net_keeps_its_output_and_exports_with_buckets() {
    // gen3-32 (one bucket, 32 wide) grown to 64 wide with 8 buckets evaluates every
    // position as before; its export is a valid 8-bucket net the engine evaluates exactly
    // like the reference forward pass.
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../nets/gen3-32.nnue")).unwrap();
    let net = nnue::Network::from_bytes(&bytes).unwrap();
    let small = Model::from_network(&net).unwrap();
    let grown = Model::grown_from_network(&net, 64, 8, 3).unwrap();
    assert_eq!((grown.hidden, grown.buckets), (64, 8));
    let exported = Arc::new(grown.to_network().unwrap());
    assert_eq!(exported.output_buckets(), 8);
    let loaded = Arc::new(nnue::Network::from_bytes(&exported.to_bytes()).unwrap());
    let mut evaluator = Evaluator::new(loaded.clone());
    for board in boards(500) {
        let fen = board.to_fen();
        let pos = Position::from_board(&board, 0.0, 0.5);
        let (a, b) = (small.output(&pos), grown.output(&pos));
        assert!((a - b).abs() < 0.02, "{fen}: {a} vs {b}");
        assert_eq!(evaluator.evaluate(&board), loaded.evaluate(&board), "{fen}");
        assert_eq!(
            loaded.output_bucket(&board),
            nnue::output_bucket(pos.count as usize, 8)
        );
    }
    assert!(Model::grown_from_network(&net, 16, 1, 0).is_err());
}

#[test]
fn decoded_positions_of_the_other_mirroring_are_refused() {
    let stop = AtomicBool::new(false);
    let dir = temp_dir("mirror-mismatch");
    let c = TrainConfig {
        hidden: 16,
        buckets: 1,
        superbatches: 1,
        batches_per_superbatch: 1,
        batch_size: 64,
        wdl: 0.5,
        wdl_end: None,
        lr: 0.01,
        seed: 3,
        split: trainer::train::ValidationSplit::Games,
    };
    let plain = positions(200, 5, false);
    let mirrored = positions(200, 5, true);
    for (model_mirrored, data, validation, wrong_set) in [
        (true, &plain, &mirrored[..10], "training"),
        (false, &mirrored, &plain[..10], "training"),
        (true, &mirrored, &plain[..10], "validation"),
    ] {
        let model = Model::random_bucketed(16, 1, 1).with_mirroring(model_mirrored);
        let err = train(
            Checkpoint::new(c.clone(), model),
            data,
            validation,
            1,
            &dir,
            &stop,
            |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains(&format!("the {wrong_set} positions were decoded for an")),
            "{err}"
        );
    }
    // Matching sets train.
    let model = Model::random_bucketed(16, 1, 1).with_mirroring(true);
    assert!(train(
        Checkpoint::new(c, model),
        &mirrored,
        &mirrored[..10],
        1,
        &dir,
        &stop,
        |_| {}
    )
    .is_ok());
    std::fs::remove_dir_all(&dir).ok();
}

/// The trainer trains on text and bulletformat positions as `datagen convert` writes them
/// (`records::positions`), by file name or as `--data-format` says, and says what it read.
#[test]
fn trains_on_text_and_bulletformat_positions() {
    let dir = temp_dir("lone-e2e");
    let games: Vec<_> = playouts(60, 17).take(20).collect();
    let bullet = bullet_positions(&games);
    std::fs::write(dir.join("p.txt"), text_positions(&games)).unwrap();
    std::fs::write(dir.join("p.bullet"), &bullet).unwrap();
    std::fs::write(dir.join("p.positions"), &bullet).unwrap();
    let train = |data: &str, out: &str, extra: &[&str]| {
        let mut args = vec![
            "train".to_string(),
            "--data".into(),
            dir.join(data).display().to_string(),
            "--hidden".into(),
            "16".into(),
            "--superbatches".into(),
            "1".into(),
            "--batches-per-superbatch".into(),
            "2".into(),
            "--batch-size".into(),
            "64".into(),
            "--out".into(),
            dir.join(out).display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let (code, _, err) = trainer(&args);
        (code, err)
    };
    let counts = |err: &str| -> String {
        err.lines()
            .find(|l| l.contains(" training positions, "))
            .map(|l| l.split(", hidden").next().unwrap_or_default().to_string())
            .unwrap_or_default()
    };
    let (code, text_err) = train("p.txt", "t", &[]);
    assert_eq!(code, 0, "{text_err}");
    assert!(dir.join("t/final.nnue").exists(), "{text_err}");
    let (code, bullet_err) = train("p.bullet", "b", &[]);
    assert_eq!(code, 0, "{bullet_err}");
    assert!(
        !counts(&text_err).is_empty() && counts(&text_err) == counts(&bullet_err),
        "{text_err}\n{bullet_err}"
    );
    let (code, err) = train("p.positions", "n", &["--data-format", "bullet"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(counts(&err), counts(&bullet_err));
    let (code, err) = train("p.positions", "x", &["--data-format", "csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("invalid value 'csv' for '--data-format"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

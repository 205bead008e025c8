//! Trainer throughput: positions per second of forward + backward at N = 64, 128 and 256,
//! the trainer's kernel next to the plain per-sample f32 implementation (`plain`), same
//! positions, same threads, in one run; prints the ratio.
//!
//! `cargo bench -p trainer --bench throughput [-- --threads T --batches B]`

#![allow(clippy::unwrap_used)]

use std::time::Instant;
use trainer::data::Position;
use trainer::model::{Kernel, Model};
use trainer::plain::{PlainGrad, PlainNet};
use trainer::train::{gradient, Workspace};

fn positions(count: usize) -> Vec<Position> {
    // Real middlegame positions: random legal playouts from the start position.
    let mut out = Vec::with_capacity(count);
    let mut state = 0x1234_5678u64;
    while out.len() < count {
        let mut board = movegen::Board::startpos();
        for _ in 0..60 {
            let moves = board.legal_moves();
            if moves.is_empty() {
                break;
            }
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            board.play(moves[(state >> 33) as usize % moves.len()]);
            if out.len() < count && board.occupied().len() > 20 {
                out.push(Position::from_board(
                    &board,
                    ((state >> 20) % 400) as f32 - 200.0,
                    0.5,
                ));
            }
        }
    }
    out
}

fn run_plain<const N: usize>(params: &[f32], batch: &[Position], threads: usize, batches: usize) -> f64 {
    let net = PlainNet::<N>::from_flat(params);
    let mut grads: Vec<PlainGrad<N>> = (0..threads).map(|_| PlainGrad::zeroed()).collect();
    let start = Instant::now();
    for _ in 0..batches {
        std::hint::black_box(net.batch(batch, 0.5, &mut grads));
    }
    (batch.len() * batches) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let threads = arg("--threads", 1);
    let batches = arg("--batches", 4);
    let batch = positions(16384);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    println!(
        "forward + backward, batches of 16384, {threads} thread(s), kernel {}",
        Kernel::detect().name()
    );
    println!(
        "{:>6} {:>14} {:>14} {:>7}",
        "N", "luft pos/s", "plain pos/s", "ratio"
    );
    for hidden in [64usize, 128, 256] {
        let model = Model::random(hidden, 1);
        let params = model.params.as_slice().unwrap().to_vec();
        let mut ws = Workspace::new(hidden, threads, Kernel::detect());
        let (mut best_luft, mut best_plain) = (0.0f64, 0.0f64);
        for _ in 0..3 {
            let start = Instant::now();
            for _ in 0..batches {
                std::hint::black_box(pool.install(|| gradient(&model, &batch, 0.5, &mut ws)));
            }
            best_luft = best_luft.max((batch.len() * batches) as f64 / start.elapsed().as_secs_f64());
            let plain = pool.install(|| match hidden {
                64 => run_plain::<64>(&params, &batch, threads, batches),
                128 => run_plain::<128>(&params, &batch, threads, batches),
                _ => run_plain::<256>(&params, &batch, threads, batches),
            });
            best_plain = best_plain.max(plain);
        }
        println!(
            "{hidden:>6} {best_luft:>14.0} {best_plain:>14.0} {:>7.2}",
            best_luft / best_plain
        );
    }
}

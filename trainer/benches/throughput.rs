//! Trainer throughput: positions per second of forward + backward at N = 64, 128, 256 and
//! 512, the trainer's kernel next to the plain per-sample f32 implementation (`plain`)
//! built with the same CPU features (`PlainNet::batch_for` with the same `Kernel`), on the
//! same positions and threads, in one run. The two alternate, round by round (which goes
//! first alternates too), so a machine whose load changes slows both alike; the table gives
//! the median of each and the ratio of the medians. Rates are positions per second of the
//! process's CPU time, which other jobs on a shared machine do not inflate (one thread: the
//! speed of one core); the wall-clock medians and their ratio follow.
//!
//! `cargo bench -p trainer --bench throughput [-- --threads T --batches B --rounds R
//! --kernel portable|avx2+fma|avx512 --hidden N]` (default: one thread, 1 batch of 16384
//! a measurement, 21 rounds, the kernel `Kernel::detect` picks, every width)
//!
//! `-- --arch "(768 -> 128)x2 -> (16 -> 32 -> 1)x8"` instead compares the training loop's
//! gradient of that descriptor (a net with hidden layers takes the general path,
//! `trainer::general`) with the plain shape of the same transformer and output buckets
//! (`(768 -> 128)x2 -> 1x8`, the fused kernel), alternated in the same way.

#![allow(clippy::unwrap_used)]

use std::time::Instant;
use trainer::data::Position;
use trainer::model::{Kernel, Model};
use trainer::plain::{PlainGrad, PlainNet};
use trainer::train::{gradient, Workspace};

fn positions(count: usize) -> Vec<Position> {
    positions_for(&nnue::FeatureSet::plain(), count)
}

/// [`positions`] decoded for the input feature set `features`.
fn positions_for(features: &nnue::FeatureSet, count: usize) -> Vec<Position> {
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
                out.push(Position::from_board_features(
                    &board,
                    ((state >> 20) % 400) as f32 - 200.0,
                    0.5,
                    features,
                ));
            }
        }
    }
    out
}

/// The CPU time of the whole process (all its threads) in seconds, where it can be read.
fn cpu_seconds() -> Option<f64> {
    progress::process_cpu_time().map(|t| t.as_secs_f64())
}

/// One measurement: positions per CPU second (per wall-clock second where CPU time cannot
/// be read) and per wall-clock second.
#[derive(Clone, Copy)]
struct Rate {
    cpu: f64,
    wall: f64,
}

/// The rates of `batches` batches through `run`.
fn rate(batch: &[Position], batches: usize, mut run: impl FnMut() -> f64) -> Rate {
    let (cpu_start, start) = (cpu_seconds(), Instant::now());
    for _ in 0..batches {
        std::hint::black_box(run());
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu_start, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => wall,
    };
    let n = (batch.len() * batches) as f64;
    Rate {
        cpu: n / cpu,
        wall: n / wall,
    }
}

/// The CPU's model name and the load average, where Linux reports them (for the record: on a
/// shared machine the load says how much the figures are worth).
fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string());
    format!(
        "{model}, {} logical CPUs, load average {load}",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    )
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The kernel and the plain build for the same CPU, alternated: (kernel, plain) rates.
fn compare<const N: usize>(
    kernel: Kernel,
    batch: &[Position],
    threads: usize,
    batches: usize,
    rounds: usize,
    pool: &rayon::ThreadPool,
) -> (Vec<Rate>, Vec<Rate>) {
    let model = Model::random(N, 1);
    let mut ws = Workspace::new(N, threads, kernel);
    let net = PlainNet::<N>::from_flat(model.params.as_slice().unwrap());
    let mut grads: Vec<PlainGrad<N>> = (0..threads).map(|_| PlainGrad::zeroed()).collect();
    let mut run_kernel = || {
        rate(batch, batches, || {
            pool.install(|| gradient(&model, batch, 0.5, &mut ws))
        })
    };
    let mut run_plain = || {
        rate(batch, batches, || {
            pool.install(|| net.batch_for(kernel, batch, 0.5, &mut grads))
        })
    };
    // Warm-up: caches, page faults, the pool's threads.
    run_kernel();
    run_plain();
    let (mut fast, mut plain) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        if round % 2 == 0 {
            fast.push(run_kernel());
            plain.push(run_plain());
        } else {
            plain.push(run_plain());
            fast.push(run_kernel());
        }
    }
    (fast, plain)
}

/// `--arch`: the descriptor's gradient against the plain shape of its transformer, alternated:
/// (descriptor, plain) rates.
fn compare_arch(
    arch: &nnue::Arch,
    kernel: Kernel,
    batch: &[Position],
    threads: usize,
    batches: usize,
    rounds: usize,
    pool: &rayon::ThreadPool,
) -> (Vec<Rate>, Vec<Rate>) {
    let plain_arch = nnue::Arch::simple(arch.features, arch.width, arch.output_buckets);
    let (model, plain) = (Model::random_arch(arch, 1), Model::random_arch(&plain_arch, 1));
    let mut ws = Workspace::for_model(&model, threads, kernel);
    let mut plain_ws = Workspace::for_model(&plain, threads, kernel);
    let mut run_arch = || {
        rate(batch, batches, || {
            pool.install(|| gradient(&model, batch, 0.5, &mut ws))
        })
    };
    let mut run_plain = || {
        rate(batch, batches, || {
            pool.install(|| gradient(&plain, batch, 0.5, &mut plain_ws))
        })
    };
    run_arch();
    run_plain();
    let (mut a, mut p) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        if round % 2 == 0 {
            a.push(run_arch());
            p.push(run_plain());
        } else {
            p.push(run_plain());
            a.push(run_arch());
        }
    }
    (a, p)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1));
    let arg = |name: &str, default: usize| value(name).and_then(|v| v.parse().ok()).unwrap_or(default);
    let threads = arg("--threads", 1);
    let batches = arg("--batches", 1);
    let rounds = arg("--rounds", 21).max(1);
    let kernel = match value("--kernel").map(String::as_str) {
        None => Kernel::detect(),
        Some(name) => match Kernel::available().into_iter().find(|k| k.name() == name) {
            Some(kernel) => kernel,
            None => {
                let names: Vec<&str> = Kernel::available().iter().map(|k| k.name()).collect();
                eprintln!(
                    "kernel {name} is not available here (available: {})",
                    names.join(", ")
                );
                std::process::exit(2);
            }
        },
    };
    let batch = positions(16384);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    if let Some(text) = value("--arch") {
        let arch: nnue::Arch = match text.parse() {
            Ok(arch) => arch,
            Err(e) => {
                eprintln!("--arch {text}: {e}");
                std::process::exit(2);
            }
        };
        let plain_arch = nnue::Arch::simple(arch.features, arch.width, arch.output_buckets);
        let batch = positions_for(&arch.features, batch.len());
        println!(
            "forward + backward, batches of 16384, {threads} thread(s), kernel {}, medians of {rounds} \
             alternating rounds of {batches} batches",
            kernel.name()
        );
        println!("{}", machine());
        let (arch_rates, plain_rates) = compare_arch(&arch, kernel, &batch, threads, batches, rounds, &pool);
        let cpu = |rates: &[Rate]| median(rates.iter().map(|r| r.cpu).collect());
        let wall = |rates: &[Rate]| median(rates.iter().map(|r| r.wall).collect());
        println!("{:>48} {:>14} {:>14}", "arch", "pos/s (CPU)", "pos/s (wall)");
        for (name, rates) in [
            (arch.to_string(), &arch_rates),
            (plain_arch.to_string(), &plain_rates),
        ] {
            println!("{name:>48} {:>14.0} {:>14.0}", cpu(rates), wall(rates));
        }
        println!("ratio plain / arch: {:.2}", cpu(&plain_rates) / cpu(&arch_rates));
        return;
    }
    println!(
        "forward + backward, batches of 16384, {threads} thread(s), kernel {k} vs plain built for {k}, \
         medians of {rounds} alternating rounds of {batches} batches",
        k = kernel.name()
    );
    println!("{}", machine());
    println!(
        "{:>6} {:>14} {:>14} {:>7} {:>13} {:>14} {:>14} {:>10}",
        "N", "luft pos/s", "plain pos/s", "ratio", "ratio range", "luft wall", "plain wall", "wall ratio"
    );
    let widths: Vec<usize> = match value("--hidden").and_then(|v| v.parse().ok()) {
        Some(n) => vec![n],
        None => vec![64, 128, 256, 512],
    };
    for hidden in widths {
        let (fast, plain) = match hidden {
            64 => compare::<64>(kernel, &batch, threads, batches, rounds, &pool),
            128 => compare::<128>(kernel, &batch, threads, batches, rounds, &pool),
            256 => compare::<256>(kernel, &batch, threads, batches, rounds, &pool),
            512 => compare::<512>(kernel, &batch, threads, batches, rounds, &pool),
            _ => {
                eprintln!("the bench runs N = 64, 128, 256 or 512");
                std::process::exit(2);
            }
        };
        // Per round, kernel over plain: the spread shows how much the load moved.
        let ratios: Vec<f64> = fast.iter().zip(&plain).map(|(f, p)| f.cpu / p.cpu).collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        let cpu = |rates: &[Rate]| median(rates.iter().map(|r| r.cpu).collect());
        let wall = |rates: &[Rate]| median(rates.iter().map(|r| r.wall).collect());
        let (fast_cpu, plain_cpu) = (cpu(&fast), cpu(&plain));
        let (fast_wall, plain_wall) = (wall(&fast), wall(&plain));
        println!(
            "{hidden:>6} {fast_cpu:>14.0} {plain_cpu:>14.0} {:>7.2} {:>13} {fast_wall:>14.0} {plain_wall:>14.0} {:>10.2}",
            fast_cpu / plain_cpu,
            format!("{lo:.2}-{hi:.2}"),
            fast_wall / plain_wall
        );
    }
    println!("{}", machine());
}

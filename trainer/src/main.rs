//! The `trainer` binary.
//!
//! ```text
//! trainer train --data FILES... --hidden N --out DIR [--superbatches S] [--wdl W] [--lr L]
//!               [--threads T] [--resume CHECKPOINT] [--init NET] [--seed S]
//! trainer export CHECKPOINT --out FILE.nnue
//! trainer eval --net CHECKPOINT|FILE.nnue --fen FEN
//! ```

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use movegen::Board;
use nnue::Network;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use trainer::data::{load, Position};
use trainer::model::Model;
use trainer::train::{final_net_path, split, train, write_atomic, Checkpoint, TrainConfig};

#[derive(Parser, Debug)]
#[command(name = "trainer", about = "Luft's CPU NNUE trainer")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train (or resume training) a net.
    Train {
        /// datagen files.
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<PathBuf>,
        #[arg(long, default_value_t = 64)]
        hidden: usize,
        /// Output buckets by material, `(pieces - 2) / (32 / buckets)` (8: `(pieces - 2) / 4`).
        #[arg(long, default_value_t = 1)]
        buckets: usize,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 40)]
        superbatches: u32,
        /// Batches of 16384 positions per superbatch.
        #[arg(long, default_value_t = 64)]
        batches_per_superbatch: u32,
        #[arg(long, default_value_t = 16384)]
        batch_size: usize,
        /// Weight of the game result in the target (1.0: results only).
        #[arg(long, default_value_t = 1.0)]
        wdl: f32,
        #[arg(long, default_value_t = 0.001)]
        lr: f32,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Continue from a checkpoint (its settings win).
        #[arg(long)]
        resume: Option<PathBuf>,
        /// Start from the weights of a net file.
        #[arg(long)]
        init: Option<PathBuf>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Quantise a checkpoint into a net file.
    Export {
        checkpoint: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Float and quantised evaluation of a position.
    Eval {
        #[arg(long)]
        net: PathBuf,
        #[arg(long)]
        fen: String,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train {
            data,
            hidden,
            buckets,
            out,
            superbatches,
            batches_per_superbatch,
            batch_size,
            wdl,
            lr,
            threads,
            resume,
            init,
            seed,
        } => {
            let config = TrainConfig {
                hidden,
                buckets,
                superbatches,
                batches_per_superbatch,
                batch_size,
                wdl,
                lr,
                seed,
            };
            run_train(config, &data, &out, threads, resume, init)
        }
        Command::Export { checkpoint, out } => export(&checkpoint, &out),
        Command::Eval { net, fen } => eval(&net, &fen),
    };
    if let Err(e) = result {
        eprintln!("trainer: error: {e:#}");
        std::process::exit(2);
    }
}

fn run_train(
    config: TrainConfig,
    data: &[PathBuf],
    out: &Path,
    threads: usize,
    resume: Option<PathBuf>,
    init: Option<PathBuf>,
) -> Result<()> {
    if !(1..=256).contains(&threads) {
        bail!("--threads must be 1 to 256");
    }
    if config.hidden == 0 || config.hidden % 16 != 0 || config.hidden > nnue::MAX_HIDDEN {
        bail!("--hidden must be a multiple of 16 up to {}", nnue::MAX_HIDDEN);
    }
    if config.buckets == 0 || config.buckets > nnue::MAX_OUTPUT_BUCKETS {
        bail!("--buckets must be 1 to {}", nnue::MAX_OUTPUT_BUCKETS);
    }
    if !((0.0..=1.0).contains(&config.wdl) && config.lr > 0.0 && config.lr < 1.0) {
        bail!("--wdl must be in [0, 1] and --lr in (0, 1)");
    }
    if config.superbatches == 0 || config.batches_per_superbatch == 0 || config.batch_size == 0 {
        bail!("--superbatches, --batches-per-superbatch and --batch-size must be positive");
    }
    let ckpt = match (&resume, &init) {
        (Some(path), _) => {
            let c = Checkpoint::load(path)?;
            eprintln!(
                "resuming {} after superbatch {}",
                path.display(),
                c.superbatches_done
            );
            c
        }
        (None, Some(net)) => {
            let net = Network::load(net).map_err(|e| anyhow::anyhow!("--init {}: {e}", net.display()))?;
            // A narrower or one-bucket net grows into the requested shape with the same
            // output, so what it learned carries over.
            let model = Model::grown_from_network(&net, config.hidden, config.buckets, config.seed)
                .map_err(|e| anyhow::anyhow!("--init: {e}"))?;
            Checkpoint::new(config, model)
        }
        (None, None) => Checkpoint::new(
            config.clone(),
            Model::random_bucketed(config.hidden, config.buckets, config.seed),
        ),
    };
    let (positions, warnings) = load(data)?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let (train_set, validation): (Vec<Position>, Vec<Position>) = split(positions, ckpt.config.seed);
    eprintln!(
        "{} training positions, {} validation positions, hidden {}, {} threads",
        train_set.len(),
        validation.len(),
        ckpt.config.hidden,
        threads
    );
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed)).context("Ctrl-C handler")?;
    }
    let result = train(ckpt, &train_set, &validation, threads, out, &stop, |line| {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}");
        let _ = err.flush();
    })?;
    let net = result
        .model
        .to_network()
        .map_err(|e| anyhow::anyhow!("cannot export: {e}"))?;
    let path = final_net_path(out);
    write_atomic(&path, &net.to_bytes())?;
    eprintln!(
        "wrote {} (fingerprint {:016x})",
        path.display(),
        net.fingerprint()
    );
    Ok(())
}

fn export(checkpoint: &Path, out: &Path) -> Result<()> {
    let ckpt = Checkpoint::load(checkpoint)?;
    let net = ckpt
        .model
        .to_network()
        .map_err(|e| anyhow::anyhow!("refusing to export: {e}"))?;
    write_atomic(out, &net.to_bytes())?;
    println!(
        "wrote {} (hidden {}, fingerprint {:016x})",
        out.display(),
        net.hidden,
        net.fingerprint()
    );
    Ok(())
}

fn eval(net: &Path, fen: &str) -> Result<()> {
    let board = Board::from_fen(fen).map_err(|e| anyhow::anyhow!("bad FEN: {e}"))?;
    let bytes = std::fs::read(net).with_context(|| format!("cannot read {}", net.display()))?;
    let (model, quantised) = match Network::from_bytes(&bytes) {
        Ok(n) => (Model::from_network(&n).map_err(anyhow::Error::msg)?, n),
        Err(_) => {
            let ckpt = Checkpoint::from_bytes(&bytes).context("neither a net file nor a checkpoint")?;
            let n = ckpt.model.to_network().map_err(anyhow::Error::msg)?;
            (ckpt.model, n)
        }
    };
    let position = Position::from_board(&board, 0.0, 0.5);
    let float_cp = model.output(&position) * nnue::SCALE as f32;
    println!("float:     {float_cp:.1} cp (side to move)");
    println!("quantised: {} cp (side to move)", quantised.evaluate(&board));
    Ok(())
}

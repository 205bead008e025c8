//! The `trainer` binary.
//!
//! ```text
//! trainer train --data FILES... --hidden N --out DIR [--superbatches S | --epochs E] [--wdl W]
//!               [--wdl-end W] [--lr L] [--threads T] [--resume CHECKPOINT] [--init NET [--allow-mirror-change]]
//!               [--mirror] [--king-buckets K | --arch ARCH] [--factorise] [--seed S]
//! trainer export CHECKPOINT --out FILE.nnue
//! trainer eval --net CHECKPOINT|FILE.nnue --fen FEN
//! ```
//!
//! Every number is checked by its clap value parser against the range where it makes sense
//! (`--lr` above 0 and below 1, `--wdl` from 0 to 1, `--hidden` a multiple of 16, ...), and
//! negative numbers reach that check, so `--lr -0.1` is told what the range is. `export`
//! refuses a directory as `--out` and leaves no partial file behind on any error. `train`
//! refuses an `--out` that already holds a run (its checkpoint or its net) unless it is
//! resumed with `--resume` from there, so neither a new run nor a run resumed into another
//! directory replaces a finished one.
//!
//! The run's length is `--superbatches`, or `--epochs`: as many superbatches as show the
//! model that many times the training positions (after the filter and the validation
//! split), counted once the data is read and printed before training starts. The help of
//! `train` (`TRAIN_SCHEDULE`) gives the schedule Luft's nets were trained with.
//!
//! `--mirror` trains a horizontally mirrored net (each side's view mirrored across the d/e
//! line while its king stands on files e-h; the checkpoint and the exported net carry
//! it). `--init` from a net of the other mirroring is refused: its weights were learned
//! for other inputs. `--allow-mirror-change` starts from them anyway (the run's
//! mirroring, given by `--mirror` or its absence, wins). A resumed run keeps its
//! checkpoint's mirroring, and `--mirror` on a checkpoint without it is refused.
//!
//! A resumed run keeps every setting its checkpoint holds: `--hidden`, `--buckets`,
//! `--wdl`, `--wdl-end`, `--lr`, `--seed`, `--batch-size`, `--batches-per-superbatch` or `--arch` given
//! with `--resume` must be the checkpoint's value (for `--arch` the whole shape: features,
//! mirroring, king buckets, width, output buckets, layers; for `--king-buckets` the bucket
//! layout, `--king-buckets 1` included), and a conflict is refused naming both values (the
//! same value is no conflict). `--superbatches` and `--epochs` are not used (a note
//! says so).
//!
//! Every file is written by the workspace's one rule (the `output` crate): a regular file is
//! replaced atomically, a symbolic link keeps being one, `/dev/null` or a FIFO is written
//! through, and an output that is an input (`export ck.bin --out ck.bin`, a data file or the
//! `--init` net as one of the run's files) is refused before any work.
//!
//! `--arch` gives the whole shape in the one-line form of `nnue::Arch`, e.g.
//! `--arch "(768x4hm -> 128)x2 -> 1x8"` (not with `--hidden`, `--buckets`, `--mirror` or
//! `--king-buckets`, which are shorthands for its parts); the trainer refuses a shape the
//! engine cannot run (another activation, a hidden layer wider than 256). `--king-buckets K` trains K king
//! buckets with the default map of `nnue::FeatureSet::default_map` (K = 1, 2, 3, 4 or 8;
//! 4: own back rank files a-b, c-d, the second rank, the rest, mirrored with `--mirror`).
//! `--init` from a net without king buckets into a bucketed run copies its rows into every
//! bucket (the same output to start from); a net with other king buckets is refused.
//!
//! `--arch` may give hidden layers after the transformer, e.g.
//! `--arch "(768 -> 64)x2 -> (16 -> 32 -> 1)x8"` (up to 4, each at most 256 wide): the run
//! then trains on the general path (`trainer::general`) instead of the fused kernel, the
//! checkpoint (version 6) keeps the layers and the exported net stores them (i8 weights,
//! i32 biases, `nnue::quantise`). `--init` for such a run takes only a net of the same
//! shape (no growing), and `--resume` keeps its checkpoint's layers.
//!
//! `OUT/status.json` (`trainer::status`) says where a run is, as data: superbatches and
//! epochs done, every superbatch's losses, the checkpoint, the final net once written, and
//! the arguments that resume the run.
//!
//! `--factorise` (only with king buckets, K > 1; refused otherwise before any work) trains
//! a factoriser beside the buckets: 768 feature rows shared by all of them, added to each
//! bucket's rows (`trainer::model`). The checkpoint (version 7 and later) keeps it and a resumed run
//! keeps it (`--factorise` on a checkpoint without one is refused); `export` and the run's
//! `final.nnue` merge it into every bucket, so the net and the engine are unchanged.
//! `--init` from a net without king buckets puts its rows into the factoriser and starts
//! the buckets at zero; from a net with the run's king buckets, the buckets get its rows
//! and the factoriser starts at zero (the same output either way).
//!
//! While training, stderr shows a progress bar (the workspace's `progress` crate) over all
//! batches (position, rate, ETA, the running loss and positions per second) when it is a
//! terminal; the summary of each superbatch stays above the bar. Otherwise (a log file, a pipe) it gets
//! plain lines: each superbatch's summary, and the running line at most every 10 s.

use anyhow::{bail, Context, Result};
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use movegen::Board;
use nnue::Network;
use progress::{ProgressBar, Throttle, PLAIN_EVERY};
use records::source::Format;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use trainer::data::{load_packed_split, Position};
use trainer::model::Model;
use trainer::status::{checkpoint_path, resume_args, StatusWriter, STATUS_FILE};
use trainer::train::{
    final_net_path, superbatches_for_epochs, train_saving, write_atomic, Checkpoint, TrainConfig,
    ValidationSplit,
};

/// A whole number from `lo` to `hi`, for clap.
fn whole_in<T>(text: &str, lo: T, hi: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match text.trim().parse::<T>() {
        Ok(v) if v >= lo && v <= hi => Ok(v),
        _ => Err(format!("must be a whole number from {lo} to {hi}")),
    }
}

fn parse_hidden(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(h) if h > 0 && h % 16 == 0 && h <= nnue::MAX_HIDDEN => Ok(h),
        _ => Err(format!(
            "must be a multiple of 16 from 16 to {}",
            nnue::MAX_HIDDEN
        )),
    }
}

fn parse_buckets(text: &str) -> Result<usize, String> {
    whole_in(text, 1, nnue::MAX_OUTPUT_BUCKETS)
}

fn parse_king_buckets(text: &str) -> Result<usize, String> {
    let k = whole_in(text, 1, nnue::arch::MAX_KING_BUCKETS)?;
    nnue::FeatureSet::default_buckets(k, false)
        .map(|_| k)
        .map_err(|e| e.to_string())
}

/// An architecture this trainer trains (and the engine runs).
fn parse_arch(text: &str) -> Result<Box<nnue::Arch>, String> {
    let arch: nnue::Arch = text.parse().map_err(|e: nnue::ArchError| e.to_string())?;
    arch.runnable().map_err(|e| e.to_string())?;
    Ok(Box::new(arch))
}

fn parse_count(text: &str) -> Result<u32, String> {
    whole_in(text, 1, u32::MAX)
}

fn parse_batch_size(text: &str) -> Result<usize, String> {
    whole_in(text, 1, trainer::MAX_BATCH_SIZE)
}

fn parse_threads(text: &str) -> Result<usize, String> {
    whole_in(text, 1, trainer::MAX_THREADS)
}

fn parse_wdl(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(w) if (0.0..=1.0).contains(&w) => Ok(w),
        _ => Err("must be a number from 0 to 1 (0: scores only, 1: results only)".to_string()),
    }
}

fn parse_epochs(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(e) if e > 0.0 && e <= f64::from(trainer::MAX_EPOCHS) => Ok(e),
        _ => Err(format!(
            "must be a number of epochs above 0 (up to {}), such as 6 or 2.5",
            trainer::MAX_EPOCHS
        )),
    }
}

fn parse_split(text: &str) -> Result<ValidationSplit, String> {
    text.trim().parse()
}

fn parse_lr(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(lr) if lr > 0.0 && lr < 1.0 => Ok(lr),
        _ => Err("must be a number above 0 and below 1, such as 0.001".to_string()),
    }
}

/// The schedule Luft's nets were trained with (`nets/catalogue.toml` has each net's recipe), shown
/// after `trainer train --help`.
const TRAIN_SCHEDULE: &str = "\
The schedule Luft's nets were trained with (nets/catalogue.toml gives each net's recipe):
  every run: AdamW (weight decay 0.01), batches of 16384, the learning rate falling from --lr
  to --lr x 0.3^5 on a cosine over the whole run, weights clipped to +-1.98, the target
  wdl x result + (1 - wdl) x sigmoid(score / 400) (--wdl 0.3 since gen2; gen1 used 0.0, as
  its data came from a material-only net), and 1% held out for validation (whole games by
  their record, --validation-split games, since 2026-12-08; by their index in reading
  order on 2026-12-07; single positions before).
  retraining the previous generation's net (--init) on the whole store, from gen10 on
  (16M positions): --lr 0.001 --wdl 0.3 --epochs 16 (gen10 gained +71 Elo over gen9, which
  had the short schedule below on nearly the same data; gen11, on 17.9M, +44 over gen10; gen12, on 30.2M, +117 over gen11).
  fine-tuning the previous generation's net (--init; gen5 to gen9): --lr 0.0005 --wdl 0.3
  and about 6 epochs (gen6 and gen7: 30 superbatches = 6.4 and 5.7 epochs of 4.9M and 5.6M
  positions; gen5: 10.9; gen9: --epochs 6), i.e. --epochs 6.
  from scratch, or growing a wider net from a narrower one (gen1; gen4, 32 to 128 wide):
  --lr 0.001 and about 20 epochs (gen1 21, gen4 20), i.e. --epochs 20.
The defaults (--lr 0.001, --wdl 1.0, 40 superbatches) are not that schedule: give the flags.";

#[derive(Parser, Debug)]
#[command(name = "trainer", version, about = "Luft's CPU NNUE trainer")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train (or resume training) a net.
    #[command(after_help = TRAIN_SCHEDULE)]
    Train {
        /// datagen files: data files, packs, directories of data files, or text (`FEN | cp |
        /// result`) and bulletformat positions (`datagen convert`).
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<PathBuf>,
        /// Read every --data file as games (data files and packs, by their first bytes),
        /// text or bullet; default: data files and packs by their first bytes, then text
        /// for `.txt`/`.text` and bulletformat for `.bullet`/`.bf`/`.data`.
        #[arg(long, value_parser = ["games", "text", "bullet"])]
        data_format: Option<String>,
        /// Hidden width: a multiple of 16.
        #[arg(long, default_value_t = 64, allow_negative_numbers = true, value_parser = parse_hidden)]
        hidden: usize,
        /// Output buckets by material, `(pieces - 2) / (32 / buckets)` (8: `(pieces - 2) / 4`).
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_buckets)]
        buckets: usize,
        /// The run's directory (checkpoint.bin, final.nnue, loss.csv, loss.png, loss.svg,
        /// status.json); one that already holds a run is refused unless --resume is given,
        /// and so are a file and a directory inside a --data directory.
        #[arg(long)]
        out: PathBuf,
        /// The run's length in superbatches (or give --epochs).
        #[arg(long, default_value_t = 40, allow_negative_numbers = true, value_parser = parse_count)]
        superbatches: u32,
        /// The run's length in passes over the training positions: the superbatches are
        /// this times the training positions (after the filter and the validation split) over the positions of a
        /// superbatch, rounded up, at least 1. Not with --superbatches.
        #[arg(long, conflicts_with = "superbatches", allow_negative_numbers = true, value_parser = parse_epochs)]
        epochs: Option<f64>,
        /// Batches of 16384 positions per superbatch.
        #[arg(long, default_value_t = 64, allow_negative_numbers = true, value_parser = parse_count)]
        batches_per_superbatch: u32,
        #[arg(long, default_value_t = 16384, allow_negative_numbers = true, value_parser = parse_batch_size)]
        batch_size: usize,
        /// Weight of the game result in the target, 0 to 1 (1.0: results only).
        #[arg(long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = parse_wdl)]
        wdl: f32,
        /// Move the WDL weight during the run: linearly from --wdl at the first step to this
        /// at the last (0 to 1; e.g. --wdl 0.2 --wdl-end 0.4). Without it, --wdl throughout.
        #[arg(long, allow_negative_numbers = true, value_parser = parse_wdl)]
        wdl_end: Option<f32>,
        /// What is held out for the validation loss, about 1 in 100: whole `games` (lone
        /// positions of text and bulletformat files in blocks of 64), or single `positions`
        /// (checkpoints before version 9; a game's neighbours then sit on both sides, so a
        /// net that memorises games scores best).
        #[arg(long, default_value = "games", value_parser = parse_split)]
        validation_split: ValidationSplit,
        /// Learning rate, above 0 and below 1.
        #[arg(long, default_value_t = 0.001, allow_negative_numbers = true, value_parser = parse_lr)]
        lr: f32,
        /// 1 to 256.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_threads)]
        threads: usize,
        /// Continue from a checkpoint: its settings and its length are the run's. A
        /// --hidden, --buckets, --wdl, --wdl-end, --lr, --seed, --validation-split,
        /// --batch-size or --batches-per-superbatch other than the checkpoint's is refused; --superbatches
        /// and --epochs are not used.
        #[arg(long)]
        resume: Option<PathBuf>,
        /// Start from the weights of a net file (of the same mirroring as this run); not
        /// with --resume, whose checkpoint holds the weights.
        #[arg(long, conflicts_with = "resume")]
        init: Option<PathBuf>,
        /// Train a horizontally mirrored net: each side's view is mirrored across the d/e
        /// line while its king stands on files e-h (net file flag bit 0).
        #[arg(long)]
        mirror: bool,
        /// King buckets with the default map (1, 2, 3, 4 or 8; 1: none).
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_king_buckets)]
        king_buckets: usize,
        /// The whole shape in one line, e.g. "(768x4hm -> 128)x2 -> 1x8" (instead of
        /// --hidden, --buckets, --mirror and --king-buckets).
        #[arg(long, value_parser = parse_arch, conflicts_with_all = ["hidden", "buckets", "mirror", "king_buckets"])]
        arch: Option<Box<nnue::Arch>>,
        /// Train a factoriser beside the king buckets (only with more than one): 768
        /// feature rows shared by every bucket, added to each bucket's rows, so that what
        /// the buckets have in common is learned from every position. The checkpoint keeps
        /// it; export and final.nnue merge it into every bucket, so the net is an ordinary
        /// king-bucketed net. With --init from a net without king buckets, its rows seed the
        /// factoriser and the buckets start at zero.
        #[arg(long)]
        factorise: bool,
        /// With --init: accept a net whose mirroring differs from this run's and start
        /// from its weights read with this run's mirroring.
        #[arg(long, requires = "init")]
        allow_mirror_change: bool,
        #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
        seed: u64,
    },
    /// Quantise a checkpoint into a net file.
    Export {
        checkpoint: PathBuf,
        /// The net file to write (not a directory).
        #[arg(long)]
        out: PathBuf,
    },
    /// The loss of finished nets on held-out data, at fixed WDL weights: the same measure
    /// for nets of every recipe (`trainer::validate`).
    Validate {
        /// Net files to measure.
        #[arg(long, num_args = 1.., required = true)]
        net: Vec<PathBuf>,
        /// The held-out data (data files, packs, directories, text or bulletformat), read
        /// through the training filter.
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<PathBuf>,
        /// The WDL weights of the targets to measure against, each 0 to 1.
        #[arg(long, num_args = 1.., default_values_t = [0.0, 0.3, 1.0], allow_negative_numbers = true, value_parser = parse_wdl)]
        wdl: Vec<f32>,
        /// Threads, 1 to 256.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_threads)]
        threads: usize,
        /// Also write the losses as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Float and quantised evaluation of a position.
    Eval {
        #[arg(long)]
        net: PathBuf,
        #[arg(long)]
        fen: String,
    },
}

/// The flags of `train` that set the run's settings, which a checkpoint holds: with
/// `--resume`, each one given must agree with the checkpoint (clap's argument id, the flag).
const CHECKPOINT_FLAGS: [(&str, &str); 9] = [
    ("hidden", "--hidden"),
    ("buckets", "--buckets"),
    ("wdl", "--wdl"),
    ("wdl_end", "--wdl-end"),
    ("lr", "--lr"),
    ("seed", "--seed"),
    ("validation_split", "--validation-split"),
    ("batch_size", "--batch-size"),
    ("batches_per_superbatch", "--batches-per-superbatch"),
];

fn main() {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // The flags given on the command line (not left at their defaults).
    let given = |id: &str| {
        matches
            .subcommand_matches("train")
            .is_some_and(|m| m.value_source(id) == Some(ValueSource::CommandLine))
    };
    let result = match cli.command {
        Command::Train {
            data,
            data_format,
            hidden,
            buckets,
            out,
            superbatches,
            epochs,
            batches_per_superbatch,
            batch_size,
            wdl,
            wdl_end,
            lr,
            threads,
            resume,
            init,
            mirror,
            king_buckets,
            arch,
            factorise,
            allow_mirror_change,
            seed,
            validation_split,
        } => {
            let arch_given = arch.as_deref().cloned();
            let arch = match arch {
                Some(arch) => *arch,
                None => match nnue::FeatureSet::default_buckets(king_buckets, mirror) {
                    Ok(features) => nnue::Arch::simple(features, hidden, buckets),
                    Err(e) => {
                        output::errln!("trainer: error: --king-buckets: {e}");
                        std::process::exit(2);
                    }
                },
            };
            let (hidden, buckets, mirror) = (arch.width, arch.output_buckets, arch.features.is_mirrored());
            let config = TrainConfig {
                hidden,
                buckets,
                superbatches,
                batches_per_superbatch,
                batch_size,
                wdl,
                wdl_end,
                lr,
                seed,
                split: validation_split,
            };
            let start = Start {
                resume,
                init,
                mirror,
                features: arch.features,
                layers: arch.layers.clone(),
                factorise,
                arch: arch_given,
                allow_mirror_change,
                given: CHECKPOINT_FLAGS
                    .iter()
                    .filter(|(id, _)| given(id))
                    .map(|&(_, flag)| flag)
                    .collect(),
                superbatches_given: given("superbatches"),
                king_buckets_given: given("king_buckets"),
            };
            let format = data_format
                .as_deref()
                .map(|f| f.parse::<Format>())
                .transpose()
                .map_err(anyhow::Error::msg);
            format.and_then(|format| {
                let data_format = data_format.as_deref().map(|word| (format, word));
                run_train(config, epochs, &data, data_format, &out, threads, start)
            })
        }
        Command::Export { checkpoint, out } => export(&checkpoint, &out),
        Command::Eval { net, fen } => eval(&net, &fen),
        Command::Validate {
            net,
            data,
            wdl,
            threads,
            json,
        } => validate(&net, &data, &wdl, threads, json.as_deref()),
    };
    if let Err(e) = result {
        // A stop asked for (Ctrl-C) is no error: `trainer: interrupted; ...` and 130, as for
        // datagen; a failure is `trainer: error: ...` and 2.
        let interrupted = e.downcast_ref::<trainer::train::Interrupted>().is_some();
        if interrupted {
            output::errln!("trainer: {e:#}");
        } else {
            output::errln!("trainer: error: {e:#}");
        }
        std::process::exit(if interrupted { 130 } else { 2 });
    }
}

/// Where a run starts: a checkpoint, a net, or fresh weights; and its mirroring.
struct Start {
    resume: Option<PathBuf>,
    init: Option<PathBuf>,
    mirror: bool,
    /// The run's input feature set (its mirroring is `mirror`).
    features: nnue::FeatureSet,
    /// The widths of the run's hidden layers (`--arch`; empty: none).
    layers: Vec<usize>,
    /// `--factorise`: a factoriser beside the king buckets.
    factorise: bool,
    /// The whole shape, when `--arch` gives it (with `--resume` it must be the
    /// checkpoint's).
    arch: Option<nnue::Arch>,
    allow_mirror_change: bool,
    /// Which of [`CHECKPOINT_FLAGS`] the command line gives.
    given: Vec<&'static str>,
    /// Whether it gives `--superbatches`.
    superbatches_given: bool,
    /// Whether it gives `--king-buckets` (with `--resume`, `--king-buckets 1` on a bucketed
    /// checkpoint is a conflict too).
    king_buckets_given: bool,
}

/// `path` with every link and `..` resolved, for a path that may not be there yet: its
/// nearest existing ancestor made canonical, with the rest appended. None when not even the
/// current directory resolves.
fn real_path(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let absolute = std::path::absolute(path).ok()?;
    let parts: Vec<Component<'_>> = absolute.components().collect();
    // The longest prefix that resolves, then the rest applied by hand (`..` taking a part
    // off: what follows a part that is not there cannot be a link).
    (0..=parts.len()).rev().find_map(|n| {
        let prefix: PathBuf = parts[..n].iter().collect();
        let mut real = std::fs::canonicalize(&prefix).ok()?;
        for part in &parts[n..] {
            match part {
                Component::ParentDir => {
                    real.pop();
                }
                Component::CurDir => {}
                other => real.push(other.as_os_str()),
            }
        }
        Some(real)
    })
}

/// The settings `flag` sets, as the command line would write them.
fn flag_value(config: &TrainConfig, flag: &str) -> String {
    match flag {
        "--hidden" => config.hidden.to_string(),
        "--buckets" => config.buckets.to_string(),
        "--wdl" => config.wdl.to_string(),
        "--wdl-end" => config.wdl_end.map_or_else(|| "none".into(), |w| w.to_string()),
        "--lr" => config.lr.to_string(),
        "--seed" => config.seed.to_string(),
        "--validation-split" => config.split.name().to_string(),
        "--batch-size" => config.batch_size.to_string(),
        "--batches-per-superbatch" => config.batches_per_superbatch.to_string(),
        _ => String::new(),
    }
}

/// The flags of `given` whose value in `wanted` differs from the checkpoint's `held`, as
/// (flag, the command line's value, the checkpoint's).
fn resume_conflicts(
    given: &[&str],
    wanted: &TrainConfig,
    held: &TrainConfig,
) -> Vec<(String, String, String)> {
    given
        .iter()
        .map(|&flag| (flag.to_string(), flag_value(wanted, flag), flag_value(held, flag)))
        .filter(|(_, wanted, held)| wanted != held)
        .collect()
}

/// "mirrored" or "not mirrored".
fn mirroring(mirrored: bool) -> &'static str {
    if mirrored {
        "mirrored"
    } else {
        "not mirrored"
    }
}

/// The run's starting checkpoint (see [`Start`]); errors for a file that cannot be read
/// and for mirroring that does not match (module documentation).
fn starting_checkpoint(config: TrainConfig, start: &Start) -> Result<Checkpoint> {
    if let Some(path) = &start.resume {
        let c = Checkpoint::load(path)?;
        if let Some(wanted) = &start.arch {
            let held = c.model.arch();
            if held != *wanted {
                bail!(
                    "--resume {}: the command line gives --arch {wanted} but the checkpoint's run \
                     has --arch {held}; a resumed run keeps its checkpoint's settings, so leave \
                     --arch out (or start a new run, with --init to start from a net)",
                    path.display(),
                );
            }
        }
        let conflicts = resume_conflicts(&start.given, &config, &c.config);
        if !conflicts.is_empty() {
            let list = |f: fn(&(String, String, String)) -> String| {
                conflicts.iter().map(f).collect::<Vec<_>>().join(" ")
            };
            bail!(
                "--resume {}: the command line gives {} but the checkpoint's run has {}; a resumed run \
                 keeps its checkpoint's settings, so leave these flags out (or start a new run, \
                 with --init to start from a net)",
                path.display(),
                list(|(flag, wanted, _)| format!("{flag} {wanted}")),
                list(|(flag, _, held)| format!("{flag} {held}")),
            );
        }
        if start.superbatches_given && config.superbatches != c.config.superbatches {
            output::errln!(
                "--superbatches {} is not used: the checkpoint's run is {} superbatches",
                config.superbatches,
                c.config.superbatches
            );
        }
        if start.mirror && !c.model.mirrored() {
            bail!(
                "--mirror: {} is a run without mirroring, and a resumed run keeps its checkpoint's \
                 settings (start a new run with --init to change it)",
                path.display()
            );
        }
        if !start.layers.is_empty() && c.model.layers != start.layers {
            bail!(
                "{} trains {}, and a resumed run keeps its checkpoint's settings",
                path.display(),
                c.model.arch()
            );
        }
        if start.factorise && !c.model.factoriser {
            bail!(
                "--factorise: {} is a run without a factoriser, and a resumed run keeps its \
                 checkpoint's settings (start a new run, with --init to start from a net)",
                path.display()
            );
        }
        let buckets_given = start.king_buckets_given || start.features.king_buckets_count() > 1;
        if buckets_given && c.model.features != start.features.with_mirroring(c.model.mirrored()) {
            bail!(
                "{} trains the inputs {}, and a resumed run keeps its checkpoint's settings",
                path.display(),
                c.model.features
            );
        }
        output::errln!(
            "resuming {} after superbatch {}{}{}",
            path.display(),
            c.superbatches_done,
            if c.model.mirrored() { " (mirrored)" } else { "" },
            if c.model.factoriser { " (factorised)" } else { "" }
        );
        return Ok(c);
    }
    if start.factorise && start.features.king_buckets_count() < 2 {
        bail!(
            "--factorise needs king buckets (--king-buckets 2 or more, or an --arch such as \
             \"(768x4hm -> 128)x2 -> 1x8\"); this run's inputs are {}",
            start.features
        );
    }
    let factorised = |model: Model| -> Result<Model> {
        if start.factorise {
            model.with_factoriser().map_err(anyhow::Error::msg)
        } else {
            Ok(model)
        }
    };
    let mut arch = nnue::Arch::simple(start.features, config.hidden, config.buckets);
    arch.layers = start.layers.clone();
    let Some(path) = &start.init else {
        let model = factorised(Model::random_arch(&arch, config.seed))?;
        return Ok(Checkpoint::new(config, model));
    };
    let net = Network::load(path).map_err(|e| anyhow::anyhow!("--init {}: {e}", path.display()))?;
    if !arch.layers.is_empty() || !net.layers().is_empty() {
        // Hidden layers: only a net of the very same shape (no growing yet).
        if net.arch() != arch {
            bail!(
                "--init {}: the net is {} and this run trains {}; a net with hidden layers starts only from a net of the same shape",
                path.display(),
                net.arch(),
                arch
            );
        }
        let model = Model::from_network(&net).map_err(|e| anyhow::anyhow!("--init: {e}"))?;
        return Ok(Checkpoint::new(config, factorised(model)?));
    }
    if net.mirrored() != start.mirror {
        if !start.allow_mirror_change {
            bail!(
                "--init {}: the net is {} and this run is {}; its weights were learned for other \
                 inputs. Pass {} to match the net, or --allow-mirror-change to start from its weights \
                 anyway",
                path.display(),
                mirroring(net.mirrored()),
                mirroring(start.mirror),
                if net.mirrored() { "--mirror" } else { "no --mirror" },
            );
        }
        output::errln!(
            "--init {}: the net is {}; training it {} (--allow-mirror-change)",
            path.display(),
            mirroring(net.mirrored()),
            mirroring(start.mirror)
        );
    }
    // A narrower or one-bucket net grows into the requested shape with the same output,
    // so what it learned carries over.
    let grow = if start.factorise {
        Model::grown_into_factorised
    } else {
        Model::grown_into
    };
    let model = grow(&net, start.features, config.hidden, config.buckets, config.seed)
        .map_err(|e| anyhow::anyhow!("--init: {e}"))?;
    Ok(Checkpoint::new(config, model))
}

/// What Ctrl-C (or SIGTERM) does, from the moment it is installed: before `training` is set
/// nothing of the run is written yet (the data loads, the nets are read), so it ends the
/// process at once, saying so, with 130; once set, it asks the training loop to stop (it saves
/// its checkpoint at the end of the superbatch and exits 130). `doing` names the command's
/// work for the message.
struct CtrlC {
    stop: Arc<AtomicBool>,
    training: Arc<AtomicBool>,
}

impl CtrlC {
    fn install(doing: &'static str) -> Result<CtrlC> {
        let (stop, training) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let (flag, phase) = (stop.clone(), training.clone());
        ctrlc::set_handler(move || {
            if phase.load(Ordering::SeqCst) {
                flag.store(true, Ordering::SeqCst);
            } else {
                output::errln!("trainer: interrupted while {doing}; nothing was written");
                std::process::exit(130);
            }
        })
        .context("Ctrl-C handler")?;
        Ok(CtrlC { stop, training })
    }

    /// From now on Ctrl-C stops the training loop (`stop`) instead of the process (for
    /// `validate`, which has no loop: it finishes writing its results).
    fn training(&self) -> Arc<AtomicBool> {
        self.training.store(true, Ordering::SeqCst);
        self.stop.clone()
    }
}

/// `trainer train`: `data_format` is the `--data-format` given, parsed and as its word.
fn run_train(
    config: TrainConfig,
    epochs: Option<f64>,
    data: &[PathBuf],
    data_format: Option<(Option<Format>, &str)>,
    out: &Path,
    threads: usize,
    start: Start,
) -> Result<()> {
    let format = data_format.and_then(|f| f.0);
    if out.exists() && !out.is_dir() {
        bail!("--out {} is a file: give a directory for the run", out.display());
    }
    // The data files themselves (each once: `input_files` refuses one given twice).
    let files = trainer::data::input_files(data)?;
    // The run's directory may not lie in a data directory: its checkpoint.bin would be read
    // as data the next time.
    for dir in data.iter().filter(|d| d.is_dir()) {
        if let (Ok(dir_real), Some(out_real)) = (std::fs::canonicalize(dir), real_path(out)) {
            if out_real.starts_with(&dir_real) {
                bail!(
                    "--out {} lies in the data directory {}: the run's checkpoint.bin would be \
                     read as data; give an --out outside it",
                    out.display(),
                    dir.display()
                );
            }
        }
    }
    // None of the run's files may be one of its inputs (the checkpoint resumed from is
    // meant to be replaced).
    let mut inputs: Vec<&Path> = data.iter().map(PathBuf::as_path).collect();
    inputs.extend(files.iter().map(PathBuf::as_path));
    inputs.extend(start.init.as_deref());
    for name in ["loss.csv", "loss.png", "loss.svg", STATUS_FILE] {
        output::refuse_inputs(&out.join(name), &inputs)?;
    }
    output::refuse_inputs(&checkpoint_path(out), &inputs)?;
    output::refuse_inputs(&final_net_path(out), &inputs)?;
    // A resumed run never replaces another either: resumed into another --out, that
    // directory may hold nothing of a run (its checkpoint, net, loss table or status would
    // be overwritten or, for the loss table, continued as if it were the run's).
    if let Some(resume) = &start.resume {
        let parent = match resume.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let same_dir = match (std::fs::canonicalize(parent), std::fs::canonicalize(out)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same_dir {
            let held_files = [
                checkpoint_path(out),
                final_net_path(out),
                out.join("loss.csv"),
                out.join(STATUS_FILE),
            ];
            for held in held_files {
                if held.exists() {
                    bail!(
                        "--out {} already holds another training run ({}); resuming {} there \
                         would replace it: give an empty --out, or resume that run with \
                         --resume {}",
                        out.display(),
                        held.display(),
                        resume.display(),
                        checkpoint_path(out).display()
                    );
                }
            }
        }
    }
    // A new run never replaces another: a directory that holds a run's checkpoint or net is
    // resumed with `--resume`, or the new run gets another `--out`.
    if start.resume.is_none() {
        let checkpoint = checkpoint_path(out);
        if checkpoint.exists() {
            bail!(
                "{} already holds a training run ({}): resume it with --resume {}, or give \
                 another --out",
                out.display(),
                checkpoint.display(),
                checkpoint.display()
            );
        }
        let net = final_net_path(out);
        if net.exists() {
            bail!(
                "{} already holds a training run's net ({}) and no checkpoint to resume: give \
                 another --out",
                out.display(),
                net.display()
            );
        }
    }
    let ctrl_c = CtrlC::install("loading the data")?;
    // The ranges were checked by the value parsers; a run that reaches here is in them.
    let mut ckpt = starting_checkpoint(config, &start)?;
    // Packed, 32 bytes a position; batches are decoded as they are drawn.
    let (train_set, validation, warnings) =
        load_packed_split(data, format, ckpt.config.split, ckpt.config.seed)?;
    for w in warnings {
        output::errln!("warning: {w}");
    }
    let (mirrored, features) = (ckpt.model.mirrored(), ckpt.model.features);
    let validation: Vec<Position> = validation.iter().map(|p| p.unpack_features(&features)).collect();
    output::errln!(
        "{} training positions, {} validation positions (held out by {}), hidden {}{}, {}, arch {}{}",
        train_set.len(),
        validation.len(),
        ckpt.config.split.name(),
        ckpt.config.hidden,
        if mirrored { ", mirrored" } else { "" },
        output::count(threads as u64, "thread"),
        ckpt.model.arch(),
        if ckpt.model.factoriser { ", factorised" } else { "" }
    );
    if validation.is_empty() {
        output::errln!(
            "note: nothing was held out for validation (about 1 in 100 {} is; too few here): \
             the validation loss is not measured (NaN in loss.csv, null in status.json)",
            ckpt.config.split.name()
        );
    }
    if let Some(epochs) = epochs {
        let c = &mut ckpt.config;
        if start.resume.is_some() {
            output::errln!(
                "--epochs {epochs} is not used: the checkpoint's run is {} superbatches",
                c.superbatches
            );
        } else {
            c.superbatches =
                superbatches_for_epochs(epochs, train_set.len(), c.batches_per_superbatch, c.batch_size)?;
            let seen = u64::from(c.superbatches) * u64::from(c.batches_per_superbatch) * c.batch_size as u64;
            output::errln!(
                "--epochs {epochs}: {} superbatches of {} batches of {} positions ({seen} positions, {:.2} \
                 epochs of {} training positions)",
                c.superbatches,
                c.batches_per_superbatch,
                c.batch_size,
                seen as f64 / train_set.len().max(1) as f64,
                train_set.len()
            );
        }
    }
    let stop = ctrl_c.training();
    let c = &ckpt.config;
    let mut progress = Progress::new(
        u64::from(c.superbatches) * u64::from(c.batches_per_superbatch),
        u64::from(ckpt.superbatches_done.min(c.superbatches)) * u64::from(c.batches_per_superbatch),
        progress::stderr_is_terminal(),
    );
    let status = StatusWriter {
        out: out.to_path_buf(),
        resume: resume_args(data, data_format.map(|f| f.1), out),
        threads,
        training_positions: train_set.len() as u64,
    };
    let saved_here = std::cell::Cell::new(false);
    let result = train_saving(
        ckpt,
        &train_set,
        &validation,
        threads,
        out,
        &stop,
        |line| progress.line(line),
        |saved| {
            saved_here.set(true);
            status.write(saved, None)
        },
    );
    progress.finish();
    let result = result?;
    // A run that saved no checkpoint here (resumed from a finished one into another --out)
    // writes its checkpoint now: the status never names a checkpoint that is not there.
    if !saved_here.get() {
        result.save(&checkpoint_path(out))?;
    }
    let net = result
        .model
        .to_network()
        .map_err(|e| anyhow::anyhow!("cannot export: {e}"))?;
    let path = final_net_path(out);
    // The status of the whole run before the net and with it, so that a final net never
    // stands beside the status of an earlier superbatch.
    status.write(&result, None)?;
    write_atomic(&path, &net.to_bytes())?;
    status.write(&result, Some(&path))?;
    output::errln!(
        "wrote {} (fingerprint {:016x})",
        path.display(),
        net.fingerprint()
    );
    Ok(())
}

/// Where the lines of [`train`]'s progress go: a bar, or plain lines.
struct Progress {
    bar: Option<ProgressBar>,
    plain: Throttle,
}

/// A running line's batch: `superbatch S/TOTAL batch B/PER ...` gives
/// ((S - 1) * PER + B, the rest of the line after the counts).
fn batch_position(line: &str) -> Option<(u64, &str)> {
    let rest = line.strip_prefix("superbatch ")?;
    let (sb, rest) = rest.split_once('/')?;
    let rest = rest.split_once(" batch ")?.1;
    let (b, rest) = rest.split_once('/')?;
    let (per, tail) = rest.split_once(' ')?;
    let (sb, b, per) = (
        sb.parse::<u64>().ok()?,
        b.parse::<u64>().ok()?,
        per.parse::<u64>().ok()?,
    );
    Some((sb.checked_sub(1)? * per + b, tail))
}

impl Progress {
    fn new(total: u64, done: u64, terminal: bool) -> Progress {
        let bar = terminal.then(|| {
            progress::bar(
                Some(total),
                done,
                "{spinner} {elapsed_precise} [{wide_bar}] {pos}/{len} batches, {per_sec}, ETA {eta}  {msg}",
            )
        });
        Progress {
            bar,
            plain: Throttle::new(PLAIN_EVERY),
        }
    }

    fn line(&mut self, line: &str) {
        let text = line.trim_matches('\n');
        let running = batch_position(text);
        match (&self.bar, running) {
            (Some(bar), Some((position, tail))) => {
                bar.set_position(position);
                bar.set_message(tail.to_string());
            }
            (Some(bar), None) => bar.println(text),
            (None, Some(_)) => {
                // Plain: a running line at most every 10 s.
                if self.plain.due() {
                    output::errln!("{text}");
                }
            }
            (None, None) => output::errln!("{text}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn export(checkpoint: &Path, out: &Path) -> Result<()> {
    if out.is_dir() {
        bail!(
            "--out {} is a directory: give the net's file path, such as {}",
            out.display(),
            out.join("net.nnue").display()
        );
    }
    // Before any work: a path that cannot be written (a missing directory is named), and
    // the checkpoint itself as the output.
    output::plan(out)?;
    output::refuse_inputs(out, &[checkpoint])?;
    let ckpt = Checkpoint::load(checkpoint)?;
    // A factorised model exports its merged net (`Model::float_net`).
    let net = ckpt
        .model
        .to_network()
        .map_err(|e| anyhow::anyhow!("refusing to export: {e}"))?;
    output::write(out, &[checkpoint], &net.to_bytes())?;
    output::outln!(
        "wrote {} (hidden {}{}, fingerprint {:016x}, arch {}{})",
        out.display(),
        net.hidden(),
        if net.mirrored() { ", mirrored" } else { "" },
        net.fingerprint(),
        net.arch(),
        if ckpt.model.factoriser {
            ", factoriser merged into every king bucket"
        } else {
            ""
        }
    );
    Ok(())
}

fn validate(
    nets: &[PathBuf],
    data: &[PathBuf],
    wdls: &[f32],
    threads: usize,
    json: Option<&Path>,
) -> Result<()> {
    // The JSON may be none of the inputs, nor a file in an input directory (a data file or a
    // corpus's pack), refused before the work.
    let files = trainer::data::input_files(data)?;
    let inputs: Vec<&Path> = nets
        .iter()
        .chain(data)
        .chain(&files)
        .map(PathBuf::as_path)
        .collect();
    if let Some(path) = json {
        output::refuse_inputs(path, &inputs)?;
    }
    // Ctrl-C ends it at once while it reads and evaluates; not while it writes its results.
    let ctrl_c = CtrlC::install("validating")?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("thread pool")?;
    let v = pool.install(|| trainer::validate::validate(nets, data, wdls))?;
    for w in &v.warnings {
        output::errln!("warning: {w}");
    }
    let _finishing = ctrl_c.training();
    if let Some(path) = json {
        trainer::validate::write_json(&v, path, &inputs)?;
    }
    output::print_stdout(format_args!("{}", trainer::validate::table(&v)));
    Ok(())
}

/// `trainer eval`: the float and quantised evaluations of `fen` by the net file or
/// checkpoint `net`. Errors: a bad FEN; a file that cannot be read; one that is a damaged net
/// (by its magic: the net loader's reason) or checkpoint, or neither (both reasons), naming
/// the file.
fn eval(net: &Path, fen: &str) -> Result<()> {
    let board = Board::from_fen(fen).map_err(|e| anyhow::anyhow!("bad FEN: {e}"))?;
    let bytes = std::fs::read(net).with_context(|| format!("cannot read {}", net.display()))?;
    let file = net.display();
    let (model, quantised) = match Network::from_bytes(&bytes) {
        Ok(n) => (
            Model::from_network(&n).map_err(|e| anyhow::anyhow!("{file}: {e}"))?,
            n,
        ),
        Err(_) if Checkpoint::looks_like(&bytes) => {
            let ckpt = Checkpoint::from_bytes(&bytes)
                .with_context(|| format!("{file}: not a readable checkpoint"))?;
            let n = ckpt
                .model
                .to_network()
                .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
            (ckpt.model, n)
        }
        // A net's magic: the net loader's reason.
        Err(e) if bytes.starts_with(nnue::file::MAGIC) => bail!("{file}: {e}"),
        Err(e) => bail!("{file}: neither a net file ({e}) nor a checkpoint (not a Luft checkpoint)"),
    };
    let float_cp = model.output(&model.position(&board)) * nnue::SCALE as f32;
    output::outln!("float:     {float_cp:.1} cp (side to move)");
    output::outln!("quantised: {} cp (side to move)", quantised.evaluate(&board));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::batch_position;

    #[test]
    fn running_lines_give_the_batch_position() {
        assert_eq!(
            batch_position("superbatch 3/40 batch 7/64 loss 0.012345 lr 1.00e-3 123 pos/s"),
            Some((2 * 64 + 7, "loss 0.012345 lr 1.00e-3 123 pos/s"))
        );
        assert_eq!(batch_position("superbatch 1/2 batch 1/2 x"), Some((1, "x")));
        assert_eq!(
            batch_position("superbatch 3/40 done: train 0.1 validation 0.2 (5 pos/s)"),
            None
        );
        assert_eq!(batch_position("superbatch 0/40 batch 1/64 x"), None);
        assert_eq!(batch_position("warning: cannot draw"), None);
    }
}

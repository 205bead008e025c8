//! `status.json` in a training's output directory: where the run is, as data (serde_json)
//! for the tools that drive the trainer, so that none of them reads its printed lines or the
//! columns of `loss.csv`. It is written atomically after every checkpoint and once more when
//! the final net is written: the superbatches done and in all, the epochs they make, every
//! superbatch's losses, the checkpoint, the final net once there, and the arguments that
//! resume the run from its checkpoint.

use crate::train::{write_atomic, Checkpoint};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file's name in the output directory.
pub const STATUS_FILE: &str = "status.json";

/// A training run's status, as `status.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunStatus {
    /// Superbatches trained so far (the checkpoint's count).
    pub superbatches_done: u32,
    /// Superbatches the run trains in all.
    pub superbatches: u32,
    /// Passes over the training positions so far: positions drawn (superbatches done x
    /// batches per superbatch x batch size) over the training positions.
    pub epochs_done: f64,
    /// Training positions (after the filter and the validation split).
    pub training_positions: u64,
    /// The mean training loss of each superbatch, in order (None: not a number).
    pub train_losses: Vec<Option<f64>>,
    /// The validation loss after each superbatch, in order (None: no validation positions).
    pub validation_losses: Vec<Option<f64>>,
    /// The checkpoint, `--out` joined with `checkpoint.bin`.
    pub checkpoint: PathBuf,
    /// The final net, `--out` joined with `final.nnue`, once written.
    pub final_net: Option<PathBuf>,
    /// Whether every superbatch is trained and the final net written.
    pub finished: bool,
    /// The arguments after the program that resume this run from its checkpoint: `train`,
    /// the same `--data` (and `--data-format`) and `--out`, and `--resume CHECKPOINT`. The
    /// checkpoint holds every other setting; `--threads` is left to the caller (a resumed
    /// run may use another count; the trainer's default is 1).
    pub resume: Vec<String>,
    /// Threads this run trained with.
    pub threads: usize,
}

impl RunStatus {
    /// The last validation loss, if any superbatch had one.
    pub fn last_validation_loss(&self) -> Option<f64> {
        self.validation_losses.iter().rev().find_map(|v| *v)
    }

    /// Reads `DIR/status.json`. Errors: a file that cannot be read or is not a status.
    pub fn load(out: &Path) -> Result<RunStatus> {
        let path = out.join(STATUS_FILE);
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{}: not a trainer status", path.display()))
    }
}

/// `trainer train`'s arguments that resume a run on `data` (read as `data_format` when
/// given) in `out` from its checkpoint there.
pub fn resume_args(data: &[PathBuf], data_format: Option<&str>, out: &Path) -> Vec<String> {
    let mut args = vec!["train".to_string(), "--data".to_string()];
    args.extend(data.iter().map(|d| d.display().to_string()));
    if let Some(format) = data_format {
        args.extend(["--data-format".to_string(), format.to_string()]);
    }
    args.extend([
        "--out".to_string(),
        out.display().to_string(),
        "--resume".to_string(),
        checkpoint_path(out).display().to_string(),
    ]);
    args
}

/// The checkpoint's path in `out`.
pub fn checkpoint_path(out: &Path) -> PathBuf {
    out.join("checkpoint.bin")
}

/// Writes a run's `status.json`: what does not change during the run, given once.
#[derive(Clone, Debug)]
pub struct StatusWriter {
    /// The output directory (`--out`).
    pub out: PathBuf,
    /// [`RunStatus::resume`].
    pub resume: Vec<String>,
    /// [`RunStatus::threads`].
    pub threads: usize,
    /// [`RunStatus::training_positions`].
    pub training_positions: u64,
}

impl StatusWriter {
    /// The status of the run at `ckpt`, its final net `final_net` when written.
    pub fn status(&self, ckpt: &Checkpoint, final_net: Option<&Path>) -> RunStatus {
        let c = &ckpt.config;
        let drawn =
            f64::from(ckpt.superbatches_done) * f64::from(c.batches_per_superbatch) * c.batch_size as f64;
        let number = |v: f64| v.is_finite().then_some(v);
        RunStatus {
            superbatches_done: ckpt.superbatches_done,
            superbatches: c.superbatches,
            epochs_done: drawn / self.training_positions.max(1) as f64,
            training_positions: self.training_positions,
            train_losses: ckpt.history.iter().map(|h| number(h.0)).collect(),
            validation_losses: ckpt.history.iter().map(|h| number(h.1)).collect(),
            checkpoint: checkpoint_path(&self.out),
            final_net: final_net.map(Path::to_path_buf),
            finished: final_net.is_some(),
            resume: self.resume.clone(),
            threads: self.threads,
        }
    }

    /// Writes the status of `ckpt` to `OUT/status.json` atomically. Errors: a file that
    /// cannot be written.
    pub fn write(&self, ckpt: &Checkpoint, final_net: Option<&Path>) -> Result<()> {
        let json = serde_json::to_string_pretty(&self.status(ckpt, final_net))?;
        write_atomic(&self.out.join(STATUS_FILE), json.as_bytes())
    }
}

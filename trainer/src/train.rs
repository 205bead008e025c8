//! The training loop: batches of 16384 positions sampled at random (seeded by superbatch and
//! batch index, so a resumed run draws exactly the batches the uninterrupted one would),
//! forward and backward split over the threads with a gradient buffer each, AdamW
//! (beta1 0.9, beta2 0.999, weight decay 0.01) with cosine decay of the learning rate to
//! `lr · 0.3⁵`, weights clipped to ±1.98 after every step, a validation loss on a held-out
//! 1% of the games ([`ValidationSplit`]) after every superbatch, then a CSV line, the loss
//! plot (`loss.png` and `loss.svg`) and an atomic checkpoint (after which the trainer writes
//! its `status.json`, `crate::status`). A checkpoint is a versioned, checksummed envelope
//! around a serde structure in postcard (version 9, which added the validation split);
//! version 8 (the same, its split by position), version 7 (without a WDL schedule either), version 6 (without a factoriser either), version 5 (without hidden layers either), version 4 (without king
//! buckets either), version 3 (without mirroring either) and versions 1 and 2, hand-written
//! layouts of earlier builds, are still read. A model with hidden layers trains on the
//! general path (`crate::general`)
//! and clips each tensor to what its quantisation holds (`Model::clips`); the plain shape
//! takes the fused kernel, clipped to ±1.98 as always. A factorised model (`trainer train
//! --factorise`) trains as its merged net, one merge before and one fold of the gradient
//! after each batch, and its merged weights are held to ±1.98 (`crate::model`).
//! A resumed run first cuts `loss.csv` back to the checkpoint's superbatches (a row written
//! before a kill that came ahead of its checkpoint goes), so every superbatch has one row.

use crate::data::{draw_samples, Position, Sample};
use crate::general::Buffers;
use crate::model::{loss_only, Columns, Kernel, Layout, Model, Scratch};
use crate::plot::{loss_plot, loss_plot_svg};
use anyhow::{bail, Context, Result};
use ndarray::{Array1, Zip};
use nnue::file::CHECKPOINT_MAGIC;
use nnue::FeatureSet;
use output::checksum::fnv1a;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Settings of a run (stored in checkpoints).
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// Hidden width N.
    pub hidden: usize,
    /// Output buckets by material (`nnue::output_bucket`); 1 for none.
    pub buckets: usize,
    /// Superbatches to train (the run's length).
    pub superbatches: u32,
    /// Batches per superbatch (after each superbatch: validation, a loss row, a checkpoint).
    pub batches_per_superbatch: u32,
    /// Positions per batch.
    pub batch_size: usize,
    /// Weight of the game result in the target (0: score only, 1: result only); with
    /// `wdl_end`, the weight at the first step.
    pub wdl: f32,
    /// The weight at the last step, the target moving linearly from `wdl` to it over the
    /// run ([`wdl_weight`]); `None`: `wdl` throughout.
    pub wdl_end: Option<f32>,
    /// Peak learning rate (cosine schedule).
    pub lr: f32,
    /// Seed of the initial weights and the shuffles.
    pub seed: u64,
    /// How the validation positions are held out (`trainer train --validation-split`).
    pub split: ValidationSplit,
}

/// How a run holds positions out of training to measure its validation loss: about 1 in
/// 100, chosen by a hash of the run's seed and the game's record (or an index in reading
/// order: files in the order given, a directory's files sorted). Stored in the checkpoint,
/// so a resumed run holds out what it held out before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValidationSplit {
    /// Whole games, by the game's record (`records::manifest::game_key`: start, moves,
    /// scores, result), so a game is on the same side whatever else is read and in whatever
    /// order (a `learn` run lists its newest segments first, so each candidate's data
    /// shifted every index) and every copy of a game with it; lone positions (text and
    /// bulletformat files, which carry no games) in blocks of [`LONE_BLOCK`] consecutive
    /// positions, which files written game by game keep mostly within one game. The
    /// default since 2026-12-08.
    Games,
    /// Whole games, by the game's index in reading order, lone positions as for `Games`:
    /// runs of 2026-12-07 (checkpoint code 1), which resume with it.
    GamesInOrder,
    /// Single positions, by the position's index: every run before checkpoint version 9.
    /// The positions of one game fall on both sides, so the validation loss rewards a net
    /// that memorises games (records/2026-12-07-256-wide-from-scratch).
    Positions,
}

/// Consecutive lone positions held out or kept together by [`ValidationSplit::Games`].
pub const LONE_BLOCK: u64 = 64;

impl ValidationSplit {
    /// The word `--validation-split` takes.
    pub fn name(self) -> &'static str {
        match self {
            ValidationSplit::Games => "games",
            ValidationSplit::GamesInOrder => "games-in-order",
            ValidationSplit::Positions => "positions",
        }
    }

    /// The byte a checkpoint stores (0 positions, 1 games in reading order, 2 games by
    /// record).
    fn code(self) -> u8 {
        match self {
            ValidationSplit::Positions => 0,
            ValidationSplit::GamesInOrder => 1,
            ValidationSplit::Games => 2,
        }
    }

    fn from_code(code: u8) -> Result<Self> {
        match code {
            0 => Ok(ValidationSplit::Positions),
            1 => Ok(ValidationSplit::GamesInOrder),
            2 => Ok(ValidationSplit::Games),
            _ => bail!(
                "checkpoint validation split {code} unknown (0 positions, 1 games in reading order, \
                 2 games by record)"
            ),
        }
    }

    /// Whether the item `item` (a game's record key or index, a lone position's block, or a
    /// position's index, as the split says) is held out for validation in a run seeded
    /// `seed`.
    pub fn held_out(self, seed: u64, item: u64) -> bool {
        // The two splits by game keep the salt of the first: an index and a record key are
        // different numbers anyway.
        let salt = match self {
            ValidationSplit::Positions => 0x5EED,
            ValidationSplit::Games | ValidationSplit::GamesInOrder => 0x6A3E_5EED,
        };
        mix(seed ^ salt ^ item).is_multiple_of(100)
    }
}

impl std::str::FromStr for ValidationSplit {
    type Err = String;

    fn from_str(word: &str) -> std::result::Result<Self, String> {
        match word {
            "games" => Ok(ValidationSplit::Games),
            "games-in-order" => Ok(ValidationSplit::GamesInOrder),
            "positions" => Ok(ValidationSplit::Positions),
            _ => Err(format!(
                "'{word}' is not a validation split (games, games-in-order or positions)"
            )),
        }
    }
}

/// Everything needed to continue a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The run's settings.
    pub config: TrainConfig,
    /// Superbatches done so far.
    pub superbatches_done: u32,
    /// The model so far.
    pub model: Model,
    /// AdamW's first moments.
    pub m: Array1<f32>,
    /// AdamW's second moments.
    pub v: Array1<f32>,
    /// (training loss, validation loss) per superbatch.
    pub history: Vec<(f64, f64)>,
}

/// The version this trainer writes: the serde layout of `WireCheckpoint` with
/// `WireConfig` in postcard.
pub const CHECKPOINT_VERSION: u32 = 9;

/// The envelope around every checkpoint version: magic (8 bytes), version (u32 LE), the
/// body, FNV-1a 64 of everything before it (u64 LE).
const ENVELOPE_LEN: usize = 8 + 4 + 8;

/// A run's settings as version 9 stores them. The file layout is these fields in this
/// order, in postcard's encoding (integers as varints, floats as little-endian bytes,
/// booleans as one byte 0 or 1, sequences prefixed by their length); a change here is a
/// new version number, and the old version keeps a reader.
#[derive(Serialize, Deserialize)]
struct WireConfig {
    hidden: u32,
    buckets: u32,
    superbatches: u32,
    batches_per_superbatch: u32,
    batch_size: u64,
    wdl: f32,
    lr: f32,
    seed: u64,
    /// The model's horizontal mirroring (new in version 4).
    mirrored: bool,
    /// The model's king buckets (new in version 5; 1: none).
    king_buckets: u32,
    /// Their map, 64 bytes (`nnue::FeatureSet::bucket_map`; new in version 5).
    bucket_map: Vec<u8>,
    /// The widths of the model's hidden layers (new in version 6; empty: none).
    layers: Vec<u32>,
    /// Whether the model has a factoriser (new in version 7).
    factoriser: bool,
    /// The WDL weight at the last step (new in version 8; `None`: `wdl` throughout).
    wdl_end: Option<f32>,
    /// The validation split, [`ValidationSplit`]'s code (new in version 9; 0, by position,
    /// before it; 2, by record, since 2026-12-08).
    validation_split: u8,
}

/// A run's settings as version 3 stored them, the first eight fields of every later version.
#[derive(Serialize, Deserialize)]
struct WireConfigV3 {
    hidden: u32,
    buckets: u32,
    superbatches: u32,
    batches_per_superbatch: u32,
    batch_size: u64,
    wdl: f32,
    lr: f32,
    seed: u64,
}

// Each older version is the one before it plus the fields it added at the end: postcard
// writes a nested struct's fields in place, with nothing around them, so these read the
// old files' bytes exactly, and each upgrades to the next with the new fields at the values
// that mean "without it".

/// Version 4: version 3 and the mirroring.
#[derive(Serialize, Deserialize)]
struct WireConfigV4 {
    v3: WireConfigV3,
    mirrored: bool,
}

/// Version 5: version 4 and the king buckets with their map.
#[derive(Serialize, Deserialize)]
struct WireConfigV5 {
    v4: WireConfigV4,
    king_buckets: u32,
    bucket_map: Vec<u8>,
}

/// Version 6: version 5 and the hidden layers' widths.
#[derive(Serialize, Deserialize)]
struct WireConfigV6 {
    v5: WireConfigV5,
    layers: Vec<u32>,
}

/// Version 7: version 6 and the factoriser.
#[derive(Serialize, Deserialize)]
struct WireConfigV7 {
    v6: WireConfigV6,
    factoriser: bool,
}

/// Version 8: version 7 and the WDL schedule; [`WireConfig`] without `validation_split`.
#[derive(Serialize, Deserialize)]
struct WireConfigV8 {
    v7: WireConfigV7,
    wdl_end: Option<f32>,
}

impl From<WireConfigV3> for WireConfigV4 {
    fn from(v3: WireConfigV3) -> Self {
        WireConfigV4 { v3, mirrored: false }
    }
}

impl From<WireConfigV4> for WireConfigV5 {
    fn from(v4: WireConfigV4) -> Self {
        WireConfigV5 {
            v4,
            king_buckets: 1,
            bucket_map: vec![0; 64],
        }
    }
}

impl From<WireConfigV5> for WireConfigV6 {
    fn from(v5: WireConfigV5) -> Self {
        WireConfigV6 {
            v5,
            layers: Vec::new(),
        }
    }
}

impl From<WireConfigV6> for WireConfigV7 {
    fn from(v6: WireConfigV6) -> Self {
        WireConfigV7 {
            v6,
            factoriser: false,
        }
    }
}

impl From<WireConfigV7> for WireConfigV8 {
    fn from(v7: WireConfigV7) -> Self {
        WireConfigV8 { v7, wdl_end: None }
    }
}

impl From<WireConfigV8> for WireConfig {
    fn from(v8: WireConfigV8) -> Self {
        let WireConfigV8 {
            v7:
                WireConfigV7 {
                    v6:
                        WireConfigV6 {
                            v5:
                                WireConfigV5 {
                                    v4: WireConfigV4 { v3, mirrored },
                                    king_buckets,
                                    bucket_map,
                                },
                            layers,
                        },
                    factoriser,
                },
            wdl_end,
        } = v8;
        let WireConfigV3 {
            hidden,
            buckets,
            superbatches,
            batches_per_superbatch,
            batch_size,
            wdl,
            lr,
            seed,
        } = v3;
        WireConfig {
            hidden,
            buckets,
            superbatches,
            batches_per_superbatch,
            batch_size,
            wdl,
            lr,
            seed,
            mirrored,
            king_buckets,
            bucket_map,
            layers,
            factoriser,
            wdl_end,
            validation_split: ValidationSplit::Positions.code(),
        }
    }
}

impl From<WireConfigV7> for WireConfig {
    fn from(c: WireConfigV7) -> Self {
        WireConfigV8::from(c).into()
    }
}

impl From<WireConfigV6> for WireConfig {
    fn from(c: WireConfigV6) -> Self {
        WireConfigV7::from(c).into()
    }
}

impl From<WireConfigV5> for WireConfig {
    fn from(c: WireConfigV5) -> Self {
        WireConfigV6::from(c).into()
    }
}

impl From<WireConfigV4> for WireConfig {
    fn from(c: WireConfigV4) -> Self {
        WireConfigV5::from(c).into()
    }
}

impl From<WireConfigV3> for WireConfig {
    fn from(c: WireConfigV3) -> Self {
        WireConfigV4::from(c).into()
    }
}

/// A checkpoint as versions 3 (`C` = [`WireConfigV3`]) to 9 ([`WireConfig`]) store it
/// (borrowed when writing, owned when read).
#[derive(Serialize, Deserialize)]
struct WireCheckpoint<'a, C> {
    config: C,
    superbatches_done: u32,
    history: Cow<'a, [(f64, f64)]>,
    params: Cow<'a, [f32]>,
    m: Cow<'a, [f32]>,
    v: Cow<'a, [f32]>,
}

fn borrowed(array: &Array1<f32>) -> Cow<'_, [f32]> {
    match array.as_slice() {
        Some(slice) => Cow::Borrowed(slice),
        None => Cow::Owned(array.to_vec()),
    }
}

impl Checkpoint {
    /// A run with `config` starting from `model`.
    pub fn new(config: TrainConfig, model: Model) -> Self {
        let len = model.params.len();
        Checkpoint {
            config,
            superbatches_done: 0,
            model,
            m: Array1::zeros(len),
            v: Array1::zeros(len),
            history: Vec::new(),
        }
    }

    /// The checkpoint file's bytes, in the current version ([`CHECKPOINT_VERSION`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let c = &self.config;
        let narrow = |what: &str, v: usize| {
            u32::try_from(v).with_context(|| format!("{what} {v} does not fit a checkpoint"))
        };
        let wire = WireCheckpoint {
            config: WireConfig {
                hidden: narrow("hidden width", c.hidden)?,
                buckets: narrow("output buckets", c.buckets)?,
                superbatches: c.superbatches,
                batches_per_superbatch: c.batches_per_superbatch,
                batch_size: c.batch_size as u64,
                wdl: c.wdl,
                lr: c.lr,
                seed: c.seed,
                mirrored: self.model.mirrored(),
                king_buckets: self.model.features.king_buckets_count() as u32,
                bucket_map: self.model.features.bucket_map().to_vec(),
                layers: self
                    .model
                    .layers
                    .iter()
                    .map(|&w| narrow("hidden layer width", w))
                    .collect::<Result<_>>()?,
                factoriser: self.model.factoriser,
                wdl_end: c.wdl_end,
                validation_split: c.split.code(),
            },
            superbatches_done: self.superbatches_done,
            history: Cow::Borrowed(&self.history),
            params: borrowed(&self.model.params),
            m: borrowed(&self.m),
            v: borrowed(&self.v),
        };
        let mut out = Vec::with_capacity(ENVELOPE_LEN + 12 * self.model.params.len() + 64);
        out.extend_from_slice(CHECKPOINT_MAGIC);
        out.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        let out = postcard::to_extend(&wire, out).context("cannot encode the checkpoint")?;
        Ok(seal(out))
    }

    /// Whether `bytes` begin as a checkpoint does (its magic), read or not.
    pub fn looks_like(bytes: &[u8]) -> bool {
        bytes.starts_with(CHECKPOINT_MAGIC)
    }

    /// Reads a checkpoint of any version this trainer knows: 9 to 3 (serde + postcard; 8
    /// has no validation split (its runs split by position), 7 no WDL schedule either, 6 no factoriser, 5 no hidden layers either, 4 no king buckets, 3 no mirroring), or
    /// the hand-written layouts 1 and 2 of earlier builds (read only).
    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint> {
        if bytes.len() < ENVELOPE_LEN || !Checkpoint::looks_like(bytes) {
            bail!("not a Luft checkpoint");
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            bail!("checkpoint corrupt (checksum mismatch)");
        }
        let version = u32::from_le_bytes(body[8..12].try_into().expect("4 bytes"));
        let ckpt = match version {
            1 | 2 => legacy::decode(body, version)?,
            3 => decode::<WireConfigV3>(&body[12..])?,
            4 => decode::<WireConfigV4>(&body[12..])?,
            5 => decode::<WireConfigV5>(&body[12..])?,
            6 => decode::<WireConfigV6>(&body[12..])?,
            7 => decode::<WireConfigV7>(&body[12..])?,
            8 => decode::<WireConfigV8>(&body[12..])?,
            CHECKPOINT_VERSION => decode::<WireConfig>(&body[12..])?,
            _ => bail!(
                "unsupported checkpoint version {version} (this trainer reads 1 to {CHECKPOINT_VERSION}; \
                 a newer trainer wrote it?)"
            ),
        };
        ckpt.validate()?;
        Ok(ckpt)
    }

    /// Checks the shape: widths in range, every array as long as the net's layout.
    fn validate(&self) -> Result<()> {
        let c = &self.config;
        if c.hidden == 0 || c.hidden > nnue::MAX_HIDDEN {
            bail!("checkpoint hidden width {} out of range", c.hidden);
        }
        if c.buckets == 0 || c.buckets > nnue::MAX_OUTPUT_BUCKETS {
            bail!("checkpoint output buckets {} out of range", c.buckets);
        }
        if self.model.hidden != c.hidden || self.model.buckets != c.buckets {
            bail!("checkpoint model shape differs from its settings");
        }
        self.model
            .arch()
            .check()
            .map_err(|e| anyhow::anyhow!("checkpoint architecture: {e}"))?;
        if self.model.factoriser && self.model.features.king_buckets_count() < 2 {
            bail!("checkpoint has a factoriser but no king buckets");
        }
        let len = self.model.layout().len;
        for (name, array) in [
            ("weights", &self.model.params),
            ("first moments", &self.m),
            ("second moments", &self.v),
        ] {
            if array.len() != len {
                bail!(
                    "checkpoint {name} hold {} values; hidden {} with {} buckets needs {len}",
                    array.len(),
                    c.hidden,
                    c.buckets
                );
            }
        }
        Ok(())
    }

    /// Reads a checkpoint file. Errors: unreadable, not a checkpoint (a net file given for
    /// one is named as such, with what takes a net), or damaged.
    pub fn load(path: &Path) -> Result<Checkpoint> {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Checkpoint::from_bytes(&bytes).with_context(|| {
            if bytes.starts_with(nnue::file::MAGIC) {
                format!(
                    "{} is a net file, not a trainer checkpoint (a net starts a run with \
                     `--init`; `--resume` and `export` take a run's checkpoint.bin)",
                    path.display()
                )
            } else {
                path.display().to_string()
            }
        })
    }

    /// Writes atomically ([`write_atomic`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_bytes()?)
    }
}

/// Appends the checksum of everything in `out`.
fn seal(mut out: Vec<u8>) -> Vec<u8> {
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The body of versions 3 to 9 (`C` = [`WireConfigV3`] to [`WireConfig`]): one
/// postcard-encoded [`WireCheckpoint`] and nothing after it.
fn decode<C>(body: &[u8]) -> Result<Checkpoint>
where
    C: for<'de> Deserialize<'de> + Into<WireConfig>,
{
    let (wire, rest): (WireCheckpoint<C>, &[u8]) =
        postcard::take_from_bytes(body).map_err(|e| anyhow::anyhow!("checkpoint unreadable: {e}"))?;
    if !rest.is_empty() {
        bail!("checkpoint has {} unexpected trailing bytes", rest.len());
    }
    let c: WireConfig = wire.config.into();
    let hidden = c.hidden as usize;
    let buckets = c.buckets as usize;
    let map: [u8; 64] = c
        .bucket_map
        .as_slice()
        .try_into()
        .map_err(|_| anyhow::anyhow!("checkpoint king bucket map of {} bytes", c.bucket_map.len()))?;
    let features = FeatureSet::king_buckets(c.king_buckets as usize, map, c.mirrored)
        .map_err(|e| anyhow::anyhow!("checkpoint input features: {e}"))?;
    if c.layers.len() > nnue::arch::MAX_LAYERS {
        bail!(
            "checkpoint has {} hidden layers (at most {})",
            c.layers.len(),
            nnue::arch::MAX_LAYERS
        );
    }
    let layers: Vec<usize> = c.layers.iter().map(|&w| w as usize).collect();
    Ok(Checkpoint {
        config: TrainConfig {
            hidden,
            buckets,
            superbatches: c.superbatches,
            batches_per_superbatch: c.batches_per_superbatch,
            batch_size: usize::try_from(c.batch_size).context("checkpoint batch size out of range")?,
            wdl: c.wdl,
            wdl_end: c.wdl_end,
            lr: c.lr,
            seed: c.seed,
            split: ValidationSplit::from_code(c.validation_split)?,
        },
        superbatches_done: wire.superbatches_done,
        model: Model {
            hidden,
            buckets,
            features,
            layers,
            factoriser: c.factoriser,
            params: Array1::from_vec(wire.params.into_owned()),
        },
        m: Array1::from_vec(wire.m.into_owned()),
        v: Array1::from_vec(wire.v.into_owned()),
        history: wire.history.into_owned(),
    })
}

/// The hand-written layouts of versions 1 and 2, kept so that checkpoints of earlier
/// builds still load; nothing writes them any more.
///
/// After magic and version, u32 LE: hidden, (version 2 only) output buckets,
/// superbatches, batches per superbatch, batch size, superbatches done; f32 LE: WDL
/// weight, learning rate; u64 LE seed; u32 LE history length and that many (f64 LE, f64
/// LE) loss pairs; then the weights, first and second moments, f32 LE each, as many as
/// the layout of (hidden, buckets) has.
mod legacy {
    use super::{Checkpoint, Layout, Model, TrainConfig, ValidationSplit};
    use anyhow::{bail, Context, Result};
    use ndarray::Array1;

    /// Decodes `body` (magic and version included, checksum already checked and removed).
    pub(super) fn decode(body: &[u8], version: u32) -> Result<Checkpoint> {
        let mut at = 12;
        let mut take = |n: usize| -> Result<&[u8]> {
            let s = body.get(at..at + n).context("checkpoint truncated")?;
            at += n;
            Ok(s)
        };
        let u32_ = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
        let hidden = u32_(take(4)?) as usize;
        // Version 1 had no output buckets.
        let buckets = if version >= 2 { u32_(take(4)?) as usize } else { 1 };
        let superbatches = u32_(take(4)?);
        let batches_per_superbatch = u32_(take(4)?);
        let batch_size = u32_(take(4)?) as usize;
        let superbatches_done = u32_(take(4)?);
        let wdl = f32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
        let lr = f32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
        let seed = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        let n_hist = u32_(take(4)?) as usize;
        let mut history = Vec::with_capacity(n_hist.min(1 << 20));
        for _ in 0..n_hist {
            let a = f64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
            let b = f64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
            history.push((a, b));
        }
        if hidden == 0 || hidden > nnue::MAX_HIDDEN {
            bail!("checkpoint hidden width {hidden} out of range");
        }
        if buckets == 0 || buckets > nnue::MAX_OUTPUT_BUCKETS {
            bail!("checkpoint output buckets {buckets} out of range");
        }
        let len = Layout::bucketed(hidden, buckets).len;
        let mut arrays = Vec::new();
        for _ in 0..3 {
            let raw = take(len * 4)?;
            arrays.push(Array1::from_iter(
                raw.chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))),
            ));
        }
        if at != body.len() {
            bail!("checkpoint has {} unexpected trailing bytes", body.len() - at);
        }
        let v = arrays.pop().expect("three arrays");
        let m = arrays.pop().expect("three arrays");
        let params = arrays.pop().expect("three arrays");
        Ok(Checkpoint {
            config: TrainConfig {
                hidden,
                buckets,
                superbatches,
                batches_per_superbatch,
                batch_size,
                wdl,
                wdl_end: None,
                lr,
                seed,
                split: ValidationSplit::Positions,
            },
            superbatches_done,
            model: Model {
                hidden,
                buckets,
                features: nnue::FeatureSet::plain(),
                layers: Vec::new(),
                factoriser: false,
                params,
            },
            m,
            v,
            history,
        })
    }
}

/// A run stopped by Ctrl-C (or SIGTERM) between two batches: its checkpoint in `--out`
/// (the last superbatch finished) is where `--resume` goes on. `trainer train` exits 130
/// on it, as datagen does, so a script tells a stop from a failure (exit 2).
#[derive(Debug)]
pub struct Interrupted {
    /// The checkpoint file in `--out`; None when there is none yet (stopped before its
    /// first superbatch ended: the same command starts the run again).
    pub checkpoint: Option<std::path::PathBuf>,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.checkpoint {
            Some(path) => write!(f, "interrupted; resume from {}", path.display()),
            None => write!(
                f,
                "interrupted before the first superbatch ended; no checkpoint was saved in --out, \
                 so the same command starts the run again"
            ),
        }
    }
}

impl std::error::Error for Interrupted {}

/// Writes `bytes` to `path` by the workspace's one rule for output files
/// ([`output::write`]): a regular file (or a new one) is replaced atomically through
/// `<path>.partial`, removed on any failure; a symbolic link keeps being one and its target
/// is replaced; a device or FIFO is written through. A directory, or a directory that does
/// not exist, is refused naming it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(output::write(path, &[], bytes)?)
}

/// The header of `loss.csv`.
pub const CSV_HEADER: &str = "superbatch,train_loss,validation_loss,learning_rate,positions_per_second";

/// One `loss.csv` row; the speed is left empty when it is not known.
fn csv_row(superbatch: u32, train_loss: f64, val_loss: f64, lr: f32, pos_per_sec: Option<f64>) -> String {
    let speed = pos_per_sec.map_or(String::new(), |p| format!("{p:.0}"));
    format!("{superbatch},{train_loss:.8},{val_loss:.8},{lr:.3e},{speed}")
}

/// Makes `loss.csv` hold exactly one row for each superbatch the checkpoint has done, ready
/// for the next: rows past the checkpoint (written before a kill that came ahead of the
/// checkpoint) and repeated rows go, and rows missing (a new out directory) are rebuilt
/// from the checkpoint's history with the speed left empty.
pub fn continue_csv(path: &Path, ckpt: &Checkpoint) -> Result<()> {
    let done = ckpt.superbatches_done;
    let old = if done == 0 {
        String::new()
    } else {
        match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    };
    let mut rows = std::collections::BTreeMap::new();
    for line in old.lines().map(|l| l.trim_start_matches('\u{feff}').trim_end()) {
        let number = line.split(',').next().and_then(|n| n.trim().parse::<u32>().ok());
        if let Some(n) = number.filter(|n| (1..=done).contains(n)) {
            // The last of repeated rows is the one the checkpoint's run wrote.
            rows.insert(n, line.to_string());
        }
    }
    let c = &ckpt.config;
    let total_steps = u64::from(c.superbatches) * u64::from(c.batches_per_superbatch);
    let history_len = u32::try_from(ckpt.history.len()).unwrap_or(u32::MAX);
    let last = rows
        .keys()
        .next_back()
        .copied()
        .unwrap_or(0)
        .max(history_len)
        .min(done);
    let mut text = format!("{CSV_HEADER}\n");
    for sb in 1..=last {
        let row = match (rows.remove(&sb), ckpt.history.get(sb as usize - 1)) {
            (Some(row), _) => row,
            (None, Some(&(train_loss, val_loss))) => {
                let lr = learning_rate(
                    c.lr,
                    u64::from(sb) * u64::from(c.batches_per_superbatch),
                    total_steps,
                );
                csv_row(sb, train_loss, val_loss, lr, None)
            }
            (None, None) => continue,
        };
        text.push_str(&row);
        text.push('\n');
    }
    write_atomic(path, text.as_bytes())
}

use movegen::rng::hash as mix;

/// Splits positions into training and validation (about 1%) by a hash of each position's
/// index: [`ValidationSplit::Positions`]. A split by game needs the games, and happens as
/// they are read (`crate::data::load_packed_split`).
pub fn split<T>(positions: Vec<T>, seed: u64) -> (Vec<T>, Vec<T>) {
    let mut train = Vec::with_capacity(positions.len());
    let mut validation = Vec::with_capacity(positions.len() / 100 + 1);
    for (i, p) in positions.into_iter().enumerate() {
        if ValidationSplit::Positions.held_out(seed, i as u64) {
            validation.push(p);
        } else {
            train.push(p);
        }
    }
    (train, validation)
}

/// The superbatches that show the model `epochs` passes over `positions` training positions
/// (`trainer train --epochs`): `epochs · positions / (batches_per_superbatch · batch_size)`
/// rounded up, at least 1. Batches are drawn at random, so an epoch is a count of positions
/// seen, not a pass that shows each one exactly once. Errors: a schedule of more than
/// `u32::MAX` superbatches, naming the flags and the limit.
pub fn superbatches_for_epochs(
    epochs: f64,
    positions: usize,
    batches_per_superbatch: u32,
    batch_size: usize,
) -> Result<u32> {
    let per_superbatch = f64::from(batches_per_superbatch) * batch_size as f64;
    let superbatches = (epochs * positions as f64 / per_superbatch).ceil();
    if superbatches.is_nan() || superbatches < 1.0 {
        Ok(1)
    } else if superbatches > f64::from(u32::MAX) {
        bail!(
            "--epochs {epochs} of {positions} training positions at --batches-per-superbatch \
             {batches_per_superbatch} and --batch-size {batch_size} is {superbatches:.0} superbatches, \
             more than the {} a run can hold: fewer epochs or larger batches",
            u32::MAX
        )
    } else {
        Ok(superbatches as u32)
    }
}

/// The WDL weight of the target at `step` of `total` (1-based, as the learning rate's): `wdl`
/// throughout without `wdl_end`, else linear from `wdl` at step 1 to `wdl_end` at `total`
/// (a one-step run trains at `wdl`).
pub fn wdl_weight(wdl: f32, wdl_end: Option<f32>, step: u64, total: u64) -> f32 {
    match wdl_end {
        None => wdl,
        Some(end) => {
            let progress = (step.saturating_sub(1) as f64 / total.saturating_sub(1).max(1) as f64).min(1.0);
            wdl + (end - wdl) * progress as f32
        }
    }
}

/// Learning rate at `step` of `total`: cosine from `lr` to `lr · 0.3⁵`.
pub fn learning_rate(lr: f32, step: u64, total: u64) -> f32 {
    let final_lr = lr * 0.3f32.powi(5);
    let progress = (step as f64 / total.max(1) as f64).min(1.0);
    final_lr + (lr - final_lr) * (0.5 * (1.0 + (std::f64::consts::PI * progress).cos())) as f32
}

/// Floats starting on a cache line: the kernel reads and writes gradient rows 16 floats
/// (64 bytes) at a time, and from an unaligned start each of them would straddle two lines
/// (measured: up to a fifth slower, depending on where the allocator put the buffer).
#[derive(Clone, Debug)]
struct LineAligned {
    buf: Vec<f32>,
    start: usize,
    len: usize,
}

impl LineAligned {
    fn zeros(len: usize) -> LineAligned {
        let buf = vec![0.0f32; len + 15];
        // At most 15 floats to a 64-byte boundary (the buffer is 4-byte aligned).
        let start = buf.as_ptr().align_offset(64).min(15);
        LineAligned { buf, start, len }
    }

    fn as_slice(&self) -> &[f32] {
        &self.buf[self.start..self.start + self.len]
    }

    fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// Per-thread buffers, allocated once.
#[derive(Debug)]
pub struct Workspace {
    grads: Vec<LineAligned>,
    scratch: Vec<Scratch>,
    /// The general path's buffers (a model with hidden layers), one per thread.
    general: Vec<Buffers<f32>>,
    columns: Columns,
    /// A factorised model's merged parameters, made once per batch (`Model::merge_into`).
    merged: Vec<f32>,
    total: Vec<f32>,
    batch: Vec<Position>,
    kernel: Kernel,
}

impl Workspace {
    /// The mean gradient of the last [`gradient`] call.
    pub fn mean_gradient(&self) -> &[f32] {
        &self.total
    }

    /// Buffers for a one-bucket net of width `hidden` on `threads` threads.
    pub fn new(hidden: usize, threads: usize, kernel: Kernel) -> Self {
        Workspace::bucketed(hidden, 1, threads, kernel)
    }

    /// Buffers for a net with `buckets` output buckets.
    pub fn bucketed(hidden: usize, buckets: usize, threads: usize, kernel: Kernel) -> Self {
        Workspace::with_inputs(nnue::INPUTS, hidden, buckets, threads, kernel)
    }

    /// Buffers for a net with `inputs` feature rows (768 per king bucket).
    pub fn with_inputs(inputs: usize, hidden: usize, buckets: usize, threads: usize, kernel: Kernel) -> Self {
        Workspace::with_layout(Layout::with_inputs(inputs, hidden, buckets), threads, kernel)
    }

    /// Buffers for `model` (any shape: with hidden layers, the general path's too).
    pub fn for_model(model: &Model, threads: usize, kernel: Kernel) -> Self {
        Workspace::with_layout(model.layout(), threads, kernel)
    }

    fn with_layout(layout: Layout, threads: usize, kernel: Kernel) -> Self {
        let (len, hidden) = (layout.len, layout.hidden);
        let layered = layout.hidden_layers > 0;
        Workspace {
            grads: (0..threads).map(|_| LineAligned::zeros(len)).collect(),
            scratch: if layered {
                Vec::new()
            } else {
                vec![Scratch::new(hidden); threads]
            },
            general: if layered {
                (0..threads).map(|_| Buffers::new(&layout)).collect()
            } else {
                Vec::new()
            },
            columns: Columns::new(if layered { 16 } else { hidden }),
            merged: Vec::new(),
            total: vec![0.0; len],
            batch: Vec::new(),
            kernel,
        }
    }
}

/// Forward and backward over `batch` on the current pool; leaves the mean gradient in
/// `ws.total` and returns the mean loss. A plain model takes the fused kernel, a model with
/// hidden layers the general path (`crate::general`); `ws` must be made for the model
/// ([`Workspace::for_model`]; a mismatch panics). A factorised model runs as its merged
/// net (merged once here), and its factor rows' gradient is folded from the buckets'
/// afterwards (`crate::model`'s module documentation).
pub fn gradient(model: &Model, batch: &[Position], wdl: f32, ws: &mut Workspace) -> f64 {
    let full = model.layout();
    let layout = full.merged();
    let params = if full.factor.is_some() {
        model.merge_into(&mut ws.merged);
        ws.merged.as_slice()
    } else {
        model.params.as_slice().expect("contiguous")
    };
    assert!(
        ws.grads.iter().all(|g| g.len == full.len),
        "a workspace made for the model"
    );
    let kernel = ws.kernel;
    let chunk = batch.len().div_ceil(ws.grads.len()).max(1);
    let loss: f64 = if layout.hidden_layers > 0 {
        assert_eq!(ws.general.len(), ws.grads.len(), "a workspace made for the model");
        ws.grads
            .par_iter_mut()
            .zip(ws.general.par_iter_mut())
            .zip(batch.par_chunks(chunk))
            .map(|((g, buf), positions)| {
                let g = &mut g.as_mut_slice()[..layout.len];
                g.iter_mut().for_each(|x| *x = 0.0);
                crate::general::accumulate_for(kernel, params, &layout, positions, wdl, g, buf)
            })
            .sum()
    } else {
        ws.columns.load(params, layout);
        let columns = &ws.columns;
        ws.grads
            .par_iter_mut()
            .zip(ws.scratch.par_iter_mut())
            .zip(batch.par_chunks(chunk))
            .map(|((g, s), positions)| {
                let g = &mut g.as_mut_slice()[..layout.len];
                g.iter_mut().for_each(|x| *x = 0.0);
                kernel.accumulate(params, columns, layout, positions, wdl, g, s)
            })
            .sum()
    };
    // Reduce the thread buffers, in fixed order, over parameter ranges in parallel.
    let scale = 1.0 / batch.len().max(1) as f32;
    let grads = &ws.grads;
    ws.total[..layout.len]
        .par_chunks_mut(4096)
        .enumerate()
        .for_each(|(c, out)| {
            let start = c * 4096;
            for (i, o) in out.iter_mut().enumerate() {
                let mut sum = 0.0;
                for g in grads {
                    sum += g.as_slice()[start + i];
                }
                *o = sum * scale;
            }
        });
    full.fold_factor_gradient(&mut ws.total);
    loss / batch.len().max(1) as f64
}

/// One AdamW step, each parameter then clipped to its tensor's limit (`Model::clips`:
/// ±[`crate::model::WEIGHT_CLIP`] for every parameter of a plain model), and a factorised
/// model's merged weights to ±[`crate::model::WEIGHT_CLIP`] (`Model::clip_merged`).
pub fn adamw(ckpt: &mut Checkpoint, grad: &[f32], lr: f32, step: u64) {
    let (b1, b2, eps, wd) = (0.9f32, 0.999f32, 1e-8f32, 0.01f32);
    let bc1 = 1.0 - b1.powi(step.min(i32::MAX as u64) as i32);
    let bc2 = 1.0 - b2.powi(step.min(i32::MAX as u64) as i32);
    let clips = ckpt.model.clips();
    for (start, end, clip) in clips {
        let grad = ndarray::ArrayView1::from(&grad[start..end]);
        Zip::from(ckpt.model.params.slice_mut(ndarray::s![start..end]))
            .and(ckpt.m.slice_mut(ndarray::s![start..end]))
            .and(ckpt.v.slice_mut(ndarray::s![start..end]))
            .and(&grad)
            .par_for_each(|p, m, v, &g| {
                *m = b1 * *m + (1.0 - b1) * g;
                *v = b2 * *v + (1.0 - b2) * g * g;
                let update = (*m / bc1) / ((*v / bc2).sqrt() + eps);
                *p -= lr * (update + wd * *p);
                *p = p.clamp(-clip, clip);
            });
    }
    ckpt.model.clip_merged();
}

/// Fills `batch` with `size` positions drawn for (superbatch, batch index), decoded for a
/// model with the input feature set `features`.
pub fn draw_batch<S: Sample>(
    train: &[S],
    features: &FeatureSet,
    seed: u64,
    superbatch: u32,
    index: u32,
    size: usize,
    batch: &mut Vec<Position>,
) {
    draw_samples(train, features, seed, superbatch, index, size, batch);
}

/// Runs (or resumes) training, writing checkpoints, the CSV log and the plot into `out`.
/// Packed training positions are decoded for the model's mirroring; `validation` (and
/// training positions given decoded) must have been decoded for it.
pub fn train<S: Sample>(
    ckpt: Checkpoint,
    train: &[S],
    validation: &[Position],
    threads: usize,
    out: &Path,
    stop: &AtomicBool,
    progress: impl FnMut(&str),
) -> Result<Checkpoint> {
    train_saving(ckpt, train, validation, threads, out, stop, progress, |_| Ok(()))
}

/// [`train`], calling `saved` with the checkpoint after each one is written (the trainer
/// writes its `status.json` there, [`crate::status`]); an error of `saved` stops the run.
#[allow(clippy::too_many_arguments)]
pub fn train_saving<S: Sample>(
    mut ckpt: Checkpoint,
    train: &[S],
    validation: &[Position],
    threads: usize,
    out: &Path,
    stop: &AtomicBool,
    mut progress: impl FnMut(&str),
    mut saved: impl FnMut(&Checkpoint) -> Result<()>,
) -> Result<Checkpoint> {
    if train.is_empty() {
        bail!("no training positions (did the data pass the filter?)");
    }
    // Decoded positions carry the features they were decoded with: refuse a set made for
    // another feature set rather than train on the wrong inputs.
    let features = ckpt.model.features;
    let mirrored = features.is_mirrored();
    let wrong = |m: bool| if m { "mirrored" } else { "unmirrored" };
    // A set is decoded for one feature set as a whole: the training set (possibly packed,
    // and then decoded here) is checked by its first position, the validation set in full.
    let first = train[0].position(&features).features;
    let decoded_wrong = [
        ("training", first),
        (
            "validation",
            validation
                .iter()
                .map(|p| p.features)
                .find(|f| *f != features)
                .unwrap_or(features),
        ),
    ];
    if let Some((set, other)) = decoded_wrong.iter().find(|(_, f)| *f != features) {
        if other.is_mirrored() != mirrored {
            bail!(
                "the {set} positions were decoded for an {} net but the model is {}",
                wrong(!mirrored),
                wrong(mirrored)
            );
        }
        bail!("the {set} positions were decoded for the inputs {other} but the model has {features}");
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("thread pool")?;
    let c = ckpt.config.clone();
    let mut ws = Workspace::for_model(&ckpt.model, threads, Kernel::detect());
    let total_steps = u64::from(c.superbatches) * u64::from(c.batches_per_superbatch);
    let csv_path = out.join("loss.csv");
    continue_csv(&csv_path, &ckpt)?;
    for sb in ckpt.superbatches_done..c.superbatches {
        let start = Instant::now();
        let mut loss_sum = 0.0;
        for b in 0..c.batches_per_superbatch {
            if stop.load(Ordering::Relaxed) {
                let checkpoint = crate::status::checkpoint_path(out);
                return Err(Interrupted {
                    checkpoint: checkpoint.exists().then_some(checkpoint),
                }
                .into());
            }
            let step = u64::from(sb) * u64::from(c.batches_per_superbatch) + u64::from(b) + 1;
            let lr = learning_rate(c.lr, step, total_steps);
            let wdl = wdl_weight(c.wdl, c.wdl_end, step, total_steps);
            draw_batch(
                train,
                &ckpt.model.features,
                c.seed,
                sb,
                b,
                c.batch_size,
                &mut ws.batch,
            );
            let batch = std::mem::take(&mut ws.batch);
            let loss = pool.install(|| gradient(&ckpt.model, &batch, wdl, &mut ws));
            ws.batch = batch;
            let grad = std::mem::take(&mut ws.total);
            pool.install(|| adamw(&mut ckpt, &grad, lr, step));
            ws.total = grad;
            loss_sum += loss;
            let done = f64::from(b + 1) * c.batch_size as f64;
            progress(&format!(
                "superbatch {}/{} batch {}/{} loss {:.6} lr {:.2e} {:.0} pos/s",
                sb + 1,
                c.superbatches,
                b + 1,
                c.batches_per_superbatch,
                loss_sum / f64::from(b + 1),
                lr,
                done / start.elapsed().as_secs_f64().max(1e-9)
            ));
        }
        let train_loss = loss_sum / f64::from(c.batches_per_superbatch);
        let val_loss = if validation.is_empty() {
            f64::NAN
        } else {
            // Against the target of the superbatch's last step.
            let step = u64::from(sb + 1) * u64::from(c.batches_per_superbatch);
            loss_only(
                &ckpt.model,
                validation,
                wdl_weight(c.wdl, c.wdl_end, step, total_steps),
            )
        };
        let pos_per_sec =
            f64::from(c.batches_per_superbatch) * c.batch_size as f64 / start.elapsed().as_secs_f64();
        ckpt.history.push((train_loss, val_loss));
        ckpt.superbatches_done = sb + 1;
        let lr_now = learning_rate(
            c.lr,
            u64::from(sb + 1) * u64::from(c.batches_per_superbatch),
            total_steps,
        );
        let mut csv = std::fs::OpenOptions::new()
            .append(true)
            .open(&csv_path)
            .with_context(|| format!("cannot open {}", csv_path.display()))?;
        writeln!(
            csv,
            "{}",
            csv_row(sb + 1, train_loss, val_loss, lr_now, Some(pos_per_sec))
        )
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
        // A plot that cannot be drawn is reported and the run goes on (the CSV has it all).
        let plots = loss_plot(&ckpt.history)
            .map_err(anyhow::Error::from)
            .and_then(|png| write_atomic(&out.join("loss.png"), &png))
            .and_then(|()| loss_plot_svg(&ckpt.history).map_err(anyhow::Error::from))
            .and_then(|svg| write_atomic(&out.join("loss.svg"), svg.as_bytes()));
        if let Err(e) = plots {
            progress(&format!("\nwarning: {e:#}\n"));
        }
        ckpt.save(&crate::status::checkpoint_path(out))?;
        saved(&ckpt)?;
        progress(&format!(
            "superbatch {}/{} done: train {train_loss:.6} validation {val_loss:.6} ({pos_per_sec:.0} pos/s)\n",
            sb + 1,
            c.superbatches
        ));
    }
    Ok(ckpt)
}

/// The path of the final net in `out`.
pub fn final_net_path(out: &Path) -> PathBuf {
    out.join("final.nnue")
}

//! `trainer validate`: the loss of finished nets on held-out data, the same measure for
//! every net, so that training recipes (epochs, WDL weight, learning rate, filters) can be
//! compared on positions none of them trained on.
//!
//! A net file is read back into a float model (`Model::from_network`, the dequantised
//! weights, as `--init` reads it) and its loss is computed over every position of the data
//! that passes the training filter, with the training loss (`model::loss_only`: mean squared
//! error between `sigmoid(output)` and the target) at each WDL weight asked for. The
//! training loss at the recipe's own WDL weight is not comparable across recipes of other
//! weights; a fixed set of weights is: `0` (the search's scores), `1` (the game results)
//! and the weight the nets are usually trained at.

use crate::data::{load_packed, PackedPosition, Position};
use crate::model::{loss_only, Model};
use anyhow::{anyhow, Context, Result};
use nnue::Network;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One net's losses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetLoss {
    /// The net file, as given.
    pub net: PathBuf,
    /// Its architecture in the one-line form (`nnue::Arch`).
    pub arch: String,
    /// `(wdl, loss)` for each WDL weight asked for, in the order asked.
    pub losses: Vec<(f32, f64)>,
}

/// What `trainer validate` measured: the positions and every net's losses (its `--json`,
/// which `learn`'s screen of a recipe sweep reads back as this type).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// The data given (files, packs or directories).
    pub data: Vec<PathBuf>,
    /// Positions that passed the training filter and were evaluated.
    pub positions: usize,
    /// Problems met reading the data (damaged chunks, unreadable lines); the rest is used.
    pub warnings: Vec<String>,
    /// One entry per net, in the order given.
    pub nets: Vec<NetLoss>,
}

/// The losses of `nets` over the positions of `data` at each weight of `wdls` (each in
/// `[0, 1]`), on the current rayon pool.
///
/// Errors: a net that cannot be read or has no float form, unreadable data, no position
/// passing the filter, a weight outside `[0, 1]`.
pub fn validate(nets: &[PathBuf], data: &[PathBuf], wdls: &[f32]) -> Result<Validation> {
    if let Some(w) = wdls.iter().find(|w| !(0.0..=1.0).contains(*w)) {
        return Err(anyhow!("--wdl {w}: a weight is between 0 and 1"));
    }
    let models = nets
        .iter()
        .map(|path| {
            let net = Network::load(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
            let model = Model::from_network(&net).map_err(|e| anyhow!("{}: {e}", path.display()))?;
            Ok((path.clone(), net.arch().to_string(), model))
        })
        .collect::<Result<Vec<_>>>()?;
    let (positions, warnings) = load_packed(data).context("reading the validation data")?;
    if positions.is_empty() {
        return Err(anyhow!("no position of the data passes the training filter"));
    }
    let nets = models
        .iter()
        .map(|(path, arch, model)| NetLoss {
            net: path.clone(),
            arch: arch.clone(),
            losses: wdls
                .iter()
                .map(|&w| (w, mean_loss(model, &positions, w)))
                .collect(),
        })
        .collect();
    Ok(Validation {
        data: data.to_vec(),
        positions: positions.len(),
        warnings,
        nets,
    })
}

/// Positions decoded at a time (bounded memory: 64 Ki positions of about 130 bytes).
const CHUNK: usize = 1 << 16;

/// The mean loss of `model` over `positions` at weight `wdl`, decoded chunk by chunk.
fn mean_loss(model: &Model, positions: &[PackedPosition], wdl: f32) -> f64 {
    let features = model.features;
    let sum: f64 = positions
        .par_chunks(CHUNK)
        .map(|chunk| {
            let decoded: Vec<Position> = chunk.iter().map(|p| p.unpack_features(&features)).collect();
            loss_only(model, &decoded, wdl) * decoded.len() as f64
        })
        .sum();
    sum / positions.len() as f64
}

/// The table `trainer validate` prints: one line per net, a column per weight.
pub fn table(v: &Validation) -> String {
    let mut out = format!("{} positions\n", v.positions);
    let weights: Vec<String> = v.nets.first().map_or(Vec::new(), |n| {
        n.losses.iter().map(|(w, _)| format!("wdl {w}")).collect()
    });
    out.push_str(&format!(
        "{:<40} {}\n",
        "net",
        weights.iter().map(|w| format!("{w:>12}")).collect::<String>()
    ));
    for n in &v.nets {
        let name = n.net.display().to_string();
        let cols: String = n.losses.iter().map(|(_, l)| format!("{l:>12.7}")).collect();
        out.push_str(&format!("{name:<40} {cols}\n"));
    }
    out
}

/// Writes `v` as JSON to `path` (atomically, refusing to overwrite one of `inputs`).
pub fn write_json(v: &Validation, path: &Path, inputs: &[&Path]) -> Result<()> {
    let text = serde_json::to_string_pretty(v).context("encoding the validation")?;
    // The error names the path already.
    Ok(output::write(path, inputs, text.as_bytes())?)
}

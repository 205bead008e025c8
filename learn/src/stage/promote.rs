//! The promotion stage: a decided gate promotes its candidate (H1: it is copied to
//! `nets/genN-W.nnue` and is the best net from the next segment on) or rejects it (H0, or the
//! game cap: undecided).
//!
//! Records: `promoted` (the net's file), `rejected` (why: the verdict, Elo and games).
//! Resume rule: the decision is the gate's journaled verdict (`gate_done`), never read
//! again from arena's state or judged by the settings of now: a gate the loop has decided
//! stays decided. A promotion cut short before its record copies the net again.

use super::gate_math::promotes;
use super::{say, Context, Step};
use crate::journal::{now, Candidate, Record, Stage};
use crate::rundir::RunDir;
use anyhow::{anyhow, Context as _, Result};
use std::path::Path;

/// The promotion stage (it runs no tool).
#[derive(Debug, Default)]
pub struct Promotion;

impl Step for Promotion {
    /// Promotes or rejects the open candidate whose gate decided, by its journaled verdict
    /// (nothing while there is none). Errors: a decided candidate without a gate result or
    /// a net, a net that cannot be copied, the journal.
    fn step(&mut self, cx: &mut Context) -> Result<()> {
        let Some(cand) = cx.open_candidate_in(|s| *s == Stage::Decided) else {
            return Ok(());
        };
        let cand = &cand;
        let gate = cand
            .gate
            .clone()
            .ok_or_else(|| anyhow!("a decided gate without a result"))?;
        if promotes(&gate) {
            return promote(cx, cand);
        }
        let why = format!(
            "gate {}: {} Elo after {} games",
            gate.verdict,
            crate::journal::elo_text(&gate),
            gate.games
        );
        say(&format!("learn: {} rejected ({why})", cand.name));
        cx.record(Record::Rejected {
            t: now(),
            cand: cand.cand,
            why,
        })
    }
}

/// Copies `cand`'s net to `nets/genN-W.nnue` (its name without `-cK` and a sweep's
/// `-RECIPE`) and journals it.
fn promote(cx: &mut Context, cand: &Candidate) -> Result<()> {
    let net = cand
        .net
        .clone()
        .ok_or_else(|| anyhow!("{} has no net", cand.name))?;
    // `genN-W` of `genN-W-cK` (or of a sweep's `genN-W-cK-RECIPE`).
    let tail = format!("-c{}", cand.cand);
    let name = cand
        .name
        .find(&tail)
        .map_or(cand.name.clone(), |at| cand.name[..at].to_string());
    let path = Path::new(RunDir::NETS).join(format!("{name}.nnue"));
    std::fs::copy(cx.run.path(&net), cx.run.path(&path))
        .with_context(|| format!("cannot copy {} to {}", net.display(), path.display()))?;
    say(&format!(
        "learn: {} promoted: the best net is now {}",
        cand.name,
        path.display()
    ));
    cx.record(Record::Promoted {
        t: now(),
        cand: cand.cand,
        net: path,
    })
}

#[cfg(all(test, unix))]
#[path = "promote_tests.rs"]
mod tests;

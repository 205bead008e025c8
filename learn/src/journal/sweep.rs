//! What the journal holds of a recipe sweep (docs/learn.md, "Recipe sweeps"): each
//! candidate's place in its generation's sweep ([`SweepTag`], in its `train_started`) and the
//! screen's measure of every candidate ([`ScreenEntry`], in the sweep's `screened`).

use crate::config::Recipe;
use serde::{Deserialize, Serialize};

/// A candidate's place in a sweep: the sweep, its recipe and the plan, as learn.toml gave
/// them when the generation started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepTag {
    /// The number of the sweep's first candidate, which names the sweep
    /// (`candidates/screen-cK.json`).
    pub first: u32,
    /// This candidate's recipe (its name is among `recipes`).
    pub recipe: String,
    /// Every recipe of the sweep in the order they train.
    pub recipes: Vec<Recipe>,
    /// Self-play segments held out for the screen: trained on by no recipe of the sweep.
    pub held_out: Vec<u64>,
}

impl SweepTag {
    /// This candidate's recipe as the plan gives it (a default named so when it is not there).
    pub fn own(&self) -> Recipe {
        self.recipes
            .iter()
            .find(|r| r.name == self.recipe)
            .cloned()
            .unwrap_or_else(|| Recipe {
                name: self.recipe.clone(),
                ..Recipe::default()
            })
    }

    /// The recipe that trains after this candidate's, if any.
    pub fn next(&self) -> Option<&Recipe> {
        let at = self.recipes.iter().position(|r| r.name == self.recipe)?;
        self.recipes.get(at + 1)
    }
}

/// One candidate of a sweep as the screen measured it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScreenEntry {
    /// Candidate number.
    pub cand: u32,
    /// Its name (`gen14-128-c3-NAME`).
    pub name: String,
    /// Its recipe's name.
    pub recipe: String,
    /// The trainer's whole command line it was started with (`candidates/cK/command.json`).
    pub args: Vec<String>,
    /// Its trainer seed (`--seed`).
    pub seed: Option<u64>,
    /// Its loss on the held-out data at the screen's WDL weight (`trainer validate`; none
    /// where the measure is not a number).
    pub loss: Option<f64>,
}

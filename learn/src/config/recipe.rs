//! Training recipes, `[[train.recipes]]` in learn.toml: with one or more, a generation trains
//! every recipe as a candidate of its own, one after another on the same data, screens them
//! by `trainer validate` on a held-out segment and gates the best (docs/learn.md, "Recipe
//! sweeps"). A recipe is a name and the `[train]` settings it overrides; a key it leaves out
//! is `[train]`'s. The check of a recipe is the check of `[train]` with the recipe applied
//! ([`super::Settings::check`]), each error naming the recipe (`[train.recipes.NAME] epochs
//! = 0: ...`).

use super::Train;
use serde::{Deserialize, Serialize};

/// One recipe of a sweep: its name and the training settings it overrides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// The recipe's name: a plain name (ASCII letters, digits, `.`, `_`, `-`; not starting
    /// with `.`), unique among the recipes; the candidate's name ends with it
    /// (`gen14-128-c3-NAME`).
    pub name: String,
    /// `[train] epochs` (passes over the data when fine-tuning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epochs: Option<u32>,
    /// `[train] epochs_scratch` (passes when training from scratch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epochs_scratch: Option<u32>,
    /// `[train] lr`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lr: Option<f64>,
    /// `[train] wdl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wdl: Option<f64>,
    /// `[train] wdl_end`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wdl_end: Option<f64>,
    /// The trainer's `--seed` itself (absent: `[train] seed` + the candidate's number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `[train] hidden` (0: the best net's width).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<usize>,
    /// `[train] buckets` (0: the best net's output buckets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buckets: Option<usize>,
    /// `[train] arch`: the whole shape (then `[train]`'s hidden and buckets do not apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// Train from scratch (`epochs_scratch`) even where the best net could be fine-tuned.
    #[serde(default, skip_serializing_if = "is_false")]
    pub from_scratch: bool,
    /// `trainer train --factorise`: a factoriser beside the king buckets (the shape must
    /// have more than one king bucket).
    #[serde(default, skip_serializing_if = "is_false")]
    pub factorise: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Recipe {
    /// What `learn status`, the report and the log show of it: `NAME (key value, ...)`,
    /// the keys it sets.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut add = |key: &str, v: Option<String>| {
            if let Some(v) = v {
                parts.push(format!("{key} {v}"));
            }
        };
        add("epochs", self.epochs.map(|v| v.to_string()));
        add("epochs_scratch", self.epochs_scratch.map(|v| v.to_string()));
        add("lr", self.lr.map(|v| v.to_string()));
        add("wdl", self.wdl.map(|v| v.to_string()));
        add("wdl_end", self.wdl_end.map(|v| v.to_string()));
        add("seed", self.seed.map(|v| v.to_string()));
        add("hidden", self.hidden.map(|v| v.to_string()));
        add("buckets", self.buckets.map(|v| v.to_string()));
        add("arch", self.arch.clone());
        if self.from_scratch {
            parts.push("from scratch".into());
        }
        if self.factorise {
            parts.push("factorised".into());
        }
        if parts.is_empty() {
            self.name.clone()
        } else {
            format!("{} ({})", self.name, parts.join(", "))
        }
    }
}

impl Train {
    /// These settings with `recipe`'s overrides applied (its seed and its from-scratch and
    /// factorise switches are the training stage's: `stage::train`). A recipe's `arch` is
    /// the whole shape: `[train]`'s `hidden` and `buckets` give way to it unless the recipe
    /// sets them too (which the check refuses, as in `[train]`).
    pub fn with_recipe(&self, recipe: &Recipe) -> Train {
        let mut t = self.clone();
        if let Some(arch) = &recipe.arch {
            t.arch = arch.clone();
            t.hidden = 0;
            t.buckets = 0;
        }
        if let Some(v) = recipe.hidden {
            t.hidden = v;
        }
        if let Some(v) = recipe.buckets {
            t.buckets = v;
        }
        if let Some(v) = recipe.epochs {
            t.epochs = v;
        }
        if let Some(v) = recipe.epochs_scratch {
            t.epochs_scratch = v;
        }
        if let Some(v) = recipe.lr {
            t.lr = v;
        }
        if let Some(v) = recipe.wdl {
            t.wdl = v;
        }
        if let Some(v) = recipe.wdl_end {
            t.wdl_end = Some(v);
        }
        t.recipes.clear();
        t
    }
}

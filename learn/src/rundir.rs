//! A run directory's layout ([`RunDir`]): where each of the run's files is, by a path
//! relative to the directory (as the journal records it and the children, which run in it,
//! are given it) or absolute (as `learn` reads and writes it); and [`relative_path`], which
//! makes a path relative to the directory by its components alone.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Paths inside a run directory. `learn` reads and writes the run's files by their absolute
/// paths (these methods), but records them, and hands them to its children (which run in
/// the run directory), relative to it ([`RunDir::NETS`], ...): a copied directory is a run
/// of its own, a moved one resumes.
#[derive(Clone, Debug)]
pub struct RunDir {
    /// The directory (absolute).
    pub root: PathBuf,
}

impl RunDir {
    /// The promoted nets, relative to the run directory.
    pub const NETS: &'static str = "nets";
    /// Self-play segments.
    pub const DATA: &'static str = "data";
    /// Packs of finished segments.
    pub const PACKS: &'static str = "packs";
    /// Candidates' trainer directories and nets.
    pub const CANDIDATES: &'static str = "candidates";
    /// Gates' arena state and PGN.
    pub const GATES: &'static str = "gates";
    /// Gauntlets' arena state, PGN and ratings.
    pub const GAUNTLETS: &'static str = "gauntlets";
    /// The gate book written at init.
    pub const BOOK: &'static str = "openings.epd";

    /// `dir`, made absolute.
    pub fn new(dir: &Path) -> Result<RunDir> {
        let root = std::path::absolute(dir).with_context(|| format!("{}", dir.display()))?;
        Ok(RunDir { root })
    }
    /// A path of the run as learn reads it: one relative to the run directory (as records
    /// give them) joined to it, an absolute one as it is.
    pub fn path(&self, path: &Path) -> PathBuf {
        crate::config::resolve(&self.root, path)
    }
    /// `learn.toml`.
    pub fn settings(&self) -> PathBuf {
        self.root.join("learn.toml")
    }
    /// `journal`.
    pub fn journal(&self) -> PathBuf {
        self.root.join("journal")
    }
    /// The promoted nets.
    pub fn nets(&self) -> PathBuf {
        self.root.join(Self::NETS)
    }
    /// Why this directory, whose journal has no start record (empty, or cut before its
    /// first line), holds no run, and how to go on: the journal's size, the newest net of
    /// `nets/` (the highest generation by its name, `genN-...`, then the latest written) and
    /// the packs of `packs/` (what the run made, still there), and the `learn init` of a new
    /// directory that starts from that net with those packs and the old settings' extra data.
    /// A directory without a journal is no run at all: the error says to start one.
    pub fn no_start_error(&self) -> anyhow::Error {
        let journal = self.journal();
        if !journal.exists() {
            return anyhow::anyhow!(
                "{} holds no run: start one with `learn init {} --net NET`",
                self.root.display(),
                self.root.display()
            );
        }
        let size = std::fs::metadata(&journal).map_or(0, |m| m.len());
        let files = |dir: PathBuf, ext: &str| -> Vec<PathBuf> {
            std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        };
        let mut nets = files(self.nets(), "nnue");
        nets.sort_by_key(|p| {
            let generation = p
                .file_stem()
                .and_then(|s| crate::init::parse_gen(&s.to_string_lossy()))
                .map_or(0, |(generation, _)| generation);
            let written = std::fs::metadata(p).and_then(|m| m.modified());
            (generation, written.unwrap_or(std::time::UNIX_EPOCH))
        });
        let packs = files(self.packs(), "pack");
        let mut text = format!(
            "{}: the journal has no start net ({}), so this run's history is lost; what it made \
             is still here: ",
            journal.display(),
            output::count(size, "byte")
        );
        match nets.last() {
            None => text.push_str(&format!(
                "no net in nets/, {} in packs/",
                output::count(packs.len() as u64, "pack")
            )),
            Some(newest) => {
                text.push_str(&format!(
                    "{} (the newest of {} in nets/) and {} in packs/. Go on in a new directory: \
                     `learn init NEW --net {}`",
                    newest.display(),
                    output::count(nets.len() as u64, "net"),
                    output::count(packs.len() as u64, "pack"),
                    newest.display()
                ));
                if !packs.is_empty() {
                    text.push_str(" with `--extra-data PACK` for each pack in packs/");
                }
                text.push_str(&format!(
                    ", and the `[train] extra_data` of {} carried over",
                    self.settings().display()
                ));
            }
        }
        anyhow::anyhow!(text)
    }
    /// Self-play segments.
    pub fn data(&self) -> PathBuf {
        self.root.join(Self::DATA)
    }
    /// Each finished segment packed (`datagen pack`), the form a run's data travels in.
    pub fn packs(&self) -> PathBuf {
        self.root.join(Self::PACKS)
    }
    /// Candidates' trainer directories and nets.
    pub fn candidates(&self) -> PathBuf {
        self.root.join(Self::CANDIDATES)
    }
    /// Gates' arena state and PGN.
    pub fn gates(&self) -> PathBuf {
        self.root.join(Self::GATES)
    }
    /// Logs of the children.
    pub fn logs(&self) -> PathBuf {
        self.root.join("logs")
    }
    /// The log of the child `name` (`logs/NAME.log`).
    pub fn log(&self, name: &str) -> PathBuf {
        self.logs().join(format!("{name}.log"))
    }
    /// The gate book written at init.
    pub fn book(&self) -> PathBuf {
        self.root.join(Self::BOOK)
    }
}

/// `target` relative to `base` (both absolute), by their components alone (`.` dropped,
/// `..` taken back): `../../shared/data` from `/w/runs/main` to `/w/shared/data`; `target`
/// itself when they share no root.
pub fn relative_path(base: &Path, target: &Path) -> PathBuf {
    use std::path::Component;
    fn lexical(p: &Path) -> Vec<Component<'_>> {
        let mut out: Vec<Component<'_>> = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out
    }
    let (b, t) = (lexical(base), lexical(target));
    if b.first() != t.first() {
        return target.to_path_buf();
    }
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_relative_to_the_run_directory() {
        let rel = |a: &str, b: &str| relative_path(Path::new(a), Path::new(b));
        assert_eq!(
            rel("/w/runs/main", "/w/shared/data"),
            Path::new("../../shared/data")
        );
        assert_eq!(rel("/w/runs/main", "/w/runs/main/x.bin"), Path::new("x.bin"));
        assert_eq!(rel("/w/runs/./main", "/w/a/../shared"), Path::new("../../shared"));
        assert_eq!(rel("/w/runs/main", "/w/runs/main"), Path::new("."));
    }
}

//! What the run's data holds: [`scan_data`] counts the games, positions and bytes of data
//! files and packs (through `records::source`, the one reader of both), for the journal's
//! records of segments and trainings and for `learn status`.

use crate::journal::DataSlice;
use anyhow::{Context, Result};
use std::path::Path;

/// The data files (`*.bin` under a directory) or the one file (a data file or a pack) at
/// `path` (relative to `root`, the run directory, or absolute), each with its games,
/// positions and length, named as `path` is (relative, or absolute): through
/// `records::source`, the one reader of data files and packs. Nothing when `path` is not there
/// (a segment whose datagen has not started). Errors: a file that cannot be read.
pub fn scan_data(root: &Path, path: &Path) -> Result<Vec<DataSlice>> {
    let full = crate::config::resolve(root, path);
    if !full.exists() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut files = records::record::data_files(&full).with_context(|| format!("{}", full.display()))?;
    files.sort();
    for file in files {
        let named = match file.strip_prefix(&full) {
            Ok(rest) if !rest.as_os_str().is_empty() => path.join(rest),
            _ => path.to_path_buf(),
        };
        let mut source = records::source::DataSource::open(&file)
            .with_context(|| format!("cannot open {}", file.display()))?;
        let (mut games, mut positions) = (0u64, 0u64);
        while let Some(item) = source
            .next_item()
            .with_context(|| format!("cannot read {}", file.display()))?
        {
            if let records::source::SourceItem::Chunk { chunk, .. } = item {
                games += chunk.games.len() as u64;
                positions += chunk.games.iter().map(|g| g.moves.len() as u64).sum::<u64>();
            }
        }
        let bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
        out.push(DataSlice {
            file: named,
            games,
            positions,
            bytes,
        });
    }
    Ok(out)
}

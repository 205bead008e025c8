//! `learn init DIR --net NET`: a new run directory with every setting at its default, the
//! start net copied in, the gate book written, and the journal's first record.

use crate::config::Settings;
use crate::journal::{now, Journal, Record};
use crate::rundir::{relative_path, RunDir};
use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};

/// `genN-W` from a net file name such as `gen13-128.nnue`: (N, W), when it has that form.
pub fn parse_gen(name: &str) -> Option<(u32, usize)> {
    let rest = name.strip_prefix("gen")?;
    let (n, w) = rest.split_once('-')?;
    let w: String = w.chars().take_while(char::is_ascii_digit).collect();
    Some((n.parse().ok()?, w.parse().ok()?))
}

/// `learn init DIR --net NET`: a new run directory with every setting at its default.
/// Errors (before anything is written): a directory that holds a run (a journal), a name
/// that is not a plain name ([`output::is_plain_name`], as `datagen --gen` takes: it names
/// `DIR/nets/NAME.nnue`), a net that does not load, settings that do not check, and,
/// without `force`, a `learn.toml`, `openings.epd` or `nets/NAME.nnue` already there (the
/// user's own: `force` replaces them).
pub fn init(dir: &Path, net: &Path, name: Option<&str>, extra_data: &[PathBuf], force: bool) -> Result<()> {
    let run = RunDir::new(dir)?;
    if run.journal().exists() {
        bail!(
            "{} already holds a run (its journal exists): `learn run {}` resumes it",
            dir.display(),
            dir.display()
        );
    }
    let name = match name {
        Some(n) => {
            if !output::is_plain_name(n) {
                bail!(
                    "--name {n:?}: a net name is {} (it names DIR/nets/NAME.nnue)",
                    output::PLAIN_NAME
                );
            }
            n.to_string()
        }
        None => {
            let stem = net
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .ok_or_else(|| anyhow!("{}: no file name", net.display()))?;
            if !output::is_plain_name(&stem) {
                bail!(
                    "{}: its name {stem:?} is not a net name ({}); give one with --name",
                    net.display(),
                    output::PLAIN_NAME
                );
            }
            stem
        }
    };
    let network = nnue::Network::load(net).map_err(|e| anyhow!("{}: {e}", net.display()))?;
    let net_file = Path::new(RunDir::NETS).join(format!("{name}.nnue"));
    let copy = run.path(&net_file);
    let taken: Vec<String> = [run.settings(), run.book(), copy.clone()]
        .iter()
        .filter(|p| p.exists())
        .map(|p| p.strip_prefix(&run.root).unwrap_or(p).display().to_string())
        .collect();
    if !taken.is_empty() && !force {
        bail!(
            "{} already holds {}: learn init replaces no file that is there (--force replaces them)",
            dir.display(),
            taken.join(", ")
        );
    }
    let gen = parse_gen(&name).map_or(0, |g| g.0);
    let mut settings = Settings {
        gauntlet: crate::config::Gauntlet::installed(),
        ..Settings::default()
    };
    // The settings as written are checked before anything is: the extra data as given
    // (from here; the run directory may not exist yet to read a relative path from).
    settings.train.extra_data = extra_data.to_vec();
    settings.check()?;
    settings.check_paths(Path::new("."))?;
    // Each data file once (the trainer refuses one reached twice: given twice, or as a file
    // and again in its directory), said here rather than at the first training.
    trainer::data::distinct_inputs(extra_data).context("--extra-data")?;
    // None of it the run's own self-play (its data/ or packs/, the run directory).
    let mut from_here = settings.clone();
    from_here.train.extra_data = extra_data
        .iter()
        .map(std::path::absolute)
        .collect::<std::io::Result<_>>()?;
    from_here.check_own_data(&run.root)?;
    // Then written as given when absolute, a relative one made relative to the run
    // directory, where the settings' paths are read from.
    // Both sides with their links resolved (a run directory reached through a symbolic link
    // has another parent than its path says), and the result checked: a relative path that
    // does not lead back to the data is written absolute instead.
    std::fs::create_dir_all(run.nets()).with_context(|| format!("cannot create {}", run.nets().display()))?;
    let root = std::fs::canonicalize(&run.root).unwrap_or_else(|_| run.root.clone());
    settings.train.extra_data = extra_data
        .iter()
        .map(|p| {
            if p.is_absolute() {
                return Ok(p.clone());
            }
            let target = std::fs::canonicalize(p).or_else(|_| std::path::absolute(p))?;
            let relative = relative_path(&root, &target);
            let leads_back = std::fs::canonicalize(run.root.join(&relative)).is_ok_and(|r| r == target);
            Ok(if leads_back { relative } else { target })
        })
        .collect::<Result<_>>()?;
    output::write(&copy, &[net], &network.to_bytes())?;
    output::write(&run.book(), &[], arena::openings::BOOK.as_bytes())?;
    output::write(&run.settings(), &[], settings.to_toml()?.as_bytes())?;
    let (mut journal, _) = Journal::open(&run.journal())?;
    journal.append(&Record::Init {
        t: now(),
        net: net_file,
        name: name.clone(),
        gen,
    })?;
    output::outln!(
        "learn: initialised {} with {name} (hidden {}); settings in {}; start it with `learn run {}`",
        run.root.display(),
        network.hidden(),
        run.settings().display(),
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(parse_gen("gen13-128"), Some((13, 128)));
        assert_eq!(parse_gen("gen14-256-c3"), Some((14, 256)));
        assert_eq!(parse_gen("material-32"), None);
    }
}

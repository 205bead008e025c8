//! `datagen pack PATH... --out FILE` and `datagen unpack FILE --out DIR`: self-play kept
//! compact (`records::pack`, about 2.5 bytes a position where the data files take about 4.6)
//! and turned back into ordinary data files.
//!
//! Packing reads every input with `records::source::DataSource`, so a damaged input is reported
//! (warnings naming the file and byte offset) and its intact games are packed; a pack given
//! as an input is merged with its sources' names. Each data file becomes one source of the
//! pack, named by its directory and its file name (a directory argument: the directory's
//! name, then the path below it), so `gen13/games-0.bin` unpacks to `DIR/gen13/games-0.bin`
//! and every generation (directory) stays apart; two inputs under one name are an error.
//! Its whole settings header goes into the pack as it stood.
//!
//! Unpacking writes each source back under its name: its header as it stood, then its
//! chunks with their sequence numbers and node counts (version 1 chunks as version 1), so
//! `datagen stats`, `convert` and the trainer see the same games in the same order, and a
//! file datagen wrote comes back byte for byte. Both write atomically: the pack by the
//! workspace's rule for output files (`output`: `FILE.partial` renamed into place, a link
//! kept, a device or FIFO written through); the data files into `DIR.partial`, renamed to
//! `DIR` (the directory a link points to, keeping the link); on an error nothing is left
//! behind. An output that is one of the inputs is refused.
//!
//! Packing or unpacking damaged inputs writes every game that reads, warns where the damage
//! is, and exits 1 when games were lost, saying how many (`records::pack::PackLoss`: a failed
//! block's count less the games read from it; in a data file at least one a damaged range;
//! damage in a table copy or a block header, a repeated chunk or a count that disagrees
//! costs no game and leaves the exit status 0, as does the end of a file a datagen is
//! writing now, the game in flight). The pack or files of what read stay. Games missing
//! from a source's sequence numbers below its last (a block or chunk cut out cleanly before
//! this read: no damage shows it) are named in a warning and kept as they stand, the
//! numbers with their gap, so `datagen verify` of the output names them as it did the input
//! (exit 1); this command did not lose them and exits 0 for them, as `convert` does.

use crate::no_games;
use anyhow::{bail, Context, Result};
use datagen::store::{self, DirLock};
use records::pack::{PackLoss, PackSource, PackWriter};
use records::record::{encode_chunk, encode_chunk_v1, Chunk, SeqGaps};
use records::source::{DataSource, Format, SourceItem};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One input file: where it is, and the name a data file's games are packed under.
struct Input {
    path: PathBuf,
    name: String,
}

/// The last component of a canonical directory (`root` for `/`).
fn dir_label(dir: &Path) -> String {
    dir.file_name()
        .map_or("root".to_string(), |n| n.to_string_lossy().into_owned())
}

/// The data files (and packs) the paths name, each with its packed name.
fn inputs(paths: &[PathBuf]) -> Result<Vec<Input>> {
    if paths.is_empty() {
        bail!("give at least one data file, directory or pack");
    }
    let mut out = Vec::new();
    // Each file once (`records::record::input_files` refuses one reached twice), with the
    // path that named it.
    for (index, file) in records::record::input_files(paths, false)? {
        let path = &paths[index];
        let cannot = || format!("cannot read {}", path.display());
        let is_dir = std::fs::metadata(path).with_context(cannot)?.is_dir();
        let name = if is_dir {
            let label = dir_label(&std::fs::canonicalize(path).with_context(cannot)?);
            let below = file.strip_prefix(path).unwrap_or(&file);
            let parts: Vec<String> = below
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            format!("{label}/{}", parts.join("/"))
        } else {
            let parent = match file.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let label = dir_label(&std::fs::canonicalize(parent).with_context(cannot)?);
            let own = file
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            format!("{label}/{own}")
        };
        out.push(Input { path: file, name });
    }
    Ok(out)
}

/// The sources one input contributes: a data file itself, a pack its table.
fn sources_of(input: &Input) -> Result<(Format, Vec<PackSource>)> {
    let src =
        DataSource::open(&input.path).with_context(|| format!("cannot read {}", input.path.display()))?;
    match src.format() {
        Format::Games => Ok((
            Format::Games,
            vec![PackSource {
                name: input.name.clone(),
                header_bytes: src.sources()[0].header_bytes.clone(),
            }],
        )),
        f @ (Format::Text | Format::Bullet) => bail!("{}", no_games(&input.path, f)),
        Format::Pack => {
            if let Some(e) = src.header_error() {
                bail!(
                    "{}: {e}; its games cannot be named in a new pack (`datagen unpack` it instead)",
                    input.path.display()
                );
            }
            Ok((
                Format::Pack,
                src.sources()
                    .iter()
                    .map(|s| PackSource {
                        name: s.name.clone(),
                        header_bytes: s.header_bytes.clone(),
                    })
                    .collect(),
            ))
        }
    }
}

/// `datagen pack`: every game of the inputs into `out` (see the module notes).
pub fn pack(paths: &[PathBuf], out: &Path) -> Result<i32> {
    let start = Instant::now();
    if out.is_dir() {
        bail!("--out {} is a directory; give a file name", out.display());
    }
    // A path that cannot be written (a missing directory is named), before any work.
    output::plan(out)?;
    let inputs = inputs(paths)?;
    let input_paths: Vec<&Path> = inputs.iter().map(|i| i.path.as_path()).collect();
    output::refuse_inputs(out, &input_paths)?;
    // 1. Every input's sources, so the table can be written first.
    let mut sources: Vec<PackSource> = Vec::new();
    let mut planned = Vec::new();
    let mut names: HashMap<String, PathBuf> = HashMap::new();
    for input in &inputs {
        let (format, own) = sources_of(input)?;
        for s in &own {
            if let Some(other) = names.insert(s.name.clone(), input.path.clone()) {
                bail!(
                    "{} and {} would both be packed as {}; pack them separately",
                    other.display(),
                    input.path.display(),
                    s.name
                );
            }
        }
        planned.push((input, format, sources.len(), own.clone()));
        sources.extend(own);
    }
    // 2. The games, into FILE.partial, renamed into place once complete (or written
    // through to a device or FIFO); on an error the partial file goes.
    let file = output::OutFile::create(out, &input_paths)?;
    let summary = pack_into(&planned, &sources, file)?;
    let per = |bytes: u64| bytes as f64 / summary.positions.max(1) as f64;
    output::outln!(
        "packed {} games, {} positions from {} file{} ({} source{}) into {}: {} bytes, {:.3} bytes per \
         position (the inputs: {} bytes, {:.3} per position) in {:.1} s",
        summary.games,
        summary.positions,
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
        sources.len(),
        if sources.len() == 1 { "" } else { "s" },
        out.display(),
        summary.bytes,
        per(summary.bytes),
        summary.input_bytes,
        per(summary.input_bytes),
        start.elapsed().as_secs_f64()
    );
    if summary.problems > 0 {
        output::outln!(
            "{} problem{} in the inputs (above): damaged bytes were skipped, every intact game packed",
            summary.problems,
            if summary.problems == 1 { "" } else { "s" }
        );
    }
    if summary.losses.is_empty() {
        return Ok(0);
    }
    // The pack of what read stays, but a script's `pack && rm INPUTS` must stop here.
    for (path, loss) in &summary.losses {
        output::errln!(
            "datagen: error: {}; the games that read are packed into {} (the warnings above say where)",
            loss_text(path, loss),
            out.display()
        );
    }
    Ok(1)
}

/// What `loss` cost the data file or pack at `path`, for `pack`'s and `unpack`'s error
/// line: `[at least ]N game[s] of PATH lost to damage`, or that it was cut short.
fn loss_text(path: &Path, loss: &PackLoss) -> String {
    let lost = loss.at_least();
    if lost == 0 {
        return format!(
            "{} was cut short: the games after the cut, if any, are lost",
            path.display()
        );
    }
    format!(
        "{}{lost} game{} of {} lost to damage{}",
        if loss.exact() { "" } else { "at least " },
        if lost == 1 { "" } else { "s" },
        path.display(),
        if loss.cut {
            " (it was cut short: the games after the cut, if any, are not counted)"
        } else {
            ""
        }
    )
}

struct PackSummary {
    games: u64,
    positions: u64,
    bytes: u64,
    input_bytes: u64,
    problems: u64,
    /// The inputs that lost games to damage, and what they lost (a data file: a damaged
    /// range costs at least one game, counted as uncounted ranges).
    losses: Vec<(PathBuf, PackLoss)>,
}

type Planned<'a> = (&'a Input, Format, usize, Vec<PackSource>);

fn pack_into(planned: &[Planned<'_>], sources: &[PackSource], file: output::OutFile) -> Result<PackSummary> {
    // The output's own errors name it.
    let mut writer = PackWriter::new(BufWriter::new(file), sources)?;
    let (mut input_bytes, mut problems) = (0, 0);
    let mut losses = Vec::new();
    for (input, format, base, own) in planned {
        let path = &input.path;
        let cannot = || format!("cannot read {}", path.display());
        let (again_format, again) = sources_of(input)?;
        if again_format != *format || again != *own {
            bail!("{} changed while it was being packed", path.display());
        }
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        input_bytes += bytes;
        let writing = path.parent().is_some_and(DirLock::is_held);
        let mut damaged_ranges = 0;
        if writing {
            output::errln!(
                "warning: {}: a datagen is writing this directory now; packing the games written so far",
                path.display()
            );
        }
        let mut src = DataSource::open(path).with_context(cannot)?;
        if let Some(e) = src.header_error() {
            output::errln!("warning: {}: {e} (packing the games after it)", path.display());
            problems += 1;
        }
        let header_bad = *format == Format::Games && src.header_error().is_some();
        // Behind a bad header: the first chunk's number (the games before it are gone) and
        // whether bytes there read as no chunk at all.
        let (mut first_seq, mut header_damage) = (None, false);
        let mut gaps = SourceGaps::default();
        while let Some(item) = src.next_item().with_context(cannot)? {
            let warning = match item {
                SourceItem::Chunk { source, chunk } => {
                    if first_seq.is_none() {
                        first_seq = Some(chunk.seq);
                    }
                    gaps.add(source, &chunk);
                    if source >= own.len() {
                        bail!("{}: a game of source {source}, beyond its table", path.display());
                    }
                    writer
                        .add_chunk(base + source, &chunk)
                        .with_context(|| format!("{}: the chunk at byte {}", path.display(), chunk.offset))?;
                    match chunk.problem {
                        Some(p) => p,
                        None => continue,
                    }
                }
                SourceItem::Damage(d) if d.offset == 0 && header_bad => {
                    header_damage = true;
                    continue;
                }
                // The end a datagen is writing now: the game in flight, not lost.
                SourceItem::Damage(d) if crate::in_flight(&d, writing, true, bytes) => {
                    output::errln!(
                        "note: {}: the {} bytes from byte {} are the game being written, not packed",
                        path.display(),
                        d.len,
                        d.offset
                    );
                    continue;
                }
                SourceItem::Damage(d) => {
                    damaged_ranges += 1;
                    d.to_string()
                }
                SourceItem::Duplicate(d) => d.to_string(),
                SourceItem::Problem(p) => p,
                SourceItem::Positions { .. } => bail!("{}", no_games(path, src.format())),
            };
            problems += 1;
            output::errln!("warning: {}: {warning} (packing the rest)", path.display());
        }
        // A pack input counts its own loss; in a data file each damaged range held a game.
        let loss = match src.pack_loss() {
            Some(loss) => loss,
            None => {
                // Behind a damaged header the games before the first chunk are gone: as many
                // as its number says (a file cut inside its first game), or, where nothing
                // read as a chunk, at least one (a pack damaged at the front reads as such a
                // file: its games are there but not found, and a pack of it is not whole).
                let before_first = match (header_bad && header_damage, first_seq) {
                    (false, _) => 0,
                    (true, Some(Some(seq))) => seq,
                    (true, Some(None)) => 0,
                    (true, None) => 1,
                };
                PackLoss {
                    uncounted: damaged_ranges + before_first,
                    ..PackLoss::default()
                }
            }
        };
        if loss.any() {
            losses.push((path.clone(), loss));
        }
        // Games gone from the numbering before this read (a block or chunk cut out
        // cleanly): packed as they stand, numbers and gap, and said.
        for text in gaps.text((src.format() == Format::Pack).then(|| src.sources())) {
            output::errln!("warning: {}: {text}", path.display());
        }
    }
    let (buffered, totals) = writer.finish()?;
    buffered.into_inner().map_err(|e| e.into_error())?.finish()?;
    Ok(PackSummary {
        games: totals.games,
        positions: totals.positions,
        bytes: totals.bytes,
        input_bytes,
        problems,
        losses,
    })
}

/// Each source's sequence numbers, for the games gone below its last
/// (`records::record::SeqGaps`; version 1 chunks have none).
#[derive(Default)]
struct SourceGaps(Vec<SeqGaps>);

impl SourceGaps {
    fn add(&mut self, source: usize, chunk: &Chunk) {
        if let Some(seq) = chunk.seq {
            if self.0.len() <= source {
                self.0.resize_with(source + 1, SeqGaps::default);
            }
            self.0[source].add(seq, chunk.games.len() as u64);
        }
    }

    /// One line per source with games missing: `[NAME: ]sequence numbers ... missing: N
    /// games written are gone`, named for a pack (`pack`: the sources of its table, in
    /// order; a source beyond them, its table lost, is `source-N.bin`).
    fn text(&self, pack: Option<&[records::source::Source]>) -> Vec<String> {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(i, gaps)| {
                let text = SeqGaps::text(&gaps.missing())?;
                Some(match pack {
                    None => text,
                    Some(sources) => match sources.get(i) {
                        Some(source) => format!("{}: {text}", source.name),
                        None => format!("source-{i}.bin: {text}"),
                    },
                })
            })
            .collect()
    }
}

/// A source's name as a path below the output directory: plain relative parts only.
fn safe_name(name: &str) -> Result<PathBuf> {
    let mut path = PathBuf::new();
    for part in name.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.contains(['\\', '\0']) {
            bail!("the pack names a source {name:?}, which is not a plain relative path; not writing it");
        }
        path.push(part);
    }
    Ok(path)
}

/// `datagen unpack`: the pack's sources as data files under `out` (see the module notes).
pub fn unpack(pack: &Path, out: &Path) -> Result<i32> {
    let start = Instant::now();
    let cannot = || format!("cannot read {}", pack.display());
    let mut src = DataSource::open(pack).with_context(cannot)?;
    if src.format() != Format::Pack {
        let why = match src.format() {
            Format::Text => "is not a pack (it reads as text positions)",
            Format::Bullet => "is not a pack (it reads as bulletformat positions)",
            _ => records::pack::why_not_a_pack(pack)
                .with_context(cannot)?
                .unwrap_or("is not a pack"),
        };
        bail!("{} {why}: nothing to unpack", pack.display());
    }
    // A link to a directory: the directory it points to is written, and the link stays.
    let given = out;
    let out = &output::final_target(given)?;
    if let Ok(meta) = std::fs::symlink_metadata(out) {
        if !meta.is_dir() {
            bail!("--out {} exists and is not a directory", given.display());
        }
        let mut entries = std::fs::read_dir(out).with_context(|| format!("cannot list {}", out.display()))?;
        if entries.next().is_some() {
            bail!("--out {} is not empty; give a new directory", given.display());
        }
    }
    let tmp = store::sibling(out, ".partial");
    if std::fs::symlink_metadata(&tmp).is_ok() {
        bail!(
            "{} exists (left by a stopped unpack?); remove it first",
            tmp.display()
        );
    }
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    // An interrupt from here removes it (`output::remove_partials`).
    output::register_partial(&tmp);
    let removed = |e: anyhow::Error| {
        let _ = std::fs::remove_dir_all(&tmp);
        output::unregister_partial(&tmp);
        e
    };
    let summary = unpack_into(&mut src, pack, &tmp).map_err(removed)?;
    if out.is_dir() {
        std::fs::remove_dir(out)
            .with_context(|| format!("cannot replace {}", out.display()))
            .map_err(removed)?;
    }
    output::rename_partial(&tmp, out)
        .with_context(|| format!("cannot write {}", out.display()))
        .map_err(removed)?;
    store::sync_dir(out)?;
    output::outln!(
        "unpacked {} games, {} positions into {} file{} under {} in {:.1} s",
        summary.games,
        summary.positions,
        summary.files,
        if summary.files == 1 { "" } else { "s" },
        given.display(),
        start.elapsed().as_secs_f64()
    );
    let loss = summary.loss;
    if loss.any() {
        // What read is written, but a script's `unpack && rm PACK` must stop here.
        output::errln!(
            "datagen: error: {}; the {} that read are unpacked (the warnings above say where)",
            loss_text(pack, &loss),
            summary.games
        );
        return Ok(1);
    }
    Ok(0)
}

struct UnpackSummary {
    games: u64,
    positions: u64,
    files: usize,
    /// Games the pack held that did not read.
    loss: PackLoss,
}

/// The file being appended to: its source index and writer.
type Current = Option<(usize, BufWriter<File>)>;

fn close(current: &mut Current, paths: &[PathBuf]) -> Result<()> {
    if let Some((i, w)) = current.take() {
        w.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .with_context(|| format!("cannot write {}", paths[i].display()))?;
    }
    Ok(())
}

fn unpack_into(src: &mut DataSource, pack: &Path, dir: &Path) -> Result<UnpackSummary> {
    if let Some(e) = src.header_error() {
        output::errln!(
            "warning: {}: {e}; its games go to source-N.bin files without a header",
            pack.display()
        );
    }
    let mut paths = Vec::new();
    let mut taken = HashSet::new();
    for s in src.sources() {
        let rel = safe_name(&s.name)?;
        if !taken.insert(rel.clone()) {
            bail!("the pack names {} twice", s.name);
        }
        paths.push(dir.join(rel));
    }
    // Every source's file, its header first (a source without games stays a file).
    let create = |path: &Path, header: &[u8]| -> Result<()> {
        let write = || -> std::io::Result<()> {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let mut f = File::create(path)?;
            f.write_all(header)?;
            f.sync_all()
        };
        write().with_context(|| format!("cannot write {}", path.display()))
    };
    for (s, path) in src.sources().iter().zip(&paths) {
        create(path, &s.header_bytes)?;
    }
    let (mut games, mut positions) = (0, 0);
    let mut gaps = SourceGaps::default();
    let mut current: Current = None;
    let mut bytes = Vec::new();
    let cannot = || format!("cannot read {}", pack.display());
    while let Some(item) = src.next_item().with_context(cannot)? {
        let warning = match item {
            SourceItem::Chunk { source, chunk } => {
                // Sources beyond a lost table: files of their own, without a header.
                while paths.len() <= source {
                    let rel = PathBuf::from(format!("source-{}.bin", paths.len()));
                    if !taken.insert(rel.clone()) {
                        bail!(
                            "the pack names a source {}: no room for its unnamed ones",
                            rel.display()
                        );
                    }
                    let path = dir.join(rel);
                    create(&path, &[])?;
                    paths.push(path);
                }
                if current.as_ref().is_none_or(|(i, _)| *i != source) {
                    close(&mut current, &paths)?;
                    let path = &paths[source];
                    let file = std::fs::OpenOptions::new()
                        .append(true)
                        .open(path)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    current = Some((source, BufWriter::new(file)));
                }
                bytes.clear();
                match (chunk.version, chunk.seq) {
                    (2, Some(seq)) => encode_chunk(&chunk.games, seq, chunk.nodes.unwrap_or(0), &mut bytes),
                    _ => encode_chunk_v1(&chunk.games, &mut bytes),
                }
                if let Some((_, w)) = &mut current {
                    w.write_all(&bytes)
                        .with_context(|| format!("cannot write {}", paths[source].display()))?;
                }
                games += chunk.games.len() as u64;
                positions += chunk.games.iter().map(|g| g.moves.len() as u64).sum::<u64>();
                gaps.add(source, &chunk);
                match chunk.problem {
                    Some(p) => p,
                    None => continue,
                }
            }
            SourceItem::Damage(d) => d.to_string(),
            SourceItem::Duplicate(d) => d.to_string(),
            SourceItem::Problem(p) => p,
            SourceItem::Positions { .. } => bail!("{}", no_games(pack, src.format())),
        };
        output::errln!("warning: {}: {warning} (unpacking the rest)", pack.display());
    }
    close(&mut current, &paths)?;
    // Games gone from the numbering before this read (a block cut out cleanly): the files
    // keep the numbers and the gap, and it is said.
    for text in gaps.text(Some(src.sources())) {
        output::errln!("warning: {}: {text}", pack.display());
    }
    Ok(UnpackSummary {
        games,
        positions,
        files: paths.len(),
        loss: src.pack_loss().unwrap_or_default(),
    })
}

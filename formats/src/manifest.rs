//! The corpus manifest: one machine-readable list (`manifest.toml`) of the packs in a corpus
//! folder such as the repository's `data/selfplay/`, with each pack's size, FNV-1a 64
//! checksum, games, positions and what made it (the nets that played, datagen's version, its
//! settings) and the date it joined the corpus.
//!
//! A folder with a manifest is read as the packs it lists, in its order
//! ([`crate::record::data_files`], hence `trainer --data DIR`, `learn`'s `extra_data` and
//! `datagen stats DIR`); `datagen verify --manifest DIR` checks the folder against it
//! ([`check`]), and `datagen manifest DIR` adds the packs it does not list yet ([`describe`]);
//! a pack with the same bytes as a listed one (size and checksum, [`Manifest::same_content`])
//! is the same games, refused by the one and reported by the other.
//! Nothing here changes a pack: the manifest describes, the packs hold the data.
//!
//! ```toml
//! [[pack]]
//! file = "gen21-classical-001.pack"
//! bytes = 4529165
//! fnv1a64 = "89abcdef01234567"
//! games = 14317
//! positions = 1746861
//! date = "2026-12-06"
//!
//! [[pack.settings]]         # one entry per distinct settings of the files packed
//! sources = 2
//! generator = "luft-datagen 0.2.0"
//! net = "gen21-128"
//! ...
//! ```

use crate::record::{source_file_name, GenHeader, Header};
use crate::source::{DataSource, SourceItem};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The manifest's file name inside a corpus folder.
pub const MANIFEST_NAME: &str = "manifest.toml";

/// Why a manifest cannot be read, written or trusted.
#[derive(Debug)]
pub enum ManifestError {
    /// Reading or writing a file failed (the path and the error).
    Io(PathBuf, std::io::Error),
    /// The manifest is not valid TOML of this shape (the path and the parser's message).
    Parse(PathBuf, String),
    /// An entry is not usable (the reason): a file name that is not a plain name, one listed
    /// twice.
    Invalid(String),
    /// A pack cannot be read as data.
    Data(PathBuf, String),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            ManifestError::Parse(p, e) => write!(f, "{}: not a corpus manifest: {e}", p.display()),
            ManifestError::Invalid(why) => write!(f, "corpus manifest: {why}"),
            ManifestError::Data(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for ManifestError {}

/// A corpus manifest: the packs of one folder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The packs, in the order readers take them.
    #[serde(rename = "pack", default)]
    pub packs: Vec<PackEntry>,
}

/// One pack of a corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackEntry {
    /// Its file name inside the folder (a plain name, no directory).
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// FNV-1a 64 of its bytes, 16 lower-case hex digits.
    pub fnv1a64: String,
    /// Games it holds.
    pub games: u64,
    /// Positions (plies with a score) it holds.
    pub positions: u64,
    /// The date it joined the corpus, `YYYY-MM-DD`.
    pub date: String,
    /// What made its games: one entry per distinct settings among the files it packs.
    #[serde(default)]
    pub settings: Vec<SourceSettings>,
}

impl PackEntry {
    /// Whether this pack's listed content is `bytes` long with FNV-1a 64 checksum `fnv1a64`.
    fn holds(&self, bytes: u64, fnv1a64: &str) -> bool {
        self.bytes == bytes && self.fnv1a64.eq_ignore_ascii_case(fnv1a64)
    }
}

/// The settings of the data files a pack holds (from each file's datagen header), one entry
/// per distinct value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSettings {
    /// How many of the pack's files had these settings.
    pub sources: u32,
    /// The program that wrote them, e.g. `luft-datagen 0.2.0` (empty: a format 1 header or
    /// an unreadable one).
    pub generator: String,
    /// The net that played: the stem of the file it was read from (e.g. `gen21-128`), or
    /// `embedded`.
    pub net: String,
    /// The net's fingerprint (`nnue::Network::fingerprint`), 16 hex digits.
    pub net_fingerprint: String,
    /// Where games started: `classical`, `chess960`, `dfrc`, or `book NAME`.
    pub openings: String,
    /// Random plies after the start (this many or one more).
    pub random_plies: u32,
    /// Soft node limit a move.
    pub soft_nodes: u64,
    /// Hard node limit a move.
    pub hard_nodes: u64,
    /// Score adjudication: `none`, or the thresholds (`win 1000 cp x5, draw 10 cp x8 from
    /// ply 60`, as datagen's header has them).
    pub adjudication: String,
    /// The most pieces of the Syzygy tables that ended games (0: none).
    pub syzygy_pieces: u32,
}

impl SourceSettings {
    fn of_header(header: &Header) -> SourceSettings {
        let blank = SourceSettings {
            sources: 1,
            generator: String::new(),
            net: String::new(),
            net_fingerprint: String::new(),
            openings: String::new(),
            random_plies: 0,
            soft_nodes: 0,
            hard_nodes: 0,
            adjudication: String::new(),
            syzygy_pieces: 0,
        };
        let g: &GenHeader = match header {
            Header::V1 { .. } => return blank,
            Header::V2(g) | Header::V3(g) | Header::V4(g) => g,
        };
        let net = if g.net_source == "embedded" {
            "embedded".to_string()
        } else {
            // The file's stem: a header holds its name, an older one the path as given.
            let name = source_file_name(&g.net_source);
            name.strip_suffix(".nnue").unwrap_or(name).to_string()
        };
        let openings = if g.book != "none" && !g.book.is_empty() {
            format!("book {}", source_file_name(&g.book))
        } else {
            match g.start_positions {
                movegen::openings::StartPositions::Classical => "classical",
                movegen::openings::StartPositions::Chess960 => "chess960",
                movegen::openings::StartPositions::DoubleChess960 => "dfrc",
            }
            .to_string()
        };
        let adjudication = if g.adjudicate {
            format!(
                "win {} cp x{}, draw {} cp x{} from ply {}",
                g.win_score, g.win_plies, g.draw_score, g.draw_plies, g.draw_min_ply
            )
        } else {
            "none".to_string()
        };
        SourceSettings {
            sources: 1,
            generator: g.generator.clone(),
            net,
            net_fingerprint: format!("{:016x}", g.net_fingerprint),
            openings,
            random_plies: g.random_plies,
            soft_nodes: g.soft_nodes,
            hard_nodes: g.hard_nodes,
            adjudication,
            syzygy_pieces: g.syzygy_pieces,
        }
    }

    /// Whether two entries describe the same settings (`sources` aside).
    fn same(&self, other: &SourceSettings) -> bool {
        SourceSettings {
            sources: 0,
            ..self.clone()
        } == SourceSettings {
            sources: 0,
            ..other.clone()
        }
    }
}

/// FNV-1a 64 of a file's bytes as 16 hex digits, and its size, read in blocks.
pub fn file_checksum(path: &Path) -> Result<(u64, String), ManifestError> {
    use std::io::Read;
    let io = |e| ManifestError::Io(path.to_path_buf(), e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hash = output::checksum::FNV_OFFSET;
    let mut bytes = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hash = output::checksum::fnv1a_extend(hash, &buf[..n]);
        bytes += n as u64;
    }
    Ok((bytes, format!("{hash:016x}")))
}

/// A key of one game's record: FNV-1a 64 of its chunk encoding (`record::encode_chunk`)
/// with sequence number and node count 0, so its start, moves, scores and result; the same
/// game has the same key in any pack or data file. Two games of self-play are the same
/// record only when they are copies: the same opening, moves and every score.
pub fn game_key(game: &crate::record::GameRecord, buf: &mut Vec<u8>) -> u64 {
    buf.clear();
    crate::record::encode_chunk(std::slice::from_ref(game), 0, 0, buf);
    output::checksum::fnv1a_extend(output::checksum::FNV_OFFSET, buf)
}

/// Games a pack may share with the packs of a corpus before it is taken for a copy of their
/// games: independent self-play repeats a record only when the same opening meets the same
/// deterministic search (3 games in the 375,389 of the corpus on 2026-12-07, each once), a
/// pack made from the same data files shares all of them.
pub const SHARED_GAMES_LIMIT: u64 = 10;

/// How many game records a pack of `games` games may share with the packs of a corpus
/// before it is taken for a copy of theirs: [`SHARED_GAMES_LIMIT`], or half its games for a
/// small pack (at least 2: one game repeated by chance is no copy).
pub fn shared_games_limit(games: u64) -> u64 {
    SHARED_GAMES_LIMIT.min((games / 2).max(2))
}

/// The [`game_key`] of every game of the pack (or data file) at `path`, in reading order.
///
/// # Errors
/// The file cannot be read.
pub fn game_keys(path: &Path) -> Result<Vec<u64>, ManifestError> {
    let data = |e: String| ManifestError::Data(path.to_path_buf(), e);
    let mut source = DataSource::open(path).map_err(|e| data(e.to_string()))?;
    let (mut keys, mut buf) = (Vec::new(), Vec::new());
    while let Some(item) = source.next_item().map_err(|e| data(e.to_string()))? {
        if let SourceItem::Chunk { chunk, .. } = item {
            keys.extend(chunk.games.iter().map(|g| game_key(g, &mut buf)));
        }
    }
    Ok(keys)
}

/// Games, positions and settings of a pack, read whole. Another file (an empty one, a data
/// file) is an error naming what it is, and so is damage: a manifest describes only packs
/// that read clean. `listing`: whether the pack is being listed (the damage error then says
/// it is not listed; a check of a listed pack says only that it is damaged).
fn read_contents(path: &Path, listing: bool) -> Result<(u64, u64, Vec<SourceSettings>), ManifestError> {
    let damaged = if listing {
        "damaged, so not listed"
    } else {
        "damaged"
    };
    let data = |e: String| ManifestError::Data(path.to_path_buf(), e);
    if let Some(why) = crate::pack::why_not_a_pack(path).map_err(|e| data(e.to_string()))? {
        return Err(data(format!("{why}; a corpus lists packs")));
    }
    let mut source = DataSource::open(path).map_err(|e| data(e.to_string()))?;
    let (mut games, mut positions) = (0u64, 0u64);
    let mut problem = None;
    while let Some(item) = source.next_item().map_err(|e| data(e.to_string()))? {
        match item {
            SourceItem::Chunk { chunk, .. } => {
                games += chunk.games.len() as u64;
                positions += chunk.games.iter().map(|g| g.moves.len() as u64).sum::<u64>();
            }
            SourceItem::Damage(d) => return Err(data(format!("{damaged}: {d}"))),
            // What `verify` calls a problem (a lost prefix, a table copy that differs) keeps
            // a pack out too: a corpus lists only packs that verify clean. Damage read later
            // is named first (the problem may be its block's checksum).
            SourceItem::Problem(p) => {
                problem.get_or_insert(p);
            }
            SourceItem::Duplicate(_) => {}
            SourceItem::Positions { positions: p, .. } => positions += p.len() as u64,
        }
    }
    if let Some(p) = problem {
        return Err(data(format!("{damaged}: {p}")));
    }
    let mut settings: Vec<SourceSettings> = Vec::new();
    for s in source.sources() {
        let this = match &s.header {
            Ok(h) => SourceSettings::of_header(h),
            Err(_) => SourceSettings::of_header(&Header::V1 {
                settings: String::new(),
            }),
        };
        match settings.iter_mut().find(|e| e.same(&this)) {
            Some(e) => e.sources += 1,
            None => settings.push(this),
        }
    }
    Ok((games, positions, settings))
}

/// Describes the pack at `path` as a manifest entry dated `date` (`YYYY-MM-DD`), its file
/// name as it stands. Reads the whole pack.
///
/// # Errors
/// The file cannot be read, is not a pack (empty, a data file, something else), or is
/// damaged.
pub fn describe(path: &Path, date: &str) -> Result<PackEntry, ManifestError> {
    let file = plain_name(path)?;
    let (bytes, fnv1a64) = file_checksum(path)?;
    let (games, positions, settings) = read_contents(path, true)?;
    Ok(PackEntry {
        file,
        bytes,
        fnv1a64,
        games,
        positions,
        date: date.to_string(),
        settings,
    })
}

fn plain_name(path: &Path) -> Result<String, ManifestError> {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .ok_or_else(|| ManifestError::Invalid(format!("{}: not a file name", path.display())))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name != MANIFEST_NAME
        && !name.contains(['/', '\\'])
        && !name.starts_with('.')
}

/// The corpus name of a pack with these settings, the first free one among `taken`:
/// `genN-OPENINGS-NNN.pack`, N the generation of the net that played (its name's `genN`
/// prefix), OPENINGS `classical`, `chess960`, `dfrc`, `book`, or `mixed` for a pack of
/// several, NNN a counter per generation and openings from 001.
///
/// # Errors
/// The pack's games were played by nets of several generations, or by a net whose name has
/// no `genN` prefix (an unnamed embedded net: name it with `datagen manifest --nets`).
pub fn corpus_name<'a>(
    settings: &[SourceSettings],
    taken: impl IntoIterator<Item = &'a str> + Clone,
) -> Result<String, ManifestError> {
    let mut gens: Vec<&str> = Vec::new();
    let mut openings: Vec<&str> = Vec::new();
    for s in settings {
        let digits = s
            .net
            .strip_prefix("gen")
            .map_or(0, |r| r.bytes().take_while(u8::is_ascii_digit).count());
        if digits == 0 {
            return Err(ManifestError::Invalid(format!(
                "the net {:?} has no generation in its name (genN-...)",
                s.net
            )));
        }
        let gen = &s.net[..3 + digits];
        if !gens.contains(&gen) {
            gens.push(gen);
        }
        let o = if s.openings.starts_with("book ") {
            "book"
        } else {
            s.openings.as_str()
        };
        if !openings.contains(&o) {
            openings.push(o);
        }
    }
    let ([gen], Some(first)) = (&gens[..], openings.first()) else {
        return Err(ManifestError::Invalid(format!(
            "a corpus pack holds one generation's games; this one holds {}",
            if gens.is_empty() {
                "none".to_string()
            } else {
                gens.join(", ")
            }
        )));
    };
    let openings = if openings.len() == 1 { first } else { "mixed" };
    (1..)
        .map(|n| format!("{gen}-{openings}-{n:03}.pack"))
        .find(|name| !taken.clone().into_iter().any(|t| t == name))
        .ok_or_else(|| ManifestError::Invalid("no free name".into()))
}

impl Manifest {
    /// The manifest of folder `dir`, or `None` when it has none.
    ///
    /// # Errors
    /// The file exists but cannot be read, is not a manifest, or lists a name that is not a
    /// plain file name or lists one twice.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, ManifestError> {
        let path = dir.join(MANIFEST_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ManifestError::Io(path, e)),
        };
        let manifest: Manifest =
            toml::from_str(&text).map_err(|e| ManifestError::Parse(path, e.to_string()))?;
        manifest.validate()?;
        Ok(Some(manifest))
    }

    fn validate(&self) -> Result<(), ManifestError> {
        let mut seen = std::collections::HashSet::new();
        for p in &self.packs {
            if !valid_name(&p.file) {
                return Err(ManifestError::Invalid(format!(
                    "{:?} is not a plain file name",
                    p.file
                )));
            }
            if !seen.insert(p.file.as_str()) {
                return Err(ManifestError::Invalid(format!("{} is listed twice", p.file)));
            }
        }
        Ok(())
    }

    /// Writes the manifest into `dir` (to a temporary file, then renamed over the old one).
    ///
    /// # Errors
    /// The manifest is invalid ([`Manifest::read`]'s rules) or the file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<(), ManifestError> {
        self.validate()?;
        let path = dir.join(MANIFEST_NAME);
        let body = toml::to_string(self).map_err(|e| ManifestError::Invalid(e.to_string()))?;
        let text = format!(
            "# The corpus: every pack of this folder, in the order readers take them.\n\
             # Written by `datagen manifest`; checked by `datagen verify --manifest`.\n\n{body}"
        );
        let tmp = dir.join(format!(".{MANIFEST_NAME}.partial"));
        std::fs::write(&tmp, text).map_err(|e| ManifestError::Io(tmp.clone(), e))?;
        std::fs::rename(&tmp, &path).map_err(|e| ManifestError::Io(path, e))
    }

    /// The listed packs' paths under `dir`, in order.
    pub fn files(&self, dir: &Path) -> Vec<PathBuf> {
        self.packs.iter().map(|p| dir.join(&p.file)).collect()
    }

    /// The first listed pack whose content is `bytes` long with FNV-1a 64 checksum
    /// `fnv1a64` (16 hex digits): a pack with the same content is the same games, which a
    /// corpus must not hold twice.
    pub fn same_content(&self, bytes: u64, fnv1a64: &str) -> Option<&PackEntry> {
        self.packs.iter().find(|p| p.holds(bytes, fnv1a64))
    }

    /// Games and positions in all.
    pub fn totals(&self) -> (u64, u64) {
        self.packs
            .iter()
            .fold((0, 0), |(g, p), e| (g + e.games, p + e.positions))
    }
}

/// What [`check`] found wrong with a folder against its manifest, one line each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disagreement {
    /// A listed pack is not in the folder.
    Missing(String),
    /// A pack (`*.pack`) in the folder is not listed.
    Unlisted(String),
    /// A listed pack's size, checksum, games or positions differ (the file, what, listed,
    /// found).
    Differs(String, &'static str, String, String),
    /// A listed pack does not read clean (the file and why).
    Unreadable(String, String),
    /// A listed pack has the same size and checksum as one listed before it (the file, the
    /// earlier one): the same games, which readers would take twice.
    Duplicate(String, String),
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::Missing(n) => write!(f, "{n}: listed in the manifest, not in the folder"),
            Disagreement::Unlisted(n) => write!(f, "{n}: in the folder, not in the manifest"),
            Disagreement::Differs(n, what, listed, found) => {
                write!(f, "{n}: {what} {found}, the manifest says {listed}")
            }
            Disagreement::Unreadable(n, why) => write!(f, "{n}: {why}"),
            Disagreement::Duplicate(n, first) => write!(
                f,
                "{n}: the same bytes as {first} (size and fnv1a64 alike): its games would be read twice"
            ),
        }
    }
}

/// Checks folder `dir` against its manifest: every listed pack present with its size and
/// checksum, none listed twice under two names (the same size and checksum), no `*.pack`
/// unlisted, and (with `deep`) each pack read whole to the games and positions listed.
/// Returns the disagreements (empty: they agree).
///
/// # Errors
/// The folder has no manifest, or it or the folder cannot be read.
pub fn check(dir: &Path, deep: bool) -> Result<Vec<Disagreement>, ManifestError> {
    let manifest = Manifest::read(dir)?.ok_or_else(|| {
        ManifestError::Io(
            dir.join(MANIFEST_NAME),
            std::io::Error::new(std::io::ErrorKind::NotFound, "no corpus manifest"),
        )
    })?;
    let mut out = Vec::new();
    let listed: std::collections::HashSet<&str> = manifest.packs.iter().map(|p| p.file.as_str()).collect();
    let mut present = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| ManifestError::Io(dir.to_path_buf(), e))? {
        let entry = entry.map_err(|e| ManifestError::Io(dir.to_path_buf(), e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".pack") && !listed.contains(name.as_str()) {
            present.push(name);
        }
    }
    present.sort();
    for (i, p) in manifest.packs.iter().enumerate() {
        if let Some(first) = manifest.packs[..i].iter().find(|q| q.holds(p.bytes, &p.fnv1a64)) {
            out.push(Disagreement::Duplicate(p.file.clone(), first.file.clone()));
        }
        let path = dir.join(&p.file);
        if !path.is_file() {
            out.push(Disagreement::Missing(p.file.clone()));
            continue;
        }
        let (bytes, sum) = match file_checksum(&path) {
            Ok(x) => x,
            Err(e) => {
                out.push(Disagreement::Unreadable(p.file.clone(), e.to_string()));
                continue;
            }
        };
        if bytes != p.bytes {
            out.push(Disagreement::Differs(
                p.file.clone(),
                "bytes",
                p.bytes.to_string(),
                bytes.to_string(),
            ));
        }
        if sum != p.fnv1a64 {
            out.push(Disagreement::Differs(
                p.file.clone(),
                "fnv1a64",
                p.fnv1a64.clone(),
                sum,
            ));
        }
        if deep {
            match read_contents(&path, false) {
                Ok((games, positions, _)) => {
                    if games != p.games {
                        out.push(Disagreement::Differs(
                            p.file.clone(),
                            "games",
                            p.games.to_string(),
                            games.to_string(),
                        ));
                    }
                    if positions != p.positions {
                        out.push(Disagreement::Differs(
                            p.file.clone(),
                            "positions",
                            p.positions.to_string(),
                            positions.to_string(),
                        ));
                    }
                }
                Err(e) => out.push(Disagreement::Unreadable(p.file.clone(), e.to_string())),
            }
        }
    }
    out.extend(present.into_iter().map(Disagreement::Unlisted));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str) -> PackEntry {
        PackEntry {
            file: file.into(),
            bytes: 1,
            fnv1a64: "0".repeat(16),
            games: 1,
            positions: 2,
            date: "2026-12-06".into(),
            settings: vec![],
        }
    }

    #[test]
    fn names_must_be_plain_and_unique() {
        for bad in ["../x.pack", "a/b.pack", "", ".hidden.pack", MANIFEST_NAME] {
            let m = Manifest {
                packs: vec![entry(bad)],
            };
            assert!(m.validate().is_err(), "{bad:?} accepted");
        }
        let m = Manifest {
            packs: vec![entry("a.pack"), entry("a.pack")],
        };
        assert!(m.validate().is_err());
        assert!(Manifest {
            packs: vec![entry("a.pack"), entry("b.pack")]
        }
        .validate()
        .is_ok());
    }

    fn played_by(net: &str, openings: &str) -> SourceSettings {
        let blank = SourceSettings::of_header(&Header::V1 {
            settings: String::new(),
        });
        SourceSettings {
            net: net.into(),
            openings: openings.into(),
            ..blank
        }
    }

    #[test]
    fn corpus_names_count_per_generation_and_openings() {
        let taken = [
            "gen21-classical-001.pack",
            "gen21-classical-002.pack",
            "gen21-dfrc-001.pack",
        ];
        let name = |s: &[SourceSettings]| corpus_name(s, taken.iter().copied());
        assert_eq!(
            name(&[played_by("gen21-128", "classical")]).unwrap(),
            "gen21-classical-003.pack"
        );
        assert_eq!(
            name(&[played_by("gen21-128 (embedded)", "dfrc")]).unwrap(),
            "gen21-dfrc-002.pack"
        );
        assert_eq!(
            name(&[played_by("gen22-256", "classical")]).unwrap(),
            "gen22-classical-001.pack"
        );
        assert_eq!(
            name(&[
                played_by("gen21-128", "classical"),
                played_by("gen21-128", "dfrc")
            ])
            .unwrap(),
            "gen21-mixed-001.pack"
        );
        assert_eq!(
            name(&[played_by("gen3-32", "book x.epd")]).unwrap(),
            "gen3-book-001.pack"
        );
        assert!(name(&[played_by("embedded", "classical")]).is_err());
        assert!(name(&[
            played_by("gen20-128", "classical"),
            played_by("gen21-128", "classical")
        ])
        .is_err());
        assert!(name(&[]).is_err());
    }

    #[test]
    fn round_trips_through_its_file() {
        let dir = testing::temp("manifest");
        let m = Manifest {
            packs: vec![entry("a.pack"), entry("b.pack")],
        };
        m.write(&dir).unwrap();
        assert_eq!(Manifest::read(&dir).unwrap(), Some(m));
        std::fs::write(dir.join(MANIFEST_NAME), "[[pack]]\nfile = 3\n").unwrap();
        assert!(matches!(Manifest::read(&dir), Err(ManifestError::Parse(..))));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(Manifest::read(&dir).unwrap(), None);
    }
}

//! The data store, and what keeps datagen's files safe on disk.
//!
//! Self-play data lives outside the repository, in a store: the directory `$LUFT_DATA`
//! (default `$HOME/.local/share/luft`) with one directory per generation, named by the user
//! (`datagen --gen NAME` writes to `$LUFT_DATA/NAME`; `--out DIR` takes any path). Each
//! generation directory holds one file per writer stream, `games-<stream>.bin`, whose header
//! records how its games were made (`records::record::GenHeader`).
//!
//! The rules this module enforces, because a data file is hours of CPU time:
//! - One writer per directory: [`DirLock`] holds an advisory lock (`flock`) on
//!   `datagen.lock` for the whole run, so a second datagen on the same directory gets a clear
//!   error instead of writing duplicate games into the same files. The kernel drops the lock
//!   when the process dies, even by `kill -9`, so a crash never blocks a resume.
//! - A new file appears whole or not at all: its header is written to `<name>.tmp`, synced,
//!   then renamed ([`create_file`]). A `.tmp` only ever holds a header.
//! - Resume never deletes an intact game ([`repair`]): damaged byte ranges and duplicate
//!   chunks are first appended to `<name>.quarantine` and synced; only then is the file cut
//!   (damage at the end, the usual kill mid-write) or rebuilt from its intact chunks in
//!   `<name>.rebuild`, checked by reading it back, and renamed over the original. A kill at
//!   any step leaves either the old file or the new one. A repair that failed (a full disk)
//!   is tried again on the next resume without quarantining the same range twice.
//! - A game gone leaves a gap in its file's sequence numbers (`records::record::SeqGaps`):
//!   resume says so and plays those numbers again first ([`Stream::missing`]; a game's
//!   opening depends on its number only), so the file ends whole.

use anyhow::{bail, Context, Result};
use records::record::{
    encode_header, encode_header_v1, scan_reader, source_file_name, DataScan, GenHeader, Header, SeqGaps,
};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The environment variable naming the data store.
pub const DATA_ENV: &str = "LUFT_DATA";
/// The lock file in an output directory.
pub const LOCK_FILE: &str = "datagen.lock";
/// Start of each record in a quarantine file: magic, u64 source offset, u64 length, bytes.
pub const QUARANTINE_MAGIC: &[u8; 8] = b"LUFTQRNT";

/// The store: `$LUFT_DATA`, else `$HOME/.local/share/luft`.
pub fn data_root() -> Result<PathBuf> {
    store_root(std::env::var_os(DATA_ENV), std::env::var_os("HOME"))
}

/// The store given the values of `LUFT_DATA` and `HOME` (unset or empty: not given).
pub fn store_root(
    luft_data: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Result<PathBuf> {
    if let Some(v) = luft_data.filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(v));
    }
    match home.filter(|v| !v.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".local/share/luft")),
        None => bail!("neither {DATA_ENV} nor HOME is set; give --out DIR"),
    }
}

/// `$LUFT_DATA/NAME` (see [`generation_in`]).
pub fn generation_dir(name: &str) -> Result<PathBuf> {
    check_generation_name(name)?;
    Ok(data_root()?.join(name))
}

/// `root/NAME` for a generation name of ASCII letters, digits, `.`, `_` and `-` that does
/// not start with `.` (a name, not a path).
pub fn generation_in(root: &Path, name: &str) -> Result<PathBuf> {
    check_generation_name(name)?;
    Ok(root.join(name))
}

/// A generation name by the workspace's one rule for names ([`output::is_plain_name`], which
/// `learn init --name` follows too).
fn check_generation_name(name: &str) -> Result<()> {
    if !output::is_plain_name(name) {
        bail!(
            "--gen {name:?}: a generation name is {} (use --out for a path)",
            output::PLAIN_NAME
        );
    }
    Ok(())
}

/// An exclusive advisory lock on an output directory, held while the value lives.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    /// The lock file (`datagen.lock` in the directory).
    pub path: PathBuf,
}

impl DirLock {
    /// Locks `dir` (which must exist) or explains who holds it.
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                let mut owner = String::new();
                let _ = file.read_to_string(&mut owner);
                let owner = owner.trim();
                bail!(
                    "{} is in use by another datagen{} (it holds {}); wait for it to finish, stop \
                     it, or write to another directory",
                    dir.display(),
                    if owner.is_empty() {
                        String::new()
                    } else {
                        format!(", pid {owner}")
                    },
                    path.display()
                );
            }
            Err(fs4::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
        file.set_len(0)
            .and_then(|_| file.write_all(format!("{}\n", std::process::id()).as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(DirLock { _file: file, path })
    }

    /// Whether a datagen holds the lock of `dir` right now.
    pub fn is_held(dir: &Path) -> bool {
        let Ok(file) = File::open(dir.join(LOCK_FILE)) else {
            return false;
        };
        matches!(
            fs4::FileExt::try_lock_shared(&file),
            Err(fs4::TryLockError::WouldBlock)
        )
    }
}

/// `path` with `suffix` added to its file name (`games-0.bin` -> `games-0.bin.tmp`).
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Syncs the directory holding `path`, so a rename into it survives a crash.
pub fn sync_dir(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync directory {}", dir.display()))
}

/// Creates `path` holding `bytes`, atomically: all of it or no file.
pub fn create_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = sibling(path, ".tmp");
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    };
    write().with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot create {}", path.display()))?;
    sync_dir(path)
}

/// Copies `len` bytes at `offset` of `src` to `out`.
fn copy_range(src: &mut File, offset: u64, len: u64, out: &mut impl Write) -> std::io::Result<()> {
    src.seek(SeekFrom::Start(offset))?;
    let copied = std::io::copy(&mut Read::take(&mut *src, len), out)?;
    if copied != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "file shrank while being repaired",
        ));
    }
    Ok(())
}

/// One record of a quarantine file: the source offset, the length, the FNV-1a of the bytes.
pub type QuarantineRecord = (u64, u64, u64);

/// The records of the quarantine file at `path`, and the length of its whole records (less
/// than the file's after a torn write). No file: no records.
pub fn quarantine_records(path: &Path) -> std::io::Result<(Vec<QuarantineRecord>, u64)> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e),
    };
    let mut records = Vec::new();
    let mut at = 0usize;
    while let Some(head) = bytes.get(at..at + 24) {
        let word = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().unwrap_or_default());
        let (offset, len) = (word(8), word(16));
        let body = usize::try_from(len)
            .ok()
            .and_then(|len| Some(at + 24..(at + 24).checked_add(len)?));
        match body.and_then(|r| bytes.get(r)) {
            Some(body) if &head[..8] == QUARANTINE_MAGIC => {
                records.push((offset, len, output::checksum::fnv1a(body)));
                at += 24 + body.len();
            }
            _ => break,
        }
    }
    Ok((records, at as u64))
}

/// Makes the data file `path` clean without losing an intact game; `scan` is a fresh read of
/// it. Damaged ranges and duplicate chunks go to `<name>.quarantine` first. A file whose
/// header is unreadable gets `header` instead (required then). Returns what was done, or
/// `None` when there was nothing to do.
pub fn repair(path: &Path, scan: &DataScan, header: Option<&[u8]>) -> Result<Option<String>> {
    let mut bad: Vec<(u64, u64)> = scan
        .damage
        .iter()
        .map(|d| (d.offset, d.len))
        .chain(scan.duplicates.iter().map(|d| (d.offset, d.len)))
        .collect();
    bad.sort_unstable();
    if bad.is_empty() && scan.header.is_ok() {
        return Ok(None);
    }
    if scan.header.is_err() && header.is_none() {
        bail!(
            "{}: the header is unreadable and no replacement was given",
            path.display()
        );
    }
    let mut src = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let quarantine = sibling(path, ".quarantine");
    let moved: u64 = bad.iter().map(|&(_, len)| len).sum();
    if moved > 0 {
        // A repair that failed after this step (a full disk while rebuilding) is tried
        // again on the next resume: what the quarantine already holds is not added twice,
        // and a record that a failed write left torn is cut off first.
        let (held, whole) = quarantine_records(&quarantine)
            .with_context(|| format!("cannot read {}", quarantine.display()))?;
        let mut q = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&quarantine)
            .with_context(|| format!("cannot open {}", quarantine.display()))?;
        if q.metadata().map(|m| m.len()).unwrap_or(whole) > whole {
            q.set_len(whole)
                .with_context(|| format!("cannot cut the torn end of {}", quarantine.display()))?;
        }
        let mut record = Vec::new();
        let mut range = Vec::new();
        for &(offset, len) in &bad {
            range.clear();
            copy_range(&mut src, offset, len, &mut range)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if held.contains(&(offset, len, output::checksum::fnv1a(&range))) {
                continue;
            }
            record.clear();
            record.extend_from_slice(QUARANTINE_MAGIC);
            record.extend_from_slice(&offset.to_le_bytes());
            record.extend_from_slice(&len.to_le_bytes());
            record.extend_from_slice(&range);
            q.write_all(&record)
                .with_context(|| format!("cannot write {}", quarantine.display()))?;
        }
        q.sync_all()
            .with_context(|| format!("cannot sync {}", quarantine.display()))?;
    }
    let what = format!(
        "{} damaged or repeated byte range(s), {moved} bytes, moved to {}",
        bad.len(),
        quarantine.display()
    );
    // Damage only at the end (a kill mid-write): cut it off.
    if scan.header.is_ok() && bad.len() == 1 && bad[0].0 + bad[0].1 == scan.len {
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        f.set_len(bad[0].0)
            .and_then(|_| f.sync_all())
            .with_context(|| format!("cannot cut {}", path.display()))?;
        return Ok(Some(format!("{what}; the file now ends at byte {}", bad[0].0)));
    }
    // Anything else: rebuild from the header and the intact chunks, check, then swap.
    let rebuild = sibling(path, ".rebuild");
    let write = |src: &mut File| -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(File::create(&rebuild)?);
        match header {
            Some(h) if scan.header.is_err() => out.write_all(h)?,
            _ => copy_range(src, 0, scan.header_len, &mut out)?,
        }
        for c in &scan.chunks {
            copy_range(src, c.offset, c.len, &mut out)?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    };
    write(&mut src).with_context(|| format!("cannot write {}", rebuild.display()))?;
    let check = File::open(&rebuild)
        .and_then(|f| scan_reader(std::io::BufReader::new(f), false))
        .with_context(|| format!("cannot read back {}", rebuild.display()))?;
    if !(check.header.is_ok()
        && check.damage.is_empty()
        && check.duplicates.is_empty()
        && check.game_count == scan.game_count)
    {
        let _ = std::fs::remove_file(&rebuild);
        bail!(
            "{}: the rebuilt file did not read back as {} intact games; the file is left as it was",
            path.display(),
            scan.game_count
        );
    }
    std::fs::rename(&rebuild, path).with_context(|| format!("cannot replace {}", path.display()))?;
    sync_dir(path)?;
    Ok(Some(format!(
        "{what}; rebuilt with its {} intact games{}",
        scan.game_count,
        if scan.header.is_err() {
            " under a new header with this run's settings"
        } else {
            ""
        }
    )))
}

/// One writer's file: its stream number, path and the sequence number of its next game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    /// The stream number N of `games-N.bin`.
    pub stream: u32,
    /// The file.
    pub path: PathBuf,
    /// The sequence number of the next game written to it.
    pub next_seq: u64,
    /// Sequence numbers below `next_seq` whose games are gone (a damaged chunk moved
    /// aside): the run plays them first, each game's opening being its number's.
    pub missing: Vec<std::ops::Range<u64>>,
}

/// An output directory made ready for a run.
#[derive(Debug)]
pub struct Prepared {
    /// The directory's lock, held for the run.
    pub lock: DirLock,
    /// One per thread.
    pub writers: Vec<Stream>,
    /// Games already in the directory (every stream file, whatever `threads`).
    pub games: u64,
    /// Positions already in the directory.
    pub positions: u64,
    /// Stream files in the directory.
    pub files: usize,
}

/// `games-<n>.bin` in `dir`, by stream number.
pub fn stream_files(dir: &Path) -> Result<Vec<(u32, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        // Only the canonical spelling, so two names never share a stream number.
        if let Some(n) = name
            .strip_prefix("games-")
            .and_then(|r| r.strip_suffix(".bin"))
            .and_then(|digits| digits.parse::<u32>().ok().filter(|n| n.to_string() == digits))
        {
            out.push((n, path));
        }
    }
    out.sort();
    Ok(out)
}

/// A format 1 settings text with its `book=` line cut to the book's file name (format 1
/// writers kept the path given): the same settings compare equal wherever the book lay.
fn v1_comparable(text: &str) -> String {
    text.lines()
        .map(|line| match line.strip_prefix("book=") {
            Some(book) => format!("book={}\n", source_file_name(book)),
            None => format!("{line}\n"),
        })
        .collect()
}

/// Locks `dir` (creating it), reads every stream file in it, repairs damage without losing
/// an intact game, checks that the files belong to this run (`settings`, or `v1_settings` for
/// version 1 files), and picks `threads` streams to write: existing version 2 and 3 streams
/// first (their chunks are the same; a version 2 file keeps its header), then new files
/// (version 3). Version 1 files count toward the target but are never appended to.
pub fn prepare(
    dir: &Path,
    settings: &GenHeader,
    v1_settings: &str,
    threads: usize,
    mut log: impl FnMut(String),
) -> Result<Prepared> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock = DirLock::acquire(dir)?;
    // Leftovers of a kill: a `.tmp` holds only a header, a `.rebuild` only copies of chunks
    // whose originals are still in place (the rename had not happened).
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with("games-") && (name.ends_with(".bin.tmp") || name.ends_with(".bin.rebuild")) {
            std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    let header_for = |stream: u32| {
        encode_header(&GenHeader {
            stream,
            ..settings.clone()
        })
    };

    // 1. Read everything and check the settings before changing anything.
    let mut scans = Vec::new();
    for (stream, path) in stream_files(dir)? {
        let file = File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let scan = scan_reader(std::io::BufReader::new(file), false)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match &scan.header {
            Ok(Header::V2(h) | Header::V3(h) | Header::V4(h)) if !h.same_run(settings) => bail!(
                "{} was written with other settings (they differ in {}); use another output \
                 directory or the same settings\n--- file ---\n{}--- now ---\n{}",
                path.display(),
                h.run_differences(settings).join(", "),
                h.describe(),
                settings.describe()
            ),
            Ok(Header::V1 { settings: text }) if v1_comparable(text) != v1_comparable(v1_settings) => bail!(
                "{} (format 1) was written with other settings; use another output directory or \
                 the same settings\n--- file ---\n{text}--- now (as format 1 would say) ---\n{v1_settings}",
                path.display()
            ),
            _ => {}
        }
        scans.push((stream, path, scan));
    }

    // 2. Repair, and note which streams can take more games.
    let (mut games, mut positions) = (0, 0);
    let mut appendable = Vec::new();
    let files = scans.len();
    for (stream, path, scan) in &scans {
        for line in scan.report() {
            log(format!("{}: {line}", path.display()));
        }
        // Another version's games belong to the run (`same_run`), but the header keeps the
        // first writer's name: say that the games appended now are this version's.
        if let Ok(Header::V2(h) | Header::V3(h) | Header::V4(h)) = &scan.header {
            if h.generator != settings.generator {
                log(format!(
                    "{}: written by {}, resumed by {}: the games added now are {}'s (the header keeps {})",
                    path.display(),
                    h.generator,
                    settings.generator,
                    settings.generator,
                    h.generator
                ));
            }
        }
        let replacement = match &scan.header {
            Ok(_) => None,
            Err(_) if !scan.chunks.is_empty() && scan.chunks.iter().all(|c| c.seq.is_none()) => {
                Some(encode_header_v1(v1_settings))
            }
            Err(_) => Some(header_for(*stream)),
        };
        if let Some(done) = repair(path, scan, replacement.as_deref())? {
            log(format!("{}: {done}", path.display()));
        }
        games += scan.game_count;
        positions += scan.positions;
        let v1 = match &scan.header {
            Ok(h) => h.version() == 1,
            Err(_) => replacement.as_deref().is_some_and(|h| h[8] == 1),
        };
        if !v1 {
            let missing = scan.missing_seqs();
            if let Some(gone) = SeqGaps::text(&missing) {
                log(format!(
                    "{}: {gone}; a stream that writes this file plays them again first",
                    path.display()
                ));
            }
            appendable.push(Stream {
                stream: *stream,
                path: path.clone(),
                next_seq: scan.next_seq(),
                missing,
            });
        }
    }

    // 3. Writers: existing streams first, then new files on unused stream numbers.
    let used: Vec<u32> = scans.iter().map(|(s, _, _)| *s).collect();
    // Files with games gone first, so that they are played again.
    appendable.sort_by_key(|s| s.missing.is_empty());
    let mut writers: Vec<Stream> = appendable.into_iter().take(threads).collect();
    let mut candidate = 0u32;
    while writers.len() < threads {
        while used.contains(&candidate) || writers.iter().any(|w| w.stream == candidate) {
            candidate += 1;
        }
        let path = dir.join(format!("games-{candidate}.bin"));
        create_file(&path, &header_for(candidate))?;
        writers.push(Stream {
            stream: candidate,
            path,
            next_seq: 0,
            missing: Vec::new(),
        });
    }
    Ok(Prepared {
        lock,
        writers,
        games,
        positions,
        files,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use movegen::Board;
    use records::record::{encode_chunk, scan, GameRecord, Wdl};

    fn temp_dir(name: &str) -> PathBuf {
        testing::temp(&format!("store-{name}"))
    }

    fn game(i: i16) -> GameRecord {
        let start = Board::startpos();
        let mv = start.parse_uci("e2e4").unwrap();
        GameRecord {
            start,
            start_eval: i,
            result: Wdl::Draw,
            moves: vec![(mv, i)],
        }
    }

    fn settings() -> GenHeader {
        GenHeader {
            generator: "test".into(),
            soft_nodes: 200,
            ..GenHeader::default()
        }
    }

    /// Writes a v2 stream file of `n` games; returns its bytes and chunk offsets.
    fn stream_file(path: &Path, n: usize) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = encode_header(&settings());
        let mut offsets = Vec::new();
        for i in 0..n {
            offsets.push(bytes.len());
            encode_chunk(&[game(i as i16)], i as u64, 0, &mut bytes);
        }
        std::fs::write(path, &bytes).unwrap();
        (bytes, offsets)
    }

    fn evals(path: &Path) -> Vec<i16> {
        scan(&std::fs::read(path).unwrap())
            .games
            .iter()
            .map(|g| g.start_eval)
            .collect()
    }

    fn quarantined(path: &Path) -> Vec<u8> {
        std::fs::read(sibling(path, ".quarantine")).unwrap_or_default()
    }

    #[test]
    fn generation_names_resolve_under_the_store() {
        let root = store_root(Some("/data/store".into()), Some("/home/u".into())).unwrap();
        assert_eq!(root, PathBuf::from("/data/store"));
        assert_eq!(
            store_root(Some("".into()), Some("/home/u".into())).unwrap(),
            PathBuf::from("/home/u/.local/share/luft")
        );
        assert_eq!(
            store_root(None, Some("/home/u".into())).unwrap(),
            PathBuf::from("/home/u/.local/share/luft")
        );
        assert!(store_root(None, None).is_err());
        assert_eq!(
            generation_in(&root, "gen4-n5000").unwrap(),
            PathBuf::from("/data/store/gen4-n5000")
        );
        for bad in ["", "../x", "a/b", ".hidden", "x y", ".."] {
            assert!(generation_in(&root, bad).is_err(), "{bad:?}");
        }
    }

    /// A format 1 file's book line kept the path given; the same book from another folder
    /// is the same setting, another book is not.
    #[test]
    fn format_1_settings_compare_books_by_file_name() {
        let text = |book: &str| format!("format=luft-games-1\nnodes=200\nbook={book}\nseed=9\n");
        let now = text("book.epd");
        assert_eq!(
            v1_comparable(&text("/old/machine/books/book.epd")),
            v1_comparable(&now)
        );
        assert_eq!(v1_comparable(&now), now);
        assert_ne!(v1_comparable(&text("/old/other.epd")), v1_comparable(&now));
        assert_ne!(v1_comparable(&text("none")), v1_comparable(&now));
    }

    #[test]
    fn a_second_lock_on_a_directory_is_refused() {
        let dir = temp_dir("lock");
        let first = DirLock::acquire(&dir).unwrap();
        assert!(DirLock::is_held(&dir));
        let err = DirLock::acquire(&dir).unwrap_err().to_string();
        assert!(
            err.contains("in use by another datagen") && err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        assert!(!DirLock::is_held(&dir));
        DirLock::acquire(&dir).unwrap();
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Fault 5a on resume: damage in the middle is moved aside, every intact game stays.
    #[test]
    fn repair_keeps_every_intact_game_and_quarantines_the_damage() {
        let dir = temp_dir("repair");
        let path = dir.join("games-0.bin");
        let (bytes, offsets) = stream_file(&path, 5);
        let mut bad = bytes.clone();
        bad[offsets[1] + 40] ^= 0xFF;
        let tail = bad.len() - 5;
        std::fs::write(&path, &bad[..tail]).unwrap();
        let s = scan(&bad[..tail]);
        assert_eq!(s.damage.len(), 2);
        let done = repair(&path, &s, None).unwrap().unwrap();
        assert!(done.contains("rebuilt with its 3 intact games"), "{done}");
        assert_eq!(evals(&path), vec![0, 2, 3]);
        assert!(scan(&std::fs::read(&path).unwrap()).is_clean());
        // The quarantine holds both damaged ranges, byte for byte, with their offsets.
        let q = quarantined(&path);
        let chunk_len = offsets[2] - offsets[1];
        assert_eq!(q.len(), 2 * 24 + chunk_len + (chunk_len - 5));
        assert_eq!(&q[..8], QUARANTINE_MAGIC);
        assert_eq!(
            u64::from_le_bytes(q[8..16].try_into().unwrap()),
            offsets[1] as u64
        );
        assert_eq!(&q[24..24 + chunk_len], &bad[offsets[1]..offsets[2]]);
        // Nothing left to do the second time.
        assert_eq!(
            repair(&path, &scan(&std::fs::read(&path).unwrap()), None).unwrap(),
            None
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A rebuild that fails on a full disk (its `.rebuild` file is `/dev/full`), tried three
    /// times, quarantines each damaged range once; a torn record is cut off before the next.
    #[test]
    fn a_failed_rebuild_does_not_quarantine_the_same_damage_again() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let dir = temp_dir("full");
        let path = dir.join("games-0.bin");
        let (bytes, offsets) = stream_file(&path, 5);
        let mut bad = bytes.clone();
        bad[offsets[1] + 40] ^= 0xFF;
        bad[offsets[3] + 40] ^= 0xFF;
        std::fs::write(&path, &bad).unwrap();
        let s = scan(&bad);
        assert_eq!(s.damage.len(), 2);
        std::os::unix::fs::symlink("/dev/full", sibling(&path, ".rebuild")).unwrap();
        for _ in 0..3 {
            let e = repair(&path, &s, None).unwrap_err();
            assert!(format!("{e:#}").contains("cannot write"), "{e:#}");
            assert_eq!(std::fs::read(&path).unwrap(), bad, "the file is left as it was");
        }
        let chunk = |i: usize| offsets[i + 1] - offsets[i];
        let q = quarantined(&path);
        assert_eq!(q.len(), 2 * 24 + chunk(1) + chunk(3), "each range once");
        let (records, whole) = quarantine_records(&sibling(&path, ".quarantine")).unwrap();
        assert_eq!(whole, q.len() as u64);
        assert_eq!(
            records.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
            [
                (offsets[1] as u64, chunk(1) as u64),
                (offsets[3] as u64, chunk(3) as u64)
            ]
        );
        // A torn record (a write cut short) is cut off, and the ranges stay once each.
        let mut torn = q.clone();
        torn.extend_from_slice(&QUARANTINE_MAGIC[..]);
        torn.extend_from_slice(&7u64.to_le_bytes());
        torn.extend_from_slice(&999u64.to_le_bytes());
        torn.extend_from_slice(b"short");
        std::fs::write(sibling(&path, ".quarantine"), &torn).unwrap();
        std::fs::remove_file(sibling(&path, ".rebuild")).unwrap();
        let done = repair(&path, &s, None).unwrap().unwrap();
        assert!(done.contains("rebuilt with its 3 intact games"), "{done}");
        assert_eq!(quarantined(&path), q);
        assert_eq!(evals(&path), vec![0, 2, 4]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_cut_last_chunk_is_moved_aside_and_the_file_cut() {
        let dir = temp_dir("cut");
        let path = dir.join("games-0.bin");
        let (bytes, offsets) = stream_file(&path, 3);
        std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
        let s = scan(&bytes[..bytes.len() - 7]);
        let done = repair(&path, &s, None).unwrap().unwrap();
        assert!(done.contains(&format!("ends at byte {}", offsets[2])), "{done}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes[..offsets[2]]);
        assert_eq!(quarantined(&path)[24..], bytes[offsets[2]..bytes.len() - 7]);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Fault 5c: an empty or cut header no longer blocks a resume; fault 5e: every stream
    /// file counts, whatever the number of threads.
    #[test]
    fn prepare_counts_every_stream_and_replaces_broken_headers() {
        let dir = temp_dir("prepare");
        stream_file(&dir.join("games-0.bin"), 3);
        stream_file(&dir.join("games-1.bin"), 2);
        let (bytes, _) = stream_file(&dir.join("games-2.bin"), 4);
        std::fs::write(dir.join("games-3.bin"), b"").unwrap();
        std::fs::write(dir.join("games-4.bin"), &bytes[..10]).unwrap();
        std::fs::write(dir.join("games-5.bin.tmp"), &bytes[..10]).unwrap();
        // Not a stream's canonical name: left alone (it would alias stream 1).
        stream_file(&dir.join("games-01.bin"), 2);
        let mut lines = Vec::new();
        let p = prepare(&dir, &settings(), "", 1, |l| lines.push(l)).unwrap();
        assert_eq!((p.games, p.positions, p.files), (9, 9, 5));
        assert_eq!(
            p.writers,
            vec![Stream {
                stream: 0,
                path: dir.join("games-0.bin"),
                next_seq: 3,
                missing: Vec::new(),
            }]
        );
        for n in [3, 4] {
            let s = scan(&std::fs::read(dir.join(format!("games-{n}.bin"))).unwrap());
            assert!(s.is_clean(), "{:?}", s.report());
            assert!(matches!(s.header, Ok(Header::V3(ref h)) if h.stream == n));
        }
        let mut expected = QUARANTINE_MAGIC.to_vec();
        expected.extend_from_slice(&0u64.to_le_bytes());
        expected.extend_from_slice(&10u64.to_le_bytes());
        expected.extend_from_slice(&bytes[..10]);
        assert_eq!(quarantined(&dir.join("games-4.bin")), expected);
        assert!(!dir.join("games-3.bin.quarantine").exists());
        assert!(!dir.join("games-5.bin.tmp").exists());
        assert!(
            lines
                .iter()
                .any(|l| l.contains("games-4.bin") && l.contains("truncated header")),
            "{lines:?}"
        );
        drop(p);
        // More threads than streams: new files on unused numbers.
        let p = prepare(&dir, &settings(), "", 7, |_| {}).unwrap();
        let streams: Vec<u32> = p.writers.iter().map(|w| w.stream).collect();
        assert_eq!(streams, vec![0, 1, 2, 3, 4, 5, 6]);
        assert!(dir.join("games-6.bin").exists());
        drop(p);
        // Another generator version resumes the run, and says so.
        let mut newer = settings();
        newer.generator = "test 2".into();
        let mut lines = Vec::new();
        let p = prepare(&dir, &newer, "", 1, |l| lines.push(l)).unwrap();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("written by test, resumed by test 2")),
            "{lines:?}"
        );
        drop(p);
        // Other settings are refused, naming the difference.
        let mut other = settings();
        other.soft_nodes = 300;
        let err = prepare(&dir, &other, "", 1, |_| {}).unwrap_err().to_string();
        assert!(
            err.contains("other settings") && err.contains("nodes=200"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

//! `output`: where Luft's tools write, by one set of rules for every tool.
//!
//! **Files.** Every file a tool writes as its output (`trainer export`, the trainer's
//! checkpoint, net, CSV and plots, `datagen convert` and `pack`, arena's state file and
//! SPRT plot, `learn`'s exported nets and report) goes through [`OutFile`] (or [`write()`]
//! for bytes already in memory), which looks at what the path is before writing:
//! - a regular file, or a path where nothing is yet: replaced atomically. The bytes go to
//!   `<name>.partial` beside it, are synced, and the partial file is renamed over the path
//!   (keeping the replaced file's permissions), so a reader sees the old file or the new
//!   one, never half of one; an error leaves the old file and no partial file.
//! - a symbolic link: followed to its final target, which is replaced as above; the link
//!   stays a link.
//! - anything else (a character or block device such as `/dev/null`, a FIFO): written
//!   through, opened for writing where it is, never created, renamed over or removed.
//! - a directory is refused, and so is a path whose directory does not exist, naming that
//!   directory (never the partial file).
//! - an output that is one of the command's inputs (the same file by device and inode,
//!   through any link) is refused before anything is written, as is one whose partial file
//!   would be an input ([`refuse_inputs`]). [`same_file`] holds that comparison, and the
//!   one for two outputs of a command (arena's), where a device takes any number of writers.
//!
//! **Interrupted.** The partial files of the [`OutFile`]s being written (and any partial
//! directory a tool registers with [`register_partial`], `datagen unpack`'s) are kept in a
//! process-wide list, so that a Ctrl-C handler can remove them before the process ends
//! ([`remove_partials`]): a stopped command leaves the old output, or none, and nothing
//! half-written beside it.
//!
//! **Standard output.** Rust ignores SIGPIPE, so a write to a closed pipe (`datagen stats |
//! head -1`) is an error, on which `println!` panics. Every binary prints through
//! [`outln!`] and [`out!`] (or [`line()`]) instead: a closed pipe ends the program at once,
//! quietly, with the status a shell shows for a tool that SIGPIPE ended
//! ([`CLOSED_PIPE_STATUS`], 141); any other error writing standard output (a full disk
//! behind `> file`) is reported on stderr and ends the program with status 1. Standard error
//! goes through [`errln!`] and [`err!`]: a closed standard error is no reason to stop a run,
//! so what cannot be written there is dropped. SIGPIPE stays
//! ignored rather than reset to its default because arena writes to engines' pipes: an
//! engine that died must be an error to arena, not the death of the match.
//!
//! It is a crate of its own, without dependencies, because every binary of the workspace
//! needs it (the engine too, for its UCI output) and none of the shared crates fits:
//! `progress` pulls in a terminal library the engine has no use for, and `movegen` is the
//! chess core without dependencies (its `perft` binary keeps the same stdout rule in a few
//! lines of its own).
//!
//! **Checksum.** Being the crate every other one depends on, it also holds the workspace's
//! one FNV-1a 64 ([`checksum`]), which net files, data files, packs, the corpus manifest,
//! checkpoints and `learn`'s journal share.

#![warn(missing_docs)]

pub mod checksum;

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};

/// Added to a file's name for the file written before the rename (`net.nnue.partial`).
pub const PARTIAL_SUFFIX: &str = ".partial";

/// The exit status of a program whose standard output was closed (128 + SIGPIPE, what a
/// shell reports for a C tool that SIGPIPE ended).
pub const CLOSED_PIPE_STATUS: i32 = 141;

/// How a write reaches its path (see the module notes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// A regular file, or nothing yet: `partial` is written, synced and renamed over
    /// `target` (the path with its symbolic links followed).
    Replace {
        /// Where the file ends up.
        target: PathBuf,
        /// Where it is written first.
        partial: PathBuf,
    },
    /// A device, a FIFO or another special file, written where it is.
    Through {
        /// The file (the path with its symbolic links followed).
        target: PathBuf,
    },
}

impl Plan {
    /// The file the bytes end up in.
    pub fn target(&self) -> &Path {
        match self {
            Plan::Replace { target, .. } | Plan::Through { target } => target,
        }
    }
}

fn error(kind: ErrorKind, message: String) -> io::Error {
    io::Error::new(kind, message)
}

/// `path` with [`PARTIAL_SUFFIX`] added to its file name.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(PARTIAL_SUFFIX);
    path.with_file_name(name)
}

/// The final target of the symbolic links at `path` (the path itself when it is none, and
/// the target of a link that points nowhere yet): what is written in place of `path`, for a
/// tool that writes a directory.
pub fn final_target(path: &Path) -> io::Result<PathBuf> {
    follow_links(path).map_err(|e| error(e.kind(), format!("cannot write {}: {e}", path.display())))
}

fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(current)
            }
            Err(e) => return Err(e),
        }
    }
    Err(error(
        ErrorKind::Other,
        "too many levels of symbolic links".to_string(),
    ))
}

/// The directory `path` is in (`.` for a bare file name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// How a write to `path` would go (see the module notes), without writing anything.
/// Errors, each naming the path as given: a directory, a directory that does not exist
/// (named), a link that cannot be read.
pub fn plan(path: &Path) -> io::Result<Plan> {
    let shown = path.display();
    let text = path.as_os_str().to_string_lossy();
    if text.is_empty() {
        return Err(error(ErrorKind::InvalidInput, "no file name given".into()));
    }
    // `dir/`, `.`, `..`: a directory, whether there is one or not.
    if text.ends_with(std::path::is_separator) || path.file_name().is_none() {
        return Err(if path.is_dir() {
            error(
                ErrorKind::IsADirectory,
                format!("{shown} is a directory, not a file to write"),
            )
        } else {
            error(
                ErrorKind::NotFound,
                format!("cannot write {shown}: the directory {shown} does not exist (and a file name in it is needed)"),
            )
        });
    }
    let target = follow_links(path).map_err(|e| error(e.kind(), format!("cannot write {shown}: {e}")))?;
    match std::fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_dir() => Err(error(
            ErrorKind::IsADirectory,
            format!("{shown} is a directory, not a file to write"),
        )),
        Ok(meta) if meta.is_file() => Ok(Plan::Replace {
            partial: partial_path(&target),
            target,
        }),
        Ok(_) => Ok(Plan::Through { target }),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            let dir = parent_of(&target);
            match std::fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => Ok(Plan::Replace {
                    partial: partial_path(&target),
                    target,
                }),
                Ok(_) => Err(error(
                    ErrorKind::NotADirectory,
                    format!("cannot write {shown}: {} is not a directory", dir.display()),
                )),
                Err(e) if e.kind() == ErrorKind::NotFound => Err(error(
                    ErrorKind::NotFound,
                    format!(
                        "cannot write {shown}: the directory {} does not exist",
                        dir.display()
                    ),
                )),
                Err(e) => Err(error(
                    e.kind(),
                    format!("cannot write {shown}: {}: {e}", dir.display()),
                )),
            }
        }
        Err(e) => Err(error(e.kind(), format!("cannot write {shown}: {e}"))),
    }
}

/// Which paths [`same_file`] counts as one file: the rule for an output checked against an
/// input, or for two outputs checked against each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// An output against an input ([`refuse_inputs`]): two paths that are there, of any kind
    /// (a regular file, a device such as `/dev/null`, a FIFO, a directory), and are one file
    /// by device and inode. A path that is not there is no input, so never the same.
    InputAndOutput,
    /// Two outputs, which may not be there yet: two regular files that are one by device
    /// and inode, or, when the two are not both there, one path once made absolute (the
    /// same path as given where one cannot be made absolute). A device or a FIFO is never
    /// the same as anything: it takes any number of writers.
    TwoOutputs,
}

/// Whether `a` and `b` name one file, by the rule of `compare`. Either path may be a
/// symbolic link (followed to its final target) or a hard link to the other; two paths that
/// are both there are one file by device and inode (on Unix; elsewhere by their canonical
/// paths). Takes the two paths and the rule; returns true when they are one file. Has no
/// error: a path whose metadata cannot be read (not there, a dangling link, no permission)
/// counts as a path that is not there.
pub fn same_file(a: &Path, b: &Path, compare: Compare) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => match compare {
            Compare::InputAndOutput => one_file(a, &x, b, &y),
            Compare::TwoOutputs => x.is_file() && one_file(a, &x, b, &y),
        },
        _ => match compare {
            Compare::InputAndOutput => false,
            Compare::TwoOutputs => match (std::path::absolute(a), std::path::absolute(b)) {
                (Ok(x), Ok(y)) => x == y,
                _ => a == b,
            },
        },
    }
}

/// Whether `a` (of metadata `x`) and `b` (of metadata `y`), both there, are one file: the
/// same device and inode.
#[cfg(unix)]
fn one_file(_a: &Path, x: &std::fs::Metadata, _b: &Path, y: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    x.dev() == y.dev() && x.ino() == y.ino()
}

/// Whether `a` and `b`, both there, are one file: the same canonical path (no inodes to
/// compare here).
#[cfg(not(unix))]
fn one_file(a: &Path, _x: &std::fs::Metadata, b: &Path, _y: &std::fs::Metadata) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn check_inputs(path: &Path, plan: &Plan, inputs: &[&Path]) -> io::Result<()> {
    let partial = match plan {
        Plan::Replace { partial, .. } => Some(partial.as_path()),
        Plan::Through { .. } => None,
    };
    for input in inputs {
        if same_file(plan.target(), input, Compare::InputAndOutput) {
            return Err(error(
                ErrorKind::AlreadyExists,
                format!(
                    "refusing to write {}: it is one of the inputs ({}); give another file",
                    path.display(),
                    input.display()
                ),
            ));
        }
        if let Some(partial) = partial.filter(|p| same_file(p, input, Compare::InputAndOutput)) {
            return Err(error(
                ErrorKind::AlreadyExists,
                format!(
                    "refusing to write {}: it is written first to {}, which is the input {}",
                    path.display(),
                    partial.display(),
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses `path` as an output when it is one of `inputs` (or its partial file is), and
/// only then; writes nothing. For a command that writes `path` later (or many times), in a
/// directory it may still have to make, and should fail before it starts.
pub fn refuse_inputs(path: &Path, inputs: &[&Path]) -> io::Result<()> {
    let plan = match plan(path) {
        Ok(plan) => plan,
        // Not a file to write (yet): then it is none of the inputs either.
        Err(_) => return Ok(()),
    };
    check_inputs(path, &plan, inputs)
}

/// The partial files and directories being written now (see the module notes).
static PARTIALS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn partials() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic elsewhere while the list was held leaves it usable.
    PARTIALS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Adds `path` (a partial file or directory this process is writing) to the list
/// [`remove_partials`] removes; [`OutFile`] registers its own partial file.
pub fn register_partial(path: &Path) {
    partials().push(path.to_path_buf());
}

/// Takes `path` off the list (it was renamed into place, or removed).
pub fn unregister_partial(path: &Path) {
    let mut list = partials();
    if let Some(i) = list.iter().position(|p| p == path) {
        list.swap_remove(i);
    }
}

/// Renames the registered partial file or directory `partial` to `target` and takes it off
/// the list, under the list's lock: an interrupt removes it before the rename, or finds it
/// renamed.
///
/// # Errors
/// The rename's (the partial stays registered).
pub fn rename_partial(partial: &Path, target: &Path) -> io::Result<()> {
    let mut list = partials();
    std::fs::rename(partial, target)?;
    if let Some(i) = list.iter().position(|p| p == partial) {
        list.swap_remove(i);
    }
    Ok(())
}

/// Removes every registered partial file and directory (for a Ctrl-C handler, just before
/// the process exits); returns those that were there. The list stays held, so no write
/// registers or renames one meanwhile.
pub fn remove_partials() -> Vec<PathBuf> {
    let mut list = partials();
    let mut removed = Vec::new();
    for path in list.drain(..) {
        let gone = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path).is_ok(),
            Ok(_) => std::fs::remove_file(&path).is_ok(),
            Err(_) => false,
        };
        if gone {
            removed.push(path);
        }
    }
    // Held until the process exits: a rename or a new partial file would race the exit.
    std::mem::forget(list);
    removed
}

/// An output file being written (see the module notes): [`Write`] into it, then
/// [`OutFile::finish`]. Dropped unfinished, a replacement leaves the old file as it was and
/// no partial file. Every error it returns names the path as given.
#[derive(Debug)]
pub struct OutFile {
    shown: PathBuf,
    plan: Plan,
    file: Option<File>,
    finished: bool,
}

impl OutFile {
    /// Starts writing `path`, refusing it when it is one of `inputs` (see the module notes
    /// for what happens to each kind of path).
    pub fn create(path: &Path, inputs: &[&Path]) -> io::Result<OutFile> {
        let plan = plan(path)?;
        check_inputs(path, &plan, inputs)?;
        let context = |e: io::Error| error(e.kind(), format!("cannot write {}: {e}", path.display()));
        let file = match &plan {
            Plan::Replace { target, partial } => {
                // What a killed run left at the partial name goes first (a link too, so
                // that the new file is never written through one).
                match std::fs::remove_file(partial) {
                    Ok(()) => {}
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => {
                        return Err(error(
                            e.kind(),
                            format!(
                                "cannot write {}: cannot remove {}: {e}",
                                path.display(),
                                partial.display()
                            ),
                        ))
                    }
                }
                let file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(partial)
                    .map_err(context)?;
                register_partial(partial);
                if let Ok(meta) = std::fs::metadata(target) {
                    // Best effort: a file system without permissions keeps its default.
                    let _ = file.set_permissions(meta.permissions());
                }
                file
            }
            Plan::Through { target } => OpenOptions::new().write(true).open(target).map_err(context)?,
        };
        Ok(OutFile {
            shown: path.to_path_buf(),
            plan,
            file: Some(file),
            finished: false,
        })
    }

    /// How this file is being written.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    fn context(&self, e: io::Error) -> io::Error {
        error(e.kind(), format!("cannot write {}: {e}", self.shown.display()))
    }

    fn file(&mut self) -> io::Result<&mut File> {
        match self.file.as_mut() {
            Some(file) => Ok(file),
            None => Err(error(
                ErrorKind::Other,
                format!("cannot write {}: already finished", self.shown.display()),
            )),
        }
    }

    /// Ends the write: a replacement is synced and renamed into place (then its directory
    /// is synced, as far as the file system allows); a write-through is flushed.
    pub fn finish(mut self) -> io::Result<()> {
        let Some(mut file) = self.file.take() else {
            return Err(error(
                ErrorKind::Other,
                format!("cannot write {}: already finished", self.shown.display()),
            ));
        };
        match &self.plan {
            Plan::Replace { target, partial } => {
                file.sync_all().map_err(|e| self.context(e))?;
                drop(file);
                rename_partial(partial, target).map_err(|e| self.context(e))?;
                self.finished = true;
                // The rename is done: a directory that cannot be synced only loses
                // durability across a crash, so it is not an error.
                if let Ok(dir) = File::open(parent_of(target)) {
                    let _ = dir.sync_all();
                }
                Ok(())
            }
            Plan::Through { .. } => {
                self.finished = true;
                file.flush().map_err(|e| self.context(e))
            }
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.file()?.write(buf);
        result.map_err(|e| self.context(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.file()?.flush();
        result.map_err(|e| self.context(e))
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        drop(self.file.take());
        if let (false, Plan::Replace { partial, .. }) = (self.finished, &self.plan) {
            let _ = std::fs::remove_file(partial);
            unregister_partial(partial);
        }
    }
}

/// Writes `bytes` to `path` by the rules of the module notes, refusing it when it is one of
/// `inputs`.
pub fn write(path: &Path, inputs: &[&Path], bytes: &[u8]) -> io::Result<()> {
    let mut file = OutFile::create(path, inputs)?;
    file.write_all(bytes)?;
    file.finish()
}

/// What [`is_plain_name`] accepts, in words, for errors.
pub const PLAIN_NAME: &str = "ASCII letters, digits, '.', '_' and '-', not starting with '.'";

/// `n` and a noun, the noun with an `s` unless `n` is 1: `count(1, "thread")` is
/// `"1 thread"`, `count(3, "segment")` `"3 segments"` (the tools' progress lines).
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Days since 1970-01-01 as a UTC (year, month, day) of the proleptic Gregorian calendar:
/// Howard Hinnant's civil-from-days (400-year eras of 146,097 days, years starting in
/// March). The one date conversion of the tools' outputs (PGN dates, journal times, the
/// corpus manifest's dates).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// The days of month `month` (1 to 12) of `year` in the proleptic Gregorian calendar (28 to
/// 31: February has 29 in a year divisible by 4, except by 100 unless by 400); `None` for a
/// month that is not 1 to 12. With [`civil_from_days`], the one calendar of the tools.
pub fn days_in_month(year: i64, month: i64) -> Option<i64> {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 if leap => Some(29),
        2 => Some(28),
        _ => None,
    }
}

/// Whether `name` names a file or directory a tool makes inside a directory of its own
/// (`datagen --gen NAME` in the data store, `learn init --name NAME` in a run's `nets/`): one
/// or more ASCII letters, digits, `.`, `_` and `-`, not starting with `.`. So it is never a
/// path (no separator, not `..`), never hidden, and the same on every file system.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// What to do when writing standard output failed: a closed pipe ends the program at once
/// with [`CLOSED_PIPE_STATUS`] and no message; any other error is reported on stderr and
/// ends it with status 1.
pub fn stdout_failed(e: &io::Error) -> ! {
    if e.kind() == ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_PIPE_STATUS);
    }
    let program = std::env::args_os()
        .next()
        .map(PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "error".into());
    eprintln!("{program}: error: cannot write to standard output: {e}");
    std::process::exit(1)
}

/// Writes `args` to standard output and flushes it (see [`stdout_failed`] for errors).
/// What [`out!`] calls.
pub fn print_stdout(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    let result = out.write_fmt(args).and_then(|()| out.flush());
    drop(out);
    if let Err(e) = result {
        stdout_failed(&e);
    }
}

/// Writes `args` and a newline to standard output (see [`stdout_failed`] for errors).
/// What [`outln!`] calls.
pub fn print_line(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    let result = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
    drop(out);
    if let Err(e) = result {
        stdout_failed(&e);
    }
}

/// Writes `text` and a newline to standard output at once, flushed (see [`stdout_failed`]
/// for errors): a whole protocol line (the engine's UCI output).
pub fn line(text: &str) {
    let mut out = io::stdout().lock();
    let result = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    drop(out);
    if let Err(e) = result {
        stdout_failed(&e);
    }
}

/// `println!` for Luft's binaries: a closed standard output ends the program quietly
/// ([`stdout_failed`]) instead of a panic.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::print_line(format_args!($($arg)*))
    };
}

/// `print!` for Luft's binaries (flushed): a closed standard output ends the program
/// quietly ([`stdout_failed`]) instead of a panic.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::print_stdout(format_args!($($arg)*))
    };
}

/// Writes `args` to standard error, then a newline when `newline` is set (for [`errln!`]) or
/// a flush when it is not (for [`err!`]), ignoring any error: what `eprintln!` and `eprint!`
/// do, except that a closed or full standard error (`tool 2>&1 | head -3` once `head` is
/// done) neither panics nor stops the work; the tool goes on and its messages are lost.
/// Returns nothing and has no error to report. Public for the two macros.
#[doc(hidden)]
pub fn print_err(args: fmt::Arguments<'_>, newline: bool) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| {
        if newline {
            err.write_all(b"\n")
        } else {
            err.flush()
        }
    });
}

/// `eprintln!` for Luft's binaries: a closed standard error is no panic and no stop (a
/// message nobody can read is dropped), so a training or self-play run piped through
/// `head` keeps working.
#[macro_export]
macro_rules! errln {
    () => {
        $crate::print_err(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::print_err(format_args!($($arg)*), true)
    };
}

/// `eprint!` for Luft's binaries (flushed), with [`errln!`]'s rule for a closed standard
/// error.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::print_err(format_args!($($arg)*), false)
    };
}

/// A pipe nobody reads, to give a child as its standard output in tests of what a program
/// does when its output goes nowhere (`cmd | head -1` once `head` is done): every write to
/// it fails with a broken pipe.
///
/// The reading end is dropped at once, but a process that another thread forks at that
/// moment holds a copy of it until it execs; a program given the pipe then would write
/// successfully. So the pipe is probed with a one-byte write of its own, and only a pipe
/// whose probe fails with `BrokenPipe` is handed out (a fresh one is made otherwise, up to
/// 200 tries 5 ms apart). Errors: the pipe cannot be made, or no try gave a closed pipe.
pub fn closed_pipe() -> io::Result<std::process::Stdio> {
    for _ in 0..200 {
        let (reader, mut writer) = std::io::pipe()?;
        drop(reader);
        match writer.write(b"\n") {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {
                return Ok(std::process::Stdio::from(writer));
            }
            Err(e) => return Err(e),
            Ok(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
    }
    Err(error(
        ErrorKind::Other,
        "every pipe made still had a reader (another process held its reading end)".into(),
    ))
}

/// What was wrong, if anything, with how a program ended when its standard output was a
/// [`closed_pipe`]: it must exit with [`CLOSED_PIPE_STATUS`] and print neither a panic nor
/// the broken pipe on stderr. `None` when it ended quietly; otherwise the exit code and
/// stderr, for the test's message. The one check behind every binary's closed-stdout test.
pub fn closed_stdout_fault(out: &std::process::Output) -> Option<String> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let quiet = out.status.code() == Some(CLOSED_PIPE_STATUS)
        && !stderr.contains("panicked")
        && !stderr.contains("Broken pipe");
    (!quiet).then(|| {
        format!(
            "exit {:?} (not {CLOSED_PIPE_STATUS}), stderr: {stderr}",
            out.status.code()
        )
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn counts_take_the_plural_except_for_one() {
        assert_eq!(crate::count(1, "thread"), "1 thread");
        assert_eq!(crate::count(0, "segment"), "0 segments");
        assert_eq!(crate::count(3, "game"), "3 games");
    }

    #[test]
    fn civil_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(-1), (1969, 12, 31));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(super::civil_from_days(20_793), (2026, 12, 6));
    }
    use super::is_plain_name;

    #[test]
    fn plain_names_are_names_never_paths() {
        for good in ["gen4-n5000", "gen1-32.b_2", "A", "x..y"] {
            assert!(is_plain_name(good), "{good:?}");
        }
        for bad in ["", ".", "..", "../x", "a/b", "a\\b", ".hidden", "x y", "é", "a:b"] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
    }
}

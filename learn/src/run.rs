//! `learn init` and `learn run`: the loop itself. Self-play (`datagen`) plays in segments, one
//! datagen directory each, always with the best net; once enough finished segments have
//! arrived, a candidate is trained (`trainer train`, fine-tuned from the best net on all kept
//! data, `--epochs` so the schedule grows with the data), exported, and gated by an `arena`
//! SPRT against the best net on the same binary; H1 promotes it, H0 or the game cap rejects
//! it. Self-play goes on while a candidate trains or plays its gate, with
//! `[selfplay] threads_busy` threads, and with `threads_idle` otherwise.
//!
//! Every step is a journal record written before it is acted on ([`crate::journal`]), and
//! each tool resumes itself: datagen from its directory, the trainer from its checkpoint,
//! arena from its saved state (`-config file=`), whose counts the gate's verdict is read
//! from. The children run in process groups of their own and get SIGINT if `learn` dies
//! (`PR_SET_PDEATHSIG`), so a terminal's Ctrl-C reaches `learn` alone: it stops its children
//! itself, each saving its state, and a later `learn run` goes on where it was. One run per
//! directory: `DIR/lock`.

use crate::config::Settings;
use crate::journal::{now, DataSlice, GateResult, Journal, Record, Stage, State};
use anyhow::{anyhow, bail, Context, Result};
use movegen::openings::StartPositions;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trainer::status::RunStatus;

/// The trainer's command line of a candidate started from scratch, as JSON, in its
/// directory (`DIR/candidates/cK/command.json`): what `learn report` gives as its provenance.
pub const COMMAND_FILE: &str = "command.json";

/// How often the loop looks at its children.
const POLL: Duration = Duration::from_millis(200);

/// How long a child has to stop after SIGINT before it is killed.
const STOP_WAIT: Duration = Duration::from_secs(120);

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
    /// The gate book written at init.
    pub fn book(&self) -> PathBuf {
        self.root.join(Self::BOOK)
    }
}

/// The architecture of the next candidate: `[train] arch` when set, otherwise the best
/// net's (its feature set, mirroring, king buckets, hidden layers and quantisation) with
/// `[train] hidden` and `buckets` applied (0 keeps the best net's); the trainer gets it
/// whole (`--arch`).
fn candidate_arch(best: &nnue::Network, t: &crate::config::Train) -> Result<nnue::Arch> {
    if !t.arch.trim().is_empty() {
        return t
            .arch
            .parse::<nnue::Arch>()
            .map_err(|e| anyhow!("[train] arch {:?}: {e}", t.arch));
    }
    let mut arch = best.arch();
    if t.hidden != 0 {
        arch.width = t.hidden;
    }
    if t.buckets != 0 {
        arch.output_buckets = t.buckets;
    }
    Ok(arch)
}

/// Whether `trainer train --init` can start a net of `target` from one of `from`: the same
/// width, activation, layers, output buckets, quantisation and mirroring, with the same king
/// buckets or more of them from none (the plain rows are copied into every bucket).
fn can_grow_into(from: &nnue::Arch, target: &nnue::Arch) -> bool {
    let (a, b) = (&from.features, &target.features);
    from.width == target.width
        && from.activation == target.activation
        && from.layers == target.layers
        && from.output_buckets == target.output_buckets
        && from.quantisation == target.quantisation
        && a.is_mirrored() == b.is_mirrored()
        && (a == b || a.king_buckets_count() == 1)
}

/// Whether two net files have one architecture (so one speed, and a gate at fixed nodes is
/// fair); a file that does not load counts as different.
fn same_architecture(a: &Path, b: &Path) -> bool {
    match (nnue::Network::load(a), nnue::Network::load(b)) {
        (Ok(x), Ok(y)) => x.arch() == y.arch(),
        _ => false,
    }
}

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
    // Then written as given when absolute, a relative one made relative to the run
    // directory, where the settings' paths are read from.
    settings.train.extra_data = extra_data
        .iter()
        .map(|p| {
            if p.is_absolute() {
                Ok(p.clone())
            } else {
                Ok(relative_path(&run.root, &std::path::absolute(p)?))
            }
        })
        .collect::<Result<_>>()?;
    std::fs::create_dir_all(run.nets()).with_context(|| format!("cannot create {}", run.nets().display()))?;
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

/// The tools a run drives.
#[derive(Clone, Debug)]
struct ToolPaths {
    luft: PathBuf,
    datagen: PathBuf,
    trainer: PathBuf,
    arena: PathBuf,
}

/// The tools of `settings`, whose relative `[tools]` paths are read from `base` (the settings
/// file's directory). Errors: a tool that is not there.
fn tool_paths(settings: &Settings, base: &Path) -> Result<ToolPaths> {
    let here = std::env::current_exe()?
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| anyhow!("learn's own directory is unknown"))?;
    let pick = |set: &Path, name: &str| -> Result<PathBuf> {
        let p = if set.as_os_str().is_empty() {
            here.join(name)
        } else {
            crate::config::resolve(base, set)
        };
        if !p.exists() {
            bail!(
                "{} not found: build the workspace (`cargo build --release`) or set [tools] {name} in learn.toml",
                p.display()
            );
        }
        Ok(std::path::absolute(&p)?)
    };
    let t = &settings.tools;
    Ok(ToolPaths {
        luft: pick(&t.luft, "luft")?,
        datagen: pick(&t.datagen, "datagen")?,
        trainer: pick(&t.trainer, "trainer")?,
        arena: pick(&t.arena, "arena")?,
    })
}

/// A child process the loop runs.
#[derive(Debug)]
struct Running {
    child: Child,
    /// Segment index or candidate number.
    tag: u64,
    /// datagen threads.
    threads: usize,
    started: Instant,
    /// Set once the loop asked it to stop.
    stopping: bool,
}

/// Starts `program` in `cwd` (the run directory, which the run's relative paths are read
/// from) in a process group of its own, with SIGINT when `learn` dies, its output appended
/// to `log`.
fn spawn(program: &Path, args: &[String], cwd: &Path, log: &Path) -> Result<Child> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("cannot open {}", log.display()))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe and changes only the child.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT);
                Ok(())
            });
        }
    }
    command
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))
}

/// Waits for the children of an earlier `learn run` of this directory (listed in
/// `DIR/lock.children`) to exit: a run killed with `kill -9` left them SIGINT (by
/// `PR_SET_PDEATHSIG`), and each is saving its state; a new child on the same files must
/// not start before. A listed process counts only while it runs the listed program on this
/// run: in `root` (children run in the run directory) or, a child of the code before
/// 2026-12-06, with `root` on its command line; so a copy of a directory whose run is
/// going on does not wait for that run's children. Gives up on a child after
/// [`STOP_WAIT`].
fn wait_for_orphans(list: &Path, root: &Path) {
    let text = std::fs::read_to_string(list).unwrap_or_default();
    let deadline = Instant::now() + STOP_WAIT;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let ours = |pid: &str, exe: &str| -> bool {
        let proc = Path::new("/proc").join(pid);
        if !std::fs::read_link(proc.join("exe")).is_ok_and(|p| p.to_string_lossy().starts_with(exe)) {
            return false;
        }
        if std::fs::read_link(proc.join("cwd")).is_ok_and(|cwd| cwd == root) {
            return true;
        }
        let cmdline = std::fs::read(proc.join("cmdline")).unwrap_or_default();
        let needle = root.as_os_str().as_encoded_bytes();
        !needle.is_empty() && cmdline.windows(needle.len()).any(|w| w == needle)
    };
    for line in text.lines() {
        let Some((pid, exe)) = line.split_once(' ') else {
            continue;
        };
        while ours(pid, exe) {
            if Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let _ = std::fs::remove_file(list);
}

/// Sends SIGINT to a child (each tool saves its state on it).
fn interrupt(child: &Child) {
    #[cfg(unix)]
    // SAFETY: kill with a child's own pid and a valid signal.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
}

/// The data files (`*.bin` under a directory) or the one file (a data file or a pack) at
/// `path` (relative to `root`, the run directory, or absolute), each with its games,
/// positions and length, named as `path` is (relative, or absolute): through
/// `nnue::source`, the one reader of data files and packs. Nothing when `path` is not there
/// (a segment whose datagen has not started). Errors: a file that cannot be read.
pub fn scan_data(root: &Path, path: &Path) -> Result<Vec<DataSlice>> {
    let full = crate::config::resolve(root, path);
    if !full.exists() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut files = nnue::record::data_files(&full).with_context(|| format!("{}", full.display()))?;
    files.sort();
    for file in files {
        let named = match file.strip_prefix(&full) {
            Ok(rest) if !rest.as_os_str().is_empty() => path.join(rest),
            _ => path.to_path_buf(),
        };
        let mut source = nnue::source::DataSource::open(&file)
            .with_context(|| format!("cannot open {}", file.display()))?;
        let (mut games, mut positions) = (0u64, 0u64);
        while let Some(item) = source
            .next_item()
            .with_context(|| format!("cannot read {}", file.display()))?
        {
            if let nnue::source::SourceItem::Chunk { chunk, .. } = item {
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

/// When the run ends by itself.
#[derive(Clone, Copy, Debug)]
pub enum Until {
    /// Until stopped.
    Stopped,
    /// At this instant.
    At(Instant),
    /// Once this many candidates (in all, this run and earlier ones) are decided.
    Candidates(usize),
}

/// The loop over one run directory.
#[derive(Debug)]
pub struct Runner {
    run: RunDir,
    settings: Settings,
    settings_text: String,
    tools: ToolPaths,
    journal: Journal,
    records: Vec<Record>,
    state: State,
    selfplay: Option<Running>,
    trainer: Option<Running>,
    gate: Option<Running>,
    gauntlet: Option<Running>,
    failures: u32,
    /// Segments whose packing failed in this process (not tried again until a restart).
    pack_failed: Vec<u64>,
    stop: Arc<AtomicBool>,
    until: Until,
    _lock: File,
}

fn say(text: &str) {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (h, m, s) = ((t / 3600) % 24, (t / 60) % 60, t % 60);
    output::outln!("[{h:02}:{m:02}:{s:02}] {text}");
}

impl Runner {
    /// Opens the run directory: takes its lock, reads settings and journal.
    pub fn open(dir: &Path, stop: Arc<AtomicBool>, until: Until) -> Result<Runner> {
        let run = RunDir::new(dir)?;
        if !run.journal().exists() {
            bail!(
                "{} holds no run: start one with `learn init {} --net NET`",
                dir.display(),
                dir.display()
            );
        }
        let lock_path = run.root.join("lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .read(true)
            .open(&lock_path)
            .with_context(|| format!("cannot open {}", lock_path.display()))?;
        match fs4::FileExt::try_lock(&lock) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                let pid = std::fs::read_to_string(run.root.join("lock.pid")).unwrap_or_default();
                bail!(
                    "another `learn run` holds {} (pid {}): one run per directory",
                    dir.display(),
                    pid.trim()
                );
            }
            Err(fs4::TryLockError::Error(e)) => return Err(e).context("cannot lock the run directory"),
        }
        std::fs::write(run.root.join("lock.pid"), std::process::id().to_string())?;
        wait_for_orphans(&run.root.join("lock.children"), &run.root);
        let settings_text = std::fs::read_to_string(run.settings()).unwrap_or_default();
        let settings = Settings::load(&run.settings())?;
        let tools = tool_paths(&settings, &run.root)?;
        let (journal, records) = Journal::open(&run.journal())?;
        let state = State::replay(&records);
        if state.best.is_none() {
            bail!("{}: the journal has no start net", run.journal().display());
        }
        let mut runner = Runner {
            run,
            settings,
            settings_text,
            tools,
            journal,
            records,
            state,
            selfplay: None,
            trainer: None,
            gate: None,
            gauntlet: None,
            failures: 0,
            pack_failed: Vec::new(),
            stop,
            until,
            _lock: lock,
        };
        // The settings as first read, and any change since the last run read them.
        let last: Option<Settings> = runner
            .records
            .iter()
            .rev()
            .find_map(|r| match r {
                Record::Settings { .. } => Some(()),
                _ => None,
            })
            .and_then(|_| runner.last_settings());
        match last {
            None => {
                let r = Record::Settings {
                    t: now(),
                    changes: vec!["settings as first read".into()],
                };
                runner.record(r)?;
                runner.save_settings_snapshot()?;
            }
            Some(old) => {
                let changes = old.changes(&runner.settings);
                if !changes.is_empty() {
                    runner.record(Record::Settings { t: now(), changes })?;
                    runner.save_settings_snapshot()?;
                }
            }
        }
        Ok(runner)
    }

    /// [`spawn`], and the child listed in `DIR/lock.children` for a later run to wait on.
    fn spawn_child(&self, program: &Path, args: &[String], log: &Path) -> Result<Child> {
        let child = spawn(program, args, &self.run.root, log)?;
        let exe = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
        let mut list = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.run.root.join("lock.children"))?;
        std::io::Write::write_all(
            &mut list,
            format!("{} {}\n", child.id(), exe.display()).as_bytes(),
        )?;
        Ok(child)
    }

    fn last_settings(&self) -> Option<Settings> {
        let text = std::fs::read_to_string(self.run.root.join("logs/settings.applied.toml")).ok()?;
        toml::from_str(&text).ok()
    }

    fn save_settings_snapshot(&self) -> Result<()> {
        std::fs::create_dir_all(self.run.logs())?;
        std::fs::write(
            self.run.logs().join("settings.applied.toml"),
            self.settings.to_toml()?,
        )?;
        Ok(())
    }

    fn record(&mut self, r: Record) -> Result<()> {
        self.journal.append(&r)?;
        self.records.push(r);
        self.state = State::replay(&self.records);
        Ok(())
    }

    /// Runs until stopped, or until `until`.
    pub fn run(&mut self) -> Result<()> {
        let (best, _, _) = self.best();
        say(&format!(
            "learn: running {} (best net {best}; {} segments, {} candidates so far)",
            self.run.root.display(),
            self.state.segments.len(),
            self.state.candidates.len()
        ));
        let result = self.main_loop();
        let why = match &result {
            Ok(why) => why.clone(),
            Err(e) => format!("error: {e:#}"),
        };
        self.stop_children();
        let _ = self.record(Record::Stopped {
            t: now(),
            why: why.clone(),
        });
        say(&format!(
            "learn: stopped ({why}); `learn run {}` resumes",
            self.run.root.display()
        ));
        result.map(|_| ())
    }

    fn best(&self) -> (String, PathBuf, u32) {
        self.state.best.clone().unwrap_or_default()
    }

    fn main_loop(&mut self) -> Result<String> {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Ok("interrupted".into());
            }
            match self.until {
                Until::At(t) if Instant::now() >= t => {
                    self.pack_segments();
                    return Ok("the set time was reached".into());
                }
                Until::Candidates(n)
                    if self
                        .state
                        .candidates
                        .iter()
                        .filter(|c| matches!(c.stage, Stage::Promoted | Stage::Rejected(_)))
                        .count()
                        >= n =>
                {
                    self.pack_segments();
                    return Ok(format!("{n} candidates were decided"));
                }
                _ => {}
            }
            self.reload_settings()?;
            self.step_candidate()?;
            self.step_gauntlet()?;
            self.step_selfplay()?;
            self.pack_segments();
            std::thread::sleep(POLL);
        }
    }

    /// Applies a changed learn.toml from the next stage (a bad file is reported and the old
    /// settings kept).
    fn reload_settings(&mut self) -> Result<()> {
        let text = std::fs::read_to_string(self.run.settings()).unwrap_or_default();
        if text == self.settings_text {
            return Ok(());
        }
        self.settings_text = text;
        match Settings::load(&self.run.settings()) {
            Ok(new) => {
                let changes = self.settings.changes(&new);
                if !changes.is_empty() {
                    // The tools are checked like the rest: one that is not there keeps the
                    // old settings.
                    match tool_paths(&new, &self.run.root) {
                        Ok(tools) => {
                            // A new cap for the gate in flight: its arena stops (saving its
                            // state) and the next step resumes it with the new cap
                            // (`spawn_gate`).
                            if new.gate.max_games != self.settings.gate.max_games {
                                if let Some(r) = self.gate.as_mut().filter(|r| !r.stopping) {
                                    interrupt(&r.child);
                                    r.stopping = true;
                                }
                            }
                            say(&format!("learn: settings changed: {}", changes.join("; ")));
                            self.settings = new;
                            self.tools = tools;
                            self.record(Record::Settings { t: now(), changes })?;
                            self.save_settings_snapshot()?;
                        }
                        Err(e) => say(&format!(
                            "learn: learn.toml not applied, the old settings stay: {e:#}"
                        )),
                    }
                }
            }
            Err(e) => say(&format!(
                "learn: learn.toml not applied, the old settings stay: {e:#}"
            )),
        }
        Ok(())
    }

    /// Positions of finished segments that no candidate has trained on yet.
    fn new_positions(&self) -> u64 {
        let used = self
            .state
            .candidates
            .last()
            .and_then(|c| c.segments.iter().max().copied());
        self.state
            .segments
            .iter()
            .filter(|s| used.is_none_or(|u| s.index > u))
            .filter_map(|s| s.done.map(|d| d.1))
            .sum()
    }

    fn step_candidate(&mut self) -> Result<()> {
        let Some(cand) = self.state.open_candidate().cloned() else {
            // A promoted net's gauntlet comes before the next candidate.
            let gauntlet_waits = self.state.open_gauntlet().is_some()
                || self.state.due_gauntlet(self.settings.gauntlet.every).is_some();
            if !gauntlet_waits && self.new_positions() >= self.settings.train.every_positions {
                self.start_training()?;
            }
            return Ok(());
        };
        match cand.stage {
            Stage::Training => {
                if self.trainer.is_none() {
                    let dir = self.run.path(&cand.dir);
                    let has_checkpoint = dir.join("checkpoint.bin").exists();
                    if dir.join("final.nnue").exists() {
                        return self.export(&cand);
                    }
                    // The settings of now (a journal's frozen command line is never run):
                    // a training stopped by a setting is retried with the mended one. A
                    // checkpoint keeps its own shape and schedule: the trainer's status
                    // gives the arguments that resume it.
                    let args = if has_checkpoint {
                        self.resume_args(&cand)
                    } else {
                        let (args, _) = self.trainer_args(cand.cand, &cand.data, &cand.dir)?;
                        std::fs::create_dir_all(&dir)
                            .with_context(|| format!("cannot create {}", dir.display()))?;
                        output::write(
                            &dir.join(COMMAND_FILE),
                            &[],
                            serde_json::to_string(&args)?.as_bytes(),
                        )?;
                        args
                    };
                    say(&format!(
                        "learn: training {} on {} positions ({})",
                        cand.name,
                        cand.data.iter().map(|d| d.positions).sum::<u64>(),
                        if has_checkpoint {
                            "resumed from its checkpoint"
                        } else {
                            "from the start"
                        }
                    ));
                    let program = self.tools.trainer.clone();
                    let child = self.spawn_child(
                        &program,
                        &args,
                        &self.run.logs().join(format!("train-c{}.log", cand.cand)),
                    )?;
                    self.trainer = Some(Running {
                        child,
                        tag: u64::from(cand.cand),
                        threads: self.settings.train.threads,
                        started: Instant::now(),
                        stopping: false,
                    });
                    return Ok(());
                }
                if let Some(status) = self.poll(|r| &mut r.trainer)? {
                    if status.success() && self.run.path(&cand.dir).join("final.nnue").exists() {
                        self.failures = 0;
                        return self.export(&cand);
                    }
                    let log = self.run.logs().join(format!("train-c{}.log", cand.cand));
                    self.failed(&format!(
                        "trainer for {} exited with {status}{}",
                        cand.name,
                        log_tail(&log)
                    ))?;
                }
            }
            Stage::Exported => self.start_gate(&cand)?,
            Stage::Gating => {
                if self.gate.is_none() {
                    return self.spawn_gate(&cand);
                }
                if let Some(status) = self.poll(|r| &mut r.gate)? {
                    match self.gate_result(&cand)? {
                        Some(result) => {
                            self.failures = 0;
                            let gate_secs = now().saturating_sub(cand.gate_started.unwrap_or(now()));
                            say(&format!(
                                "learn: gate of {} decided: {} after {} games, {} Elo, LLR {:.2}",
                                cand.name,
                                result.verdict,
                                result.games,
                                crate::journal::elo_text(&result),
                                result.llr
                            ));
                            self.record(Record::GateDone {
                                t: now(),
                                cand: cand.cand,
                                result,
                                gate_secs,
                            })?;
                        }
                        // It ended by itself before it decided (the loop's own stops
                        // report nothing): a failure, resumed on the next step.
                        None => {
                            let log = self.run.logs().join(format!("gate-c{}.log", cand.cand));
                            self.failed(&format!(
                                "arena for the gate of {} failed ({status}){}",
                                cand.name,
                                log_tail(&log)
                            ))?;
                        }
                    }
                }
            }
            Stage::Decided => {
                let gate = cand
                    .gate
                    .clone()
                    .ok_or_else(|| anyhow!("a decided gate without a result"))?;
                if gate.verdict == "H1" {
                    self.promote(&cand)?;
                } else {
                    let why = format!(
                        "gate {}: {} Elo after {} games",
                        gate.verdict,
                        crate::journal::elo_text(&gate),
                        gate.games
                    );
                    say(&format!("learn: {} rejected ({why})", cand.name));
                    self.record(Record::Rejected {
                        t: now(),
                        cand: cand.cand,
                        why,
                    })?;
                }
            }
            Stage::Promoted | Stage::Rejected(_) => {}
        }
        Ok(())
    }

    /// A child failed: counted; three in a row stop the run with the reason.
    fn failed(&mut self, what: &str) -> Result<()> {
        self.failures += 1;
        say(&format!(
            "learn: {what} (failure {} of 3 in a row)",
            self.failures
        ));
        if self.failures >= 3 {
            bail!("{what}, three times in a row");
        }
        std::thread::sleep(Duration::from_secs(2));
        Ok(())
    }

    /// The exit status of a finished child (clearing its slot); None while it runs. A
    /// child the loop stopped itself reports nothing.
    fn poll(
        &mut self,
        slot: impl Fn(&mut Runner) -> &mut Option<Running>,
    ) -> Result<Option<std::process::ExitStatus>> {
        let Some(running) = slot(self).as_mut() else {
            return Ok(None);
        };
        match running.child.try_wait()? {
            None => Ok(None),
            Some(status) => {
                let stopping = running.stopping;
                *slot(self) = None;
                Ok((!stopping).then_some(status))
            }
        }
    }

    fn start_training(&mut self) -> Result<()> {
        let (best_name, best_net, best_gen) = self.best();
        let t = self.settings.train.clone();
        let best = nnue::Network::load(&self.run.path(&best_net))
            .map_err(|e| anyhow!("{}: {e}", best_net.display()))?;
        let hidden = candidate_arch(&best, &t)?.width;
        let cand = self.state.candidates.last().map_or(1, |c| c.cand + 1);
        let name = format!("gen{}-{hidden}-c{cand}", best_gen + 1);
        let dir = Path::new(RunDir::CANDIDATES).join(format!("c{cand}"));
        // The data: every extra source and the run's finished segments, newest first up to
        // the cap.
        let mut data = Vec::new();
        for extra in &t.extra_data {
            let path = crate::config::resolve(&self.run.root, extra);
            if !path.exists() {
                bail!(
                    "[train] extra_data: {} is gone (read from {})",
                    extra.display(),
                    self.run.root.display()
                );
            }
            let slices = scan_data(&self.run.root, extra)?;
            if slices.iter().all(|d| d.games == 0) {
                say(&format!(
                    "learn: warning: [train] extra_data {} holds no games",
                    path.display()
                ));
            }
            data.extend(slices);
        }
        let mut segments = Vec::new();
        let mut own = 0u64;
        let cap = self.settings.selfplay.max_positions;
        for seg in self.state.segments.iter().rev().filter(|s| s.done.is_some()) {
            let slices = self.segment_data(seg)?;
            let positions: u64 = slices.iter().map(|s| s.positions).sum();
            if cap > 0 && own + positions > cap && !segments.is_empty() {
                break;
            }
            own += positions;
            segments.push(seg.index);
            data.extend(slices);
        }
        segments.sort_unstable();
        data.retain(|d| d.games > 0);
        if data.is_empty() {
            bail!("no data to train on");
        }
        let (_, fine_tune) = self.trainer_args(cand, &data, &dir)?;
        say(&format!(
            "learn: candidate {name}: {} from {best_name} on {} positions ({} of the run's own, {} segments)",
            if fine_tune {
                "fine-tuned"
            } else {
                "trained from scratch"
            },
            data.iter().map(|d| d.positions).sum::<u64>(),
            own,
            segments.len()
        ));
        self.record(Record::TrainStarted {
            t: now(),
            cand,
            name,
            dir,
            data,
            segments,
            args: Vec::new(),
        })
    }

    /// `trainer train`'s command line for candidate `cand` (trained on `data` into `dir`)
    /// from the settings of now and the best net, and whether it fine-tunes the best net
    /// (`--init`; otherwise it trains from scratch for `epochs_scratch`). Errors: a best
    /// net that does not load, a `[train] arch` that does not parse.
    fn trainer_args(&self, cand: u32, data: &[DataSlice], dir: &Path) -> Result<(Vec<String>, bool)> {
        let (_, best_net, _) = self.best();
        let t = &self.settings.train;
        let best = nnue::Network::load(&self.run.path(&best_net))
            .map_err(|e| anyhow!("{}: {e}", best_net.display()))?;
        let target = candidate_arch(&best, t)?;
        let fine_tune = can_grow_into(&best.arch(), &target);
        let mut args: Vec<String> = vec!["train".into(), "--data".into()];
        args.extend(data.iter().map(|d| d.file.display().to_string()));
        // The whole shape, always: `--hidden` and `--buckets` alone would drop the best
        // net's feature set, mirroring, king buckets and hidden layers.
        args.push("--arch".into());
        args.push(target.to_string());
        for (k, v) in [
            (
                "--epochs",
                if fine_tune { t.epochs } else { t.epochs_scratch }.to_string(),
            ),
            ("--wdl", t.wdl.to_string()),
            ("--lr", t.lr.to_string()),
            ("--threads", t.threads.to_string()),
            ("--seed", (t.seed + u64::from(cand)).to_string()),
            ("--batch-size", t.batch_size.to_string()),
            ("--batches-per-superbatch", t.batches_per_superbatch.to_string()),
            ("--out", dir.display().to_string()),
        ] {
            args.push(k.into());
            args.push(v);
        }
        if fine_tune {
            args.push("--init".into());
            args.push(best_net.display().to_string());
        }
        Ok((args, fine_tune))
    }

    /// The trainer's arguments that resume candidate `cand` from its checkpoint: those its
    /// `status.json` gives (`trainer::status`), or, for a checkpoint of a trainer that
    /// wrote none, the same built from the journal's data; with `[train] threads` of now.
    fn resume_args(&self, cand: &crate::journal::Candidate) -> Vec<String> {
        let mut args = match RunStatus::load(&self.run.path(&cand.dir)) {
            Ok(status) => status.resume,
            Err(_) => {
                let data: Vec<PathBuf> = cand.data.iter().map(|d| d.file.clone()).collect();
                trainer::status::resume_args(&data, None, &cand.dir)
            }
        };
        args.extend(["--threads".into(), self.settings.train.threads.to_string()]);
        args
    }

    fn export(&mut self, cand: &crate::journal::Candidate) -> Result<()> {
        let dir = self.run.path(&cand.dir);
        let final_net = dir.join("final.nnue");
        let net = nnue::Network::load(&final_net).map_err(|e| anyhow!("{}: {e}", final_net.display()))?;
        std::fs::create_dir_all(self.run.candidates())?;
        let path = Path::new(RunDir::CANDIDATES).join(format!("{}.nnue", cand.name));
        output::write(&self.run.path(&path), &[], &net.to_bytes())?;
        let val_loss = RunStatus::load(&dir).ok().and_then(|s| s.last_validation_loss());
        say(&format!(
            "learn: exported {} (validation loss {})",
            path.display(),
            val_loss.map_or("?".into(), |v| format!("{v:.6}"))
        ));
        self.record(Record::Exported {
            t: now(),
            cand: cand.cand,
            net: path,
            fingerprint: format!("{:016x}", net.fingerprint()),
            val_loss,
            train_secs: now().saturating_sub(cand.train_started),
        })
    }

    /// The gate's directory, relative to the run directory (`gates/cK`).
    fn gate_dir(&self, cand: &crate::journal::Candidate) -> PathBuf {
        Path::new(RunDir::GATES).join(format!("c{}", cand.cand))
    }

    fn gate_args(&self, cand: &crate::journal::Candidate) -> Result<Vec<String>> {
        let g = &self.settings.gate;
        let (best_name, best_net, _) = self.best();
        let net = cand
            .net
            .clone()
            .ok_or_else(|| anyhow!("{} has no net", cand.name))?;
        let dir = self.gate_dir(cand);
        let luft = self.tools.luft.display().to_string();
        let mut args: Vec<String> = vec![
            "-engine".into(),
            format!("cmd={luft}"),
            format!("name={}", cand.name),
            format!("option.EvalFile={}", net.display()),
            "-engine".into(),
            format!("cmd={luft}"),
            format!("name={best_name}"),
            format!("option.EvalFile={}", best_net.display()),
            "-each".into(),
        ];
        // Fixed nodes only between nets of one architecture (the same speed); a wider,
        // narrower, bucketed or layered candidate plays at the time control, where its
        // speed counts.
        let same_speed = same_architecture(&self.run.path(&net), &self.run.path(&best_net));
        args.extend(limit_args(if same_speed { g.nodes } else { 0 }, &g.tc));
        args.extend([format!("option.Hash={}", g.hash), "option.Threads=1".into()]);
        args.extend(self.openings_args(u64::from(cand.cand) * 7919 + 13));
        args.extend([
            "-sprt".into(),
            format!("elo0={}", g.elo0),
            format!("elo1={}", g.elo1),
            format!("alpha={}", g.alpha),
            format!("beta={}", g.beta),
        ]);
        args.extend(match_args(gate_rounds(g.max_games), g.concurrency, 50, &dir));
        if g.max_moves > 0 {
            args.extend(["-maxmoves".into(), g.max_moves.to_string()]);
        }
        Ok(args)
    }

    fn start_gate(&mut self, cand: &crate::journal::Candidate) -> Result<()> {
        // The command line is checked here, made when arena starts (`spawn_gate`).
        self.gate_args(cand)?;
        std::fs::create_dir_all(self.run.path(&self.gate_dir(cand)))?;
        self.record(Record::GateStarted {
            t: now(),
            cand: cand.cand,
            args: Vec::new(),
        })?;
        let cand = self
            .state
            .open_candidate()
            .cloned()
            .ok_or_else(|| anyhow!("the candidate vanished"))?;
        self.spawn_gate(&cand)
    }

    fn spawn_gate(&mut self, cand: &crate::journal::Candidate) -> Result<()> {
        let state_rel = self.gate_dir(cand).join("state.json");
        let state_file = self.run.path(&state_rel);
        // A gate under way resumes from arena's saved state (written once a game has
        // finished); one not yet under way takes the settings of now (a journal's frozen
        // command line is never run), so a gate stopped by a setting is retried with the
        // mended one.
        let args: Vec<String> = if state_file.exists() {
            vec!["-config".into(), format!("file={}", state_rel.display())]
        } else {
            self.gate_args(cand)?
        };
        if state_file.exists() {
            // Both engines are learn's luft.
            self.relocate_saved_state(&state_file, usize::MAX)?;
            // The cap is learn.toml's now: a gate resumes with its saved rounds fitted to
            // `max_games`, raised or lowered (a raised cap plays on past the old one).
            let rounds = gate_rounds(self.settings.gate.max_games);
            if let Some(old) = fit_gate_rounds(&state_file, rounds)? {
                say(&format!(
                    "learn: gate of {}: at most {} games now (was {}), as learn.toml says",
                    cand.name,
                    rounds * 2,
                    old * 2
                ));
            }
            // A gate that decided before the stop is read, not played on.
            if let Some(result) = self.gate_result(cand)? {
                self.gate = None;
                let gate_secs = now().saturating_sub(cand.gate_started.unwrap_or(now()));
                return self.record(Record::GateDone {
                    t: now(),
                    cand: cand.cand,
                    result,
                    gate_secs,
                });
            }
        }
        say(&format!(
            "learn: gate of {} against {} ({})",
            cand.name,
            self.best().0,
            if state_file.exists() { "resumed" } else { "started" }
        ));
        let program = self.tools.arena.clone();
        let child = self.spawn_child(
            &program,
            &args,
            &self.run.logs().join(format!("gate-c{}.log", cand.cand)),
        )?;
        self.gate = Some(Running {
            child,
            tag: u64::from(cand.cand),
            threads: self.settings.gate.concurrency,
            started: Instant::now(),
            stopping: false,
        });
        Ok(())
    }

    /// Makes arena's saved state at `path` (a gate's or gauntlet's) run in this directory:
    /// every argument naming a file of the run by an absolute path where the run was (saved
    /// by the code before 2026-12-06, [`Journal::old_roots`]) is named relative to the run
    /// directory, where arena runs, and the `cmd=` of the first `own` engines (learn's luft)
    /// is the luft of `[tools]` now (a tool is not part of the run). Written back only when
    /// something changed. Errors: a state that cannot be read or written.
    fn relocate_saved_state(&self, path: &Path, own: usize) -> Result<()> {
        let file = path.display().to_string();
        let mut saved = arena::state::load(&file).map_err(|e| anyhow!(e))?;
        let roots = self.journal.old_roots();
        let luft = format!("cmd={}", self.tools.luft.display());
        let mut engines = 0usize;
        let mut changed = false;
        for arg in &mut saved.args {
            if arg == "-engine" || arg == "--engine" {
                engines += 1;
            }
            let new = if (1..=own).contains(&engines) && arg.starts_with("cmd=") {
                luft.clone()
            } else {
                crate::journal::reroot_arg(arg, roots)
            };
            if new != *arg {
                *arg = new;
                changed = true;
            }
        }
        if changed {
            arena::state::save(&file, &saved).map_err(|e| anyhow!(e))?;
        }
        Ok(())
    }

    /// The gate's outcome from arena's saved state, once it decided or reached the cap.
    fn gate_result(&self, cand: &crate::journal::Candidate) -> Result<Option<GateResult>> {
        let path = self.run.path(&self.gate_dir(cand).join("state.json"));
        if !path.exists() {
            return Ok(None);
        }
        let saved = arena::state::load(&path.display().to_string()).map_err(|e| anyhow!(e))?;
        let g = &self.settings.gate;
        Ok(gate_verdict(&saved, g.elo0, g.elo1, g.alpha, g.beta, g.max_games))
    }

    fn promote(&mut self, cand: &crate::journal::Candidate) -> Result<()> {
        let net = cand
            .net
            .clone()
            .ok_or_else(|| anyhow!("{} has no net", cand.name))?;
        let name = cand
            .name
            .rsplit_once("-c")
            .map_or(cand.name.clone(), |(a, _)| a.to_string());
        let path = Path::new(RunDir::NETS).join(format!("{name}.nnue"));
        std::fs::copy(self.run.path(&net), self.run.path(&path))
            .with_context(|| format!("cannot copy {} to {}", net.display(), path.display()))?;
        say(&format!(
            "learn: {} promoted: the best net is now {}",
            cand.name,
            path.display()
        ));
        self.record(Record::Promoted {
            t: now(),
            cand: cand.cand,
            net: path,
        })
    }

    /// A gauntlet's directory, relative to the run directory (`gauntlets/NAME`).
    fn gauntlet_dir(&self, net: &str) -> PathBuf {
        Path::new(RunDir::GAUNTLETS).join(net)
    }

    /// arena's arguments for `net`'s gauntlet: the net (through EvalFile, on the run's
    /// luft) as the seed against every opponent, `games` games each over the gate's book.
    fn gauntlet_args(&self, name: &str, net: &Path) -> Vec<String> {
        let g = &self.settings.gauntlet;
        let dir = self.gauntlet_dir(name);
        let mut args: Vec<String> = vec![
            "-tournament".into(),
            "gauntlet".into(),
            "-seeds".into(),
            "1".into(),
            "-engine".into(),
            format!("cmd={}", self.tools.luft.display()),
            format!("name={name}"),
            format!("option.EvalFile={}", net.display()),
            format!("option.Hash={}", g.hash),
            "option.Threads=1".into(),
        ];
        for o in &g.opponents {
            args.push("-engine".into());
            args.push(format!("name={}", o.name));
            args.extend(o.engine.iter().cloned());
        }
        args.push("-each".into());
        args.extend(limit_args(g.nodes, &g.tc));
        args.push(format!("timemargin={}", g.time_margin));
        let seed = self
            .state
            .chain
            .iter()
            .position(|(n, _, _)| n == name)
            .unwrap_or(0) as u64;
        args.extend(self.openings_args(seed * 104_729 + 17));
        args.extend(match_args(g.games / 2, g.concurrency, 0, &dir));
        args
    }

    /// arena's openings for gates and gauntlets: `[gate] openings`, or the book arena ships
    /// (written into the run directory), in random order from `seed`.
    fn openings_args(&self, seed: u64) -> Vec<String> {
        let book = if self.settings.gate.openings.as_os_str().is_empty() {
            PathBuf::from(RunDir::BOOK)
        } else {
            self.settings.gate.openings.clone()
        };
        vec![
            "-openings".into(),
            format!("file={}", book.display()),
            "format=epd".into(),
            "order=random".into(),
            "-srand".into(),
            seed.to_string(),
        ]
    }

    /// The gauntlet stage: a promoted net due one (`[gauntlet] every`) plays it right after
    /// its promotion, before the next candidate trains (self-play runs `threads_busy`
    /// meanwhile); once arena has played it out, arena's rating library fits the ratings
    /// and the result is journaled. A kill resumes it from arena's saved state (a game cut short is
    /// played again).
    fn step_gauntlet(&mut self) -> Result<()> {
        if self.gauntlet.is_some() {
            let Some(status) = self.poll(|r| &mut r.gauntlet)? else {
                return Ok(());
            };
            let Some(open) = self.state.open_gauntlet().cloned() else {
                return Ok(());
            };
            if status.success() {
                self.failures = 0;
                return self.rate_gauntlet(&open);
            }
            // It ended by itself before it was played out (the loop's own stops report
            // nothing): a failure, resumed on the next step.
            let log = self.run.logs().join(format!("gauntlet-{}.log", open.net));
            self.failed(&format!(
                "arena for the gauntlet of {} failed ({status}){}",
                open.net,
                log_tail(&log)
            ))?;
            return Ok(());
        }
        if let Some(open) = self.state.open_gauntlet().cloned() {
            return self.spawn_gauntlet(&open);
        }
        if self.state.open_candidate().is_some() {
            // A gauntlet starts between candidates (right after a promotion).
            return Ok(());
        }
        let Some((name, _)) = self.state.due_gauntlet(self.settings.gauntlet.every) else {
            return Ok(());
        };
        std::fs::create_dir_all(self.run.path(&self.gauntlet_dir(&name)))?;
        let games = self.settings.gauntlet.games * self.settings.gauntlet.opponents.len() as u64;
        self.record(Record::GauntletStarted {
            t: now(),
            net: name,
            args: Vec::new(),
            games,
        })?;
        let open = self
            .state
            .open_gauntlet()
            .cloned()
            .ok_or_else(|| anyhow!("the gauntlet vanished"))?;
        self.spawn_gauntlet(&open)
    }

    fn spawn_gauntlet(&mut self, g: &crate::journal::Gauntlet) -> Result<()> {
        let state_rel = self.gauntlet_dir(&g.net).join("state.json");
        let state_file = self.run.path(&state_rel);
        // As for the gate: the saved state once under way, else the settings of now.
        let args = if state_file.exists() {
            // The first engine is learn's luft, the others the opponents.
            self.relocate_saved_state(&state_file, 1)?;
            vec!["-config".into(), format!("file={}", state_rel.display())]
        } else {
            let net = self
                .state
                .chain
                .iter()
                .find(|(name, _, _)| *name == g.net)
                .map(|(_, net, _)| net.clone())
                .ok_or_else(|| anyhow!("the gauntlet's net {} is not a promoted net", g.net))?;
            self.gauntlet_args(&g.net, &net)
        };
        say(&format!(
            "learn: gauntlet of {} ({} games; {})",
            g.net,
            g.games,
            if state_file.exists() { "resumed" } else { "started" }
        ));
        let program = self.tools.arena.clone();
        let child = self.spawn_child(
            &program,
            &args,
            &self.run.logs().join(format!("gauntlet-{}.log", g.net)),
        )?;
        self.gauntlet = Some(Running {
            child,
            tag: 0,
            threads: self.settings.gauntlet.concurrency,
            started: Instant::now(),
            stopping: false,
        });
        Ok(())
    }

    /// The gauntlet's games rated by arena's rating library (`arena::rating`: the joint fit
    /// `arena rate` makes, with `[gauntlet] anchor`), the table written to `ratings.txt`
    /// beside the PGN and journaled with the net's own rating.
    fn rate_gauntlet(&mut self, g: &crate::journal::Gauntlet) -> Result<()> {
        let dir = self.gauntlet_dir(&g.net);
        let pgn = dir.join("games.pgn");
        let anchor = self.settings.gauntlet.anchor.trim().to_string();
        let rated = match rate(&self.run.path(&pgn), &pgn, &anchor) {
            Ok(rated) => rated,
            Err(e) => return self.failed(&format!("the rating of {} failed: {e}", pgn.display())),
        };
        let ratings = rated.1;
        output::write(&self.run.path(&dir).join("ratings.txt"), &[], ratings.as_bytes())?;
        let (games, elo, elo_error) = rated
            .0
            .iter()
            .find(|r| r.name == g.net)
            .map_or((0, None, None), |r| {
                (r.games, Some(r.elo), Some(r.error).filter(|e| *e > 0.0))
            });
        say(&format!(
            "learn: gauntlet of {} rated: {} ({games} games)",
            g.net,
            match (elo, elo_error) {
                (Some(e), Some(err)) => format!("{e:.1} +- {err:.1}"),
                (Some(e), None) => format!("{e:.1}"),
                _ => "no rating".into(),
            }
        ));
        self.record(Record::GauntletDone {
            t: now(),
            net: g.net.clone(),
            games,
            elo,
            elo_error,
            ratings,
        })
    }

    fn step_selfplay(&mut self) -> Result<()> {
        // Busy from a candidate's first record to its decision, whatever its child is doing,
        // so the thread count does not depend on timing.
        let busy = self.state.open_candidate().is_some() || self.state.open_gauntlet().is_some();
        let s = self.settings.selfplay.clone();
        let want = if busy { s.threads_busy } else { s.threads_idle };
        let (best_name, _, _) = self.best();
        // A segment played by an older net ends when a new one is promoted.
        if let Some(seg) = self.state.open_segment().cloned() {
            if seg.net != best_name {
                if let Some(r) = self.selfplay.as_mut() {
                    if !r.stopping {
                        interrupt(&r.child);
                        r.stopping = true;
                    }
                }
                if self
                    .selfplay
                    .as_mut()
                    .is_some_and(|r| r.child.try_wait().ok().flatten().is_some())
                {
                    self.selfplay = None;
                }
                if self.selfplay.is_none() {
                    return self.end_segment(&seg);
                }
                return Ok(());
            }
        }
        if want == 0 {
            // Self-play waits while a candidate is busy (`threads_busy = 0`: one stage at a
            // time, a run whose every record is repeatable).
            if let Some(r) = self.selfplay.as_mut() {
                if !r.stopping {
                    interrupt(&r.child);
                    r.stopping = true;
                }
                if r.child.try_wait()?.is_some() {
                    self.selfplay = None;
                }
            }
            return Ok(());
        }
        let Some(seg) = self.state.open_segment().cloned() else {
            return self.start_segment();
        };
        match self.selfplay.as_mut() {
            None => {
                let args = self.datagen_args(&seg, want)?;
                say(&format!(
                    "learn: self-play segment {} ({}, {} threads, {} to {} positions)",
                    seg.index, seg.openings, want, seg.net, seg.target
                ));
                let program = self.tools.datagen.clone();
                let child = self.spawn_child(
                    &program,
                    &args,
                    &self.run.logs().join(format!("selfplay-s{}.log", seg.index)),
                )?;
                self.selfplay = Some(Running {
                    child,
                    tag: seg.index,
                    threads: want,
                    started: Instant::now(),
                    stopping: false,
                });
            }
            Some(r) => match r.child.try_wait()? {
                Some(status) => {
                    let stopped_by_us = r.stopping;
                    let quick = r.started.elapsed() < Duration::from_secs(10);
                    self.selfplay = None;
                    let slices = scan_data(&self.run.root, &seg.dir)?;
                    let positions: u64 = slices.iter().map(|d| d.positions).sum();
                    if positions >= seg.target {
                        self.end_segment(&seg)?;
                    } else if !stopped_by_us && (!status.success() || quick) {
                        self.failed(&format!("datagen for segment {} exited with {status}", seg.index))?;
                    }
                }
                None => {
                    if r.threads != want && !r.stopping && r.started.elapsed() > Duration::from_secs(5) {
                        // The core budget changed: datagen resumes with the new thread count.
                        interrupt(&r.child);
                        r.stopping = true;
                    }
                }
            },
        }
        Ok(())
    }

    fn datagen_args(&self, seg: &crate::journal::Segment, threads: usize) -> Result<Vec<String>> {
        let s = &self.settings.selfplay;
        let net = Path::new(RunDir::NETS).join(format!("{}.nnue", seg.net));
        let mut args = vec![
            "--threads".to_string(),
            threads.to_string(),
            "--nodes".into(),
            s.nodes.to_string(),
            "--positions".into(),
            seg.target.to_string(),
            "--out".into(),
            seg.dir.display().to_string(),
            "--net".into(),
            net.display().to_string(),
            "--seed".into(),
            seg.seed.to_string(),
            "--random-plies".into(),
            s.random_plies.to_string(),
        ];
        args.extend(openings_args(seg.index, &seg.openings)?);
        // Tablebases (the settings check found every directory; datagen runs in the run
        // directory, which relative ones are read from).
        if !s.syzygy_dirs().is_empty() {
            args.extend(["--syzygy".into(), s.syzygy.clone()]);
        }
        Ok(args)
    }

    fn start_segment(&mut self) -> Result<()> {
        let s = &self.settings.selfplay;
        let index = self.state.segments.last().map_or(0, |g| g.index + 1);
        let dfrc = s.dfrc_every > 0 && index % s.dfrc_every == s.dfrc_every - 1;
        let openings = if dfrc {
            StartPositions::DoubleChess960
        } else {
            StartPositions::Classical
        }
        .word();
        let (best, _, _) = self.best();
        let dir = Path::new(RunDir::DATA).join(format!("s{index:03}-{best}-{openings}"));
        let r = Record::SegmentStarted {
            t: now(),
            index,
            dir,
            net: best,
            openings: openings.into(),
            target: s.segment_positions,
            seed: s.seed + index,
        };
        self.record(r)
    }

    /// Packs every finished segment that has no pack yet into `DIR/packs/NAME.pack`
    /// (`datagen pack`, which writes through a temporary file and a rename, so a pack that
    /// exists is whole; a kill mid-pack leaves none and the next pass packs again). The
    /// segment's data files stay: the pack is a copy to carry. A failed pack is said once
    /// and tried again after a restart; it never stops the loop.
    fn pack_segments(&mut self) {
        let todo: Vec<crate::journal::Segment> = self
            .state
            .segments
            .iter()
            .filter(|s| s.done.is_some_and(|d| d.1 > 0) && !self.pack_failed.contains(&s.index))
            .filter(|s| !self.run.path(&self.pack_path(s)).exists())
            .cloned()
            .collect();
        for seg in todo {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let out = self.pack_path(&seg);
            let result = std::fs::create_dir_all(self.run.packs())
                .map_err(anyhow::Error::from)
                .and_then(|()| {
                    let status = Command::new(&self.tools.datagen)
                        .current_dir(&self.run.root)
                        .arg("pack")
                        .arg(&seg.dir)
                        .arg("--out")
                        .arg(&out)
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .output()
                        .with_context(|| format!("cannot start {}", self.tools.datagen.display()))?;
                    if status.status.success() {
                        Ok(())
                    } else {
                        bail!("{}", String::from_utf8_lossy(&status.stderr).trim())
                    }
                });
            match result {
                Ok(()) => say(&format!(
                    "learn: segment {} packed into {}",
                    seg.index,
                    out.display()
                )),
                Err(e) => {
                    say(&format!(
                        "learn: segment {} not packed (the data files stay): {e:#}",
                        seg.index
                    ));
                    self.pack_failed.push(seg.index);
                }
            }
        }
    }

    /// Where segment `seg`'s pack goes, relative to the run directory: `packs/` and the
    /// segment directory's name.
    fn pack_path(&self, seg: &crate::journal::Segment) -> PathBuf {
        let name = seg.dir.file_name().map_or_else(
            || format!("s{:03}", seg.index),
            |n| n.to_string_lossy().into_owned(),
        );
        Path::new(RunDir::PACKS).join(format!("{name}.pack"))
    }

    /// A finished segment's training data: its datagen directory, or its pack when the
    /// directory's files were removed (docs/learn.md: a verified pack restores them), or
    /// nothing, said as a warning, when neither is there. Errors: a file that cannot be
    /// read.
    fn segment_data(&self, seg: &crate::journal::Segment) -> Result<Vec<DataSlice>> {
        let slices = scan_data(&self.run.root, &seg.dir)?;
        if slices.iter().any(|d| d.games > 0) {
            return Ok(slices);
        }
        let pack = self.pack_path(seg);
        if self.run.path(&pack).exists() {
            return scan_data(&self.run.root, &pack);
        }
        if seg.done.is_some_and(|d| d.0 > 0) {
            say(&format!(
                "learn: warning: segment {} ({} games) has neither its data files ({}) nor its pack ({}): not trained on",
                seg.index,
                seg.done.map_or(0, |d| d.0),
                seg.dir.display(),
                pack.display()
            ));
        }
        Ok(slices)
    }

    fn end_segment(&mut self, seg: &crate::journal::Segment) -> Result<()> {
        let slices = scan_data(&self.run.root, &seg.dir)?;
        let games = slices.iter().map(|d| d.games).sum();
        let positions = slices.iter().map(|d| d.positions).sum();
        say(&format!(
            "learn: segment {} done: {games} games, {positions} positions",
            seg.index
        ));
        self.record(Record::SegmentDone {
            t: now(),
            index: seg.index,
            games,
            positions,
        })
    }

    /// Stops every child with SIGINT (each saves its state), waiting for each.
    fn stop_children(&mut self) {
        let mut all: Vec<Running> = [
            self.selfplay.take(),
            self.trainer.take(),
            self.gate.take(),
            self.gauntlet.take(),
        ]
        .into_iter()
        .flatten()
        .collect();
        for r in &all {
            interrupt(&r.child);
        }
        let deadline = Instant::now() + STOP_WAIT;
        for r in &mut all {
            loop {
                match r.child.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if Instant::now() >= deadline => {
                        let _ = r.child.kill();
                        let _ = r.child.wait();
                        break;
                    }
                    Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                }
            }
            let _ = (r.tag, r.threads);
        }
    }
}

/// An arena `-each` limit: `nodes` a move (and no clock) when above 0, else the clock `tc`.
fn limit_args(nodes: u64, tc: &str) -> Vec<String> {
    if nodes > 0 {
        vec!["tc=inf".into(), format!("nodes={nodes}")]
    } else {
        vec![format!("tc={tc}")]
    }
}

/// The end of a gate's or gauntlet's arena command line: `rounds` encounters of two games,
/// `concurrency` at once, engines restarted after a fault, a report every `rating_interval`
/// pairs, the PGN and the saved state in `dir`.
fn match_args(rounds: u64, concurrency: usize, rating_interval: u32, dir: &Path) -> Vec<String> {
    vec![
        "-rounds".into(),
        rounds.to_string(),
        "-games".into(),
        "2".into(),
        "-concurrency".into(),
        concurrency.to_string(),
        "-recover".into(),
        "-ratinginterval".into(),
        rating_interval.to_string(),
        "-pgnout".into(),
        format!("file={}", dir.join("games.pgn").display()),
        "-config".into(),
        format!("outname={}", dir.join("state.json").display()),
    ]
}

/// The players of the games in the PGN file `file` (named `shown` in errors) rated jointly
/// by arena's rating library (`arena::rating::fit`, the fit of `arena rate`, with its
/// default prior), `anchor` (`NAME=ELO`, or empty: the mean is 0) fixing the scale: the
/// ratings, strongest first, and their table (`arena::rating::render`) under a line that
/// says what was rated. Errors: a file that cannot be read or parsed, an anchor that is
/// not `NAME=ELO`, a fit that fails (no finished game, players that never met).
pub fn rate(file: &Path, shown: &Path, anchor: &str) -> Result<(Vec<arena::rating::Rating>, String)> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", shown.display()))?;
    let results = arena::rating::read_results(&String::from_utf8_lossy(&bytes), &shown.display().to_string())
        .map_err(|e| anyhow!(e))?;
    let mut options = arena::rating::FitOptions::default();
    if !anchor.is_empty() {
        let (name, elo) = anchor
            .rsplit_once('=')
            .and_then(|(name, elo)| Some((name.trim(), elo.trim().parse::<f64>().ok()?)))
            .ok_or_else(|| anyhow!("the anchor {anchor:?} is not NAME=ELO"))?;
        options.anchor = Some((name.to_string(), elo));
    }
    let ratings = arena::rating::fit(&results.games, &options).map_err(|e| anyhow!(e))?;
    let table = format!(
        "{} games of {} players from {} ({} unfinished left out), rated jointly with {}; +/- is a 95% interval\n{}",
        results.games.len(),
        ratings.len(),
        shown.display(),
        results.unfinished,
        if anchor.is_empty() { "the mean at 0".to_string() } else { format!("the anchor {anchor}") },
        arena::rating::render(&ratings)
    );
    Ok((ratings, table))
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

/// `: LAST LINE` of a child's log (its last words, often why it stopped), or nothing when
/// the log is empty or unreadable; at most 300 characters of it.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text[text.len().saturating_sub(4096)..]).into_owned();
    match text.lines().rev().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!(": {}", line.chars().take(300).collect::<String>()),
        None => String::new(),
    }
}

/// Sets the `-rounds` of the arena state at `path` (a gate's) to `rounds` encounters of two
/// games; the old count when it changed, None when it already was `rounds`. Errors: a
/// state that cannot be read or written, or one without `-rounds N`.
pub fn fit_gate_rounds(path: &Path, rounds: u64) -> Result<Option<u64>> {
    let file = path.display().to_string();
    let mut saved = arena::state::load(&file).map_err(|e| anyhow!(e))?;
    let at = saved
        .args
        .iter()
        .position(|a| a == "-rounds")
        .filter(|&i| i + 1 < saved.args.len())
        .ok_or_else(|| anyhow!("{file}: the gate's command line has no -rounds"))?;
    let old: u64 = saved.args[at + 1]
        .parse()
        .map_err(|_| anyhow!("{file}: -rounds {:?} is not a count", saved.args[at + 1]))?;
    if old == rounds {
        return Ok(None);
    }
    saved.args[at + 1] = rounds.to_string();
    arena::state::save(&file, &saved).map_err(|e| anyhow!(e))?;
    Ok(Some(old))
}

/// The rounds (game pairs) a gate plays at most: `max_games` rounded up to whole pairs.
/// One definition for the gate's arena (`-rounds`), the fit of a resumed gate to a changed
/// cap, and the verdict `undecided`.
pub fn gate_rounds(max_games: u64) -> u64 {
    max_games.div_ceil(2)
}

/// What a gate's saved arena state says now: the candidate's pentanomial counts (pair 0
/// against 1), its Elo and the LLR, with the verdict `H1` or `H0` (an LLR bound crossed),
/// `undecided` (the cap of `max_games`, rounded up to whole pairs, reached first) or
/// `playing`. One reading for the loop's decision ([`gate_verdict`]) and for `learn status`.
pub fn gate_reading(
    saved: &arena::state::SavedState,
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    max_games: u64,
) -> GateResult {
    let tally = saved
        .pairs
        .iter()
        .find(|p| p.0 == 0 && p.1 == 1)
        .map(|p| p.2.clone())
        .unwrap_or_default();
    let sprt = arena::cli::SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
        model: arena::stats::Model::Normalized,
    };
    let llr = arena::report::sprt_llr(&tally, &sprt, true);
    let (lower, upper) = arena::stats::sprt_bounds(alpha, beta);
    let games = tally.games();
    let verdict = if llr >= upper {
        "H1"
    } else if llr <= lower {
        "H0"
    } else if games >= gate_rounds(max_games) * 2 {
        "undecided"
    } else {
        "playing"
    };
    let e = arena::report::estimate(&tally, tally.pairs() > 0);
    GateResult {
        verdict: verdict.into(),
        games,
        penta: tally.penta,
        elo: if e.elo.is_finite() { e.elo } else { 0.0 },
        elo_error: e.elo_error.is_finite().then_some(e.elo_error),
        llr,
    }
}

/// The gate's decision from its saved state, once there is one ([`gate_reading`] unless
/// it is still `playing`).
pub fn gate_verdict(
    saved: &arena::state::SavedState,
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    max_games: u64,
) -> Option<GateResult> {
    let reading = gate_reading(saved, elo0, elo1, alpha, beta, max_games);
    (reading.verdict != "playing").then_some(reading)
}

/// Datagen's arguments for the start positions of segment `index`, whose journal names
/// them `openings` by their one word (`movegen::openings::StartPositions::word`): none for
/// the classical start, else `--openings-960 <word>`. The random plies and the playability
/// check are datagen's (the one source and check genfens shares). Errors: a word that
/// names no start positions.
fn openings_args(index: u64, openings: &str) -> Result<Vec<String>> {
    match StartPositions::from_word(openings) {
        Some(StartPositions::Classical) => Ok(Vec::new()),
        Some(start) => Ok(vec!["--openings-960".into(), start.word().into()]),
        None => {
            bail!("segment {index}: unknown openings {openings:?} in the journal (classical, frc or dfrc)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_in_flight_takes_the_cap_learn_toml_gives() {
        let dir = std::env::temp_dir().join(format!("learn-gate-cap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        let tally = arena::runner::Tally {
            penta: [40, 100, 200, 110, 50],
            tri: [300, 380, 320],
            wl: 50,
        };
        let saved = arena::state::SavedState {
            args: ["-engine", "cmd=a", "-rounds", "600", "-games", "2", "-recover"]
                .map(String::from)
                .to_vec(),
            done: vec![(0, 499)],
            pairs: vec![(0, 1, tally)],
            ..Default::default()
        };
        arena::state::save(&path.display().to_string(), &saved).unwrap();
        let rounds_now = || {
            let s = arena::state::load(&path.display().to_string()).unwrap();
            let at = s.args.iter().position(|a| a == "-rounds").unwrap();
            (s.args[at + 1].clone(), s.done.clone(), s.pairs.len())
        };
        // Raised: 1,200 games -> 3,000; the games played stay.
        assert_eq!(fit_gate_rounds(&path, 1500).unwrap(), Some(600));
        assert_eq!(rounds_now(), ("1500".to_string(), vec![(0, 499)], 1));
        // The same cap again changes nothing.
        assert_eq!(fit_gate_rounds(&path, 1500).unwrap(), None);
        // With 1,000 games played, the raised cap reads as playing, a lowered one as
        // undecided at once.
        let saved = arena::state::load(&path.display().to_string()).unwrap();
        assert_eq!(
            gate_reading(&saved, 0.0, 15.0, 0.05, 0.05, 3000).verdict,
            "playing"
        );
        assert_eq!(fit_gate_rounds(&path, 400).unwrap(), Some(1500));
        let saved = arena::state::load(&path.display().to_string()).unwrap();
        assert_eq!(
            gate_reading(&saved, 0.0, 15.0, 0.05, 0.05, 800).verdict,
            "undecided"
        );
        // A state without -rounds is an error, not a guess.
        let bare = arena::state::SavedState {
            args: vec!["-engine".into(), "cmd=a".into()],
            ..Default::default()
        };
        arena::state::save(&path.display().to_string(), &bare).unwrap();
        assert!(fit_gate_rounds(&path, 1500).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn candidates_grow_from_the_best_net_only_where_the_trainer_can() {
        let arch = |s: &str| s.parse::<nnue::Arch>().unwrap();
        let plain = arch("(768 -> 128)x2 -> 1x8");
        assert!(can_grow_into(&plain, &plain));
        assert!(can_grow_into(&plain, &arch("(768x4 -> 128)x2 -> 1x8")));
        assert!(
            !can_grow_into(&plain, &arch("(768x4hm -> 128)x2 -> 1x8")),
            "mirroring"
        );
        assert!(!can_grow_into(&plain, &arch("(768 -> 256)x2 -> 1x8")), "width");
        assert!(
            !can_grow_into(&plain, &arch("(768 -> 128)x2 -> 1x4")),
            "output buckets"
        );
        assert!(
            !can_grow_into(&plain, &arch("(768 -> 128)x2 -> (16 -> 1)x8")),
            "layers"
        );
        let four = arch("(768x4 -> 128)x2 -> 1x8");
        assert!(can_grow_into(&four, &four));
        assert!(
            !can_grow_into(&four, &arch("(768x2 -> 128)x2 -> 1x8")),
            "other buckets"
        );
        assert!(!can_grow_into(&four, &plain), "buckets are not merged");

        let best = nnue::Network::random_with(nnue::FeatureSet::plain(), 128, 8, 1).unwrap();
        let mut t = crate::config::Train::default();
        assert_eq!(candidate_arch(&best, &t).unwrap(), best.arch());
        t.hidden = 256;
        assert_eq!(
            candidate_arch(&best, &t).unwrap().to_string(),
            "(768 -> 256 screlu)x2 -> 1x8"
        );
        t.hidden = 0;
        t.arch = "(768x4 -> 128)x2 -> 1x8".into();
        assert_eq!(candidate_arch(&best, &t).unwrap(), four);
    }

    #[test]
    fn segments_name_their_start_positions_as_datagen_does() {
        assert!(openings_args(0, "classical").unwrap().is_empty());
        assert_eq!(openings_args(3, "dfrc").unwrap(), ["--openings-960", "dfrc"]);
        assert_eq!(openings_args(3, "frc").unwrap(), ["--openings-960", "frc"]);
        let error = openings_args(7, "960").unwrap_err().to_string();
        assert_eq!(
            error,
            "segment 7: unknown openings \"960\" in the journal (classical, frc or dfrc)"
        );
    }

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

    #[test]
    fn gauntlets_are_rated_by_arenas_rating_library() {
        let dir = std::env::temp_dir().join(format!("learn-rate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pgn = dir.join("games.pgn");
        let game = |white: &str, black: &str, result: &str| {
            format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n1. e4 {result}\n\n")
        };
        let text = [
            game("gen1-32", "sf", "1-0"),
            game("sf", "gen1-32", "1/2-1/2"),
            game("gen1-32", "sf", "0-1"),
            game("sf", "gen1-32", "0-1"),
            game("sf", "gen1-32", "*"),
        ]
        .concat();
        std::fs::write(&pgn, text).unwrap();
        let (ratings, table) = rate(&pgn, Path::new("gauntlets/gen1-32/games.pgn"), "sf=2200").unwrap();
        let of = |name: &str| ratings.iter().find(|r| r.name == name).unwrap();
        assert_eq!((of("sf").elo, of("sf").error), (2200.0, 0.0));
        // 2.5 of 4 points: above the anchor.
        assert!(of("gen1-32").elo > 2200.0 && of("gen1-32").error > 0.0);
        assert_eq!(of("gen1-32").games, 4);
        assert!(
            table
                .starts_with("4 games of 2 players from gauntlets/gen1-32/games.pgn (1 unfinished left out)"),
            "{table}"
        );
        assert!(table.contains(&arena::rating::render(&ratings)), "{table}");
        assert!(rate(&pgn, &pgn, "sf").is_err(), "an anchor without a rating");
        assert!(
            rate(&pgn, &pgn, "nobody=0").is_err(),
            "an anchor that did not play"
        );
        assert!(rate(&dir.join("none.pgn"), &pgn, "").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn names() {
        assert_eq!(parse_gen("gen13-128"), Some((13, 128)));
        assert_eq!(parse_gen("gen14-256-c3"), Some((14, 256)));
        assert_eq!(parse_gen("material-32"), None);
    }

    #[test]
    fn the_gate_reads_its_verdict_from_the_saved_counts() {
        let mut saved = arena::state::SavedState::default();
        let tally = |penta: [u64; 5]| {
            let [ll, ld, mid, wd, ww] = penta;
            // tri from penta: LL is two losses, LD a loss and a draw, ...
            arena::runner::Tally {
                penta,
                tri: [2 * ll + ld, ld + 2 * mid + wd, wd + 2 * ww],
                wl: 0,
            }
        };
        saved.pairs = vec![(0, 1, tally([0, 2, 10, 2, 0]))];
        assert_eq!(gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 1000), None);
        let capped = gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 28).unwrap();
        assert_eq!((capped.verdict.as_str(), capped.games), ("undecided", 28));
        saved.pairs = vec![(0, 1, tally([0, 5, 40, 60, 30]))];
        assert_eq!(
            gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 1000).unwrap().verdict,
            "H1"
        );
        saved.pairs = vec![(0, 1, tally([30, 60, 40, 5, 0]))];
        assert_eq!(
            gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 1000).unwrap().verdict,
            "H0"
        );
    }
}

//! The loop's children: each tool runs as a process in the run directory, in a process
//! group of its own (a terminal's Ctrl-C reaches `learn` alone), with SIGINT when `learn`
//! dies (`PR_SET_PDEATHSIG`) and its output appended to a log; `learn` stops each with
//! SIGINT, on which every tool saves its state. A new run first waits for the children an
//! earlier one left ([`wait_for_orphans`]).

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a child has to stop after SIGINT before it is killed.
pub const STOP_WAIT: Duration = Duration::from_secs(120);

/// A child process of a stage.
#[derive(Debug)]
pub struct Running {
    /// The process.
    pub child: Child,
    /// Its threads (datagen's, which follow the core budget).
    pub threads: usize,
    /// When it started.
    pub started: Instant,
    /// Set once the loop asked it to stop: its exit is the loop's doing, not a failure.
    pub stopping: bool,
}

impl Running {
    /// A child just started with `threads` threads.
    pub fn new(child: Child, threads: usize) -> Running {
        Running {
            child,
            threads,
            started: Instant::now(),
            stopping: false,
        }
    }

    /// Asks it to stop (SIGINT, once): it saves its state and exits.
    pub fn stop(&mut self) {
        if !self.stopping {
            interrupt(&self.child);
            self.stopping = true;
        }
    }
}

/// The exit status of the child in `slot` once it has exited (the slot emptied); None while
/// it runs or when there is none. A child the loop stopped itself reports nothing: its
/// exit is no failure.
pub fn poll(slot: &mut Option<Running>) -> Result<Option<ExitStatus>> {
    let Some(running) = slot.as_mut() else {
        return Ok(None);
    };
    match running.child.try_wait()? {
        None => Ok(None),
        Some(status) => {
            let stopping = running.stopping;
            *slot = None;
            Ok((!stopping).then_some(status))
        }
    }
}

/// Stops every child of `all` with SIGINT (each saves its state) and waits for each, killing
/// one that has not exited after [`STOP_WAIT`].
pub fn stop_all(mut all: Vec<Running>) {
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
    }
}

/// Starts `program` in `cwd` (the run directory, which the run's relative paths are read
/// from) in a process group of its own, with SIGINT when `learn` dies, its output appended
/// to `log`.
pub fn spawn(program: &Path, args: &[String], cwd: &Path, log: &Path) -> Result<Child> {
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
        {
            let parent = std::process::id() as libc::pid_t;
            // SAFETY: prctl, getppid and _exit are async-signal-safe and touch only the
            // child. A parent that died between the fork and the prctl sends no signal: the
            // child sees it has another parent and exits before it runs the tool.
            unsafe {
                command.pre_exec(move || {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT);
                    if libc::getppid() != parent {
                        libc::_exit(130);
                    }
                    Ok(())
                });
            }
        }
    }
    command
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))
}

/// Waits for the children of an earlier `learn run` of this directory to exit: a run killed
/// with `kill -9` left them SIGINT (by `PR_SET_PDEATHSIG`), and each is saving its state; a
/// new child on the same files must not start before. They are the processes listed in
/// `DIR/lock.children` and, for a child started just before the kill and not yet listed,
/// every process running one of `tools` in `root`. A listed process counts only while it
/// runs the listed program on this run: in `root` (children run in the run directory) or,
/// a child of the code before 2026-12-06, with `root` on its command line; so a copy of a
/// directory whose run is going on does not wait for that run's children. Gives up on a
/// child after [`STOP_WAIT`].
pub fn wait_for_orphans(list: &Path, root: &Path, tools: &[&Path]) {
    let mut text = std::fs::read_to_string(list).unwrap_or_default();
    let deadline = Instant::now() + STOP_WAIT;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    text.push_str(&unlisted_children(&root, tools));
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

/// The processes (other than this one) that run one of `tools` with the directory `root`
/// as their working directory, as `lock.children` lines (`PID EXE`); none where `/proc`
/// cannot be read.
fn unlisted_children(root: &Path, tools: &[&Path]) -> String {
    let tools: Vec<PathBuf> = tools
        .iter()
        .filter_map(|t| std::fs::canonicalize(t).ok())
        .collect();
    let me = std::process::id().to_string();
    let mut lines = String::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return lines;
    };
    for entry in entries.flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if pid == me || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let proc = entry.path();
        if !std::fs::read_link(proc.join("cwd")).is_ok_and(|cwd| cwd == root) {
            continue;
        }
        if let Ok(exe) = std::fs::read_link(proc.join("exe")) {
            if tools.contains(&exe) {
                lines.push_str(&format!("{pid} {}\n", exe.display()));
            }
        }
    }
    lines
}

/// Whether a process `pid` exists (not a zombie): `/proc/PID` on Linux, `kill(pid, 0)`
/// elsewhere on Unix; true where neither can tell.
pub fn alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the command name in parentheses: Z is a zombie.
            Ok(stat) => stat
                .rsplit_once(')')
                .is_none_or(|(_, rest)| !rest.trim_start().starts_with('Z')),
            Err(_) => false,
        }
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Sends SIGINT to a child (each tool saves its state on it).
pub fn interrupt(child: &Child) {
    #[cfg(unix)]
    // SAFETY: kill with a child's own pid and a valid signal.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
}

/// Non-empty lines of a child's log [`log_tail`] shows: a tool's last line is often advice
/// (arena's "To resume it, run: ..."), and the reason stands just before it.
const TAIL_LINES: usize = 3;

/// `: LINE | LINE | LINE`, the last `TAIL_LINES` (3) non-empty lines of a child's log (its
/// last words, why it stopped), or nothing when the log is empty or unreadable; at most
/// 300 characters of each.
pub fn log_tail(log: &Path) -> String {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text[text.len().saturating_sub(4096)..]).into_owned();
    let mut lines: Vec<String> = text
        .lines()
        .rev()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(TAIL_LINES)
        .map(|l| l.chars().take(300).collect())
        .collect();
    lines.reverse();
    if lines.is_empty() {
        String::new()
    } else {
        format!(": {}", lines.join(" | "))
    }
}

#[cfg(all(test, target_os = "linux"))]
#[path = "child_tests.rs"]
mod tests;

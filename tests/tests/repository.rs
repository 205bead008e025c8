//! The repository as a product, checked from its tracked files (`git ls-files`):
//!
//! - **No words of how the work was organised.** No tracked file's name or text speaks of
//!   working periods (the word session with a number, run names made of `s` and two digits),
//!   numbered rounds of work, the numbers of a tracker that is not in the repository (the
//!   word issue with a number), the fate of machines, or absolute paths of one machine (the
//!   folders `work` and `root` at the file system's root). The field's own words stay:
//!   arena's `-rounds`, the PGN `Round` tag, a time control's moves per session, and learn's
//!   segment names (`s000`, `s0-s11`) do not match. [`ALLOWED`] lists what matches a pattern
//!   and is still the field's term (empty today). [`patterns`] has the exact forms.
//! - **The nets' catalogue** (`nets/catalogue.toml`) lists every `.nnue` under `nets/` and
//!   nothing else, with each file's size, FNV-1a 64 of its bytes (the hash the net file
//!   format uses, `output::checksum::fnv1a`), the fingerprint and one-line architecture the
//!   engine reports for it; its `default` is the net `engine/build.rs` embeds
//!   (`DEFAULT_NET`), and every parent and record it names exists.
//! - **The records' index** (`records/README.md`) links every folder of `records/`.
//!
//! Both checks are functions of their inputs, tested on planted inputs (a planted file in a
//! scratch git repository, a planted catalogue) so that each can be seen to fail.

#![allow(clippy::unwrap_used)]

use regex_lite::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (this package's parent directory).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

// ---------------------------------------------------------------------------------------
// Words of the work's organisation
// ---------------------------------------------------------------------------------------

/// Matches that are the field's terms, as (path, matched text): a hit whose file and text
/// both equal an entry's is not reported. Each entry needs a reason in a comment.
const ALLOWED: &[(&str, &str)] = &[];

/// One pattern: what it finds (for the report), the expression, and a filter that drops a
/// match which is a product term (gets the match's first capture group, if any).
struct Pattern {
    what: &'static str,
    regex: Regex,
    keep: fn(Option<&str>) -> bool,
}

fn always(_: Option<&str>) -> bool {
    true
}

/// `s0-s11`, `s012-s014`: a range of learn's segments, not a run's name.
fn not_a_segment(group: Option<&str>) -> bool {
    let Some(g) = group else { return true };
    let b = g.as_bytes();
    !(b.len() >= 2
        && (b[0] == b's' || b[0] == b'S')
        && b[1..].iter().take_while(|c| c.is_ascii_digit()).count() >= 1)
}

/// The patterns, compiled once per scan.
fn patterns() -> Vec<Pattern> {
    let p = |what, expr: &str, keep: fn(Option<&str>) -> bool| Pattern {
        what,
        regex: Regex::new(expr).unwrap(),
        keep,
    };
    vec![
        // The word, singular or plural, any case, then a number after a space, a dash, an
        // underscore or nothing.
        p("a working period", r"(?i)\bsessions?[ _-]?[0-9]+", always),
        // The word then a number after a space, dash or underscore; not arena's plural
        // option with its count, nor the PGN tag (a quote before the number).
        p("a round of work", r"(?i)\bround[ _-][0-9]+", always),
        // The word, singular or plural, then a number, with or without a `#`.
        p("an issue number", r"(?i)\bissues?[ _-]?#?[0-9]+", always),
        p(
            "a machine's fate",
            r"(?i)\bnew\x20machine|\bdied\x20with\x20(its|the)\x20machine",
            always,
        ),
        // A folder of runs, then `s` and two digits: a run named by its working period.
        p(
            "a working-period run name",
            r"(?i)\b(learn-runs|gauntlets|tuning)/s[0-9][0-9]\b",
            always,
        ),
        // A word, a dash, `s` and two digits (a run or folder named by its working period);
        // not a range of learn's segments (`s0-s11`).
        p(
            "a working-period run name",
            r"(?i)\b([a-z][a-z0-9]*)-s[0-9][0-9]\b",
            not_a_segment,
        ),
        // `s` and two digits, a dash and a word (a folder named by its working period); not
        // a range of learn's segments (`s12-s13`).
        p(
            "a working-period run name",
            r"(?i)\bs[0-9][0-9]-([a-z0-9][a-z0-9+.]*)",
            not_a_segment,
        ),
        // Absolute paths of one machine.
        p("an absolute machine path", r"/(work|root)/", always),
    ]
}

/// One hit: where, and what matched.
#[derive(Debug, PartialEq, Eq)]
struct Hit {
    path: String,
    /// 0 for the file's name itself.
    line: usize,
    what: &'static str,
    text: String,
}

impl std::fmt::Display for Hit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{} (its name): {} {:?}", self.path, self.what, self.text)
        } else {
            write!(f, "{}:{}: {} {:?}", self.path, self.line, self.what, self.text)
        }
    }
}

/// The hits of every pattern in `text` (a file's name with `line` 0, or one line of it).
fn scan_line(patterns: &[Pattern], path: &str, line: usize, text: &str, hits: &mut Vec<Hit>) {
    for p in patterns {
        for caps in p.regex.captures_iter(text) {
            let m = caps.get(0).unwrap().as_str();
            if !(p.keep)(caps.get(1).map(|g| g.as_str())) {
                continue;
            }
            if ALLOWED.iter().any(|&(a, t)| a == path && t == m) {
                continue;
            }
            hits.push(Hit {
                path: path.to_string(),
                line,
                what: p.what,
                text: m.to_string(),
            });
        }
    }
}

/// The hits in one file: its path, then its text, line by line. A binary file (a NUL byte
/// in its first 8 KiB) is checked by name only; text that is not UTF-8 is read lossily.
fn scan_file(patterns: &[Pattern], root: &Path, path: &str, hits: &mut Vec<Hit>) -> Result<(), String> {
    scan_line(patterns, path, 0, path, hits);
    let full = root.join(path);
    let mut file = match std::fs::File::open(&full) {
        Ok(f) => f,
        // Tracked but deleted in the work tree: nothing to read (its name was checked).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {e}", full.display())),
    };
    let mut head = vec![0u8; 8192];
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => return Err(format!("{}: {e}", full.display())),
        }
    }
    head.truncate(n);
    if head.contains(&0) {
        return Ok(());
    }
    let mut bytes = head;
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", full.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    for (i, line) in text.lines().enumerate() {
        scan_line(patterns, path, i + 1, line, hits);
    }
    Ok(())
}

/// Every hit in the tracked files of the git work tree at `root`.
///
/// Errors: git cannot be run or `root` is not a git work tree (the check needs the list of
/// tracked files), or a tracked file cannot be read.
fn scan_repository(root: &Path) -> Result<Vec<Hit>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .map_err(|e| {
            format!("cannot run git (the check lists the tracked files with `git ls-files`): {e}")
        })?;
    if !out.status.success() {
        return Err(format!(
            "`git ls-files` in {} failed ({}): {}",
            root.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let patterns = patterns();
    let mut hits = Vec::new();
    for path in out.stdout.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        let path = std::str::from_utf8(path).map_err(|_| format!("a tracked path is not UTF-8: {path:?}"))?;
        scan_file(&patterns, root, path, &mut hits)?;
    }
    Ok(hits)
}

/// The hits of one line of planted text (path "planted").
fn hits_in(text: &str) -> Vec<String> {
    let mut hits = Vec::new();
    scan_line(&patterns(), "planted", 1, text, &mut hits);
    hits.into_iter().map(|h| h.text).collect()
}

/// The planted words are put together at run time, so that this file holds none of them.
fn w(parts: &[&str]) -> String {
    parts.concat()
}

#[test]
fn the_patterns_catch_words_of_the_work_and_keep_the_fields_terms() {
    let caught = [
        w(&["in ", "session", " 26 the run"]),
        w(&["the run of ", "sessions", " 26-27"]),
        w(&["Sess", "ion 23 (a faster CPU)"]),
        w(&["data/selfplay/", "session", "28-gen21-s011-dfrc.pack"]),
        w(&["with the ", "session", "-11 search"]),
        w(&["### ", "Round", " 14 (gen21-128)"]),
        w(&["see ", "issue", " 23, item 4"]),
        w(&["(", "issue", " #5)"]),
        w(&["beside the ", "issue", "-25 SPRT"]),
        w(&["on a ", "new", " machine"]),
        w(&["the run ", "died", " with its machine"]),
        w(&["docs/learn-", "runs/s", "28/report.md"]),
        w(&["docs/tuning/spsa-", "s16/state.json"]),
        w(&["--extra-data gen13-", "s15"]),
        w(&["docs/gauntlets/", "s23", "-10+0.1/"]),
        w(&["learn init /", "work", "/runs/gen20"]),
        w(&["copies in /", "root", "/snap12"]),
    ];
    for text in &caught {
        assert!(!hits_in(text).is_empty(), "not caught: {text:?}");
    }
    let kept = [
        "arena -rounds 1000 -games 2",
        "--rounds 500 --games 2",
        "[Round \"3\"]",
        "40 moves per session (`40/60+0.6`)",
        "segments s0-s11 (3,000,790 positions)",
        "its segments s12-s13 and the partial s14",
        "segments s000-s011 and s012",
        "gen21-classical-003.pack",
        "records/2026-12-05-learn-gen21/report.md",
        "the runs/ folder and work/x",
        "a session of play; the issue of the day; a round robin",
    ];
    for text in kept {
        assert_eq!(
            hits_in(text),
            Vec::<String>::new(),
            "a field term was caught: {text:?}"
        );
    }
}

/// A scratch git repository with one planted file: the walk over `git ls-files` must find
/// the planted words by file and line, and the file's name when the name is the hit.
#[test]
fn a_planted_file_is_caught() {
    let dir = std::env::temp_dir().join(format!(
        "luft-repository-check-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    std::fs::write(dir.join("docs/clean.md"), "arena -rounds 10\n").unwrap();
    std::fs::write(
        dir.join("docs/planted.md"),
        w(&[
            "# Notes\n\nplayed in ",
            "session",
            " 12 on a ",
            "new",
            " machine\n",
        ]),
    )
    .unwrap();
    let named = w(&["docs/spsa-", "s16.md"]);
    std::fs::write(dir.join(&named), "clean text\n").unwrap();
    git(&["add", "."]);
    let hits = scan_repository(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let hits: Vec<String> = hits
        .unwrap()
        .iter()
        .map(|h| format!("{}:{}", h.path, h.line))
        .collect();
    assert_eq!(
        hits,
        [
            "docs/planted.md:3".to_string(),
            "docs/planted.md:3".into(),
            named + ":0"
        ]
    );
}

/// Every tracked file, names and text: the check excludes nothing.
#[test]
fn no_tracked_file_names_the_works_organisation_or_a_machines_paths() {
    let hits = scan_repository(&root()).unwrap();
    assert!(
        hits.is_empty(),
        "{} hits of words of the work's organisation or of machine paths in tracked files:\n{}",
        hits.len(),
        hits.iter().map(|h| h.to_string()).collect::<Vec<_>>().join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// The nets' catalogue
// ---------------------------------------------------------------------------------------

/// `nets/catalogue.toml`: the default net and one entry per net file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Catalogue {
    /// The net the engine embeds, relative to `nets/`.
    default: String,
    net: Vec<Entry>,
}

/// One net's provenance (the fields the test checks; the rest is read to refuse typos).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Entry {
    /// Relative to `nets/`.
    file: String,
    /// Bytes.
    size: u64,
    /// FNV-1a 64 of the file's bytes, 16 hex digits.
    fnv1a64: String,
    /// `Network::fingerprint`, 16 hex digits (what `luft` prints when it loads the net).
    fingerprint: String,
    /// The one-line architecture (`nnue::Arch`'s display form).
    arch: String,
    generation: u32,
    /// "default" (the one net `engine/build.rs` embeds), "former default" or "candidate".
    status: String,
    /// The net it was trained from (`--init`), relative to `nets/`; none for a net from scratch.
    parent: Option<String>,
    /// Stored positions of its training data (before the training filter).
    positions: Option<u64>,
    data: String,
    training: String,
    /// The SPRT that admitted it (or why none did).
    gate: String,
    gauntlet: String,
    /// The record folder of its making (the learn run, or the notes of the nets before
    /// `learn`), relative to the repository.
    record: Option<String>,
    /// The record folder of its gauntlet, relative to the repository.
    gauntlet_record: Option<String>,
    /// When it was committed, YYYY-MM-DD.
    date: String,
}

/// What is wrong with a catalogue (`text`) against the net files (`nets`: path relative to
/// `nets/` and bytes), the embedded default net (`embedded`, relative to `nets/`) and the
/// record folders that exist (`record_exists`). Empty when they agree.
fn catalogue_problems(
    text: &str,
    nets: &BTreeMap<String, Vec<u8>>,
    embedded: &str,
    record_exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let catalogue: Catalogue = match toml::from_str(text) {
        Ok(c) => c,
        Err(e) => return vec![format!("nets/catalogue.toml does not parse: {e}")],
    };
    let mut problems = Vec::new();
    let mut listed = BTreeMap::new();
    for e in &catalogue.net {
        if listed.insert(e.file.clone(), e).is_some() {
            problems.push(format!("{} is listed twice", e.file));
        }
    }
    for name in nets.keys() {
        if !listed.contains_key(name) {
            problems.push(format!("nets/{name} is not in the catalogue"));
        }
    }
    for (name, e) in &listed {
        let Some(bytes) = nets.get(name) else {
            problems.push(format!("the catalogue lists {name}, which is not in nets/"));
            continue;
        };
        if e.size != bytes.len() as u64 {
            problems.push(format!(
                "{name}: size {} bytes, the catalogue says {}",
                bytes.len(),
                e.size
            ));
        }
        let hash = format!("{:016x}", output::checksum::fnv1a(bytes));
        if e.fnv1a64 != hash {
            problems.push(format!(
                "{name}: FNV-1a 64 {hash}, the catalogue says {}",
                e.fnv1a64
            ));
        }
        match nnue::Network::from_bytes(bytes) {
            Ok(net) => {
                let fingerprint = format!("{:016x}", net.fingerprint());
                if e.fingerprint != fingerprint {
                    problems.push(format!(
                        "{name}: fingerprint {fingerprint}, the catalogue says {}",
                        e.fingerprint
                    ));
                }
                let arch = net.arch().to_string();
                if e.arch != arch {
                    problems.push(format!(
                        "{name}: architecture {arch:?}, the catalogue says {:?}",
                        e.arch
                    ));
                }
            }
            Err(err) => problems.push(format!("{name}: not a net this build loads: {err}")),
        }
        if let Some(parent) = &e.parent {
            if !listed.contains_key(parent) {
                problems.push(format!("{name}: its parent {parent} is not in the catalogue"));
            }
        }
        for record in [&e.record, &e.gauntlet_record].into_iter().flatten() {
            if !record_exists(record) {
                problems.push(format!("{name}: its record {record} does not exist"));
            }
        }
        let d = e.date.as_bytes();
        let date_ok = d.len() == 10
            && d.iter().enumerate().all(|(i, c)| {
                if i == 4 || i == 7 {
                    *c == b'-'
                } else {
                    c.is_ascii_digit()
                }
            });
        if !date_ok {
            problems.push(format!("{name}: date {:?} is not YYYY-MM-DD", e.date));
        }
        if !["default", "former default", "admitted", "candidate"].contains(&e.status.as_str()) {
            problems.push(format!("{name}: unknown status {:?}", e.status));
        }
        if (e.status == "default") != (*name == catalogue.default) {
            problems.push(format!(
                "{name}: status {:?} disagrees with the catalogue's default {}",
                e.status, catalogue.default
            ));
        }
    }
    if !listed.contains_key(&catalogue.default) {
        problems.push(format!(
            "the catalogue's default {} is not one of its nets",
            catalogue.default
        ));
    }
    if catalogue.default != embedded {
        problems.push(format!(
            "the catalogue's default is {}, engine/build.rs embeds {embedded}",
            catalogue.default
        ));
    }
    problems
}

/// Every `.nnue` under `dir`, by path relative to it ('/'-separated).
fn net_files(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let path = entry.path();
        if path.is_dir() {
            net_files(&path, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".nnue") {
            out.insert(format!("{prefix}{name}"), std::fs::read(&path).unwrap());
        }
    }
}

/// The net `engine/build.rs` embeds, relative to `nets/`, read from its `DEFAULT_NET` line.
fn embedded_default(root: &Path) -> String {
    let build = std::fs::read_to_string(root.join("engine/build.rs")).unwrap();
    let line = build
        .lines()
        .find(|l| l.trim_start().starts_with("const DEFAULT_NET: &str = \""))
        .expect("engine/build.rs has no `const DEFAULT_NET: &str = \"...\";` line");
    let value = line.split('"').nth(1).unwrap();
    value
        .strip_prefix("../nets/")
        .unwrap_or_else(|| panic!("DEFAULT_NET {value:?} is not under ../nets/"))
        .to_string()
}

#[test]
fn the_nets_catalogue_agrees_with_the_nets_and_the_embedded_default() {
    let root = root();
    let mut nets = BTreeMap::new();
    net_files(&root.join("nets"), "", &mut nets);
    assert!(!nets.is_empty(), "no .nnue under nets/");
    let text = std::fs::read_to_string(root.join("nets/catalogue.toml")).expect("nets/catalogue.toml");
    let problems = catalogue_problems(&text, &nets, &embedded_default(&root), &|r| root.join(r).is_dir());
    assert!(
        problems.is_empty(),
        "nets/catalogue.toml against nets/:\n{}",
        problems.join("\n")
    );
}

/// A catalogue entry for `file` with the given bytes' true size and hashes.
fn planted_entry(file: &str, bytes: &[u8], status: &str) -> String {
    let net = nnue::Network::from_bytes(bytes).unwrap();
    format!(
        "[[net]]\nfile = \"{file}\"\nsize = {}\nfnv1a64 = \"{:016x}\"\nfingerprint = \"{:016x}\"\n\
         arch = \"{}\"\ngeneration = 0\nstatus = \"{status}\"\ndata = \"\"\ntraining = \"\"\n\
         gate = \"\"\ngauntlet = \"\"\ndate = \"2026-12-06\"\n",
        bytes.len(),
        output::checksum::fnv1a(bytes),
        net.fingerprint(),
        net.arch()
    )
}

#[test]
fn the_catalogue_check_finds_each_kind_of_disagreement() {
    let a = nnue::Network::material(32).unwrap().to_bytes();
    let b = nnue::Network::random(16, 1, 7).unwrap().to_bytes();
    let nets: BTreeMap<String, Vec<u8>> = [
        ("a.nnue".to_string(), a.clone()),
        ("sub/b.nnue".to_string(), b.clone()),
    ]
    .into();
    let good = format!(
        "default = \"a.nnue\"\n{}{}",
        planted_entry("a.nnue", &a, "default"),
        planted_entry("sub/b.nnue", &b, "candidate")
    );
    let none = |_: &str| true;
    assert_eq!(
        catalogue_problems(&good, &nets, "a.nnue", &none),
        Vec::<String>::new()
    );

    let check = |text: &str, embedded: &str, expect: &str| {
        let problems = catalogue_problems(text, &nets, embedded, &none);
        assert!(
            problems.iter().any(|p| p.contains(expect)),
            "expected {expect:?} in {problems:?}"
        );
    };
    check(&good, "sub/b.nnue", "engine/build.rs embeds sub/b.nnue");
    let only_a = format!("default = \"a.nnue\"\n{}", planted_entry("a.nnue", &a, "default"));
    check(&only_a, "a.nnue", "nets/sub/b.nnue is not in the catalogue");
    let extra = format!("{good}{}", planted_entry("gone.nnue", &a, "candidate"));
    check(&extra, "a.nnue", "gone.nnue, which is not in nets/");
    let resized = good.replacen(&format!("size = {}", a.len()), "size = 1", 1);
    check(&resized, "a.nnue", "a.nnue: size");
    let rehashed = good.replacen(
        &format!("fnv1a64 = \"{:016x}\"", output::checksum::fnv1a(&a)),
        "fnv1a64 = \"0000000000000000\"",
        1,
    );
    check(&rehashed, "a.nnue", "a.nnue: FNV-1a 64");
    let arch = nnue::Network::from_bytes(&a).unwrap().arch().to_string();
    let rearched = good.replacen(
        &format!("arch = \"{arch}\""),
        "arch = \"(768 -> 48 screlu)x2 -> 1x3\"",
        1,
    );
    check(&rearched, "a.nnue", "a.nnue: architecture");
    let orphan = good.replacen(
        "status = \"candidate\"\n",
        "status = \"candidate\"\nparent = \"x.nnue\"\n",
        1,
    );
    check(&orphan, "a.nnue", "its parent x.nnue is not in the catalogue");
    let typo = good.replacen("gate = \"\"", "gates = \"\"", 1);
    check(&typo, "a.nnue", "does not parse");
    let recorded = good.replacen(
        "status = \"candidate\"\n",
        "status = \"candidate\"\nrecord = \"records/none\"\n",
        1,
    );
    let problems = catalogue_problems(&recorded, &nets, "a.nnue", &|r| r != "records/none");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("its record records/none does not exist")),
        "{problems:?}"
    );
}

/// The folders of `records/` that `index` (the text of `records/README.md`) has no link to
/// (`[NAME](NAME/)`).
fn unlisted_records(folders: &[String], index: &str) -> Vec<String> {
    folders
        .iter()
        .filter(|name| !index.contains(&format!("[{name}]({name}/)")))
        .cloned()
        .collect()
}

/// Every record is in the records' index, so that a reader finds it from
/// `records/README.md` (ten of 2026-12-06 and 2026-12-07 were missing once).
#[test]
fn every_record_is_listed_in_the_records_index() {
    let records = root().join("records");
    let mut folders: Vec<String> = std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    assert!(folders.len() > 40, "{} records", folders.len());
    let index = std::fs::read_to_string(records.join("README.md")).unwrap();
    let missing = unlisted_records(&folders, &index);
    assert!(
        missing.is_empty(),
        "records/README.md lists no link to: {missing:?}"
    );
    // The check can fail: a folder the index does not name is found.
    assert_eq!(
        unlisted_records(&["2026-01-01-new".to_string()], &index),
        ["2026-01-01-new"]
    );
}

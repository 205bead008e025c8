//! The rules of `output`, one case each: a regular file is replaced atomically (its
//! permissions kept, nothing left on an error or an unfinished write), a symbolic link keeps
//! being a link and its target gets the bytes, `/dev/null` and a FIFO are written through
//! and stay what they were, an output that is an input (by name, through a link, a hard
//! link, or its partial file) is refused before anything is written, and a missing or
//! named directory is told as such; and the two rules of `same_file` (an output against an
//! input, two outputs). (What a closed standard output does is tested on each binary:
//! `datagen`, `trainer`, `arena`, `learn`, `luft`, `perft`.)

#![allow(clippy::unwrap_used)]

use output::{plan, refuse_inputs, same_file, write, Compare, OutFile, Plan};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use testing::temp as temp_dir;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_regular_file_is_replaced_whole_and_keeps_its_permissions() {
    let dir = temp_dir("regular");
    let path = dir.join("net.nnue");
    // A new file.
    write(&path, &[], b"one").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"one");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    assert_eq!(
        plan(&path).unwrap(),
        Plan::Replace {
            target: path.clone(),
            partial: dir.join("net.nnue.partial"),
        }
    );
    // Replaced: a new inode (renamed over), the same permissions, nothing else left.
    write(&path, &[], b"two").unwrap();
    let after = std::fs::metadata(&path).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_ne!(before.ino(), after.ino());
    assert_eq!(after.permissions().mode() & 0o777, 0o640);
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    assert_eq!(names(&dir), ["net.nnue"]);
    // A write dropped before `finish` leaves the old file and no partial file.
    let mut file = OutFile::create(&path, &[]).unwrap();
    file.write_all(b"half").unwrap();
    assert!(dir.join("net.nnue.partial").exists());
    drop(file);
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    assert_eq!(names(&dir), ["net.nnue"]);
    // A partial file left by a killed run (here a link to another file) is replaced, and
    // the file it pointed to is untouched.
    let other = dir.join("other");
    std::fs::write(&other, b"keep").unwrap();
    std::os::unix::fs::symlink(&other, dir.join("net.nnue.partial")).unwrap();
    write(&path, &[], b"three").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"three");
    assert_eq!(std::fs::read(&other).unwrap(), b"keep");
    assert_eq!(names(&dir), ["net.nnue", "other"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_symbolic_link_stays_a_link_and_its_target_is_replaced() {
    let dir = temp_dir("link");
    std::fs::create_dir(dir.join("real")).unwrap();
    let target = dir.join("real/net.nnue");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.join("latest.nnue");
    std::os::unix::fs::symlink("real/net.nnue", &link).unwrap();
    // A link to a link, too.
    let link2 = dir.join("current.nnue");
    std::os::unix::fs::symlink("latest.nnue", &link2).unwrap();
    assert_eq!(
        plan(&link2).unwrap(),
        Plan::Replace {
            target: dir.join("real/net.nnue"),
            partial: dir.join("real/net.nnue.partial"),
        }
    );
    write(&link2, &[], b"new").unwrap();
    for l in [&link, &link2] {
        assert!(std::fs::symlink_metadata(l).unwrap().file_type().is_symlink());
    }
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("real/net.nnue"));
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
    assert_eq!(names(&dir.join("real")), ["net.nnue"]);
    // A link to nothing yet: the file is made where it points.
    let dangling = dir.join("future.nnue");
    std::os::unix::fs::symlink("real/later.nnue", &dangling).unwrap();
    write(&dangling, &[], b"later").unwrap();
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(dir.join("real/later.nnue")).unwrap(), b"later");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dev_null_is_written_through_and_stays_a_device() {
    let null = Path::new("/dev/null");
    // The plan is checked before anything is written: a wrong one must not rename over
    // the machine's /dev/null (the tests may run as root).
    assert_eq!(
        plan(null).unwrap(),
        Plan::Through {
            target: null.to_path_buf()
        }
    );
    write(null, &[], b"nothing").unwrap();
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    assert!(!Path::new("/dev/null.partial").exists());
    // A link to it is written through too.
    let dir = temp_dir("null");
    let link = dir.join("sink");
    std::os::unix::fs::symlink(null, &link).unwrap();
    assert_eq!(
        plan(&link).unwrap(),
        Plan::Through {
            target: null.to_path_buf()
        }
    );
    write(&link, &[], b"nothing").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    // A device that refuses the bytes is an error naming the path.
    if Path::new("/dev/full").exists() {
        let full = Path::new("/dev/full");
        assert!(matches!(plan(full).unwrap(), Plan::Through { .. }));
        let e = write(full, &[], b"x").unwrap_err();
        assert!(e.to_string().starts_with("cannot write /dev/full: "), "{e}");
        assert!(std::fs::metadata(full).unwrap().file_type().is_char_device());
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    assert_eq!(plan(&fifo).unwrap(), Plan::Through { target: fifo.clone() });
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    write(&fifo, &[], b"through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(names(&dir), ["pipe"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_output_that_is_an_input_is_refused_before_anything_is_written() {
    let dir = temp_dir("input");
    let ckpt = dir.join("ck.bin");
    std::fs::write(&ckpt, b"checkpoint").unwrap();
    let expect = format!(
        "refusing to write {}: it is one of the inputs ({}); give another file",
        ckpt.display(),
        ckpt.display()
    );
    assert_eq!(write(&ckpt, &[&ckpt], b"net").unwrap_err().to_string(), expect);
    assert_eq!(refuse_inputs(&ckpt, &[&ckpt]).unwrap_err().to_string(), expect);
    // The same file under another name: relative, through a symbolic link, a hard link.
    let link = dir.join("link.bin");
    std::os::unix::fs::symlink("ck.bin", &link).unwrap();
    let hard = dir.join("hard.bin");
    std::fs::hard_link(&ckpt, &hard).unwrap();
    let dotted = dir.join(".").join("ck.bin");
    for (out, input) in [(&link, &ckpt), (&ckpt, &link), (&hard, &ckpt), (&dotted, &ckpt)] {
        let e = write(out, &[input], b"net").unwrap_err();
        assert!(e.to_string().starts_with("refusing to write"), "{e}");
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    }
    // An input where the partial file would go.
    let out = dir.join("net.nnue");
    let partial = dir.join("net.nnue.partial");
    std::fs::write(&partial, b"an input").unwrap();
    let e = write(&out, &[&partial], b"net").unwrap_err();
    assert!(e.to_string().contains("which is the input"), "{e}");
    // Nothing was written or removed.
    assert_eq!(std::fs::read(&ckpt).unwrap(), b"checkpoint");
    assert_eq!(std::fs::read(&partial).unwrap(), b"an input");
    assert_eq!(
        names(&dir),
        ["ck.bin", "hard.bin", "link.bin", "net.nnue.partial"]
    );
    // Another file is fine.
    write(&out, &[&ckpt], b"net").unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"net");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn directories_and_missing_directories_are_named() {
    let dir = temp_dir("dirs");
    let shown = |p: &Path| p.display().to_string();
    // An existing directory, with or without the slash.
    for p in [dir.clone(), PathBuf::from(format!("{}/", dir.display()))] {
        let e = plan(&p).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{} is a directory, not a file to write", shown(&p))
        );
    }
    // A missing directory with a slash: it is the directory that is missing.
    let missing = PathBuf::from(format!("{}/missing/", dir.display()));
    assert_eq!(
        plan(&missing).unwrap_err().to_string(),
        format!(
            "cannot write {0}: the directory {0} does not exist (and a file name in it is needed)",
            shown(&missing)
        )
    );
    // A file in a missing directory: the directory is named, not the partial file.
    let deep = dir.join("missing/dir/x.nnue");
    let e = write(&deep, &[], b"net").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        e.to_string(),
        format!(
            "cannot write {}: the directory {} does not exist",
            shown(&deep),
            shown(&dir.join("missing/dir"))
        )
    );
    // A file where a directory should be.
    std::fs::write(dir.join("plain"), b"").unwrap();
    let under = dir.join("plain/x.nnue");
    assert_eq!(
        plan(&under).unwrap_err().to_string(),
        format!(
            "cannot write {}: {} is not a directory",
            shown(&under),
            shown(&dir.join("plain"))
        )
    );
    assert_eq!(names(&dir), ["plain"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// One file through a hard or symbolic link is one file by both rules; a device is one file
/// only as an input (two outputs may both be `/dev/null`); a path not there yet is the same
/// path only as an output, compared once made absolute.
#[test]
fn same_file_counts_one_file_by_the_rule_it_is_given() {
    let dir = temp_dir("same");
    let file = dir.join("a.bin");
    std::fs::write(&file, b"a").unwrap();
    std::fs::hard_link(&file, dir.join("hard.bin")).unwrap();
    std::os::unix::fs::symlink(&file, dir.join("soft.bin")).unwrap();
    std::fs::write(dir.join("other.bin"), b"a").unwrap();
    let null = Path::new("/dev/null");
    let missing = dir.join("new.bin");
    let dotted = dir.join(".").join("new.bin");
    for (a, b, as_input, as_outputs) in [
        (file.clone(), file.clone(), true, true),
        (file.clone(), dir.join("hard.bin"), true, true),
        (dir.join("soft.bin"), file.clone(), true, true),
        (file.clone(), dir.join("other.bin"), false, false),
        (null.to_path_buf(), null.to_path_buf(), true, false),
        (missing.clone(), dotted, false, true),
        // A relative path and the same path made absolute (never created: only compared).
        (
            std::env::current_dir().unwrap().join("no-such-output.bin"),
            PathBuf::from("no-such-output.bin"),
            false,
            true,
        ),
        (missing.clone(), file.clone(), false, false),
        (missing, dir.join("new2.bin"), false, false),
    ] {
        assert_eq!(
            same_file(&a, &b, Compare::InputAndOutput),
            as_input,
            "{a:?} {b:?}"
        );
        assert_eq!(same_file(&a, &b, Compare::TwoOutputs), as_outputs, "{a:?} {b:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

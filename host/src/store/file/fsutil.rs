//! File helpers every part of the file store shares: atomic replace,
//! directory listing, torn-tail repair of JSON-lines files, the lenient
//! JSON-lines reader and the flock.

use cap_std::fs::{Dir, OpenOptions};
use hwf_core::error::{Error, Result};
use hwf_core::ids::validate_name;
use serde_json::Value;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Write `bytes` to `name` atomically: a temp file in the same directory,
/// fsync, rename over the target.
pub(super) fn write_atomic(dir: &Dir, name: &str, bytes: &[u8]) -> Result<()> {
    write_replace(dir, name, bytes, true)
}

/// Like [`write_atomic`]; `sync` chooses whether the data is fsync'd before
/// the rename.
pub(super) fn write_replace(dir: &Dir, name: &str, bytes: &[u8], sync: bool) -> Result<()> {
    let tmp = format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let mut f = dir.create(&tmp).map_err(|e| Error::io(format!("write {name}"), e))?;
    f.write_all(bytes).map_err(|e| Error::io(format!("write {name}"), e))?;
    if sync {
        f.sync_data().map_err(|e| Error::io(format!("sync {name}"), e))?;
    }
    drop(f);
    dir.rename(&tmp, dir, name)
        .map_err(|e| Error::io(format!("rename {name}"), e))
}

/// The safe names in `dir/sub`, sorted.
pub(super) fn list_dir_names(dir: &Dir, sub: &str) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in dir.read_dir(sub).map_err(|e| Error::io(format!("{sub}/"), e))? {
        let entry = entry.map_err(|e| Error::io(format!("{sub}/"), e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if validate_name("entry", &name).is_ok() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// A file's text, `None` when it does not exist.
pub(super) fn read_optional(dir: &Dir, name: &str, what: &str) -> Result<Option<String>> {
    match dir.open(name) {
        Ok(mut f) => {
            let mut text = String::new();
            f.read_to_string(&mut text).map_err(|e| Error::io(what, e))?;
            Ok(Some(text))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(what, e)),
    }
}

/// Before appending to a JSON-lines file, cut off a torn last line (a write
/// that a crash interrupted), so the next line does not glue onto it and turn
/// a tolerated tail into corruption.
pub(super) fn repair_tail(dir: &Dir, name: &str) -> Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut f = match dir.open_with(name, OpenOptions::new().read(true).write(true)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(format!("repair {name}"), e)),
    };
    let len = f.metadata().map_err(|e| Error::io(format!("repair {name}"), e))?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8; 1];
    f.seek(SeekFrom::Start(len - 1))
        .and_then(|_| f.read_exact(&mut last))
        .map_err(|e| Error::io(format!("repair {name}"), e))?;
    if last[0] == b'\n' {
        return Ok(());
    }
    let mut all = Vec::new();
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.read_to_end(&mut all))
        .map_err(|e| Error::io(format!("repair {name}"), e))?;
    let keep = all.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) as u64;
    tracing::warn!(file = name, dropped = len - keep, "cutting a torn last line");
    f.set_len(keep).map_err(|e| Error::io(format!("repair {name}"), e))?;
    f.sync_data().map_err(|e| Error::io(format!("repair {name}"), e))
}

/// Parse JSON-lines text; `Err(line number)` for a bad line that is not
/// last (an unterminated last line is a torn write and skipped).
pub(crate) fn parse_journal(text: &str) -> std::result::Result<Vec<Value>, usize> {
    let mut out = Vec::new();
    let terminated = text.ends_with('\n');
    let lines: Vec<&str> = text.split('\n').collect();
    let n = lines.len();
    for (i, line) in lines.into_iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        // Only an unterminated last line is a write that did not finish; a
        // complete line that does not parse is corruption, and is named.
        let torn = i + 1 == n && !terminated;
        match serde_json::from_str::<Value>(line) {
            Ok(v) if !torn => out.push(v),
            Ok(_) | Err(_) if torn => {}
            Ok(_) | Err(_) => return Err(i + 1),
        }
    }
    Ok(out)
}

/// An exclusive advisory lock (flock) on a file; released on drop or when
/// the process dies.
#[derive(Debug)]
pub struct LockFile {
    _file: std::fs::File,
}

impl LockFile {
    fn open(dir: &Dir, name: &str) -> Result<std::fs::File> {
        let f = dir
            .open_with(name, OpenOptions::new().create(true).read(true).write(true))
            .map_err(|e| Error::io(format!("lock {name}"), e))?;
        Ok(f.into_std())
    }

    /// Block until the lock is ours.
    pub(super) fn acquire(dir: &Dir, name: &str) -> Result<Self> {
        let file = Self::open(dir, name)?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| Error::io(format!("lock {name}"), e.into()))?;
        Ok(Self { _file: file })
    }

    /// Take the lock if it is free.
    pub(super) fn try_acquire(dir: &Dir, name: &str) -> Result<Option<Self>> {
        let file = Self::open(dir, name)?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(Self { _file: file })),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(None),
            Err(e) => Err(Error::io(format!("lock {name}"), e.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_last_line_is_ignored() {
        let text = "{\"a\":1}\n{\"b\":2}\n{\"c\":";
        assert_eq!(parse_journal(text).expect("parse").len(), 2);
        let text = "{\"a\":1}\n{\"b\":2}\n{\"c\":3}";
        assert_eq!(
            parse_journal(text).expect("parse").len(),
            2,
            "unterminated last line is torn"
        );
        let text = "{\"a\":1}\nxx\n{\"c\":3}\n";
        assert_eq!(parse_journal(text), Err(2));
    }
}

//! The file list of a run: the arguments in order, each folder replaced by
//! the `.litmus` files under it (sorted), or by what its herd `@all` index
//! lists. Whatever cannot be walked becomes an entry with its error, so a
//! batch has one report per problem and goes on.

use litmus_dsl::files::{self, Visit};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::FileType;
use std::path::{Path, PathBuf};

/// One entry of the list: a file to check, or a path that could not be
/// walked and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub error: Option<String>,
}

impl Entry {
    fn file(path: &Path) -> Entry {
        Entry { path: path.to_string_lossy().into_owned(), error: None }
    }

    fn error(path: &Path, error: String) -> Entry {
        Entry { path: path.to_string_lossy().into_owned(), error: Some(error) }
    }
}

/// herd's index file: a folder with one lists its tests (and other index files).
pub const INDEX: &str = "@all";

/// Expand `inputs`. A file is kept as given (any extension); a folder with an
/// `@all` index follows the index, any other folder gives its `.litmus` files
/// at any depth (hidden folders skipped), sorted by path. A path reached twice
/// is listed once, at its first place.
pub fn expand(inputs: &[String]) -> Vec<Entry> {
    // Links are followed (each real folder walked once).
    let mut walk = files::Walk::new(true, hidden);
    let mut list = List::default();
    for input in inputs {
        let p = Path::new(input);
        if p.is_dir() {
            walk.walk(p, &mut list);
        } else if is_index(p) {
            list.index(&mut walk, p, &mut Vec::new());
        } else {
            // Unreadable files are reported when the check reads them.
            list.push(Entry::file(p));
        }
    }
    list.entries
}

/// A folder the walk does not enter.
fn hidden(name: &OsStr) -> bool {
    name.to_str().is_some_and(|n| n.starts_with('.'))
}

fn is_index(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('@')) && p.is_file()
}

/// The list as the walk finds it.
#[derive(Default)]
struct List {
    entries: Vec<Entry>,
    seen: HashSet<PathBuf>,
}

impl List {
    fn push(&mut self, e: Entry) {
        let real = PathBuf::from(&e.path);
        self.push_at(e, &real);
    }

    /// Push `e`, found at `real` (its path, before any lossy conversion to
    /// the report's UTF-8: two names that differ only in bytes that are not
    /// UTF-8 are two files).
    fn push_at(&mut self, e: Entry, real: &Path) {
        // Two spellings of one file (`a/./x`, `a/x`) are one file.
        let key = std::fs::canonicalize(real).unwrap_or_else(|_| real.to_path_buf());
        if self.seen.insert(key) {
            self.entries.push(e);
        }
    }

    /// A file the walk found (not one named on the command line): reports
    /// carry UTF-8 paths, and only a regular file can be read to its end (a
    /// `.litmus` pipe in a folder would block the run for good).
    fn found(&mut self, p: &Path) {
        if p.to_str().is_none() {
            let e = format!("the file name `{}` is not valid UTF-8 (reports name files in UTF-8)", p.display());
            return self.push_at(Entry::error(p, e), p);
        }
        match std::fs::metadata(p) {
            Ok(m) if !m.is_file() => self.push(Entry::error(p, format!("`{}` is not a regular file", p.display()))),
            // A missing file (or a dangling link) is reported when it is read.
            _ => self.push(Entry::file(p)),
        }
    }

    /// Follow an index: one path per line, relative to the index's folder;
    /// `#` starts a comment; a line naming an `@` file is another index.
    /// `stack` holds the indexes being followed, to refuse a cycle.
    fn index(&mut self, walk: &mut files::Walk, index: &Path, stack: &mut Vec<PathBuf>) {
        let canon = std::fs::canonicalize(index).unwrap_or_else(|_| index.to_path_buf());
        if stack.contains(&canon) {
            let e = format!("index `{}` includes itself", index.display());
            return self.push(Entry::error(index, e));
        }
        let text = match std::fs::read_to_string(index) {
            Ok(t) => t,
            Err(e) => return self.push(Entry::error(index, format!("cannot read index `{}`: {e}", index.display()))),
        };
        stack.push(canon);
        let base = index.parent().unwrap_or(Path::new(""));
        for line in text.lines() {
            let name = line.split('#').next().unwrap_or("").trim();
            if name.is_empty() {
                continue;
            }
            let p = base.join(name);
            if is_index(&p) {
                self.index(walk, &p, stack);
            } else if p.is_dir() {
                walk.walk(&p, self);
            } else {
                self.found(&p);
            }
        }
        stack.pop();
    }
}

/// A folder: what its index lists, or its `.litmus` files and subfolders in
/// name order (so the list is sorted by path, component by component); a
/// subfolder with an index follows it.
impl Visit for List {
    fn folder(&mut self, walk: &mut files::Walk, dir: &Path) -> bool {
        let index = dir.join(INDEX);
        if index.is_file() {
            self.index(walk, &index, &mut Vec::new());
            return false;
        }
        true
    }

    fn file(&mut self, path: &Path, _: Option<FileType>) {
        self.found(path);
    }

    fn unreadable(&mut self, dir: &Path, e: std::io::Error) {
        self.push(Entry::error(dir, format!("cannot read folder `{}`: {e}", dir.display())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempdir::Dir {
        let d = tempdir::Dir::new();
        for (name, text) in files {
            let p = d.0.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        d
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
                let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let p = std::env::temp_dir().join(format!("litmus-walk-{}-{n}", std::process::id()));
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    fn names(d: &tempdir::Dir, entries: &[Entry]) -> Vec<String> {
        let root = d.0.to_string_lossy().into_owned() + "/";
        entries
            .iter()
            .map(|e| {
                e.path.strip_prefix(&root).unwrap_or(&e.path).to_string() + if e.error.is_some() { " !" } else { "" }
            })
            .collect()
    }

    #[test]
    fn folders_give_their_litmus_files_sorted_at_any_depth() {
        let d = tree(&[("b.litmus", ""), ("a/z.litmus", ""), ("a/y.txt", ""), (".git/x.litmus", ""), ("c.litmus", "")]);
        let e = expand(&[d.0.to_string_lossy().into_owned()]);
        assert_eq!(names(&d, &e), ["a/z.litmus", "b.litmus", "c.litmus"]);
    }

    #[test]
    fn an_index_is_followed_with_comments_nested_indexes_and_missing_files() {
        let d = tree(&[
            ("@all", "# the suite\nb.litmus\n@more  # nested\n\nnope.litmus\n"),
            ("@more", "sub/a.litmus\nb.litmus\n@all\n"),
            ("b.litmus", ""),
            ("sub/a.litmus", ""),
            ("unlisted.litmus", ""),
        ]);
        let e = expand(&[d.0.to_string_lossy().into_owned()]);
        // b once; the cycle back to @all is an error entry; nope is listed (its read fails later).
        assert_eq!(names(&d, &e), ["b.litmus", "sub/a.litmus", "@all !", "nope.litmus"]);
    }

    #[test]
    #[cfg(unix)]
    fn pipes_and_names_that_are_not_utf8_are_errors_not_hangs() {
        use std::os::unix::ffi::OsStrExt;
        let d = tree(&[("a.litmus", "")]);
        let fifo = d.0.join("p.litmus");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        std::fs::write(d.0.join(std::ffi::OsStr::from_bytes(b"caf\xe9.litmus")), "").unwrap();
        // Another name that reads the same once made UTF-8: still its own entry.
        std::fs::write(d.0.join(std::ffi::OsStr::from_bytes(b"caf\xe8.litmus")), "").unwrap();
        let e = expand(&[d.0.to_string_lossy().into_owned()]);
        assert_eq!(names(&d, &e), ["a.litmus", "caf\u{FFFD}.litmus !", "caf\u{FFFD}.litmus !", "p.litmus !"]);
        assert!(e[1].error.as_deref().unwrap().contains("not valid UTF-8"), "{e:?}");
        assert!(e[3].error.as_deref().unwrap().contains("not a regular file"), "{e:?}");
    }

    #[test]
    fn files_keep_argument_order_and_appear_once() {
        let d = tree(&[("a.litmus", ""), ("b.litmus", "")]);
        let a = d.0.join("a.litmus").to_string_lossy().into_owned();
        let b = d.0.join("b.litmus").to_string_lossy().into_owned();
        let e = expand(&[b.clone(), a.clone(), d.0.to_string_lossy().into_owned()]);
        assert_eq!(names(&d, &e), ["b.litmus", "a.litmus"]);
    }
}

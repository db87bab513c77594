//! Finding `.litmus` sources on disk: the one walk of folders behind the
//! CLI's file lists (`litmus check DIR`) and the language server's
//! workspace scan. The walk reads folders — in name order, subfolders where
//! they come, each real folder once when links are followed, within a
//! budget of entries — and hands what it meets to a [`Visit`]or; what is
//! made of it (herd indexes, errors, URIs) is the caller's.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::FileType;
use std::path::{Path, PathBuf};

/// The extension of litmus sources.
pub const EXTENSION: &str = "litmus";

/// `path` names a litmus source (by its extension).
pub fn is_litmus(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == EXTENSION)
}

/// What a [`Walk`] meets.
pub trait Visit {
    /// A folder about to be read (a root too): `false` leaves it unread —
    /// the visitor took care of it (the CLI follows a herd index instead),
    /// possibly walking other folders with `walk`.
    fn folder(&mut self, walk: &mut Walk, dir: &Path) -> bool {
        let _ = (walk, dir);
        true
    }

    /// A `.litmus` entry that is not a folder, with its type as the walk saw
    /// it (a link's target's when following links; `None`: unknown, as for
    /// a dangling link).
    fn file(&mut self, path: &Path, kind: Option<FileType>);

    /// A folder that could not be read.
    fn unreadable(&mut self, dir: &Path, error: std::io::Error) {
        let _ = (dir, error);
    }
}

/// A walk of folders; one `Walk` over several roots shares its budget and,
/// following links, its record of the folders already walked.
pub struct Walk {
    follow_links: bool,
    /// Subfolders not entered, by name.
    skip: fn(&OsStr) -> bool,
    /// Entries (files and folders alike) that may still be read.
    budget: usize,
    exhausted: bool,
    /// Following links: the folders walked (canonical), so a link loop ends.
    walked: HashSet<PathBuf>,
}

impl Walk {
    /// A walk that follows symbolic links (to folders and files) or not, and
    /// does not enter the subfolders whose name `skip` accepts (a root is
    /// always entered).
    pub fn new(follow_links: bool, skip: fn(&OsStr) -> bool) -> Walk {
        Walk { follow_links, skip, budget: usize::MAX, exhausted: false, walked: HashSet::new() }
    }

    /// Stop for good after reading `n` entries.
    pub fn max_entries(mut self, n: usize) -> Walk {
        self.budget = n;
        self
    }

    /// The budget ran out: some entries were left unread.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Walk `dir`: its entries in name order, each subfolder (not skipped)
    /// walked where it comes, each `.litmus` entry that is not a folder
    /// given to `visit`.
    pub fn walk<V: Visit + ?Sized>(&mut self, dir: &Path, visit: &mut V) {
        if self.exhausted || !visit.folder(self, dir) {
            return;
        }
        if self.follow_links {
            if let Ok(real) = std::fs::canonicalize(dir) {
                if !self.walked.insert(real) {
                    return;
                }
            }
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(rd) => rd,
            Err(e) => return visit.unreadable(dir, e),
        };
        // No more than the budget can take is read (a huge folder must not
        // stall a bounded walk).
        let mut entries: Vec<std::fs::DirEntry> =
            entries.filter_map(Result::ok).take(self.budget.saturating_add(1)).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            if self.budget == 0 {
                self.exhausted = true;
                return;
            }
            self.budget -= 1;
            let path = e.path();
            let kind = match e.file_type() {
                Ok(t) if !(t.is_symlink() && self.follow_links) => Some(t),
                Err(_) if !self.follow_links => None,
                _ => std::fs::metadata(&path).ok().map(|m| m.file_type()),
            };
            if kind.is_some_and(|t| t.is_dir()) {
                if !(self.skip)(&e.file_name()) {
                    self.walk(&path, visit);
                }
            } else if is_litmus(&path) {
                visit.file(&path, kind);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tree(PathBuf);

    impl Tree {
        fn new(files: &[&str]) -> Tree {
            static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let root = std::env::temp_dir().join(format!("litmus-files-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for f in files {
                let p = root.join(f);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, "").unwrap();
            }
            Tree(root)
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[derive(Default)]
    struct Names(Vec<String>, PathBuf);

    impl Visit for Names {
        fn file(&mut self, path: &Path, _: Option<FileType>) {
            self.0.push(path.strip_prefix(&self.1).unwrap().to_string_lossy().into_owned());
        }
    }

    fn hidden(name: &OsStr) -> bool {
        name.to_str().is_some_and(|n| n.starts_with('.'))
    }

    #[test]
    fn folders_are_read_in_name_order_with_subfolders_where_they_come() {
        let t = Tree::new(&["b.litmus", "a/z.litmus", "a/y.txt", ".git/x.litmus", "c.litmus", "a/.h.litmus"]);
        let mut names = Names(Vec::new(), t.0.clone());
        Walk::new(true, hidden).walk(&t.0, &mut names);
        assert_eq!(names.0, ["a/.h.litmus", "a/z.litmus", "b.litmus", "c.litmus"]);
    }

    #[test]
    fn a_budget_stops_the_walk_for_good() {
        let t = Tree::new(&["a/1.litmus", "a/2.litmus", "b.litmus", "c/3.litmus"]);
        let mut names = Names(Vec::new(), t.0.clone());
        // a, a/1.litmus, a/2.litmus, b.litmus: then c is one entry too many.
        let mut walk = Walk::new(false, hidden).max_entries(4);
        walk.walk(&t.0, &mut names);
        walk.walk(&t.0.join("c"), &mut names);
        assert_eq!(names.0, ["a/1.litmus", "a/2.litmus", "b.litmus"]);
        assert!(walk.exhausted());
    }

    #[test]
    #[cfg(unix)]
    fn links_are_followed_once_or_not_at_all() {
        let t = Tree::new(&["a/x.litmus"]);
        std::os::unix::fs::symlink(&t.0, t.0.join("a/loop")).unwrap();
        std::os::unix::fs::symlink(t.0.join("a/x.litmus"), t.0.join("y.litmus")).unwrap();
        let mut names = Names(Vec::new(), t.0.clone());
        Walk::new(true, hidden).walk(&t.0, &mut names);
        assert_eq!(names.0, ["a/x.litmus", "y.litmus"]);
        // Not following: a link to a file is given with its own type.
        let mut kinds = Vec::new();
        struct Kinds<'a>(&'a mut Vec<bool>);
        impl Visit for Kinds<'_> {
            fn file(&mut self, _: &Path, kind: Option<FileType>) {
                self.0.push(kind.is_some_and(|t| t.is_file()));
            }
        }
        Walk::new(false, hidden).walk(&t.0, &mut Kinds(&mut kinds));
        assert_eq!(kinds, [true, false]);
    }
}

//! Workspace symbols: the threads, functions and shared locations of every
//! open document and of the `.litmus` files in the workspace folders,
//! matched against a query by substring or, failing that, in order
//! (`sbf` finds `store_buffer_flag`). Files on disk are parsed (never
//! checked), within limits — none over [`MAX_FILE_BYTES`], at most
//! [`MAX_FILES`] and [`MAX_READ_BYTES`] read per request — and kept by
//! path, modification time and length, so a repeated query reads nothing.

use litmus_dsl::{Analysis, SymbolKind};
use litmus_ir::Span;
use ropey::Rope;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// A file larger than this is no litmus test anyone wrote by hand: skipped.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Files of the folders looked at per request.
pub const MAX_FILES: usize = 2_000;
/// Bytes read from disk per request (cached files cost nothing).
pub const MAX_READ_BYTES: u64 = 32 << 20;
/// Symbols answered per request.
pub const MAX_RESULTS: usize = 256;

/// A name to list.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub kind: SymbolKind,
    /// The file's test name (else its file name).
    pub container: String,
    /// The name's declaration.
    pub span: Span,
}

/// A file's names, with its text's lines to place them.
pub struct Indexed {
    pub rope: Rope,
    pub entries: Vec<Entry>,
}

/// The names a workspace search lists from one analysis: threads,
/// functions and shared locations (not registers, labels or parameters).
pub fn entries(a: &Analysis, file_name: &str) -> Vec<Entry> {
    let container = a.name.clone().unwrap_or_else(|| file_name.to_string());
    a.symbols
        .list
        .iter()
        .filter(|s| {
            matches!(s.kind, SymbolKind::Thread | SymbolKind::Function)
                || (matches!(s.kind, SymbolKind::Shared | SymbolKind::Array) && s.scope.is_none())
        })
        .map(|s| Entry { name: s.name.clone(), kind: s.kind, container: container.clone(), span: s.def })
        .collect()
}

/// How well `name` matches `query` (lower is better), ignoring case: equal,
/// a prefix, a substring, then the query's characters in order; `None` if
/// not even that. An empty query matches everything alike.
pub fn score(query: &str, name: &str) -> Option<u8> {
    let (q, n) = (query.to_lowercase(), name.to_lowercase());
    if q.is_empty() {
        return Some(3);
    }
    if n == q {
        return Some(0);
    }
    if n.starts_with(&q) {
        return Some(1);
    }
    if n.contains(&q) {
        return Some(2);
    }
    let mut rest = n.chars();
    q.chars().all(|c| rest.any(|d| d == c)).then_some(4)
}

/// The best matches among `files` (a key, such as a URI, and the entries
/// of one file), at most [`MAX_RESULTS`]: by score, then name, then file.
pub fn search<'a, K: Ord>(query: &str, files: &'a [(K, Arc<Indexed>)]) -> Vec<(&'a K, &'a Indexed, &'a Entry)> {
    let mut hits: Vec<(u8, &K, &Indexed, &Entry)> = files
        .iter()
        .flat_map(|(k, ix)| ix.entries.iter().map(move |e| (k, &**ix, e)))
        .filter_map(|(k, ix, e)| Some((score(query, &e.name)?, k, ix, e)))
        .collect();
    hits.sort_by(|a, b| (a.0, &a.3.name, a.1, a.3.span).cmp(&(b.0, &b.3.name, b.1, b.3.span)));
    hits.truncate(MAX_RESULTS);
    hits.into_iter().map(|(_, k, ix, e)| (k, ix, e)).collect()
}

/// A file's modification time and length: a cached index is good while
/// both stay.
type Stamp = (SystemTime, u64);

type Cache = Mutex<HashMap<PathBuf, (Stamp, Arc<Indexed>)>>;

/// Indexes by path. Process-wide: what a file holds depends only on its
/// content, which the stamp stands for, so sessions may share them.
fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The indexes of the files on disk (the first [`MAX_FILES`] given), each
/// from the cache while its stamp holds, else read and parsed while the
/// request's byte budget lasts. A file that cannot be read, is too large or
/// is not UTF-8 is left out.
pub fn index_files(paths: &[PathBuf]) -> Vec<(PathBuf, Arc<Indexed>)> {
    let mut budget = MAX_READ_BYTES;
    let mut out = Vec::new();
    for p in paths.iter().take(MAX_FILES) {
        let Some((stamp, len)) = stamp(p) else { continue };
        if len > MAX_FILE_BYTES {
            continue;
        }
        let cached =
            cache().lock().unwrap_or_else(|e| e.into_inner()).get(p).filter(|c| c.0 == stamp).map(|c| c.1.clone());
        let ix = match cached {
            Some(ix) => ix,
            None if len <= budget => {
                budget -= len;
                let Some(ix) = read(p) else { continue };
                let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
                // Bounded: a cache that grew past many workspaces' worth starts over.
                if c.len() >= 4 * MAX_FILES {
                    c.clear();
                }
                c.insert(p.clone(), (stamp, ix.clone()));
                ix
            }
            None => continue,
        };
        out.push((p.clone(), ix));
    }
    out
}

fn stamp(p: &Path) -> Option<(Stamp, u64)> {
    let m = std::fs::metadata(p).ok()?;
    Some(((m.modified().ok()?, m.len()), m.len()))
}

fn read(p: &Path) -> Option<Arc<Indexed>> {
    let text = std::fs::read_to_string(p).ok()?;
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let entries = entries(&litmus_dsl::analyze(&text), &name);
    Some(Arc::new(Indexed { rope: Rope::from_str(&text), entries }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_rank_equal_prefix_substring_then_in_order() {
        assert_eq!(score("flag", "flag"), Some(0));
        assert_eq!(score("FL", "flag0"), Some(1));
        assert_eq!(score("ag", "flag0"), Some(2));
        assert_eq!(score("fg0", "flag0"), Some(4));
        assert_eq!(score("gf", "flag0"), None);
        assert_eq!(score("", "x"), Some(3));
    }

    #[test]
    fn entries_are_threads_functions_and_shared() {
        let (src, _) = crate::test_support::load("examples/treiber-stack.litmus");
        let a = litmus_dsl::analyze(&src);
        let names: Vec<(String, SymbolKind, String)> =
            entries(&a, "f.litmus").into_iter().map(|e| (e.name, e.kind, e.container)).collect();
        let want = [
            ("top", SymbolKind::Shared),
            ("next", SymbolKind::Array),
            ("val", SymbolKind::Array),
            ("push", SymbolKind::Function),
            ("pop", SymbolKind::Function),
            ("P0", SymbolKind::Thread),
            ("P1", SymbolKind::Thread),
        ];
        let want: Vec<(String, SymbolKind, String)> =
            want.iter().map(|(n, k)| (n.to_string(), *k, "Treiber-stack".to_string())).collect();
        assert_eq!(names, want);
    }
}

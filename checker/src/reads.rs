//! The values each load read, per statement and cell, gathered from the
//! executions an exploration visits anyway (no second run): what the editor
//! shows inline and `check --format json` prints as `reads`.
//!
//! A load is a read-only event (a `Load`; a `lock` attempt that found the
//! lock taken reads too). Executions an `assume` pruned do not count (they
//! do not exist); deadlocked, failed and cut ones do. A failed attempt at an
//! `await` or `lock`: where every attempt runs (the monitored SC
//! exploration, execution graphs), each one in such an execution counts;
//! where a failing attempt is left waiting (the interleaving explorer's
//! outcome runs, [`crate::dpor::Limits::waits_block`]), only the one a thread
//! waiting at the end would make there. So an await's set may show fewer
//! failing values under TSO than under SC; the values that let it pass are
//! the same. Each set keeps its
//! [`CAP`] smallest values and whether there were more, so the set does not
//! depend on the order executions were visited in (parallel searches merge
//! by union). What the set is worth is the exploration's `Coverage`.

use crate::machine::{Event, EventKind};
use litmus_ir::{Cell, Program, StmtId};

/// Values kept per set; more are counted as "…".
pub const CAP: usize = 8;

/// The values one load read: the smallest [`CAP`], sorted, and whether
/// there were others.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ValueSet {
    pub values: Vec<i64>,
    pub more: bool,
}

impl ValueSet {
    pub fn insert(&mut self, v: i64) {
        match self.values.binary_search(&v) {
            Ok(_) => {}
            Err(i) if i >= CAP => self.more = true,
            Err(i) => {
                self.values.insert(i, v);
                if self.values.len() > CAP {
                    self.values.pop();
                    self.more = true;
                }
            }
        }
    }

    pub fn union(&mut self, o: &ValueSet) {
        for &v in &o.values {
            self.insert(v);
        }
        self.more |= o.more;
    }
}

/// Per statement (its id indexes the table) and cell: the values read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    by_stmt: Vec<Vec<(Cell, ValueSet)>>,
}

impl Reads {
    pub fn add(&mut self, stmt: StmtId, cell: Cell, value: i64) {
        let s = stmt as usize;
        if s >= self.by_stmt.len() {
            self.by_stmt.resize_with(s + 1, Vec::new);
        }
        let cells = &mut self.by_stmt[s];
        // A statement reads one or two cells: a scan beats a map.
        match cells.iter_mut().find(|(c, _)| *c == cell) {
            Some((_, set)) => set.insert(value),
            None => {
                let mut set = ValueSet::default();
                set.insert(value);
                let at = cells.partition_point(|(c, _)| *c < cell);
                cells.insert(at, (cell, set));
            }
        }
    }

    /// The loads among `events`.
    pub fn add_events(&mut self, events: &[Event]) {
        for e in events {
            if e.kind == EventKind::Load {
                self.add(e.stmt, e.cell, e.value);
            }
        }
    }

    pub fn union(&mut self, o: &Reads) {
        for (stmt, cells) in o.by_stmt.iter().enumerate() {
            for (cell, set) in cells {
                let s = stmt;
                if s >= self.by_stmt.len() {
                    self.by_stmt.resize_with(s + 1, Vec::new);
                }
                let mine = &mut self.by_stmt[s];
                match mine.iter_mut().find(|(c, _)| c == cell) {
                    Some((_, m)) => m.union(set),
                    None => {
                        let at = mine.partition_point(|(c, _)| c < cell);
                        mine.insert(at, (*cell, set.clone()));
                    }
                }
            }
        }
    }

    /// What `stmt` read, per cell in cell order (empty: it read nothing).
    pub fn of(&self, stmt: StmtId) -> &[(Cell, ValueSet)] {
        self.by_stmt.get(stmt as usize).map_or(&[], |v| &v[..])
    }

    /// Every (statement, cell, values), in statement then cell order.
    pub fn iter(&self) -> impl Iterator<Item = (StmtId, Cell, &ValueSet)> {
        self.by_stmt.iter().enumerate().flat_map(|(s, cells)| cells.iter().map(move |(c, v)| (s as StmtId, *c, v)))
    }

    pub fn is_empty(&self) -> bool {
        self.by_stmt.iter().all(Vec::is_empty)
    }
}

/// The register a loading statement reads into — `let r = …`, `r = …`, herd
/// `MOV EAX,[x]` — or `None` (`if x == 1`, `x = y`, `assert(x == 1)`).
/// Read off the statement's text, not the IR, because lowering may load
/// into a temporary first; the editor's hints and `check --format json`
/// both name loads by it.
pub fn register(prog: &Program, stmt: StmtId) -> Option<String> {
    let text = prog.stmts.get(stmt as usize)?.text.trim();
    let is_name = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if let Some(rest) = text.strip_prefix("let ") {
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        return is_name(&name).then_some(name);
    }
    // `r = x`: an assignment to a register, not to a location.
    if let Some((lhs, rhs)) = text.split_once('=') {
        let lhs = lhs.trim();
        if !rhs.starts_with('=') && is_name(lhs) && prog.location(lhs).is_none() {
            return Some(lhs.to_string());
        }
    }
    let (mnemonic, ops) = text.split_once(char::is_whitespace)?;
    if mnemonic.eq_ignore_ascii_case("MOV") {
        let (dst, _) = ops.split_once(',')?;
        let dst = dst.trim();
        if !dst.starts_with('[') && !dst.is_empty() {
            return Some(dst.to_string());
        }
    }
    // AT&T (`movl (y),%eax`): the destination comes last, `%`-prefixed.
    let m = mnemonic.to_ascii_lowercase();
    if m.starts_with("mov") {
        let (_, dst) = ops.rsplit_once(',')?;
        let reg = dst.trim().strip_prefix('%')?;
        if is_name(reg) {
            return Some(reg.to_string());
        }
    }
    None
}

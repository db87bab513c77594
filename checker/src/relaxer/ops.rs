//! The vocabulary of predicted cycles: a statement's access and its label.

use litmus_ir::StmtId;

/// The access a cycle's statement makes (a statement like `x = y + 1`
/// makes two, so a label names both).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Read,
    Write,
    /// An atomic read-modify-write (cas, xchg, fetch_add, lock).
    Update,
}

impl Op {
    pub fn letter(self) -> char {
        match self {
            Op::Read => 'r',
            Op::Write => 'w',
            Op::Update => 'u',
        }
    }
    pub(super) fn from_letter(c: char) -> Option<Op> {
        match c {
            'r' => Some(Op::Read),
            'w' => Some(Op::Write),
            'u' => Some(Op::Update),
            _ => None,
        }
    }
}

/// One statement of a predicted cycle: which thread, which access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label {
    pub thread: u16,
    pub stmt: StmtId,
    pub op: Op,
}

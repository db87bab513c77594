//! `ThreadCells`: the (thread, cell) pairs that get a PSO/PSLO store buffer
//! or a PSLO store history, numbered thread-major and compactly.
//!
//! Only the cells a thread's code can store to need a buffer, and only the
//! cells other threads can store to need a history (nothing else lengthens
//! it): a 65,536-cell array touched at two places then costs two buffers per
//! thread, not 65,536 (states, clocks and enabledness scans all follow the
//! number of pairs).

use litmus_ir::Cell;

#[derive(Clone, Debug, Default)]
pub struct ThreadCells {
    /// Per thread, where its pairs start; one more entry: the total.
    start: Vec<usize>,
    /// The cell of each pair, sorted within each thread.
    cells: Vec<Cell>,
}

impl ThreadCells {
    /// From each thread's cells (sorted, without duplicates).
    pub fn new<'a>(per_thread: impl IntoIterator<Item = &'a [Cell]>) -> ThreadCells {
        let mut out = ThreadCells { start: vec![0], cells: Vec::new() };
        for cells in per_thread {
            debug_assert!(cells.windows(2).all(|w| w[0] < w[1]), "sorted, without duplicates");
            out.cells.extend_from_slice(cells);
            out.start.push(out.cells.len());
        }
        out
    }

    /// How many pairs there are.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The index of `thread`'s pair for `cell`, if it has one.
    pub fn index(&self, thread: usize, cell: Cell) -> Option<usize> {
        let range = self.of(thread);
        let lo = range.start;
        self.cells[range].binary_search(&cell).ok().map(|i| lo + i)
    }

    /// The indices of `thread`'s pairs.
    pub fn of(&self, thread: usize) -> std::ops::Range<usize> {
        match (self.start.get(thread), self.start.get(thread + 1)) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        }
    }

    /// The cell of pair `i`.
    pub fn cell(&self, i: usize) -> Cell {
        self.cells[i]
    }

    /// The thread of pair `i`.
    pub fn owner(&self, i: usize) -> usize {
        self.start.partition_point(|&s| s <= i) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_round_trips() {
        let (a, b, c): (&[Cell], &[Cell], &[Cell]) = (&[1, 5, 9], &[], &[0, 5]);
        let tc = ThreadCells::new([a, b, c]);
        assert_eq!(tc.len(), 5);
        assert_eq!(tc.of(0), 0..3);
        assert_eq!(tc.of(1), 3..3);
        assert_eq!(tc.of(2), 3..5);
        assert_eq!(tc.of(3), 0..0);
        for (t, cells) in [a, b, c].iter().enumerate() {
            for &cell in *cells {
                let i = tc.index(t, cell).unwrap();
                assert_eq!((tc.owner(i), tc.cell(i)), (t, cell));
            }
        }
        assert_eq!(tc.index(0, 0), None);
        assert_eq!(tc.index(1, 5), None);
        assert_eq!(tc.index(2, 9), None);
    }
}

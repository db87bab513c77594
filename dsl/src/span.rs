//! Byte spans and line/column lookup shared by every stage. [`Span`]
//! lives in the IR crate (the IR's statements carry spans) and is
//! re-exported here.

pub use litmus_ir::Span;

/// Maps byte offsets to 1-based lines and columns (columns count chars).
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// The length of the text indexed.
    len: usize,
    /// `block_chars[k]`: the number of chars before byte `k * BLOCK`, so a
    /// column costs at most one block of counting however long its line.
    block_chars: Vec<usize>,
}

const BLOCK: usize = 4096;

/// The chars in `bytes` (which starts on a char boundary).
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

impl LineIndex {
    pub fn new(src: &str) -> Self {
        let mut starts = vec![0];
        let bytes = src.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                // A lone CR is a line break too (as LSP counts them).
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        let mut block_chars = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut chars = 0;
        for block in bytes.chunks(BLOCK) {
            block_chars.push(chars);
            chars += count_chars(block);
        }
        block_chars.push(chars);
        LineIndex { starts, len: src.len(), block_chars }
    }

    /// The chars in `src[..offset]`, `offset` a char boundary.
    fn chars_before(&self, src: &str, offset: usize) -> usize {
        let k = offset / BLOCK;
        self.block_chars[k] + count_chars(&src.as_bytes()[k * BLOCK..offset])
    }

    /// 0-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        }
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.starts[line.min(self.starts.len() - 1)]
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based line and 1-based column (in chars) of a byte offset.
    pub fn line_col(&self, src: &str, offset: usize) -> (u32, u32) {
        let offset = offset.min(src.len());
        let line = self.line_of(offset);
        let start = self.starts[line];
        let col = if !src.is_char_boundary(offset) || !src.is_char_boundary(start) {
            offset - start
        } else if offset - start <= BLOCK || src.len() != self.len {
            src[start..offset].chars().count()
        } else {
            self.chars_before(src, offset) - self.chars_before(src, start)
        };
        (line as u32 + 1, col as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars_and_all_line_breaks() {
        let src = "ab\né x\r\ny\rz";
        let idx = LineIndex::new(src);
        assert_eq!(idx.line_col(src, 0), (1, 1));
        assert_eq!(idx.line_col(src, 3), (2, 1));
        assert_eq!(idx.line_col(src, 6), (2, 3)); // 'x' after 'é ' (é is 2 bytes)
        assert_eq!(idx.line_col(src, 9), (3, 1));
        assert_eq!(idx.line_col(src, 11), (4, 1));
    }

    #[test]
    fn columns_on_long_lines_count_chars() {
        let src = format!("x\n{}{}end", "é".repeat(3000), "a".repeat(5000));
        let idx = LineIndex::new(&src);
        let at = src.find("end").unwrap();
        assert_eq!(idx.line_col(&src, at), (2, 8001));
        assert_eq!(idx.line_col(&src, 2 + 2 * 3000), (2, 3001));
        // Not a char boundary: byte distance, as before.
        assert_eq!(idx.line_col(&src, 3), (2, 2));
    }
}

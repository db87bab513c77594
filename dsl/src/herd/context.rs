//! What lowering a herd test keeps as it goes: the file's locations and
//! symbols ([`Ctx`]) and each thread's registers and code ([`ThreadCtx`]),
//! shared by every architecture's instruction lowering.

use super::ast::Arch;
use crate::diagnostic::Diagnostic;
use crate::ir::{self, Instr, Operand, Reg, RegInfo, RegKind};
use crate::native::ast::Ident;
use crate::symbols::{SymbolKind, Symbols};
use std::collections::HashMap;

pub(super) struct Ctx<'a> {
    pub(super) src: &'a str,
    pub(super) arch: Arch,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) symbols: Symbols,
    /// Location name -> (index in `locations`, its symbol).
    pub(super) loc_index: HashMap<String, (usize, usize)>,
    pub(super) locations: Vec<ir::Location>,
    pub(super) init: Vec<i64>,
    /// AArch64: the width in bits of each scalar declared with a type
    /// (`uint64_t x;`) or holding an address (a pointer: 64); any other
    /// is herd's `int`, 32 bits.
    pub(super) declared: HashMap<String, u8>,
}

impl<'a> Ctx<'a> {
    pub(super) fn location(&mut self, id: &Ident, len: Option<u32>) -> u32 {
        self.location_of(id, len, 8)
    }

    /// A location whose elements are `elem_bytes` wide (herd's AArch64
    /// `int x[2]`: 4), found or made.
    pub(super) fn location_of(&mut self, id: &Ident, len: Option<u32>, elem_bytes: u8) -> u32 {
        if let Some(&(i, s)) = self.loc_index.get(&id.name) {
            self.symbols.reference(s, id.span);
            return self.locations[i].base;
        }
        let n = len.unwrap_or(1);
        let base = self.init.len() as u32;
        self.init.extend(std::iter::repeat_n(0, n as usize));
        self.locations.push(ir::Location {
            name: id.name.clone(),
            span: Some(id.span),
            base,
            len: n,
            is_array: len.is_some(),
            elem_bytes,
        });
        let kind = if len.is_some() { SymbolKind::Array } else { SymbolKind::Shared };
        let sym = self.symbols.add(&id.name, kind, id.span, format!("location {}", id.name), None, id.span);
        self.loc_index.insert(id.name.clone(), (self.locations.len() - 1, sym));
        base
    }

    /// The byte address of a cell (see [`ir::Layout`]).
    pub(super) fn address(&self, cell: u32) -> i64 {
        ir::Layout::of(&self.locations, self.init.len()).address(cell)
    }

    /// Is the location named `id` an array?
    pub(super) fn is_array(&self, id: &Ident) -> bool {
        self.loc_index.get(&id.name).is_some_and(|&(i, _)| self.locations[i].is_array)
    }

    /// The length of the location named `id` (1 if there is none).
    pub(super) fn location_len(&self, id: &Ident) -> u32 {
        self.loc_index.get(&id.name).map(|&(i, _)| self.locations[i].len).unwrap_or(1)
    }
}

pub(super) struct ThreadCtx {
    pub(super) index: u16,
    pub(super) name: String,
    pub(super) regs: Vec<RegInfo>,
    pub(super) init_regs: Vec<i64>,
    pub(super) by_family: HashMap<String, Reg>,
    pub(super) reg_syms: HashMap<String, usize>,
    pub(super) code: Vec<Instr>,
    pub(super) flag_a: Option<Reg>,
    pub(super) flag_b: Option<Reg>,
    pub(super) temps: Vec<Reg>,
    pub(super) temp_next: usize,
    pub(super) stmt_ranges: Vec<ir::StmtRange>,
    /// AArch64: each access's base register, offset, width in bits, and
    /// where it is (mixed-size accesses are found once every thread is lowered).
    pub(super) widths: Vec<(Reg, i64, u8, crate::span::Span)>,
}

impl ThreadCtx {
    pub(super) fn family_reg(&mut self, family: &str, spelled: &Ident, symbols: &mut Symbols) -> Reg {
        if let Some(&s) = self.reg_syms.get(family) {
            symbols.reference(s, spelled.span);
        } else {
            let s = symbols.add(
                spelled.name.trim_start_matches('%'),
                SymbolKind::Register,
                spelled.span,
                format!("register {} of {}", family, self.name),
                Some(self.name.clone()),
                spelled.span,
            );
            self.reg_syms.insert(family.to_string(), s);
        }
        if let Some(&r) = self.by_family.get(family) {
            return r;
        }
        self.regs.push(RegInfo { name: family.to_string(), kind: RegKind::User });
        self.init_regs.push(0);
        let r = (self.regs.len() - 1) as Reg;
        self.by_family.insert(family.to_string(), r);
        r
    }

    pub(super) fn hidden(&mut self, name: &str) -> Reg {
        self.regs.push(RegInfo { name: name.to_string(), kind: RegKind::Temp });
        self.init_regs.push(0);
        (self.regs.len() - 1) as Reg
    }

    pub(super) fn flags(&mut self) -> (Reg, Reg) {
        if self.flag_a.is_none() {
            self.flag_a = Some(self.hidden("%flags.a"));
            self.flag_b = Some(self.hidden("%flags.b"));
        }
        (self.flag_a.unwrap(), self.flag_b.unwrap())
    }

    /// Temporaries live within one instruction.
    pub(super) fn temp(&mut self) -> Reg {
        if self.temp_next == self.temps.len() {
            let r = self.hidden(&format!("%t{}", self.temps.len()));
            self.temps.push(r);
        }
        self.temp_next += 1;
        self.temps[self.temp_next - 1]
    }

    pub(super) fn set_flags(&mut self, a: Operand, b: Operand) {
        let (fa, fb) = self.flags();
        self.code.push(Instr::Mov { dst: fa, src: a });
        self.code.push(Instr::Mov { dst: fb, src: b });
    }
}

/// `ins` (its mnemonic shown as `shown`) has `n` operands, else E0122.
// A diagnostic is the error path only, taken once per file; boxing it buys nothing.
#[allow(clippy::result_large_err)]
pub(super) fn arity(ins: &super::ast::Instr, shown: &str, n: usize) -> Result<(), Diagnostic> {
    if ins.operands.len() == n {
        return Ok(());
    }
    let found = ins.operands.len();
    Err(Diagnostic::error("E0122", ins.span, format!("`{shown}` takes {n} operand(s), found {found}")))
}

/// E0120: an instruction litmus does not model, with the ones it does.
pub(super) fn unsupported(ins: &super::ast::Instr, supported: &str) -> Diagnostic {
    Diagnostic::error("E0120", ins.mnemonic.span, format!("unsupported instruction `{}`", ins.mnemonic.name))
        .with_label("litmus does not model this instruction")
        .with_help(format!("supported: {supported}"))
}

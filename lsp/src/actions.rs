//! Code actions: a quick fix per violation inserting its fence, and a
//! source action inserting every fence of the minimal set. The fences were
//! confirmed by re-checking the fenced program before they are offered.
//! Under a model decided on whole candidates (ARM, RISC-V, C11) the same
//! two actions make the changes of the cheapest repair instead: barriers,
//! stronger instructions, stronger memory orders, re-checked likewise.

use litmus_checker::violation::{Change, FencePoint, Repair};
use litmus_checker::{Answer, Report};
use litmus_dsl::edit::{fence_edits, FenceInsertion, TextEdit};
use litmus_ir::Program;

/// The kind of "Insert all minimal fences": a source action of its own, not
/// `source.fixAll`, which editors may run on save — fences change the program.
pub const INSERT_FENCES: tower_lsp_server::ls_types::CodeActionKind =
    tower_lsp_server::ls_types::CodeActionKind::new("source.litmus.insertFences");

pub struct Action {
    pub title: String,
    /// `quickfix`, or the `INSERT_FENCES` source action.
    pub quick_fix: bool,
    pub edits: Vec<TextEdit>,
    /// The violation it fixes, as in the diagnostic's data.
    pub violation: Option<(usize, usize)>,
    /// How many fences or changes it makes.
    pub changes: usize,
}

/// A fence as its title shows it: as the hover and the CLI write it
/// ([`litmus_present::words::fence_text`]), without the `;`.
fn fence_text(p: &Program, kind: litmus_ir::FenceKind) -> String {
    litmus_present::words::fence_text(p, kind).trim_end_matches(';').to_string()
}

fn fence_title(p: &Program, f: &FencePoint) -> String {
    insert_title(p, f.stmt, f.place, &fence_text(p, f.kind))
}

/// "Insert `text` after line 4" (before, at a loop's head).
fn insert_title(p: &Program, stmt: litmus_ir::StmtId, place: litmus_ir::Place, text: &str) -> String {
    use litmus_ir::Place;
    let s = &p.stmts[stmt as usize];
    match place {
        Place::After => format!("Insert `{text}` after line {}", s.end_line),
        Place::Before => format!("Insert `{text}` before line {}", s.line),
        Place::LoopHead => format!("Insert `{text}` at the head of the loop at line {}", s.line),
    }
}

fn edits(src: &str, p: &Program, fences: &[FencePoint]) -> Vec<TextEdit> {
    let ins: Vec<FenceInsertion> =
        fences.iter().map(|f| FenceInsertion { stmt: f.stmt, kind: f.kind, place: f.place }).collect();
    fence_edits(src, p, &ins)
}

/// A title's note when a violation needs more than one fence (one on each
/// of its paths).
fn more(n: usize) -> String {
    match n {
        0 | 1 => String::new(),
        2 => " and 1 more".into(),
        n => format!(" and {} more", n - 1),
    }
}

/// A title's note when the re-check that confirmed the fences was cut by bounds.
fn bounded(confirmed: &Answer<bool>) -> &'static str {
    match confirmed {
        Answer::WithinBounds(..) => " (confirmed within bounds)",
        _ => "",
    }
}

/// A change of a repair as a title: "Change `LDR W1,[X10]` to `LDAPR
/// W1,[X10]`", "Insert `DMB ISHLD` after line 4".
fn repair_title(p: &Program, r: &Repair) -> String {
    match r.change {
        Change::Fence { place, kind } => {
            insert_title(p, r.stmt, place, litmus_dsl::edit::barrier_text(p.dialect, kind).trim_end_matches(';'))
        }
        Change::Labels { to, .. } => {
            let s = &p.stmts[r.stmt as usize];
            match litmus_dsl::edit::relabel_stmt(p, r.stmt, &s.text, to) {
                Some((_, text)) => format!("Change `{}` to `{text}`", s.text),
                None => format!("Strengthen `{}`", s.text),
            }
        }
    }
}

/// The quick fix for one violation (`mi`: relaxed model index, `vi`: violation).
pub fn quick_fix(src: &str, p: &Program, r: &Report, mi: usize, vi: usize) -> Option<Action> {
    let rb = r.robustness.get(mi)?;
    let v = rb.violations.get(vi)?;
    if !rb.repairs.is_empty() {
        // The repair's changes at this violation's edge.
        if !rb.fences_confirmed.is(&true) {
            return None;
        }
        let mine: Vec<Repair> =
            rb.repairs.iter().copied().filter(|x| x.stmt == v.store_stmt || x.stmt == v.access_stmt).collect();
        let first = mine.first()?;
        let cost: u32 = rb.repairs.iter().map(|x| x.cost).sum();
        return Some(Action {
            title: format!(
                "{}{} (of the cheapest repair under {}, cost {cost}){}",
                repair_title(p, first),
                more(mine.len()),
                rb.model.upper(),
                bounded(&rb.fences_confirmed)
            ),
            quick_fix: true,
            edits: litmus_dsl::edit::repair_edits(src, p, &litmus_checker::repair::edits(&mine)),
            violation: Some((mi, vi)),
            changes: mine.len(),
        });
    }
    // Only fences whose re-check finished robust are offered.
    if !rb.fences_confirmed.is(&true) || v.fence.is_empty() {
        return None;
    }
    Some(Action {
        title: format!("{}{}{}", fence_title(p, &v.fence[0]), more(v.fence.len()), bounded(&rb.fences_confirmed)),
        quick_fix: true,
        edits: edits(src, p, &v.fence),
        violation: Some((mi, vi)),
        changes: v.fence.len(),
    })
}

/// "Apply the cheapest repair under MODELS (n changes, cost c)": a repair's
/// changes as one source action, offered once its re-check confirmed it.
fn repair_action(
    src: &str,
    p: &Program,
    repairs: &[Repair],
    models: &str,
    minimal: bool,
    confirmed: &Answer<bool>,
) -> Option<Action> {
    if repairs.is_empty() || !confirmed.is(&true) {
        return None;
    }
    let n = repairs.len();
    let cost: u32 = repairs.iter().map(|x| x.cost).sum();
    Some(Action {
        title: format!(
            "Apply the {}repair under {models} ({n} change{}, cost {cost}){}",
            if minimal { "cheapest " } else { "" },
            if n == 1 { "" } else { "s" },
            bounded(confirmed)
        ),
        quick_fix: false,
        edits: litmus_dsl::edit::repair_edits(src, p, &litmus_checker::repair::edits(repairs)),
        violation: None,
        changes: n,
    })
}

/// Every fence of the minimal set for all checked relaxed models; or,
/// under models decided on whole candidates, the cheapest repair for them
/// all (one model's alone, where it is the only one).
pub fn all_fences(src: &str, p: &Program, r: &Report) -> Option<Action> {
    if let Some((models, fix)) = &r.joint_repair {
        let names = litmus_present::words::models(models.iter().copied());
        return repair_action(src, p, &fix.repairs, &names, fix.minimal, &fix.confirmed);
    }
    if let Some(rb) = r.robustness.iter().find(|rb| !rb.repairs.is_empty() && rb.fences_confirmed.is(&true)) {
        return repair_action(src, p, &rb.repairs, rb.model.upper(), rb.fences_minimal, &rb.fences_confirmed);
    }
    if r.joint.fences.is_empty() || !r.joint.confirmed.is(&true) {
        return None;
    }
    let n = r.joint.fences.len();
    Some(Action {
        title: format!(
            "Insert all {}fences ({n} fence{}){}",
            if r.joint.minimal { "minimal " } else { "" },
            if n == 1 { "" } else { "s" },
            bounded(&r.joint.confirmed)
        ),
        quick_fix: false,
        edits: edits(src, p, &r.joint.fences),
        violation: None,
        changes: n,
    })
}

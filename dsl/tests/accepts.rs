//! Every example and every herd corpus test parses, analyses and lowers
//! cleanly, and the corpus tests' names and quantifiers match
//! `tests/corpus/herd-x86/verdicts.tsv`.

use std::path::{Path, PathBuf};

fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    v.sort();
    v
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn assert_clean(files: &[PathBuf]) {
    let mut failures = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(f).unwrap();
        let a = litmus_dsl::analyze(&src);
        let errors: Vec<_> = a.diagnostics.iter().filter(|d| d.is_error()).collect();
        if !errors.is_empty() || a.program.is_none() {
            failures.push(format!(
                "{}:\n{}",
                f.display(),
                litmus_dsl::diagnostic::render(&a.diagnostics, &f.display().to_string(), &src, false)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_example_is_clean() {
    let files = litmus_files(&root().join("examples"));
    assert!(files.len() >= 15, "expected at least 15 examples, found {}", files.len());
    assert_clean(&files);
    // Examples are documentation: no warnings either.
    for f in &files {
        let a = litmus_dsl::analyze(&std::fs::read_to_string(f).unwrap());
        assert!(a.diagnostics.is_empty(), "{}: {:?}", f.display(), a.diagnostics);
        assert_eq!(a.dialect, litmus_dsl::Dialect::Native);
    }
}

#[test]
fn every_herd_corpus_test_is_clean() {
    let files = litmus_files(&root().join("tests/corpus/herd-x86"));
    assert_eq!(files.len(), 88);
    assert_clean(&files);
    for f in &files {
        let a = litmus_dsl::analyze(&std::fs::read_to_string(f).unwrap());
        assert_eq!(a.dialect, litmus_dsl::Dialect::HerdX86, "{}", f.display());
        assert!(a.condition.is_some(), "{}: no final condition", f.display());
    }
}

#[test]
fn corpus_names_and_quantifiers_match_the_verdicts_table() {
    let dir = root().join("tests/corpus/herd-x86");
    let tsv = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut rows = 0;
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let src = std::fs::read_to_string(dir.join(cols[0])).unwrap();
        let a = litmus_dsl::analyze(&src);
        assert_eq!(a.name.as_deref(), Some(cols[1]), "{}", cols[0]);
        assert_eq!(a.condition.as_ref().unwrap().quantifier.as_str(), cols[3], "{}", cols[0]);
        rows += 1;
    }
    assert_eq!(rows, 88);
}

#[test]
fn a_condition_that_begins_or_ends_with_a_parenthesised_term_keeps_its_parentheses() {
    let prog = |cond: &str| format!("litmus T\nshared x = 0;\nthread P0 {{\n  let a = 1;\n  x = 1;\n}}\n{cond};\n");
    for (cond, text) in [
        ("forall ((P0:a == 1) + (x == 1) == 2)", "(P0:a == 1) + (x == 1) == 2"),
        ("forall (x == 1 && (P0:a == 1))", "x == 1 && (P0:a == 1)"),
        ("exists ((P0:a == 1))", "P0:a == 1"),
        ("exists (x == 1)", "x == 1"),
    ] {
        let a = litmus_dsl::analyze(&prog(cond));
        assert_eq!(a.condition.as_ref().map(|c| c.text.as_str()), Some(text), "{cond}");
    }
}

/// herd7's older x86 syntax, as Dat3M's X86 folder writes it: a `;` after
/// the initial block, `P0:EAX` for thread 0's register, `final` for
/// `exists`, a `with` list of expected verdicts, and a `<< … >>` block
/// (herd's splitter ends the test at `<<`).
#[test]
fn herds_older_x86_syntax_is_read_as_herd7_reads_it() {
    let src = "X86 old\n\"doc\"\n{x = 0; y = 0; P0:EAX = 7};\n\
         P0 | P1 ;\n mov [x],$1 | mov [y],$1 ;\n mov EAX,[y] | mov EBX,[x] ;\n\n\
         final (P0:EAX = 0 /\\ P1:EBX = 0);\nwith\ntso: exists;\ncc: ~exists;\n<<\nshow flags false\nreadfrom a/b-rf.dot\n>>\n";
    let a = litmus_dsl::analyze(src);
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    assert_eq!(a.condition.as_ref().expect("a condition").quantifier.as_str(), "exists");
    let p = a.program.as_ref().expect("lowers");
    let cond = p.condition.as_ref().unwrap();
    assert_eq!(cond.text, "P0:EAX = 0 /\\ P1:EBX = 0");
    // The initial `P0:EAX = 7` is thread 0's register, not a location.
    assert_eq!(p.locations.len(), 2);
    // A bare parenthesised condition is `exists` too.
    let bare = src.replace("final (", "(");
    let a = litmus_dsl::analyze(&bare);
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    assert_eq!(a.condition.unwrap().quantifier.as_str(), "exists");
}

/// herd's RISC-V tests: read as herd7 reads them, or refused by name (the
/// one mixed-size test).
#[test]
fn riscv_corpus_tests_lower_or_are_refused_by_name() {
    let files = litmus_files(&root().join("tests/corpus/herd-riscv"));
    assert_eq!(files.len(), 200);
    let (mut lowered, mut lrsc) = (0, 0);
    for f in &files {
        let a = litmus_dsl::analyze(&std::fs::read_to_string(f).unwrap());
        assert_eq!(a.dialect, litmus_dsl::Dialect::HerdRiscv, "{}", f.display());
        if let Some(p) = &a.program {
            lowered += 1;
            lrsc += usize::from(p.has_store_conditionals());
        }
    }
    assert_eq!((lowered, lrsc), (199, 29));
}

#[test]
fn riscv_registers_sizes_and_refusals() {
    let test =
        |body: &str| format!("RISCV T\n{{\n0:x6=x; 0:a1=y;\n}}\n P0 ;\n{body}\nexists (0:x5=1 /\\ 0:a0=0xffffffff)\n");
    // ABI names are the x registers; x0 reads 0.
    let a = litmus_dsl::analyze(&test(" ori x5,x0,1 ;\n sw x5,0(x6) ;\n lw a0,0(x11) ;"));
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    let p = a.program.unwrap();
    assert!(p.threads[0].regs.iter().any(|r| r.name == "x11"), "a1 is x11");
    // A 32-bit constant in the condition is herd's 32-bit value.
    assert!(format!("{:?}", p.condition.unwrap().expr).contains("-1"));
    let refused = |body: &str, code: &str| {
        let a = litmus_dsl::analyze(&test(body));
        assert!(a.program.is_none(), "{body}");
        assert!(a.diagnostics.iter().any(|d| d.code == code), "{body}: {:?}", a.diagnostics);
    };
    refused(" sw x5,4(x6) ;", "E0136"); // an offset: mixed-size
                                        // lr/sc: a load in EX (it reserves), then a store-conditional.
    let a = litmus_dsl::analyze(&test(" lr.w.aq x5,(x6) ;\n sc.w.rl a0,x5,0(x6) ;"));
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    let code = &a.program.unwrap().threads[0].code;
    use litmus_ir::{Instr, Labels};
    assert!(code.iter().any(|i| matches!(i, Instr::Load { labels, .. } if *labels == Labels::EX | Labels::ACQ)));
    assert!(code.iter().any(|i| matches!(i, Instr::StoreCond { labels, .. } if *labels == Labels::EX | Labels::REL)));
    refused(" lr.b x5,(x6) ;", "E0120");
    refused(" amomax.w x5,x7,(x6) ;", "E0120");
    refused(" lw x5,0(x99) ;", "E0124");
    refused(" fence rx,w ;", "E0137");
}

#[test]
fn aarch64_registers_operands_and_refusals() {
    let test = |body: &str| format!("AArch64 T\n{{\n0:X1=x; 0:X4=y;\n}}\n P0 ;\n{body}\nexists (0:X0=1)\n");
    use litmus_ir::{Addr, FenceKind, Instr, Labels, RmwOp};
    let lowered = |body: &str| {
        let a = litmus_dsl::analyze(&test(body));
        assert!(a.diagnostics.is_empty(), "{body}: {:?}", a.diagnostics);
        let p = a.program.unwrap();
        assert_eq!(p.dialect, litmus_ir::Dialect::HerdAArch64);
        p
    };
    // W and X name one register; WZR reads 0; an index with its extension.
    let p = lowered(" MOV W0,#1 ;\n EOR W2,W0,W0 ;\n LDAR W0,[X4,W2,SXTW] ;\n STLR WZR,[X1] ;");
    let t = &p.threads[0];
    assert_eq!(t.regs.iter().filter(|r| r.name == "X0").count(), 1, "W0 is X0");
    assert!(t.code.iter().any(
        |i| matches!(i, Instr::Load { addr: Addr::Computed { index: Some(_), .. }, labels, .. } if *labels == Labels::A)
    ));
    assert!(t
        .code
        .iter()
        .any(|i| matches!(i, Instr::Store { val: litmus_ir::Operand::Imm(0), labels, .. } if *labels == Labels::L)));
    // Barriers by name; CSEL is a select; exclusives and atomics carry their sets.
    let p = lowered(
        " DMB ISHLD ;\n ISB ;\n CMP W0,#1 ;\n CSEL W3,W0,W1,EQ ;\n LDAXR W5,[X1] ;\n STLXR W6,W5,[X1] ;\n SWPAL W0,W7,[X4] ;\n STADD W0,[X4] ;\n CASA W0,W3,[X1] ;",
    );
    let code = &p.threads[0].code;
    assert!(code
        .iter()
        .any(|i| matches!(i, Instr::Fence { kind, .. } if *kind == FenceKind::arm("DMB.ISHLD").unwrap())));
    assert!(code.iter().any(|i| matches!(i, Instr::Fence { kind, .. } if kind.tag() == "ISB")));
    assert!(code.iter().any(|i| matches!(i, Instr::Select { .. })));
    assert!(code.iter().any(|i| matches!(i, Instr::Load { labels, .. } if *labels == Labels::EX | Labels::A)));
    assert!(code.iter().any(|i| matches!(i, Instr::StoreCond { labels, .. } if *labels == Labels::EX | Labels::L)));
    assert!(code.iter().any(
        |i| matches!(i, Instr::Rmw { op: RmwOp::Xchg(_), labels, .. } if *labels == Labels::X | Labels::A | Labels::L)
    ));
    assert!(code.iter().any(|i| matches!(i, Instr::Rmw { op: RmwOp::Fetch(..), labels, .. } if labels.contains(Labels::NORET) && !labels.contains(Labels::A))));
    assert!(code.iter().any(|i| matches!(i, Instr::Rmw { op: RmwOp::Cas { .. }, .. })));
    // Post-indexed: the base register moves after the access.
    lowered(" STR W0,[X1],#4 ;");
    let refused = |body: &str, code: &str| {
        let a = litmus_dsl::analyze(&test(body));
        assert!(a.program.is_none(), "{body}");
        assert!(a.diagnostics.iter().any(|d| d.code == code), "{body}: {:?}", a.diagnostics);
    };
    refused(" LDR W0,[X1,#8] ;", "E0136"); // an offset: mixed-size
    refused(" LDP W0,W2,[X1] ;", "E0136"); // a pair over a scalar: mixed-size
    refused(" LDR X0,[X4,X2] ;", "E0147"); // 64 bits of herd's 32-bit `int`
    refused(" FROB W0 ;", "E0120");
    refused(" LDR W0,[X31] ;", "E0124");
    refused(" DMB XY ;", "E0137");
    refused(" B.QQ L0 ;\nL0: ;", "E0144");
    refused(" B L9 ;", "E0118");
    // herd's implication, below `\/`: `p => q \/ r` is `~p \/ (q \/ r)`.
    let a = litmus_dsl::analyze("AArch64 T\n{ 0:X1=x; }\n P0 ;\n LDR W0,[X1] ;\nforall (0:X0=0 => x=1 \\/ x=0)\n");
    let c = format!("{:?}", a.program.expect("lowers").condition.unwrap().expr);
    assert!(c.starts_with("Bin(Or, Un(Not,"), "{c}");
    // One location read as 32 bits and written as 64: a mixed-size test.
    let a = litmus_dsl::analyze(
        "AArch64 T\n{ 0:X1=x; 1:X1=x; }\n P0 | P1 ;\n LDR W0,[X1] | STR X2,[X1] ;\nexists (0:X0=1)\n",
    );
    assert!(a.diagnostics.iter().any(|d| d.code == "E0147"), "{:?}", a.diagnostics);
    // One width per location: read.
    lowered(" LDR W0,[X1] ;\n STR W0,[X1] ;\n LDR W2,[X4] ;");
    // 64 bits of a location declared so, or holding an address; not of an
    // untyped one (herd's `int`).
    let typed = "AArch64 T\n{ uint64_t x; z=y; 0:X1=x; 0:X3=z; 0:X4=y; }\n P0 ;\n LDR X0,[X1] ;\n LDR X2,[X3] ;\n LDR W5,[X4] ;\nexists (0:X0=1)\n";
    let a = litmus_dsl::analyze(typed);
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    let a = litmus_dsl::analyze(&typed.replace("LDR W5,[X4]", "LDR X5,[X4]"));
    assert!(a.diagnostics.iter().any(|d| d.code == "E0147"), "{:?}", a.diagnostics);
    // An array of 32-bit elements read with 64 bits, or between two elements.
    let a = litmus_dsl::analyze("AArch64 T\n{ int v[2]; 0:X1=v; }\n P0 ;\n LDR X0,[X1] ;\nexists (0:X0=1)\n");
    assert!(a.diagnostics.iter().any(|d| d.code == "E0147"), "{:?}", a.diagnostics);
    let a = litmus_dsl::analyze("AArch64 T\n{ int64_t v[2]; 0:X1=v; }\n P0 ;\n LDR X0,[X1,#4] ;\nexists (0:X0=1)\n");
    assert!(a.diagnostics.iter().any(|d| d.code == "E0136"), "{:?}", a.diagnostics);
    let a = litmus_dsl::analyze("AArch64 T\n{ int v[2]; 0:X1=v; }\n P0 ;\n LDR W0,[X1,#8] ;\nexists (0:X0=1)\n");
    assert!(a.diagnostics.iter().any(|d| d.code == "E0136"), "past the end: {:?}", a.diagnostics);
    let a = litmus_dsl::analyze("AArch64 T\n{ 0:X1=P0:L0; }\n P0 ;\n L0: ;\nexists (0:X0=1)\n");
    assert!(a.diagnostics.iter().any(|d| d.code == "E0146"), "{:?}", a.diagnostics);
}

/// herd's `int` is 32 bits and tests step through arrays by bytes: an
/// array of `int` would put herd's `a+8` (a[2]) on litmus's a[1] where
/// arrays are laid out in 64-bit elements, so x86 and RISC-V refuse it;
/// 64-bit elements are read. AArch64 lays each array out by its
/// elements' size, as herd7 does.
#[test]
fn arrays_of_narrow_elements_are_refused_in_assembly_formats() {
    for src in [
        "X86_64 T\n{ int a[3] = {1,2,3}; 0:rbx=a; }\n P0 ;\n movl 8(%rbx),%eax ;\nexists (0:rax=3)\n",
        "RISCV T\n{ int a[3]; 0:x6=a; }\n P0 ;\n lw x5,0(x6) ;\nexists (0:x5=3)\n",
    ] {
        let a = litmus_dsl::analyze(src);
        assert!(a.program.is_none() && a.diagnostics.iter().any(|d| d.code == "E0145"), "{src}: {:?}", a.diagnostics);
    }
    let wide = "X86_64 T\n{ int64_t a[3] = {1,2,3}; 0:rbx=a; }\n P0 ;\n movq 16(%rbx),%rax ;\nexists (0:rax=3)\n";
    assert!(litmus_dsl::analyze(wide).program.is_some());
    // AArch64: `int` elements 4 bytes apart, `int64_t` 8, `short` 2; a
    // location after them keeps its place.
    let src = "AArch64 T\n{ int a[3]={1,2,3}; int64_t b[2]; short c[5]; y=7; 0:X1=a; }\n P0 ;\n LDR W0,[X1,#8] ;\nexists (0:X0=3 /\\ a={1,2,3})\n";
    let a = litmus_dsl::analyze(src);
    let p = a.program.unwrap_or_else(|| panic!("{:?}", a.diagnostics));
    let (lay, at) = (p.layout(), |n: &str| p.location(n).unwrap().base);
    assert_eq!(
        lay.cell(p.threads[0].init_regs[p.threads[0].reg_by_name("X1").unwrap() as usize] + 8),
        Some(at("a") + 2)
    );
    assert_eq!(lay.address(at("a") + 1) - lay.address(at("a")), 4);
    assert_eq!(lay.address(at("b") + 1) - lay.address(at("b")), 8);
    assert_eq!(lay.address(at("c") + 4) - lay.address(at("c")), 8);
    assert_eq!(lay.cell(lay.address(at("a")) + 2), None, "between two elements");
    assert_eq!(lay.cell(lay.address(at("a")) + 12), None, "past the end, inside the array's slots");
    for n in ["a", "b", "c", "y"] {
        for k in 0..p.location(n).unwrap().len {
            assert_eq!(lay.cell(lay.address(at(n) + k)), Some(at(n) + k), "{n}[{k}]");
        }
    }
    // The whole array in the condition: each element observed.
    let names: Vec<&str> = p.observables.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["0:X0", "a[0]", "a[1]", "a[2]"]);
}

/// herd's pair instructions: one instruction of two accesses, the second
/// at its registers' width further; pre- and post-indexed addresses write
/// their base register back around the access.
#[test]
fn aarch64_pair_instructions_lower_to_one_instruction() {
    use litmus_dsl::ir::{Addr, BinOp, Instr, Labels, PairOp, PairOrder};
    let src = "AArch64 T\n{ int x[2]; int64_t y[4]; 0:X1=x; 0:X2=y; 0:X3=y; }\n P0 ;\n LDXP W4,W5,[X1] ;\n STILP X6,X7,[X2,#16]! ;\n STP X6,X7,[X3],#16 ;\n CASPAL X8,X9,X10,X11,[X3] ;\n STXP W12,W4,W5,[X1] ;\nexists (0:X4=0)\n";
    let a = litmus_dsl::analyze(src);
    let p = a.program.unwrap_or_else(|| panic!("{:?}", a.diagnostics));
    assert!(p.candidates_only());
    let pairs: Vec<(i64, Labels, PairOrder)> = p.threads[0]
        .code
        .iter()
        .filter_map(|i| match *i {
            Instr::Pair { second, labels, order, .. } => Some((second, labels, order)),
            _ => None,
        })
        .collect();
    assert_eq!(
        pairs,
        [
            (4, Labels::EX, PairOrder::Unordered),
            (8, Labels::L, PairOrder::HighFirst),
            (8, Labels::NONE, PairOrder::Unordered),
            (8, Labels::X | Labels::A | Labels::L, PairOrder::Unordered),
            (4, Labels::EX, PairOrder::Unordered),
        ]
    );
    let code = &p.threads[0].code;
    // Pre-index: the add, then the access at the base; post-index: after.
    assert!(matches!(code[1], Instr::Bin { op: BinOp::Add, b: litmus_dsl::ir::Operand::Imm(16), .. }));
    assert!(matches!(code[2], Instr::Pair { addr: Addr::Computed { disp: 0, .. }, .. }));
    assert!(matches!(code[4], Instr::Bin { op: BinOp::Add, b: litmus_dsl::ir::Operand::Imm(16), .. }));
    assert!(matches!(code[5], Instr::Pair { op: PairOp::Cas { fail: Labels::A, .. }, .. }));
    // Two widths in one pair, a post-index on an exclusive.
    for bad in [" LDP W4,X5,[X1] ;", " LDXP W4,W5,[X1],#8 ;"] {
        let a = litmus_dsl::analyze(&format!("AArch64 T\n{{ int x[2]; 0:X1=x; }}\n P0 ;\n{bad}\nexists (0:X4=0)\n"));
        assert!(a.program.is_none(), "{bad}");
    }
}

/// herd's C11 tests: read as herd7 reads them, or refused by name (two
/// comments never closed, herd's `regions`, a Linux-kernel `atomic_t`).
#[test]
fn c11_corpus_tests_lower_or_are_refused_by_name() {
    let files = litmus_files(&root().join("tests/corpus/herd-c11"));
    assert_eq!(files.len(), 150);
    let mut lowered = 0;
    let mut refused = std::collections::BTreeMap::new();
    for f in &files {
        let a = litmus_dsl::analyze(&std::fs::read_to_string(f).unwrap());
        assert_eq!(a.dialect, litmus_dsl::Dialect::HerdC, "{}", f.display());
        match &a.program {
            Some(p) => {
                lowered += 1;
                assert!(p.has_labels(), "{}: C accesses carry their orders", f.display());
            }
            None => *refused.entry(a.diagnostics[0].code).or_insert(0) += 1,
        }
    }
    assert_eq!(lowered, 149);
    assert_eq!(refused, [("E0140", 1)].into());
}

#[test]
fn c11_accesses_carry_their_orders() {
    let src = "C T\n{ [x] = 0; [y] = 0; }\n\nP0 (atomic_int* x, int* y) {\n  *y = 1;\n  \
               atomic_store_explicit(x, 1, memory_order_release);\n  atomic_thread_fence(memory_order_seq_cst);\n}\n\n\
               P1 (atomic_int* x, int* y) {\n  int r0 = atomic_load_explicit(x, memory_order_acquire);\n  \
               int r1 = -1;\n  if (r0) { r1 = *y; }\n}\n\nexists (1:r0=1 /\\ 1:r1=0)\n";
    let a = litmus_dsl::analyze(src);
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    let p = a.program.unwrap();
    use litmus_ir::{FenceKind, Instr, Labels};
    let t0 = &p.threads[0].code;
    assert!(t0.iter().any(|i| matches!(i, Instr::Store { labels, .. } if *labels == Labels::NA)));
    assert!(t0.iter().any(|i| matches!(i, Instr::Store { labels, .. } if *labels == Labels::A | Labels::MO_REL)));
    assert!(t0.iter().any(|i| matches!(i, Instr::Fence { kind: FenceKind::Order(l), .. } if *l == Labels::MO_SC)));
    let t1 = &p.threads[1].code;
    assert!(t1.iter().any(|i| matches!(i, Instr::Load { labels, .. } if *labels == Labels::A | Labels::MO_ACQ)));
    // Bad input: a name that is no memory order, a pointer the thread lacks.
    let bad = |body: &str, code: &str| {
        let src = format!("C T\n{{ [x] = 0; }}\nP0 (atomic_int* x) {{\n{body}\n}}\nexists (x=1)\n");
        let a = litmus_dsl::analyze(&src);
        assert!(a.program.is_none() && a.diagnostics.iter().any(|d| d.code == code), "{body}: {:?}", a.diagnostics);
    };
    bad("atomic_store_explicit(x, 1, memory_order_fast);", "E0141");
    bad("atomic_store_explicit(z, 1, memory_order_relaxed);", "E0142");
    bad("int r = q;", "E0143");
    bad("atomic_fetch_max_explicit(x, 1, memory_order_relaxed);", "E0140");
}

/// herd's C lexer reads threads' code as C: `(*a)` there is a dereference
/// in parentheses, not a comment; `(* … *)` in the initial state is one.
/// `regions:` (a Bell model's memory regions) is read and ignored.
#[test]
fn c_code_has_c_comments_and_regions_are_read() {
    let src = "C T\n{ [a] = 0; (* a comment *) }\n\nP0 (volatile int* a) {\n  *a = 2;\n  int r = (*a);\n  if (*a) { r = 3; } /* (* */\n}\n\nregions: a:PROP\n\nexists (0:r=3)\n";
    let a = litmus_dsl::analyze(src);
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    let p = a.program.expect("lowers");
    let loads = p.threads[0].code.iter().filter(|i| matches!(i, litmus_ir::Instr::Load { .. })).count();
    assert_eq!(loads, 2, "both `(*a)` read a");
    let bad = litmus_dsl::analyze(&src.replace("regions: a:PROP", "regions: a"));
    assert!(bad.program.is_none());
}

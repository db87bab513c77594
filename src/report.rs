//! The JSON line of `litmus check --format json` (schema in docs/cli.md).

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// A word of the schema (`clean`, `proved`, `po`, …): static when the
/// checker writes a report, owned when a report is read back (`merge`,
/// `diff`).
pub type Word = Cow<'static, str>;

/// Read back (`merge`, `diff`), a file object needs only its `file`: what
/// else is missing reads as empty, as it did when reports were read as
/// untyped JSON.
#[derive(Serialize, Deserialize)]
pub struct FileReport {
    pub file: String,
    /// `clean`, `finding`, `unknown` or `error`: what the file adds to the
    /// exit status (extension).
    #[serde(default)]
    pub status: Word,
    /// Wall time of the file's check in ms (extension; absent with `--no-timing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<f64>,
    /// The comparison with `--expect`'s verdicts (extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<ExpectJson>,
    /// Why the file could not be read (then nothing else is present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Word>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<ConditionJson>,
    /// Per requested model, in the order sc, tso, pso, pslo. Absent when the file has errors.
    #[serde(default, skip_serializing_if = "Models::is_empty")]
    pub models: Models,
    /// Errors and warnings of parsing and analysis (an extension of cli.md).
    #[serde(default)]
    pub diagnostics: Vec<DiagnosticJson>,
    /// One repair for several models decided on whole candidates at once
    /// (extension: each model's own is under its `fences`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_repair: Option<JointRepairJson>,
}

/// A set of changes making the program robust under every model in
/// `models` at once, re-checked under each.
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct JointRepairJson {
    pub models: Vec<String>,
    pub fences: Vec<FenceJson>,
    pub cost: u32,
    /// The re-check under every model found it robust.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences_confirmed: Option<bool>,
    pub fences_certainty: Word,
    /// Every cheaper set of the changes at the violations' edges was
    /// re-checked and found not robust under some model.
    pub cheapest: bool,
}

/// A file's comparison with its expected verdicts (`--expect`). Fields in
/// name order: the object was first written as an untyped JSON map, which
/// sorts its keys, and reports keep their bytes.
#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
#[serde(default)]
pub struct ExpectJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<ExpectedJson>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<ExpectedJson>,
    /// `agree`, `disagree` or `unknown`.
    pub verdict: Word,
}

/// One answer compared (fields in name order, as [`ExpectJson`]'s).
#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
#[serde(default)]
pub struct ExpectedJson {
    /// The expected answer: a word (`observation`) or a number (`states`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<serde_json::Value>,
    /// The answer the check gave, when it differs; absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<serde_json::Value>,
    /// `null` when the file was not checked at all.
    pub model: Option<String>,
    /// `observation`, `states` or `not checked`.
    pub what: Word,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ConditionJson {
    pub quantifier: Word,
    pub text: String,
}

/// Every claim comes with its certainty — `proved`, `within-bounds` or
/// `unknown` — and, unless proved, a note saying which bound cut how much or
/// why it stopped. An unknown claim's value is absent, never guessed.
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ModelJson {
    /// The final condition's answer; absent when unknown (or no condition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation: Option<Word>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation_certainty: Option<Word>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation_note: Option<String>,
    pub states: usize,
    /// Every exploration behind this model's answers finished with nothing cut.
    pub complete: bool,
    /// What this model's own exploration earned.
    pub certainty: Word,
    /// What the bounds cut from it (within bounds only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds_hit: Option<BoundsJson>,
    /// Why it stopped (`timeout`, `cancelled`; unknown only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_reason: Option<Word>,
    /// No execution under this model has a trace with an hb cycle (SC:
    /// always). Absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robust: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robust_certainty: Option<Word>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robust_note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violations: Option<Vec<ViolationJson>>,
    pub assertion_failures: Vec<FailureJson>,
    /// The values each load may read (extension; `reads_json.rs`); absent
    /// when no explored execution loads anything.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<crate::reads_json::ReadJson>,
    /// What the model (one given as data) flags of an execution it allows:
    /// a failing `undefined_unless` (a C model's data race: undefined
    /// behaviour) or a `flag` that holds, by the check's name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// The accesses of each data race found (extension): the flag's name
    /// and the two statements.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<RaceJson>,
    /// Why the model never lets the final condition's outcome happen
    /// (extension): each axiom a candidate reaching it fails.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forbidden_by: Vec<AxiomJson>,
    /// `final condition` / `filter` when it divides by zero in some final state.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub condition_errors: Vec<Word>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences: Option<Vec<FenceJson>>,
    /// The fenced program was re-checked robust (`false`: a violation
    /// remains; absent: the re-check is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences_confirmed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences_certainty: Option<Word>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences_note: Option<String>,
    /// `false` when the fences are not proved the fewest (too many smaller
    /// sets to re-check, or a re-check did not finish); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences_minimal: Option<bool>,
    /// Statement pairs the monitor signalled without a replayable witness
    /// (extension; while non-zero, `robust` is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconfirmed: Option<u64>,
    /// Executions in which every unfinished thread is blocked (extension).
    pub deadlocks: usize,
    /// Executions explored (extension).
    pub executions: u64,
    /// Executions cut by the loop bound (extension).
    pub cut: u64,
    /// The steps the search took (extension): transitions of the
    /// interleaving explorer, nodes of the graph explorer, candidate
    /// executions judged by the candidate explorer.
    pub steps: u64,
    pub timed_out: bool,
    /// How far the answers reach through loops (extension): `every` — the
    /// unbounded procedure proved them for every iteration; `fallback` — it
    /// could not (why: `iterations_note`) and the bounded engine answered;
    /// `bounded` — the bounded engine alone (`--bounded`).
    pub iterations: Word,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations_note: Option<String>,
    /// States the unbounded search visited (extension; `every` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states_explored: Option<u64>,
    /// Which mode produced this model's answers: `exhaustive` or `active`
    /// (extension; see `--mode`).
    pub mode: Word,
    /// Active testing's results (`--mode active|auto`; extension).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<ActiveJson>,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct BoundsJson {
    /// The loop bound (`--loop-bound`) when it cut (extension).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_bound_set: Option<u32>,
    /// Executions the loop bound cut.
    pub loop_bound: u64,
    /// Branches of the search the preemption bound skipped.
    pub preemption_bound: u64,
    /// Executions in which the buffer bound held back a store.
    pub buffer_bound: u64,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct FailureJson {
    pub line: u32,
    pub column: u32,
    pub thread: String,
    /// `assertion failed`, `array index out of bounds`, … (extension)
    pub kind: Word,
}

impl FailureJson {
    /// A failure of `thread` at statement `stmt` (`check` and `run` alike).
    pub fn at(
        p: &litmus_ir::Program,
        thread: u16,
        stmt: litmus_ir::StmtId,
        kind: litmus_checker::machine::FailureKind,
    ) -> FailureJson {
        let s = &p.stmts[stmt as usize];
        FailureJson {
            line: s.line,
            column: s.col,
            thread: p.threads[thread as usize].name.clone(),
            kind: kind.as_str().into(),
        }
    }
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct DiagnosticJson {
    pub severity: Word,
    pub code: Word,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub message: String,
}

/// Models keyed by name, serialised in the order checked (a JSON object
/// read back keeps its order).
#[derive(Default)]
pub struct Models(pub Vec<(Word, ModelJson)>);

impl Models {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The model named `name`.
    pub fn get(&self, name: &str) -> Option<&ModelJson> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, m)| m)
    }
}

impl FileReport {
    /// `--no-timing`: no wall times anywhere in the report, so two runs
    /// compare byte for byte.
    pub fn drop_times(&mut self) {
        self.time_ms = None;
        for (_, m) in &mut self.models.0 {
            if let Some(a) = &mut m.active {
                a.phase1_ms = None;
                a.phase2_ms = None;
            }
        }
    }
}

impl Serialize for Models {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Models {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Models;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of models by name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Models, A::Error> {
                let mut models: Vec<(Word, ModelJson)> = Vec::new();
                while let Some((name, m)) = a.next_entry::<String, ModelJson>()? {
                    // A name given twice: the last one counts, as in any JSON object.
                    match models.iter_mut().find(|(n, _)| *n == name) {
                        Some(slot) => slot.1 = m,
                        None => models.push((name.into(), m)),
                    }
                }
                Ok(Models(models))
            }
        }
        d.deserialize_map(Ordered)
    }
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ViolationJson {
    pub cycle: Vec<CycleJson>,
    /// Absent while unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harmful: Option<bool>,
    pub harm_certainty: Word,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harm_note: Option<String>,
    pub fence: Vec<FenceJson>,
    /// SC executions on which the monitor signalled it (extension).
    pub occurrences: u64,
    /// The monitor did not signal it: exploring the model's own executions
    /// found it (extension; only where `--monitor` is not complete for the
    /// model: `sober` under TSO, `bss-interleaving`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missed_by_monitor: bool,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct CycleJson {
    pub thread: String,
    pub line: u32,
    pub column: u32,
    pub statement: String,
    pub edge: Word,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct FenceJson {
    pub thread: String,
    /// `after`, `before` or `loop-head` (extension: where the fence goes
    /// relative to the statement at `after`/`before`/`loop_head`).
    pub place: Word,
    /// Right after the statement ending here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Position>,
    /// Right before the statement starting here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Position>,
    /// At the head of the loop starting here: before it and last in its body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_head: Option<Position>,
    /// A barrier's kind (`DMB.ISH`, `r,rw`); for a changed access, what it
    /// becomes (`LDAR`, `acquire`).
    pub kind: Word,
    /// `barrier`, `instruction` (an access made another instruction:
    /// LDR → LDAR) or `order` (a C11 memory order raised).
    pub what: Word,
    /// A changed access: its statement, its text before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statement: Option<Position>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A repair's cost, from the architecture's table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<u32>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(default)]
pub struct RaceJson {
    pub flag: String,
    pub accesses: Vec<AccessJson>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(default)]
pub struct AxiomJson {
    pub axiom: String,
    /// `acyclic`, `irreflexive` or `empty`.
    pub kind: String,
    pub expr: String,
    /// The cycle, in words (as the terminal and the hover say it).
    pub text: String,
    /// Its steps: each access and the relation to the next.
    pub steps: Vec<AxiomStepJson>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(default)]
pub struct AxiomStepJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<AccessJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(default)]
pub struct AccessJson {
    pub thread: String,
    pub line: u32,
    pub column: u32,
    pub text: String,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// What active testing (RELAXER) found under one model.
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ActiveJson {
    pub predicted: usize,
    pub confirmed: usize,
    pub bugs: usize,
    /// Steered runs made under this model.
    pub runs: u64,
    pub sc_runs: u32,
    pub seed: u64,
    pub probability: f64,
    /// The longest cycle length asked for (`--cycle-length`, by default 2 ×
    /// threads), in events.
    pub cycle_length: usize,
    /// The lengths whose cycles were all predicted, shortest first.
    pub lengths_searched: Vec<usize>,
    /// The length whose search was cut (by the cycle budget or the deadline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length_cut: Option<usize>,
    /// Phase I (shared by the models) and this model's Phase II, in ms
    /// (absent with `--no-timing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase1_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase2_ms: Option<f64>,
    /// Mean empirical probability over the confirmed cycles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_probability: Option<f64>,
    /// Why Phase II stopped before every run was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Word>,
    /// More cycles were predicted than kept.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    pub cycles: Vec<ActiveCycleJson>,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ActiveCycleJson {
    /// The cycle's statements; for a confirmed cycle, with the edges of
    /// its run's trace, else `po` and `race`.
    pub cycle: Vec<CycleJson>,
    pub runs: u32,
    pub confirmations: u32,
    pub probability: f64,
    pub bugs: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harm: Option<String>,
    /// `litmus explain FILE --replay HANDLE` re-runs the witness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

//! Settings, from `initializationOptions` and `workspace/didChangeConfiguration`
//! (either the object itself or `{ "litmus": { ... } }`), read field by
//! field: a bad field keeps its previous value and is reported as a
//! [`Problem`]; the other fields apply. Names of models and monitors and
//! timeouts go through the checker's parsers, the CLI's.

use litmus_checker::options::parse_timeout;
use litmus_checker::{Model, MonitorKind, Options, SettingError};
use litmus_ir::Dialect;
pub use litmus_present::findings::Members;
use serde_json::Value;
use std::fmt;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The models asked for; none: the file's defaults (a herd x86 test:
    /// SC and TSO; a native program: SC, TSO, PSO). SC is explored
    /// besides (see `models()`).
    pub models: Vec<Model>,
    pub loop_bound: u32,
    pub preemption_bound: Option<u32>,
    pub buffer_bound: u32,
    pub monitor: MonitorKind,
    /// How long a check may take before its answer is marked incomplete.
    pub timeout: Duration,
    /// Seconds of exhaustive checking before active testing takes over the
    /// models it left unknown (the CLI's `--budget`); None: half the timeout.
    pub budget: Option<Duration>,
    /// Milliseconds of quiet after an edit before model checking starts.
    pub debounce_ms: u64,
    /// How the statements of a cycle besides its delayed store are shown.
    pub cycle_members: Members,
    /// Where `docs/codes.md` is (a URI without anchor): each diagnostic's
    /// `codeDescription` links into it; None: no links.
    pub codes_url: Option<String>,
    /// `inlayHints.enable`: values per load and the condition's answers inline.
    pub inlay_hints: bool,
    /// `workspaceDiagnostics.enable`: check the workspace's files on disk
    /// in the background for `workspace/diagnostic` (pull clients only).
    pub workspace_diagnostics: bool,
    /// `workspaceDiagnostics.timeout`: the deadline of each background check,
    /// so one slow file is reported unknown instead of holding the queue.
    pub workspace_timeout: Duration,
    /// `unbounded`: try the unbounded procedure first (answers for every
    /// iteration); false: the bounded engine only (the CLI's `--bounded`).
    pub unbounded: bool,
    /// The user's repair costs over the default table.
    pub repair_costs: litmus_checker::options::RepairCosts,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            models: Vec::new(),
            loop_bound: litmus_checker::options::DEFAULT_LOOP_BOUND,
            preemption_bound: None,
            buffer_bound: litmus_checker::options::DEFAULT_BUFFER_BOUND,
            monitor: MonitorKind::Bss,
            timeout: Duration::from_secs(20),
            budget: None,
            debounce_ms: 150,
            cycle_members: Members::Hint,
            codes_url: default_codes_url(),
            inlay_hints: true,
            workspace_diagnostics: true,
            workspace_timeout: Duration::from_secs(5),
            unbounded: true,
            repair_costs: Default::default(),
        }
    }
}

/// The largest bounds accepted from an editor: beyond these a check never
/// ends in useful time, so a larger value is taken for a typo.
pub const MAX_LOOP_BOUND: u32 = litmus_ir::MAX_LOOP_BOUND;
pub const MAX_PREEMPTION_BOUND: u32 = 1_000;
pub const MAX_BUFFER_BOUND: u32 = 1_024;
pub const MAX_DEBOUNCE_MS: u64 = 60_000;

/// Every model's name, as a list for messages.
fn model_names() -> String {
    Model::ALL.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", ")
}

/// Every key read. `testHooks` is read by the server at `initialize` only
/// (and `clientCommands`, which is not a setting: what the client implements).
pub const KEYS: [&str; 15] = [
    "models",
    "loopBound",
    "preemptionBound",
    "bufferBound",
    "monitor",
    "timeout",
    "budget",
    "debounceMs",
    "cycleMembers",
    "codesUrl",
    "inlayHints",
    "workspaceDiagnostics",
    "unbounded",
    "repairCosts",
    "testHooks",
];

/// The `docs/codes.md` that ships beside the server: next to the executable
/// (`docs/`, `../share/doc/litmus/`), or the checkout's (`target/<profile>/`,
/// `target/<profile>/deps/` for tests), else the one of the source tree
/// it was built from, if it is still there.
pub fn default_codes_url() -> Option<String> {
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(|d| d.to_path_buf()));
    let beside = ["docs/codes.md", "../share/doc/litmus/codes.md", "../../docs/codes.md", "../../../docs/codes.md"];
    let mut candidates: Vec<std::path::PathBuf> =
        exe_dir.iter().flat_map(|d| beside.iter().map(move |b| d.join(b))).collect();
    candidates.push(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/codes.md"));
    let found = candidates.into_iter().find(|p| p.is_file())?.canonicalize().ok()?;
    file_uri(&found)
}

/// A `file://` URI for an absolute path, bytes outside the unreserved set
/// percent-encoded.
pub fn file_uri(path: &std::path::Path) -> Option<String> {
    let s = path.to_str()?;
    let mut out = String::from("file://");
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Some(out)
}

/// A setting that was not applied: which, the value given, why, and what
/// stays in its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub field: String,
    /// The value as the client sent it (JSON, shortened).
    pub value: String,
    pub expected: String,
    /// What applies instead (`None` for an unknown field).
    pub kept: Option<String>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kept {
            Some(kept) => write!(f, "`{}` = {}: {}; keeping {}", self.field, self.value, self.expected, kept),
            None => write!(f, "`{}` = {}: {}", self.field, self.value, self.expected),
        }
    }
}

fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 80 {
        s
    } else {
        format!("{}…", s.chars().take(80).collect::<String>())
    }
}

fn models_shown(m: &[Model]) -> String {
    if m.is_empty() {
        let names =
            |d| litmus_checker::catalog::defaults_for(d).iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", ");
        return format!("[] (each file's defaults: {}; herd x86: {})", names(Dialect::Native), names(Dialect::HerdX86));
    }
    format!("[{}]", m.iter().map(|m| format!("\"{}\"", m.as_str())).collect::<Vec<_>>().join(", "))
}

/// A whole number in `min..=max` (a JSON integer, or a float with no
/// fraction, as some clients send integers).
fn whole(v: &Value, min: u64, max: u64) -> Option<u64> {
    let n = match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64).map(|f| f as u64)
        }),
        _ => None,
    }?;
    (min..=max).contains(&n).then_some(n)
}

impl Config {
    /// The settings an open document's check and its diagnostics depend on
    /// (a field added later counts as one until listed here as presentation).
    fn check_part(&self) -> Config {
        Config {
            inlay_hints: true,
            debounce_ms: 0,
            workspace_diagnostics: true,
            workspace_timeout: Duration::ZERO,
            ..self.clone()
        }
    }

    /// Whether the open documents need checking again under `other`:
    /// turning inlay hints off, say, only asks the client to redraw them.
    pub fn same_check(&self, other: &Config) -> bool {
        self.check_part() == other.check_part()
    }

    /// Whether the background workspace check must start over.
    pub fn same_workspace_check(&self, other: &Config) -> bool {
        self.same_check(other)
            && (self.workspace_diagnostics, self.workspace_timeout)
                == (other.workspace_diagnostics, other.workspace_timeout)
    }

    /// Apply the settings in `v` field by field; return what was not applied.
    pub fn apply(&mut self, v: &Value) -> Vec<Problem> {
        let mut problems = Vec::new();
        let v = match v {
            Value::Object(o) => o.get("litmus").unwrap_or(v),
            _ => v,
        };
        let fields = match v {
            Value::Object(o) => o,
            // No settings; `[]` is how some Lua clients encode an empty table.
            Value::Null => return problems,
            Value::Array(a) if a.is_empty() => return problems,
            other => {
                problems.push(Problem {
                    field: "litmus".into(),
                    value: shown(other),
                    expected: "expected an object of settings".into(),
                    kept: Some("every setting as it was".into()),
                });
                return problems;
            }
        };
        for (key, value) in fields {
            let mut bad = |expected: String, kept: String| {
                problems.push(Problem { field: key.clone(), value: shown(value), expected, kept: Some(kept) })
            };
            let known = key == "testHooks"
                || key == "clientCommands"
                || self.apply_check_setting(key, value, &mut bad)
                || self.apply_editor_setting(key, value, &mut bad);
            if !known {
                problems.push(Problem {
                    field: key.clone(),
                    value: shown(value),
                    // Every key but `testHooks` (the last), which users do not set.
                    expected: format!(
                        "unknown setting, ignored (the settings are {})",
                        KEYS[..KEYS.len() - 1].join(", ")
                    ),
                    kept: None,
                });
            }
        }
        problems
    }

    /// A setting of what is checked and how far (models, bounds, monitor,
    /// time); false if `key` is not one.
    fn apply_check_setting(&mut self, key: &str, value: &Value, bad: &mut dyn FnMut(String, String)) -> bool {
        match key {
            "models" => {
                let names: Option<Vec<&str>> = value.as_array().and_then(|a| a.iter().map(|n| n.as_str()).collect());
                match names.map(|n| Model::parse_list(&n)) {
                    Some(Ok(m)) => self.models = m,
                    Some(Err(e)) => bad(e.to_string(), models_shown(&self.models)),
                    None => {
                        bad(format!("expected an array of model names ({})", model_names()), models_shown(&self.models))
                    }
                }
            }
            "repairCosts" => {
                // `{ "LDAR": 1, "DMB ISH": 4 }`: each a whole number.
                let parsed: Option<Vec<(String, u32)>> = value
                    .as_object()
                    .and_then(|o| o.iter().map(|(k, v)| whole(v, 0, 1_000).map(|n| (k.clone(), n as u32))).collect());
                match parsed {
                    Some(c) => self.repair_costs = litmus_checker::options::RepairCosts(c),
                    None => bad(
                        "expected an object of costs, each a whole number from 0 to 1000 (`{\"LDAR\": 1}`)".into(),
                        format!("{:?}", self.repair_costs.0),
                    ),
                }
            }
            "loopBound" => match whole(value, 0, MAX_LOOP_BOUND.into()) {
                Some(n) => self.loop_bound = n as u32,
                None => bad(format!("expected a whole number from 0 to {MAX_LOOP_BOUND}"), self.loop_bound.to_string()),
            },
            "preemptionBound" => match value {
                Value::Null => self.preemption_bound = None,
                _ => match whole(value, 0, MAX_PREEMPTION_BOUND.into()) {
                    Some(n) => self.preemption_bound = Some(n as u32),
                    None => bad(
                        format!("expected null (unbounded) or a whole number from 0 to {MAX_PREEMPTION_BOUND}"),
                        self.preemption_bound.map_or("null".into(), |n| n.to_string()),
                    ),
                },
            },
            "bufferBound" => match whole(value, 1, MAX_BUFFER_BOUND.into()) {
                Some(n) => self.buffer_bound = n as u32,
                None => {
                    bad(format!("expected a whole number from 1 to {MAX_BUFFER_BOUND}"), self.buffer_bound.to_string())
                }
            },
            "monitor" => {
                let parsed = match value {
                    Value::String(s) => MonitorKind::parse(s),
                    other => Err(SettingError::UnknownMonitor(other.to_string())),
                };
                match parsed {
                    Ok(m) => self.monitor = m,
                    Err(e) => bad(e.to_string(), format!("\"{}\"", self.monitor.as_str())),
                }
            }
            "timeout" => {
                let parsed = match value.as_f64() {
                    Some(secs) => parse_timeout(secs),
                    None => Err(SettingError::Timeout(shown(value))),
                };
                match parsed {
                    Ok(t) => self.timeout = t,
                    Err(e) => bad(e.to_string(), self.timeout.as_secs_f64().to_string()),
                }
            }
            "budget" => {
                let parsed = match value {
                    Value::Null => Ok(None),
                    _ => match value.as_f64() {
                        Some(secs) => parse_timeout(secs).map(Some),
                        None => Err(SettingError::Timeout(shown(value))),
                    },
                };
                match parsed {
                    Ok(b) => self.budget = b,
                    Err(e) => bad(
                        format!("{e} (or null: half the timeout)"),
                        self.budget.map_or("null".into(), |b| b.as_secs_f64().to_string()),
                    ),
                }
            }
            "debounceMs" => match whole(value, 0, MAX_DEBOUNCE_MS) {
                Some(n) => self.debounce_ms = n,
                None => bad(
                    format!("expected a whole number of milliseconds from 0 to {MAX_DEBOUNCE_MS}"),
                    self.debounce_ms.to_string(),
                ),
            },
            _ => return false,
        }
        true
    }

    /// A setting of how findings are shown and what runs besides; false if
    /// `key` is not one.
    fn apply_editor_setting(&mut self, key: &str, value: &Value, bad: &mut dyn FnMut(String, String)) -> bool {
        match key {
            "cycleMembers" => match value.as_str().map(str::to_ascii_lowercase).as_deref() {
                Some("hint") => self.cycle_members = Members::Hint,
                Some("information") => self.cycle_members = Members::Information,
                Some("off") => self.cycle_members = Members::Off,
                _ => bad(
                    "expected \"hint\", \"information\" or \"off\"".into(),
                    format!("\"{}\"", self.cycle_members.as_str()),
                ),
            },
            "codesUrl" => match value {
                Value::Null => self.codes_url = default_codes_url(),
                Value::String(u) if u.parse::<tower_lsp_server::ls_types::Uri>().is_ok() && u.contains(':') => {
                    self.codes_url = Some(u.trim_end_matches('#').to_string())
                }
                _ => bad(
                    "expected a URI (without #anchor) of codes.md, or null for the one beside the server".into(),
                    self.codes_url.as_deref().map_or("none".into(), |u| format!("\"{u}\"")),
                ),
            },
            // `litmus.inlayHints.enable`: VS Code sends dotted keys nested.
            "inlayHints" => match value.get("enable").map(|e| e.as_bool()) {
                Some(Some(on)) => self.inlay_hints = on,
                _ => bad("expected {\"enable\": true or false}".into(), self.inlay_hints.to_string()),
            },
            // `litmus.workspaceDiagnostics.{enable,timeout}`; either may be absent.
            "workspaceDiagnostics" => {
                let enable = value.get("enable").map(|e| e.as_bool().ok_or(()));
                let timeout = value.get("timeout").map(|t| t.as_f64().map(parse_timeout));
                match (value.is_object(), enable, timeout) {
                    (true, Some(Err(())), _) | (false, _, _) => bad(
                        "expected {\"enable\": true or false, \"timeout\": seconds}".into(),
                        format!(
                            "enable {}, timeout {}",
                            self.workspace_diagnostics,
                            self.workspace_timeout.as_secs_f64()
                        ),
                    ),
                    (true, _, Some(None | Some(Err(_)))) => bad(
                        "`timeout` must be a number of seconds ≥ 0".into(),
                        format!(
                            "enable {}, timeout {}",
                            self.workspace_diagnostics,
                            self.workspace_timeout.as_secs_f64()
                        ),
                    ),
                    (true, enable, timeout) => {
                        if let Some(Ok(on)) = enable {
                            self.workspace_diagnostics = on;
                        }
                        if let Some(Some(Ok(t))) = timeout {
                            self.workspace_timeout = t;
                        }
                    }
                }
            }
            "unbounded" => match value.as_bool() {
                Some(on) => self.unbounded = on,
                None => bad("expected true or false".into(), self.unbounded.to_string()),
            },
            _ => return false,
        }
        true
    }

    /// The models to check in a program of `dialect`: those asked for (or
    /// its defaults), and SC always (violations are relative to it), in order.
    pub fn models(&self, dialect: Dialect) -> Vec<Model> {
        self.models_with(litmus_checker::catalog::defaults_for(dialect))
    }

    /// [`Config::models`] for this program (a native one with memory
    /// orders defaults to C11's models).
    pub fn models_of(&self, prog: &litmus_ir::Program) -> Vec<Model> {
        self.models_with(litmus_checker::catalog::defaults_of(prog))
    }

    fn models_with(&self, defaults: Vec<Model>) -> Vec<Model> {
        let mut m = if self.models.is_empty() { defaults } else { self.models.clone() };
        m.push(Model::Sc);
        m.sort();
        m.dedup();
        m
    }

    pub fn monitor(&self) -> MonitorKind {
        self.monitor
    }

    /// The options of a check that starts now (the deadline runs from this call).
    pub fn options(&self) -> Options {
        Options {
            loop_bound: self.loop_bound,
            buffer_bound: self.buffer_bound,
            preemption_bound: self.preemption_bound,
            // The editor uses the default explorer, on every core (one
            // shared pool of workers whatever the number of documents).
            explorer: Default::default(),
            threads: litmus_checker::options::all_cores(),
            // Answers for every iteration first, the bounded engine for the rest.
            unbounded: self.unbounded.then(Default::default),
            waits: true,
            // The pipeline adds its progress display (`$/progress`) and cancel flag.
            budget: Default::default(),
            repair_costs: self.repair_costs.clone(),
        }
        .with_timeout(Some(self.timeout))
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn repair_costs_are_read_and_a_bad_one_is_refused() {
        let mut c = Config::default();
        let p = c.apply(&serde_json::json!({"repairCosts": {"LDAR": 1, "DMB ISH": 4}}));
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(c.options().repair_costs.of("ldar", 2), 1);
        assert_eq!(c.options().repair_costs.of("DMB ISH", 5), 4);
        let p = c.apply(&serde_json::json!({"repairCosts": {"LDAR": -1}}));
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(c.options().repair_costs.of("LDAR", 2), 1, "the last good setting stays");
    }

    use super::*;
    use serde_json::json;

    fn fields(p: &[Problem]) -> Vec<&str> {
        p.iter().map(|p| p.field.as_str()).collect()
    }

    #[test]
    fn good_fields_apply_and_bad_ones_keep_their_value() {
        let mut c = Config::default();
        let p =
            c.apply(&json!({"litmus": {"models": ["sc", "x86"], "loopBound": 5, "monitor": "sober", "timeout": -1}}));
        assert_eq!(fields(&p), ["models", "timeout"]);
        assert!(c.models.is_empty(), "{:?}", c.models);
        assert_eq!((c.loop_bound, c.monitor, c.timeout), (5, MonitorKind::Sober, Duration::from_secs(20)));
        assert_eq!(
            p[0].to_string(),
            "`models` = [\"sc\",\"x86\"]: unknown model `x86` (expected sc, tso, pso, pslo or a model file, FILE.cat); keeping [] (each file's defaults: sc, tso, pso; herd x86: sc, tso)"
        );
        assert!(p[1].to_string().starts_with("`timeout` = -1: timeout must be a number of seconds"), "{}", p[1]);
    }

    #[test]
    fn every_kind_of_bad_value_is_reported() {
        let bad = [
            json!({"models": "tso"}),
            json!({"models": ["tso", 3]}),
            json!({"models": ["pslo", "arm"]}),
            json!({"loopBound": -1}),
            json!({"loopBound": 1e12}),
            json!({"loopBound": 2.5}),
            json!({"loopBound": "2"}),
            json!({"preemptionBound": -3}),
            json!({"bufferBound": 0}),
            json!({"bufferBound": 4_294_967_296u64}),
            json!({"monitor": "herd"}),
            json!({"monitor": 1}),
            json!({"timeout": -1}),
            json!({"timeout": 1e20}),
            json!({"timeout": "soon"}),
            json!({"timeout": null}),
            json!({"debounceMs": 1e9}),
            json!({"modles": ["tso"]}),
            json!(42),
            json!({"litmus": "tso"}),
            json!({"workspaceDiagnostics": true}),
            json!({"workspaceDiagnostics": {"enable": 1}}),
            json!({"workspaceDiagnostics": {"timeout": -2}}),
            json!({"workspaceDiagnostics": {"enable": false, "timeout": "5"}}),
        ];
        for v in bad {
            let mut c = Config::default();
            let p = c.apply(&v);
            assert_eq!(p.len(), 1, "{v}: {p:?}");
            assert_eq!(c, Config::default(), "{v}");
        }
    }

    #[test]
    fn nothing_to_report_for_good_or_empty_settings() {
        let mut c = Config::default();
        for v in [json!(null), json!([]), json!({}), json!({"litmus": []}), json!({"testHooks": true})] {
            assert!(c.apply(&v).is_empty(), "{v}");
        }
        let p = c.apply(&json!({"models": ["PSO"], "loopBound": 3.0, "preemptionBound": 2, "bufferBound": 4,
                                "monitor": "bss-interleaving", "timeout": 0.5, "debounceMs": 0}));
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(c.models(Dialect::Native), [Model::Sc, Model::Pso]);
        assert_eq!(c.models(Dialect::HerdX86), [Model::Sc, Model::Pso], "asked for: on every file");
        assert_eq!((c.loop_bound, c.preemption_bound, c.buffer_bound), (3, Some(2), 4));
        assert_eq!(
            (c.monitor(), c.timeout, c.debounce_ms),
            (MonitorKind::BssInterleaving, Duration::from_millis(500), 0)
        );
        assert!(c.apply(&json!({"preemptionBound": null})).is_empty());
        assert_eq!(c.preemption_bound, None);
        // PSLO is asked for like any model; the default stays SC, TSO, PSO.
        assert!(c.apply(&json!({"models": ["pslo", "pso"]})).is_empty());
        assert_eq!(c.models(Dialect::Native), [Model::Sc, Model::Pso, Model::Pslo]);
        assert_eq!(Config::default().models(Dialect::Native), [Model::Sc, Model::Tso, Model::Pso]);
        // A herd x86 test: its architecture's model (PSO only when asked).
        assert_eq!(Config::default().models(Dialect::HerdX86), [Model::Sc, Model::Tso]);
        // An empty list is the defaults again.
        assert!(c.apply(&json!({"models": []})).is_empty());
        assert_eq!(c.models(Dialect::HerdX86), [Model::Sc, Model::Tso]);
        // Either half of `workspaceDiagnostics` alone keeps the other.
        assert!(c.apply(&json!({"workspaceDiagnostics": {"timeout": 0.25}})).is_empty());
        assert!(c.apply(&json!({"workspaceDiagnostics": {"enable": false}})).is_empty());
        assert_eq!((c.workspace_diagnostics, c.workspace_timeout), (false, Duration::from_millis(250)));
    }
}

#[cfg(test)]
mod editor_settings {
    use super::KEYS;

    /// The VS Code extension declares and forwards every setting the server
    /// reads (a key missing there cannot be set from the Settings UI).
    #[test]
    fn vscode_declares_and_forwards_every_setting() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../editors/vscode");
        let package = std::fs::read_to_string(format!("{root}/package.json")).unwrap();
        let manifest: serde_json::Value = serde_json::from_str(&package).unwrap();
        let declared = manifest["contributes"]["configuration"]["properties"].as_object().unwrap();
        let forwarded = std::fs::read_to_string(format!("{root}/src/extension.ts")).unwrap();
        for key in KEYS.iter().filter(|k| **k != "testHooks") {
            assert!(
                declared.keys().any(|d| d == &format!("litmus.{key}") || d.starts_with(&format!("litmus.{key}."))),
                "package.json declares no litmus.{key}"
            );
            assert!(forwarded.contains(&format!("{key}: c.get(\"{key}\")")), "extension.ts does not forward {key}");
        }
        // And nothing is declared that the server does not read (the client's own aside).
        for d in declared.keys() {
            let key = d.trim_start_matches("litmus.").split('.').next().unwrap();
            assert!(KEYS.contains(&key) || ["server", "trace"].contains(&key), "package.json declares {d}, unread");
        }
        // The model and monitor names offered are the checker's own.
        let names = |v: &serde_json::Value| -> Vec<String> {
            v.as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
        };
        let all: Vec<String> = litmus_checker::Model::ALL.iter().map(|m| m.as_str().to_string()).collect();
        assert_eq!(names(&declared["litmus.models"]["items"]["enum"]), all);
        // No models named: each file's own defaults (the server decides).
        assert!(names(&declared["litmus.models"]["default"]).is_empty());
        let monitors = names(&declared["litmus.monitor"]["enum"]);
        assert!(monitors.iter().all(|m| litmus_checker::MonitorKind::parse(m).is_ok()), "{monitors:?}");
    }
}

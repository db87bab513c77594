//! Settings, from `initializationOptions` and `workspace/didChangeConfiguration`
//! (either the object itself or `{ "litmus": { ... } }`).

use litmus_checker::{Model, MonitorKind, Options};
use serde::Deserialize;
use std::time::Duration;

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    pub models: Vec<String>,
    pub loop_bound: u32,
    pub preemption_bound: Option<u32>,
    pub buffer_bound: u32,
    pub monitor: String,
    /// Seconds a check may take before its answer is marked incomplete.
    pub timeout: f64,
    /// Milliseconds of quiet after an edit before model checking starts.
    pub debounce_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            models: vec!["sc".into(), "tso".into(), "pso".into()],
            loop_bound: 2,
            preemption_bound: None,
            buffer_bound: 16,
            monitor: "bss".into(),
            timeout: 20.0,
            debounce_ms: 150,
        }
    }
}

impl Config {
    pub fn from_value(v: &serde_json::Value) -> Option<Config> {
        let v = v.get("litmus").unwrap_or(v);
        if !v.is_object() {
            return None;
        }
        serde_json::from_value(v.clone()).ok()
    }

    pub fn models(&self) -> Vec<Model> {
        let mut m: Vec<Model> = self
            .models
            .iter()
            .filter_map(|s| match s.to_ascii_lowercase().as_str() {
                "sc" => Some(Model::Sc),
                "tso" => Some(Model::Tso),
                "pso" => Some(Model::Pso),
                _ => None,
            })
            .collect();
        if !m.contains(&Model::Sc) {
            m.push(Model::Sc);
        }
        m.sort();
        m.dedup();
        m
    }

    pub fn monitor(&self) -> MonitorKind {
        match self.monitor.as_str() {
            "sober" => MonitorKind::Sober,
            "bss-interleaving" => MonitorKind::BssInterleaving,
            _ => MonitorKind::Bss,
        }
    }

    pub fn options(&self) -> Options {
        // The deadline starts when the check does (the pipeline calls this then).
        Options {
            loop_bound: self.loop_bound,
            buffer_bound: self.buffer_bound,
            preemption_bound: self.preemption_bound,
            deadline: None,
            cancel: None,
        }
        .with_timeout(Some(litmus_checker::options::parse_timeout(self.timeout).unwrap_or(Duration::from_secs(20))))
    }
}

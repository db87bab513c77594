//! Evaluation (stub while the parser lands).

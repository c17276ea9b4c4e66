//! What a run measures: one record per flow, counters per link, optional time series (their
//! rows' metrics in the leaf `metric.rs`).
//! Tables are columns (Arrow-shaped); summaries are computed from them in Python.

pub mod flows;
pub mod metric;
pub mod series;
pub mod tables;

pub use flows::{FlowRecord, PathInterner, Paths};
pub use series::SeriesRecorder;

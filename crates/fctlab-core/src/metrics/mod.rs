//! What a run measures: one record per flow, counters per link, optional time series.
//! Tables are columns (Arrow-shaped); summaries are computed from them in Python.

pub mod flows;
pub mod series;
pub mod tables;

pub use flows::{FlowRecord, PathInterner, Paths};
pub use series::SeriesRecorder;

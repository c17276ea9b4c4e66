//! Errors for users: every one names the field, the value and what was expected.

use std::fmt;

/// A scenario that cannot be built, with the dotted path of the offending field.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecError {
    /// Dotted path of the field, e.g. `workload.sizes.cdf`.
    pub field: String,
    /// What was wrong: the value seen and what was expected.
    pub message: String,
}

impl SpecError {
    /// An error about `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError { field: field.into(), message: message.into() }
    }

    /// The same error, with `prefix.` put before its field path.
    pub fn within(mut self, prefix: &str) -> SpecError {
        self.field = if self.field.is_empty() { prefix.to_string() } else { format!("{prefix}.{}", self.field) };
        self
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "field `{}`: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for SpecError {}

/// Shorthand for results of scenario building.
pub type SpecResult<T> = Result<T, SpecError>;

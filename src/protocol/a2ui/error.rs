//! The one error type of the A2UI processor: a category (the conformance suites' vocabulary),
//! a message meant for a person, and per-field details (a path and a stable code).

use std::fmt;

/// What kind of failure, named as the A2UI conformance suites name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// The message or a component does not match the protocol or the catalog.
    Validation,
    /// The surface names a catalog that is not registered.
    Catalog,
    /// The message contradicts the processor's state (unknown or duplicate surface).
    Integrity,
    /// Nesting (function calls) deeper than allowed.
    Recursion,
    /// A configured bound of [`super::A2uiLimits`] was passed.
    Limit,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Validation => "ValidationError",
            Category::Catalog => "CatalogError",
            Category::Integrity => "IntegrityError",
            Category::Recursion => "RecursionError",
            Category::Limit => "LimitError",
        }
    }
}

/// A stable code for one field's failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailCode {
    MissingField,
    TypeMismatch,
    InvalidValue,
    UnknownField,
}

impl DetailCode {
    pub fn as_str(self) -> &'static str {
        match self {
            DetailCode::MissingField => "missing_field",
            DetailCode::TypeMismatch => "type_mismatch",
            DetailCode::InvalidValue => "invalid_value",
            DetailCode::UnknownField => "unknown_field",
        }
    }
}

/// One field's failure. `path` is dotted and relative to the message
/// (`createSurface.surfaceId`, `updateComponents.components.0.text`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detail {
    pub path: String,
    pub code: DetailCode,
    pub message: String,
}

impl Detail {
    pub fn new(path: impl Into<String>, code: DetailCode, message: impl Into<String>) -> Self {
        Detail {
            path: path.into(),
            code,
            message: message.into(),
        }
    }
}

/// Why a message was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct A2uiError {
    pub category: Category,
    pub message: String,
    pub details: Vec<Detail>,
}

impl A2uiError {
    pub fn new(category: Category, message: impl Into<String>) -> Self {
        A2uiError {
            category,
            message: message.into(),
            details: Vec::new(),
        }
    }

    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(Category::Validation, message)
    }

    /// A validation error for one field, its message also the error's.
    pub fn field(path: impl Into<String>, code: DetailCode, message: impl Into<String>) -> Self {
        let detail = Detail::new(path, code, message);
        A2uiError {
            category: Category::Validation,
            message: detail.message.clone(),
            details: vec![detail],
        }
    }

    pub fn limit(message: impl Into<String>) -> Self {
        Self::new(Category::Limit, message)
    }

    /// The same error with every detail's path under `prefix`.
    pub fn under(mut self, prefix: &str) -> Self {
        for d in &mut self.details {
            d.path = join_path(prefix, &d.path);
        }
        self
    }
}

/// `a.b` from `a` and `b`, either of which may be empty.
pub(crate) fn join_path(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}.{rest}"),
    }
}

impl fmt::Display for A2uiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.category.as_str(), self.message)
    }
}

impl std::error::Error for A2uiError {}

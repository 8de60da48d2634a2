//! Dialect translation (placeholder).

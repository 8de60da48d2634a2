//! Unit tests of the A2UI processor.

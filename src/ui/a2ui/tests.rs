//! Tests of the A2UI renderer.

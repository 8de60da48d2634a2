//! SSE codec (placeholder).

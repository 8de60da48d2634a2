//! How runs end and resume: interrupts and their answers, run and subagent outcomes, token usage.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::tagged::struct_variants;
use super::JsonObject;

/// Why a run paused and what answer it needs (`RUN_FINISHED.outcome.interrupts`).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    pub id: String,
    /// Open string; core values `tool_call`, `input_required`, `confirmation`.
    pub reason: String,
    pub message: Option<String>,
    pub tool_call_id: Option<String>,
    pub response_schema: Option<JsonObject>,
    pub expires_at: Option<String>,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

/// The answer to one interrupt, carried by the next run's `RunAgentInput.resume`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeEntry {
    pub interrupt_id: String,
    pub status: ResumeStatus,
    pub payload: Option<Value>,
    pub metadata: Option<JsonObject>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResumeStatus {
    Resolved,
    Cancelled,
}

struct_variants! {
/// How a run ended (`RUN_FINISHED.outcome`; absent means success).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum RunOutcome: tag "type", parsed as RunOutcomeBody
    #[serde(rename_all = "lowercase", rename_all_fields = "camelCase")]
{
    Success {
        pending_tool_call_ids: Option<Vec<String>>,
    },
    Interrupt {
        interrupts: Vec<Interrupt>,
    },
    Cancelled,
}
}

/// The outcome members 1.1 defines (an unknown one is stripped with a warning on input).
pub const RUN_OUTCOME_TYPES: [&str; 3] = ["success", "interrupt", "cancelled"];

struct_variants! {
/// How a subagent invocation ended (`SUBAGENT_FINISHED.outcome`).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum SubagentOutcome: tag "type", parsed as SubagentOutcomeBody
    #[serde(rename_all = "lowercase", rename_all_fields = "camelCase")]
{
    Success,
    Suspended { interrupt_ids: Option<Vec<String>> },
}
}

pub const SUBAGENT_OUTCOME_TYPES: [&str; 2] = ["success", "suspended"];

/// Token accounting; absent is not zero. Cached, cache-write and reasoning counts are parts of
/// the input/output totals.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
    pub cached_input_tokens: Option<u64>,
    pub cache_write_input_tokens: Option<u64>,
}

//! `checklist` (alias `progress`): steps with a status each, and a progress bar.
//!
//! Props:
//! ```json
//! {"title": "Plan",                                               // optional
//!  "steps": [{"description": "Fetch data", "status": "completed"},
//!            {"description": "Summarise", "status": "in_progress"}]}
//! ```
//! `status` is one of `pending`, `in_progress`, `completed`, `failed`, `enabled`, `disabled` (the
//! last two are the selectable steps of AG-UI's human-in-the-loop demos). `steps` needs at least
//! one entry. The `<progress>` value is completed / total, with an accessible label
//! ("2 of 5 steps completed"); each step's status is also written out for screen readers.

use leptos::prelude::*;
use serde_json::Value;

use super::props::{as_object, opt_str, req_array, req_str, PropsError};

/// A step's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pending,
    InProgress,
    Completed,
    Failed,
    Enabled,
    Disabled,
}

impl Status {
    /// Every status, with its wire name.
    pub const ALL: [(&'static str, Status); 6] = [
        ("pending", Status::Pending),
        ("in_progress", Status::InProgress),
        ("completed", Status::Completed),
        ("failed", Status::Failed),
        ("enabled", Status::Enabled),
        ("disabled", Status::Disabled),
    ];

    /// The wire name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map(|(n, _)| *n)
            .unwrap_or("pending")
    }

    fn icon(self) -> &'static str {
        match self {
            Status::Pending => "○",
            Status::InProgress => "◐",
            Status::Completed => "✓",
            Status::Failed => "✗",
            Status::Enabled => "☑",
            Status::Disabled => "☐",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::InProgress => "in progress",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Enabled => "enabled",
            Status::Disabled => "disabled",
        }
    }
}

/// Validated checklist props.
#[derive(Debug, Clone, PartialEq)]
pub struct ChecklistProps {
    pub title: Option<String>,
    pub steps: Vec<(String, Status)>,
}

impl ChecklistProps {
    /// Completed steps.
    pub fn completed(&self) -> usize {
        self.steps
            .iter()
            .filter(|(_, s)| *s == Status::Completed)
            .count()
    }
}

/// Validates checklist props.
pub fn parse(props: &Value) -> Result<ChecklistProps, PropsError> {
    let obj = as_object(props, "checklist props")?;
    let title = opt_str(obj, "title")?;
    let steps = req_array(obj, "steps")?;
    if steps.is_empty() {
        return Err(PropsError::Invalid("\"steps\" must not be empty".into()));
    }
    let steps = steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let what = format!("step {}", i + 1);
            let s = as_object(s, &what)?;
            let description = req_str(s, "description").map_err(|e| e.at(&what))?;
            let status = req_str(s, "status").map_err(|e| e.at(&what))?;
            let status = Status::ALL
                .iter()
                .find(|(n, _)| *n == status)
                .map(|(_, st)| *st)
                .ok_or_else(|| {
                    PropsError::Invalid(format!(
                        "{what}: unknown status {status:?} (expected one of {})",
                        Status::ALL.map(|(n, _)| n).join(", ")
                    ))
                })?;
            Ok((description, status))
        })
        .collect::<Result<Vec<_>, PropsError>>()?;
    Ok(ChecklistProps { title, steps })
}

/// The registry entry.
pub fn render(props: &Value) -> Result<AnyView, PropsError> {
    parse(props).map(view)
}

/// The checklist built from validated props.
pub fn view(p: ChecklistProps) -> AnyView {
    let total = p.steps.len();
    let done = p.completed();
    let summary = format!("{done} of {total} steps completed");
    let title = p.title.map(|t| view! { <div class="rh-title">{t}</div> });
    let steps = p
        .steps
        .into_iter()
        .map(|(description, status)| {
            let sr = format!(" ({})", status.label());
            view! {
                <li class="rh-step" data-status=status.name()>
                    <span class="rh-step-icon" aria-hidden="true">{status.icon()}</span>
                    <span class="rh-step-text">{description}</span>
                    <span class="rh-sr-only">{sr}</span>
                </li>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <div class="rh-checklist">
            {title}
            <div class="rh-progress">
                <progress value=done max=total aria-label=summary.clone()></progress>
                <span class="rh-progress-text">{summary}</span>
            </div>
            <ol class="rh-steps">{steps}</ol>
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_checklist() {
        let p = parse(&json!({"title": "Plan", "steps": [
            {"description": "a", "status": "completed"}, {"description": "b", "status": "in_progress"},
            {"description": "c", "status": "pending"}, {"description": "d", "status": "failed"},
            {"description": "e", "status": "enabled"}, {"description": "f", "status": "disabled"}]}))
        .unwrap();
        assert_eq!(p.steps.len(), 6);
        assert_eq!(p.completed(), 1);
        assert_eq!(p.steps[1].1, Status::InProgress);
    }

    #[test]
    fn invalid_checklists() {
        let err = |v: Value| parse(&v).unwrap_err().to_string();
        assert_eq!(err(json!({})), "\"steps\" is required");
        assert_eq!(err(json!({"steps": []})), "\"steps\" must not be empty");
        assert!(err(json!({"steps": ["x"]})).contains("step 1 must be an object"));
        assert!(err(json!({"steps": [{"status": "pending"}]}))
            .contains("step 1: \"description\" is required"));
        assert!(err(json!({"steps": [{"description": "x"}]}))
            .contains("step 1: \"status\" is required"));
        assert!(
            err(json!({"steps": [{"description": "x", "status": "done"}]}))
                .contains("step 1: unknown status \"done\" (expected one of pending, in_progress")
        );
    }
}

//! State scenarios: a plan executed as state deltas (`agentic_ui`), state shared both ways with
//! the client (`shared_state`) and state predicted from streamed tool arguments
//! (`predictive_state`). Every snapshot keeps the client's other keys: the agent owns only the
//! keys it writes.

use serde_json::{json, Map, Value};

use crate::protocol::event::EventKind;
use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::text::{last_user_text, stream_text};
use super::tools::{after_word, emit_tool_call, emit_tool_result, pause};

/// The client's state as an object to build on; anything else starts over from `{}`.
fn state_object(ctx: &RunContext) -> Option<Map<String, Value>> {
    ctx.input.state.as_object().cloned()
}

async fn delta(ctx: &mut RunContext, ops: Value) -> Result<(), AgentError> {
    let delta = match ops {
        Value::Array(ops) => ops,
        op => vec![op],
    };
    ctx.emit(EventKind::StateDelta { delta }).await
}

const PLAN_STEPS: [&str; 5] = [
    "Gather the requirements",
    "Sketch the page layout",
    "Write the copy",
    "Build and test the pages",
    "Publish the site",
];

pub async fn agentic_ui(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let text = last_user_text(ctx).unwrap_or_default();
    let goal = Some(after_word(&text, "agentic_ui"))
        .filter(|g| !g.is_empty())
        .unwrap_or("Launch the new website")
        .to_string();
    step(ctx, "planning", true).await?;
    let steps: Vec<Value> = PLAN_STEPS
        .iter()
        .map(|d| json!({"description": d, "status": "pending"}))
        .collect();
    let mut state = state_object(ctx).unwrap_or_default();
    state.insert("plan".into(), json!({"title": goal, "steps": steps}));
    ctx.emit(EventKind::StateSnapshot {
        snapshot: Value::Object(state),
    })
    .await?;
    pause(ctx).await?;
    step(ctx, "planning", false).await?;
    step(ctx, "execution", true).await?;
    // One delta per status change, as the Dojo's agentic_generative_ui does: the UI redraws
    // exactly the step that moved.
    for i in 0..PLAN_STEPS.len() {
        for status in ["in_progress", "completed"] {
            let path = format!("/plan/steps/{i}/status");
            delta(
                ctx,
                json!([{"op": "replace", "path": path, "value": status}]),
            )
            .await?;
            pause(ctx).await?;
        }
    }
    step(ctx, "execution", false).await?;
    let summary = format!(
        "Done: all {} steps of “{goal}” are completed. The plan lives in the shared state under `plan`, so your app drew each step as it moved.",
        PLAN_STEPS.len()
    );
    stream_text(ctx, &summary).await?;
    Ok(RunEnd::success())
}

async fn step(ctx: &mut RunContext, name: &str, start: bool) -> Result<(), AgentError> {
    let step_name = name.to_string();
    ctx.emit(if start {
        EventKind::StepStarted { step_name }
    } else {
        EventKind::StepFinished { step_name }
    })
    .await
}

/// Ingredients the agent adds, one per run, skipping those the recipe already has.
const EXTRA_INGREDIENTS: [(&str, &str); 4] = [
    ("Fresh basil", "a handful"),
    ("Parmesan", "40 g"),
    ("Black pepper", "a pinch"),
    ("Lemon zest", "1 tsp"),
];

fn default_recipe() -> Value {
    json!({
        "title": "Tomato pasta",
        "skill_level": "Beginner",
        "ingredients": [
            {"name": "Spaghetti", "amount": "200 g"},
            {"name": "Tomatoes", "amount": "400 g"},
            {"name": "Garlic", "amount": "2 cloves"},
            {"name": "Olive oil", "amount": "2 tbsp"}
        ],
        "instructions": [
            "Boil the spaghetti in salted water.",
            "Soften the garlic in the olive oil, add the tomatoes and simmer for 10 minutes.",
            "Toss the pasta with the sauce."
        ]
    })
}

pub async fn shared_state(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let state = state_object(ctx);
    let recipe = state
        .as_ref()
        .and_then(|s| s.get("recipe"))
        .and_then(Value::as_object)
        .cloned();
    let Some(recipe) = recipe else {
        // No recipe yet (or no usable state): a snapshot creates it, keeping the other keys.
        let mut state = state.unwrap_or_default();
        state.insert("recipe".into(), default_recipe());
        ctx.emit(EventKind::StateSnapshot {
            snapshot: Value::Object(state),
        })
        .await?;
        stream_text(ctx, "I started a recipe in the shared state: **Tomato pasta**, with 4 ingredients and 3 steps. Edit it in your app and run `shared_state` again; I will build on your version.").await?;
        return Ok(RunEnd::success());
    };
    let has = |n: &str| {
        recipe
            .get("ingredients")
            .and_then(Value::as_array)
            .is_some_and(|a| {
                a.iter().any(|i| {
                    i.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|x| x.eq_ignore_ascii_case(n))
                })
            })
    };
    let (name, amount) = EXTRA_INGREDIENTS
        .iter()
        .copied()
        .find(|(n, _)| !has(n))
        .unwrap_or(("Salt", "to taste"));
    let ingredient = json!({"name": name, "amount": amount});
    let instruction = format!("Finish with {} before serving.", name.to_lowercase());
    // Deltas must apply to the client's state as it is: append with `/-` to an existing
    // array, otherwise create the array (`add` on an object member creates or replaces).
    let append = |key: &str, value: Value| {
        if recipe.get(key).is_some_and(Value::is_array) {
            json!([{"op": "add", "path": format!("/recipe/{key}/-"), "value": value}])
        } else {
            json!([{"op": "add", "path": format!("/recipe/{key}"), "value": [value]}])
        }
    };
    let ops = [
        append("ingredients", ingredient),
        append("instructions", Value::String(instruction.clone())),
        json!([{"op": "add", "path": "/recipe/updated_by", "value": "agent"}]),
    ];
    for ops in ops {
        delta(ctx, ops).await?;
        pause(ctx).await?;
    }
    let title = recipe
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("your recipe");
    let text = format!("I changed **{title}** in the shared state: added {amount} of {} to the ingredients, appended the step “{instruction}”, and set `updated_by` to `agent`. Everything else you edited is as you left it.", name.to_lowercase());
    stream_text(ctx, &text).await?;
    Ok(RunEnd::success())
}

const DOCUMENT: &str = "# A short note on AG-UI\n\nAG-UI is an open protocol between an agent and the app a person uses. The agent streams events — text, tool calls, state — and the app draws them as they arrive.\n\nThis paragraph was predicted: your app showed it while the tool's arguments were still streaming, before the agent had committed anything to state.\n\nWhen the tool call ended, the agent wrote the final text to `document`, so the preview and the state now agree.";

pub async fn predictive_state(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    // Tells the app which tool argument previews which state key while it streams.
    ctx.emit(EventKind::Custom {
        name: "PredictState".into(),
        value: json!([{"state_key": "document", "tool": "write_document", "tool_argument": "document"}]),
    })
    .await?;
    let intro = stream_text(
        ctx,
        "I will write the document now; watch it appear as I type.",
    )
    .await?;
    let call = ctx.new_id("call");
    emit_tool_call(
        ctx,
        &call,
        "write_document",
        Some(&intro),
        &json!({"document": DOCUMENT}),
        6,
    )
    .await?;
    // Commit: the predicted value becomes real state (a delta keeps the client's other keys).
    match state_object(ctx) {
        Some(_) => {
            delta(
                ctx,
                json!([{"op": "add", "path": "/document", "value": DOCUMENT}]),
            )
            .await?
        }
        None => {
            ctx.emit(EventKind::StateSnapshot {
                snapshot: json!({"document": DOCUMENT}),
            })
            .await?
        }
    }
    let written = json!({"written": true, "characters": DOCUMENT.chars().count()});
    emit_tool_result(ctx, &call, &written).await?;
    stream_text(
        ctx,
        "The document is saved in the shared state under `document`.",
    )
    .await?;
    Ok(RunEnd::success())
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::testing::{assert_clean, assistant_text, run_scenario, types};
    use super::{DOCUMENT, PLAN_STEPS};

    #[tokio::test]
    async fn agentic_ui_runs_the_plan_in_state_and_keeps_client_keys() {
        let (events, p) = run_scenario("agentic_ui", |i| i.state = json!({"theme": "dark"})).await;
        assert_clean("agentic_ui", &events, &p);
        let state = &p.conversation.state;
        assert_eq!(state["theme"], "dark");
        let steps = state["plan"]["steps"].as_array().unwrap();
        assert_eq!(steps.len(), PLAN_STEPS.len());
        assert!(steps.iter().all(|s| s["status"] == "completed"));
        // The plan is shaped as the UI's checklist component takes it.
        crate::ui::render_hints::checklist::parse(&state["plan"]).expect("checklist props");
        let t = types(&events);
        assert_eq!(
            t.iter().filter(|t| **t == "STATE_DELTA").count(),
            2 * PLAN_STEPS.len()
        );
        assert_eq!(t.iter().filter(|t| **t == "STEP_STARTED").count(), 2);
        assert!(assistant_text(&p).contains("completed"));
    }

    #[tokio::test]
    async fn shared_state_creates_a_recipe_then_edits_the_clients_copy() {
        let (events, p) = run_scenario("shared_state", |i| i.state = json!({"user": "ada"})).await;
        assert_clean("shared_state 1", &events, &p);
        assert_eq!(p.conversation.state["user"], "ada");
        assert_eq!(p.conversation.state["recipe"]["title"], "Tomato pasta");

        // The client edits the recipe and sends it back.
        let mut state = p.conversation.state.clone();
        state["recipe"]["title"] = json!("Ada's pasta");
        state["recipe"]["ingredients"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "Fresh basil", "amount": "lots"}));
        state["notes"] = json!([1, 2]);
        let sent = state.clone();
        let (events, p) = run_scenario("shared_state", |i| i.state = sent).await;
        assert_clean("shared_state 2", &events, &p);
        assert!(types(&events).contains(&"STATE_DELTA"));
        assert!(!types(&events).contains(&"STATE_SNAPSHOT"));
        let after = &p.conversation.state;
        assert_eq!(after["user"], "ada");
        assert_eq!(after["notes"], json!([1, 2]));
        assert_eq!(after["recipe"]["title"], "Ada's pasta");
        assert_eq!(after["recipe"]["updated_by"], "agent");
        let names: Vec<&str> = after["recipe"]["ingredients"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| i["name"].as_str())
            .collect();
        // Basil was there already, so the agent picked the next extra.
        assert_eq!(names.last(), Some(&"Parmesan"));
        assert_eq!(after["recipe"]["instructions"].as_array().unwrap().len(), 4);
        assert!(assistant_text(&p).contains("Ada's pasta"));
    }

    #[tokio::test]
    async fn shared_state_creates_missing_arrays() {
        let state = json!({"recipe": {"title": "Bare"}});
        let (events, p) = run_scenario("shared_state", |i| i.state = state).await;
        assert_clean("shared_state bare", &events, &p);
        let r = &p.conversation.state["recipe"];
        assert_eq!(r["ingredients"].as_array().unwrap().len(), 1);
        assert_eq!(r["instructions"].as_array().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn predictive_state_streams_the_document_then_commits_it() {
        let (events, p) = run_scenario("predictive_state", |i| i.state = json!({"k": 1})).await;
        assert_clean("predictive_state", &events, &p);
        assert_eq!(p.conversation.state, json!({"k": 1, "document": DOCUMENT}));
        let predict = p
            .conversation
            .custom_events
            .iter()
            .find(|(n, _)| n == "PredictState");
        assert_eq!(predict.unwrap().1[0]["tool"], "write_document");
        assert!(
            types(&events)
                .iter()
                .filter(|t| **t == "TOOL_CALL_ARGS")
                .count()
                > 20
        );
        let args = p.conversation.messages.iter().find_map(|m| match m {
            crate::protocol::types::Message::Assistant(a) => {
                a.tool_calls.as_ref()?.first().cloned()
            }
            _ => None,
        });
        let args: Value = serde_json::from_str(&args.unwrap().function.arguments).unwrap();
        assert_eq!(args["document"], DOCUMENT);
    }
}

//! Tool-based generative UI: how a tool call is drawn from its arguments. A tool is drawn by the
//! renderer registered under its name here (which maps its arguments to a render-hint
//! component's props), else by the render-hint component of the same name, else not at all
//! (the card's JSON view stays). Apps add a line to [`TOOL_RENDERERS`] for their own tools.
//!
//! State-based generative UI works the same way: [`STATE_VIEWS`] names the shared-state keys
//! that are drawn live in the transcript (the demo's `plan` as a step list).

use serde_json::{json, Value};

use crate::ui::render_hints::is_registered;

/// Maps a tool's parsed arguments to `(component, props)`; None when they do not fit.
pub type ToolRenderer = fn(&Value) -> Option<(&'static str, Value)>;

/// Tool name → renderer.
pub const TOOL_RENDERERS: &[(&str, ToolRenderer)] = &[("generate_haiku", haiku)];

/// Shared-state key → the component that draws it (its value is the component's props).
pub const STATE_VIEWS: &[(&str, &str)] = &[("plan", "checklist")];

/// The component and props a tool call is drawn with, if any.
pub fn tool_view(tool: &str, args: &Value) -> Option<(String, Value)> {
    if let Some((_, render)) = TOOL_RENDERERS.iter().find(|(n, _)| *n == tool) {
        return render(args).map(|(c, p)| (c.to_string(), p));
    }
    is_registered(tool).then(|| (tool.to_string(), args.clone()))
}

/// The state views present in `state`: (key, component, its props).
pub fn state_views(state: &Value) -> Vec<(&'static str, &'static str, Value)> {
    STATE_VIEWS
        .iter()
        .filter_map(|(key, component)| {
            let v = state.get(*key)?;
            v.is_object().then(|| (*key, *component, v.clone()))
        })
        .collect()
}

/// `generate_haiku {japanese, english, gradient}` (each poem a string or an array of lines) →
/// a card: the Japanese as its heading, the English as its body, a line per line.
fn haiku(args: &Value) -> Option<(&'static str, Value)> {
    let japanese = lines(args.get("japanese")?, " ")?;
    let english = args
        .get("english")
        .and_then(|e| lines(e, "\n"))
        .unwrap_or_default();
    Some(("card", json!({"title": japanese, "body": english})))
}

/// A string, or an array of strings joined by `sep`.
fn lines(v: &Value, sep: &str) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => a
            .iter()
            .map(|l| l.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(|l| l.join(sep)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_tool_maps_its_arguments_and_others_fall_back_by_name() {
        let (c, p) = tool_view(
            "generate_haiku",
            &json!({"japanese": "古池や", "english": "An old pond", "gradient": "x"}),
        )
        .unwrap();
        assert_eq!(c, "card");
        assert_eq!(p, json!({"title": "古池や", "body": "An old pond"}));
        // As the demo sends it: lines.
        let (_, p) = tool_view(
            "generate_haiku",
            &json!({"japanese": ["古池や", "蛙飛び込む"], "english": ["An old pond", "a frog"]}),
        )
        .unwrap();
        assert_eq!(
            p,
            json!({"title": "古池や 蛙飛び込む", "body": "An old pond\na frog"})
        );
        // Arguments that do not fit: no view (the card's JSON stays).
        assert!(tool_view("generate_haiku", &json!({"english": 3})).is_none());
        // A tool named like a component is that component.
        assert_eq!(tool_view("table", &json!({})).unwrap().0, "table");
        assert!(tool_view("search_web", &json!({})).is_none());
    }

    #[test]
    fn the_plan_in_the_state_is_drawn_as_a_checklist() {
        let state = json!({"plan": {"title": "Launch", "steps": []}, "other": 1});
        let views = state_views(&state);
        assert_eq!(views.len(), 1);
        assert_eq!((views[0].0, views[0].1), ("plan", "checklist"));
        assert!(state_views(&json!({"plan": "not an object"})).is_empty());
    }
}

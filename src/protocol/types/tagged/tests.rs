//! The parse through `Value` against serde's derived parse of the same unions (what the types
//! derived before): the same values, and the same error for the same input, whether the input
//! comes as JSON text or as a `Value`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::protocol::types::{
    ActivityMessage, AssistantMessage, Content, ContentPart, Interrupt, MediaPart, Message,
    PartSource, ReasoningMessage, RunOutcome, SubagentOutcome, TextMessage, TextPart, ToolMessage,
    UserMessage,
};
use crate::protocol::EventKind;

/// The unions as serde derived their parse before (the same names, for the same messages).
mod derived {
    use super::*;

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(tag = "role", rename_all = "lowercase")]
    pub enum Message {
        Developer(TextMessage),
        System(TextMessage),
        Assistant(AssistantMessage),
        User(UserMessage),
        Tool(ToolMessage),
        Activity(ActivityMessage),
        Reasoning(ReasoningMessage),
    }

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(tag = "type", rename_all = "lowercase")]
    pub enum ContentPart {
        Text(TextPart),
        Image(MediaPart),
        Audio(MediaPart),
        Video(MediaPart),
        Document(MediaPart),
    }

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(untagged)]
    pub enum Content {
        Text(String),
        Parts(Vec<ContentPart>),
    }

    #[serde_with::skip_serializing_none]
    #[derive(Debug, Serialize, Deserialize)]
    #[serde(
        tag = "type",
        rename_all = "lowercase",
        rename_all_fields = "camelCase"
    )]
    pub enum PartSource {
        Data {
            value: String,
            mime_type: String,
        },
        Url {
            value: String,
            mime_type: Option<String>,
        },
        File {
            value: String,
            provider: Option<String>,
            mime_type: Option<String>,
        },
    }

    #[serde_with::skip_serializing_none]
    #[derive(Debug, Serialize, Deserialize)]
    #[serde(
        tag = "type",
        rename_all = "lowercase",
        rename_all_fields = "camelCase"
    )]
    pub enum RunOutcome {
        Success {
            pending_tool_call_ids: Option<Vec<String>>,
        },
        Interrupt {
            interrupts: Vec<Interrupt>,
        },
        Cancelled,
    }

    #[serde_with::skip_serializing_none]
    #[derive(Debug, Serialize, Deserialize)]
    #[serde(
        tag = "type",
        rename_all = "lowercase",
        rename_all_fields = "camelCase"
    )]
    pub enum SubagentOutcome {
        Success,
        Suspended { interrupt_ids: Option<Vec<String>> },
    }
}

/// Inputs that are not objects, or whose tag is missing, unknown or not a string. (Not arrays:
/// serde's derived parse also took an internally tagged union as an array whose first element
/// is the tag, `["cancelled"]`, a form no AG-UI producer writes; ours refuses it, see
/// `arrays_are_not_unions`.)
fn shapeless(tag: &str) -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(5),
        json!(-5),
        json!(2.5),
        json!("text"),
        json!({}),
        json!({ (tag): "nonesuch" }),
        json!({ (tag): 7 }),
        json!({ (tag): null }),
        json!({ (tag): ["a"] }),
        json!({ "other": 1 }),
    ]
}

/// Parses every input with `Ours` and `Theirs`, from a `Value` and from JSON text: both accept
/// the same inputs with the same wire form, or both refuse them, with the same message when
/// `messages` (apart from where in the text: serde's position is where its buffer was read,
/// ours the end of the object whose parse failed).
fn same<Ours, Theirs>(inputs: &[Value], messages: bool)
where
    Ours: Serialize + for<'de> Deserialize<'de>,
    Theirs: Serialize + for<'de> Deserialize<'de>,
{
    for input in inputs {
        let text = input.to_string();
        let results = [
            (
                Ours::deserialize(input.clone()).map(|v| serde_json::to_value(v).unwrap()),
                Theirs::deserialize(input.clone()).map(|v| serde_json::to_value(v).unwrap()),
            ),
            (
                serde_json::from_str::<Ours>(&text).map(|v| serde_json::to_value(v).unwrap()),
                serde_json::from_str::<Theirs>(&text).map(|v| serde_json::to_value(v).unwrap()),
            ),
        ];
        for (ours, theirs) in results {
            match (ours, theirs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(a), Err(b)) if messages => {
                    // serde names the tag's own type error after the variant identifier.
                    let ours = without_position(&a).replace("a string tag", "variant identifier");
                    assert_eq!(ours, without_position(&b), "{text}");
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{text}: ours {a:?}, serde's {b:?}"),
            }
        }
    }
}

fn without_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.find(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

#[test]
fn messages_parse_as_serde_parsed_them() {
    let mut inputs = shapeless("role");
    inputs.extend([
        json!({"role": "user", "id": "u1", "content": "hi"}),
        json!({"role": "user", "id": "u1", "content": [{"type": "text", "text": "a"},
            {"type": "image", "source": {"type": "url", "value": "https://x/y.png"}}]}),
        json!({"role": "user", "id": "u1"}),
        json!({"role": "user", "id": "u1", "content": 5}),
        json!({"role": "user", "id": "u1", "content": [{"type": "nonesuch"}]}),
        json!({"role": "system", "id": "s", "content": "be brief", "extra": [1, 2]}),
        json!({"role": "developer", "id": "d", "content": "x", "name": null}),
        json!({"role": "assistant", "id": "a", "toolCalls": [{"id": "c", "type": "function",
            "function": {"name": "f", "arguments": "{}"}}]}),
        json!({"role": "assistant", "id": "a", "toolCalls": "no"}),
        json!({"role": "tool", "id": "t", "toolCallId": "c", "content": "42"}),
        json!({"role": "tool", "id": "t", "content": "42"}),
        json!({"role": "activity", "id": "x", "activityType": "a2ui", "content": {"k": 1}}),
        json!({"role": "reasoning", "id": "r", "content": "hmm", "encryptedValue": "e"}),
        json!({"role": "Reasoning", "id": "r", "content": "hmm"}),
    ]);
    same::<Message, derived::Message>(&inputs, true);
    let parts: Vec<Value> = inputs.iter().map(|m| json!([m])).collect();
    same::<Vec<Message>, Vec<derived::Message>>(&parts, true);
}

#[test]
fn content_and_parts_parse_as_serde_parsed_them() {
    let mut inputs = shapeless("type");
    inputs.extend([
        json!({"type": "text", "text": "a", "id": "p1", "metadata": {"k": [1]}}),
        json!({"type": "text"}),
        json!({"type": "image", "source": {"type": "data", "value": "AAAA", "mimeType": "image/png"}}),
        json!({"type": "image", "source": {"type": "data", "value": "AAAA"}}),
        json!({"type": "audio", "source": {"type": "file", "value": "f1", "provider": "p"}}),
        json!({"type": "video", "source": {"type": "url", "value": "u", "mimeType": null}}),
        json!({"type": "document", "source": {"type": "ftp", "value": "u"}}),
        json!({"type": "document", "source": "u"}),
        json!({"type": "image"}),
    ]);
    same::<ContentPart, derived::ContentPart>(&inputs, true);
    let mut contents = vec![
        json!("plain"),
        json!(""),
        json!([]),
        json!(1),
        json!({"a": 1}),
    ];
    contents.extend(inputs.iter().map(|p| json!([p])));
    // serde's untagged parse says only "data did not match any variant of untagged enum
    // Content"; ours names what it expected, or what is wrong in the part.
    same::<Content, derived::Content>(&contents, false);
    let err = |text: &str| {
        serde_json::from_str::<Content>(text)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("null"),
        "invalid type: null, expected a string or an array of content parts at line 1 column 4"
    );
    assert!(err(r#"[{"type": "text"}]"#).starts_with("missing field `text` at line 1 column"));
    let mut sources = shapeless("type");
    sources.extend([
        json!({"type": "data", "value": "v", "mimeType": "m"}),
        json!({"type": "data", "value": "v"}),
        json!({"type": "url", "value": "v", "extra": {}}),
        json!({"type": "file", "value": 1}),
    ]);
    same::<PartSource, derived::PartSource>(&sources, true);
}

#[test]
fn outcomes_parse_as_serde_parsed_them() {
    let mut inputs = shapeless("type");
    inputs.extend([
        json!({"type": "success"}),
        json!({"type": "success", "pendingToolCallIds": ["a", "b"]}),
        json!({"type": "success", "pendingToolCallIds": "a"}),
        json!({"type": "interrupt", "interrupts": [{"id": "i", "reason": "tool_call"}]}),
        json!({"type": "interrupt", "interrupts": [{"id": "i"}]}),
        json!({"type": "interrupt"}),
        json!({"type": "cancelled"}),
        json!({"type": "cancelled", "why": "user"}),
        json!({"type": "suspended"}),
        json!({"type": "suspended", "interruptIds": ["i"]}),
        json!({"type": "suspended", "interruptIds": [1]}),
    ]);
    same::<RunOutcome, derived::RunOutcome>(&inputs, true);
    same::<SubagentOutcome, derived::SubagentOutcome>(&inputs, true);
}

#[test]
fn event_bodies_parse_through_their_twin() {
    let ok = |v: Value| EventKind::parse_value(v).unwrap();
    assert_eq!(
        ok(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "x": 1})),
        EventKind::TextMessageContent {
            message_id: "m".into(),
            delta: "hi".into()
        }
    );
    assert_eq!(
        ok(json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": null})),
        EventKind::TextMessageStart {
            message_id: "m".into(),
            role: None,
            name: None
        }
    );
    assert!(matches!(
        ok(
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
            "outcome": {"type": "cancelled"}})
        ),
        EventKind::RunFinished {
            outcome: Some(RunOutcome::Cancelled),
            ..
        }
    ));
    let err = |v: Value| EventKind::parse_value(v).unwrap_err().to_string();
    assert_eq!(err(json!({"messageId": "m"})), "missing field `type`");
    assert_eq!(
        err(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m"})),
        "missing field `delta`"
    );
    assert!(err(json!({"type": "NONESUCH"}))
        .starts_with("unknown variant `NONESUCH`, expected one of `TEXT_MESSAGE_START`"));
    assert_eq!(
        err(json!({"type": 3})),
        "invalid type: integer `3`, expected a string tag"
    );
    assert_eq!(
        err(json!("TEXT_MESSAGE_END")),
        "invalid type: string \"TEXT_MESSAGE_END\", expected internally tagged enum EventKind"
    );
    // From JSON text, an error says where: at the end of the object that failed.
    let text = r#"{"type": "MESSAGES_SNAPSHOT", "messages": [{"role": "user", "id": 1}]}"#;
    assert_eq!(
        serde_json::from_str::<EventKind>(text)
            .unwrap_err()
            .to_string(),
        "invalid type: integer `1`, expected a string at line 1 column 70"
    );
    // Every event type's name is its variant's (the twin renames as the enum does).
    for ty in crate::protocol::event::EVENT_TYPES {
        match EventKind::parse_value(json!({"type": ty})) {
            Ok(kind) => assert_eq!(kind.type_name(), ty),
            Err(e) => assert!(e.to_string().starts_with("missing field"), "{ty}: {e}"),
        }
    }
}

#[test]
fn arrays_are_not_unions() {
    let err = |text: &str| {
        serde_json::from_str::<RunOutcome>(text)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(r#"["cancelled"]"#),
        "invalid type: sequence, expected internally tagged enum RunOutcome at line 1 column 0"
    );
    assert!(serde_json::from_str::<derived::RunOutcome>(r#"["cancelled"]"#).is_ok());
}

#[test]
fn a_tag_given_twice_is_refused() {
    let text = r#"{"role": "user", "id": "u", "content": "hi", "role": "system"}"#;
    let ours = serde_json::from_str::<Message>(text)
        .unwrap_err()
        .to_string();
    let theirs = serde_json::from_str::<derived::Message>(text)
        .unwrap_err()
        .to_string();
    assert_eq!(without_position_text(&ours), without_position_text(&theirs));
    assert!(ours.starts_with("duplicate field `role`"), "{ours}");
    let text = r#"{"type": "TEXT_MESSAGE_END", "messageId": "m", "type": "RUN_ERROR"}"#;
    let err = serde_json::from_str::<EventKind>(text)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("duplicate field `type`"), "{err}");
}

fn without_position_text(s: &str) -> &str {
    s.find(" at line ").map_or(s, |i| &s[..i])
}

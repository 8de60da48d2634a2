//! Every AG-UI 1.1 event type, built from our own types, checked against the official JSON
//! Schema (`agui-conformance/schema/schema.json`), round-tripped through `Event::to_value` /
//! `Event::from_value` / `to_json`, and through the SSE encoder and byte-at-a-time decoder.
//!
//! The schema is found at `$AGUI_CONFORMANCE_DIR/schema/schema.json`, or next to this crate at
//! `../shared/agui-conformance/schema/schema.json`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use agui_studio::protocol::event::{EncryptedSubtype, EVENT_TYPES};
use agui_studio::protocol::sse;
use agui_studio::protocol::types::*;
use agui_studio::protocol::{Event, EventKind};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// The schema and validators
// ---------------------------------------------------------------------------------------------

const SCHEMA_ID: &str = "https://ag-ui.com/spec/1.1/schema.json";

fn schema_path() -> PathBuf {
    match std::env::var_os("AGUI_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir).join("schema/schema.json"),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/agui-conformance/schema/schema.json"
        )),
    }
}

fn schema() -> Value {
    let path = schema_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the schema at {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the schema is JSON")
}

/// Validates one event (the schema's root).
fn event_validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).expect("the official schema compiles")
}

/// Validates one definition of the schema, addressed by its `$anchor`, with the whole schema
/// registered under its `$id`.
fn anchor_validator(schema: &Value, anchor: &str) -> jsonschema::Validator {
    let resource =
        jsonschema::Resource::from_contents(schema.clone()).expect("the schema is a resource");
    jsonschema::draft202012::options()
        .with_resource(SCHEMA_ID, resource)
        .build(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": format!("{SCHEMA_ID}#{anchor}"),
        }))
        .unwrap_or_else(|e| panic!("cannot build a validator for #{anchor}: {e}"))
}

/// Every validation error of `instance`, one per line (empty when valid).
fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("  at {:?}: {e}", e.instance_path.to_string()))
        .collect()
}

fn assert_valid(validator: &jsonschema::Validator, what: &str, instance: &Value) {
    let errs = errors(validator, instance);
    assert!(
        errs.is_empty(),
        "{what} does not validate against the official schema:\n{}\nerrors:\n{}",
        serde_json::to_string_pretty(instance).unwrap(),
        errs.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------

fn s(text: &str) -> String {
    text.to_string()
}

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// Metadata with a meaningful `null` inside.
fn meta() -> JsonObject {
    obj(json!({"k": null, "trace": {"id": "tr-1", "tags": ["a", null]}, "n": 1.5, "ag-ui": {}}))
}

/// All base fields set; `subagentRunId` only where the event may carry it.
fn full(kind: EventKind) -> Event {
    let attributable = kind.is_attributable();
    Event {
        kind,
        timestamp: Some(1_700_000_000_123),
        raw_event: Some(Box::new(
            json!({"provider": "openai", "chunk": {"x": null, "list": [1, "two", null]}}),
        )),
        metadata: Some(Box::new(meta())),
        subagent_run_id: attributable.then(|| s("sub-run-1")),
    }
}

fn minimal(kind: EventKind) -> Event {
    Event::from(kind)
}

fn full_usage() -> TokenUsage {
    TokenUsage {
        provider: Some(s("openai")),
        model: Some(s("gpt-4.1")),
        input_tokens: Some(1200),
        output_tokens: Some(340),
        total_tokens: Some(1540),
        reasoning_tokens: Some(120),
        cached_input_tokens: Some(800),
        cache_write_input_tokens: Some(64),
    }
}

fn full_tool_call(id: &str) -> ToolCall {
    ToolCall {
        id: s(id),
        kind: FunctionKind::Function,
        function: FunctionCall {
            name: s("get_weather"),
            arguments: s(r#"{"city":"Zürich"}"#),
        },
        encrypted_value: Some(s("enc-tc")),
        encrypted_value_type: Some(s("anthropic/signature")),
        metadata: Some(meta()),
    }
}

fn full_parts() -> Vec<ContentPart> {
    vec![
        ContentPart::Text(TextPart {
            text: s("Look at these — héllo 日本 🚀"),
            id: Some(s("part-text")),
            metadata: Some(json!({"lang": "en", "x": null})),
        }),
        ContentPart::Image(MediaPart {
            source: PartSource::Data {
                value: s("iVBORw0KGgo="),
                mime_type: s("image/png"),
            },
            id: Some(s("part-image")),
            metadata: Some(json!({"alt": "a chart"})),
        }),
        ContentPart::Audio(MediaPart {
            source: PartSource::Url {
                value: s("https://example.com/a.mp3"),
                mime_type: Some(s("audio/mpeg")),
            },
            id: Some(s("part-audio")),
            metadata: Some(json!(["any", "non-null", 1])),
        }),
        ContentPart::Video(MediaPart {
            source: PartSource::File {
                value: s("file-abc123"),
                provider: Some(s("openai")),
                mime_type: Some(s("video/mp4")),
            },
            id: Some(s("part-video")),
            metadata: Some(json!("scalar metadata")),
        }),
        ContentPart::Document(MediaPart {
            source: PartSource::Data {
                value: s("JVBERi0xLjQK"),
                mime_type: s("application/pdf"),
            },
            id: Some(s("part-doc")),
            metadata: Some(json!({"pages": 3})),
        }),
        ContentPart::Document(MediaPart {
            source: PartSource::Url {
                value: s("https://example.com/d.pdf"),
                mime_type: None,
            },
            id: None,
            metadata: None,
        }),
        ContentPart::Image(MediaPart {
            source: PartSource::File {
                value: s("file-min"),
                provider: None,
                mime_type: None,
            },
            id: None,
            metadata: None,
        }),
    ]
}

/// One fully-populated message of every role (and a user message with string content).
fn full_messages() -> Vec<Message> {
    let text = |id: &str, content: &str| TextMessage {
        id: s(id),
        content: s(content),
        name: Some(s("named")),
        encrypted_value: Some(s("enc")),
        encrypted_value_type: Some(s("vendor/enc")),
        metadata: Some(meta()),
        subagent_run_id: Some(s("sub-run-1")),
    };
    vec![
        Message::Developer(text("m-dev", "Be terse.")),
        Message::System(text("m-sys", "You are helpful.")),
        Message::User(UserMessage {
            id: s("m-user-parts"),
            content: Content::Parts(full_parts()),
            name: Some(s("alice")),
            encrypted_value: Some(s("enc-u")),
            encrypted_value_type: Some(s("vendor/enc")),
            metadata: Some(meta()),
            subagent_run_id: Some(s("sub-run-1")),
        }),
        Message::User(UserMessage {
            id: s("m-user-text"),
            content: Content::Text(s("What's the weather?")),
            name: Some(s("alice")),
            encrypted_value: Some(s("enc-u2")),
            encrypted_value_type: Some(s("vendor/enc")),
            metadata: Some(meta()),
            subagent_run_id: Some(s("sub-run-1")),
        }),
        Message::Assistant(AssistantMessage {
            id: s("m-asst"),
            content: Some(s("Let me check.")),
            tool_calls: Some(vec![
                full_tool_call("tc-1"),
                ToolCall::new(s("tc-2"), s("noop")),
            ]),
            name: Some(s("assistant-1")),
            encrypted_value: Some(s("enc-a")),
            encrypted_value_type: Some(s("vendor/enc")),
            metadata: Some(meta()),
            subagent_run_id: Some(s("sub-run-1")),
        }),
        Message::Tool(ToolMessage {
            id: s("m-tool"),
            content: Content::Parts(full_parts()),
            tool_call_id: s("tc-1"),
            error: Some(s("partial failure")),
            encrypted_value: Some(s("enc-t")),
            encrypted_value_type: Some(s("vendor/enc")),
            metadata: Some(meta()),
            subagent_run_id: Some(s("sub-run-1")),
        }),
        Message::Tool(ToolMessage {
            id: s("m-tool-text"),
            content: Content::Text(s("18°C")),
            tool_call_id: s("tc-2"),
            error: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: None,
            subagent_run_id: None,
        }),
        Message::Activity(ActivityMessage {
            id: s("m-act"),
            activity_type: s("PLAN"),
            content: obj(json!({"steps": [{"title": "a", "done": null}], "x": null})),
            metadata: Some(meta()),
            subagent_run_id: Some(s("sub-run-1")),
        }),
        Message::Reasoning(ReasoningMessage {
            id: s("m-reason"),
            content: s("Thinking about the weather…"),
            encrypted_value: Some(s("enc-r")),
            encrypted_value_type: Some(s("vendor/enc")),
            metadata: Some(meta()),
            subagent_run_id: Some(s("sub-run-1")),
        }),
    ]
}

/// One message of every role with required fields only.
fn minimal_messages() -> Vec<Message> {
    vec![
        Message::Developer(TextMessage {
            id: s("d"),
            content: s("dev"),
            ..Default::default()
        }),
        Message::System(TextMessage {
            id: s("s"),
            content: s("sys"),
            ..Default::default()
        }),
        Message::Assistant(AssistantMessage {
            id: s("a"),
            ..Default::default()
        }),
        Message::User(UserMessage {
            id: s("u"),
            content: Content::Text(s("hi")),
            name: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: None,
            subagent_run_id: None,
        }),
        Message::User(UserMessage {
            id: s("u2"),
            content: Content::Parts(vec![
                ContentPart::Text(TextPart {
                    text: s("t"),
                    id: None,
                    metadata: None,
                }),
                ContentPart::Audio(MediaPart {
                    source: PartSource::Url {
                        value: s("https://x/a.wav"),
                        mime_type: None,
                    },
                    id: None,
                    metadata: None,
                }),
            ]),
            name: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: None,
            subagent_run_id: None,
        }),
        Message::Tool(ToolMessage {
            id: s("t"),
            content: Content::Text(s("ok")),
            tool_call_id: s("c"),
            error: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: None,
            subagent_run_id: None,
        }),
        Message::Activity(ActivityMessage {
            id: s("act"),
            activity_type: s("PLAN"),
            content: JsonObject::new(),
            metadata: None,
            subagent_run_id: None,
        }),
        Message::Reasoning(ReasoningMessage {
            id: s("r"),
            content: s("hmm"),
            ..Default::default()
        }),
    ]
}

fn full_interrupt() -> Interrupt {
    Interrupt {
        id: s("int-1"),
        reason: s("confirmation"),
        message: Some(s("Really delete the file?")),
        tool_call_id: Some(s("tc-1")),
        response_schema: Some(obj(json!({
            "type": "object",
            "properties": {"approved": {"type": "boolean"}},
            "required": ["approved"]
        }))),
        expires_at: Some(s("2030-01-01T00:00:00Z")),
        metadata: Some(meta()),
        subagent_run_id: Some(s("sub-run-1")),
    }
}

fn full_run_agent_input() -> RunAgentInput {
    RunAgentInput {
        thread_id: s("thread-1"),
        run_id: s("run-2"),
        protocol_version: Some(s(PROTOCOL_VERSION)),
        parent_run_id: Some(s("run-1")),
        state: json!({"counter": 1, "nested": {"nullable": null}, "list": [1, 2, 3]}),
        messages: full_messages(),
        tools: vec![
            Tool {
                name: s("get_weather"),
                description: s("Current weather for a city"),
                parameters: Some(json!({
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"]
                })),
                metadata: Some(meta()),
            },
            Tool {
                name: s("noop"),
                description: s("Takes no arguments"),
                parameters: None,
                metadata: None,
            },
        ],
        context: vec![Context {
            description: s("The user's locale"),
            value: s("de-CH"),
        }],
        forwarded_props: json!({"temperature": 0.2, "x": null}),
        resume: Some(vec![
            ResumeEntry {
                interrupt_id: s("int-1"),
                status: ResumeStatus::Resolved,
                payload: Some(json!({"approved": true, "note": null})),
                metadata: Some(meta()),
            },
            ResumeEntry {
                interrupt_id: s("int-2"),
                status: ResumeStatus::Cancelled,
                payload: None,
                metadata: None,
            },
        ]),
    }
}

/// All six RFC 6902 operation kinds (with escaped pointers, the root pointer and a null value).
fn all_patch_ops() -> Vec<Value> {
    vec![
        json!({"op": "add", "path": "/a~1b/0", "value": {"x": null}}),
        json!({"op": "remove", "path": "/gone"}),
        json!({"op": "replace", "path": "/c", "value": 3}),
        json!({"op": "move", "from": "/d", "path": "/e~0tilde"}),
        json!({"op": "copy", "from": "/e~0tilde", "path": "/f"}),
        json!({"op": "test", "path": "", "value": {"c": 3}}),
    ]
}

// ---------------------------------------------------------------------------------------------
// The instances
// ---------------------------------------------------------------------------------------------

/// At least one fully-populated instance of every event type.
fn full_instances() -> Vec<Event> {
    use EventKind::*;
    let mut out = vec![
        full(TextMessageStart {
            message_id: s("msg-1"),
            role: Some(TextRole::Assistant),
            name: Some(s("assistant-1")),
        }),
        full(TextMessageContent {
            message_id: s("msg-1"),
            delta: s("Hello, héllo 日本 🚀 \"quoted\"\nnew line\r\ttab"),
        }),
        full(TextMessageEnd {
            message_id: s("msg-1"),
        }),
        full(TextMessageChunk {
            message_id: Some(s("msg-2")),
            role: Some(TextRole::User),
            delta: Some(s("chunk")),
            name: Some(s("alice")),
        }),
        full(ToolCallStart {
            tool_call_id: s("tc-1"),
            tool_call_name: s("get_weather"),
            parent_message_id: Some(s("msg-1")),
        }),
        full(ToolCallArgs {
            tool_call_id: s("tc-1"),
            delta: s(r#"{"city":"Zür"#),
        }),
        full(ToolCallEnd {
            tool_call_id: s("tc-1"),
        }),
        full(ToolCallChunk {
            tool_call_id: Some(s("tc-3")),
            tool_call_name: Some(s("search")),
            parent_message_id: Some(s("msg-1")),
            delta: Some(s(r#"{"q":"x"}"#)),
        }),
        full(ToolCallResult {
            message_id: s("msg-tool-1"),
            tool_call_id: s("tc-1"),
            content: Content::Text(s("18°C and sunny")),
            role: Some(ToolRole::Tool),
        }),
        full(ToolCallResult {
            message_id: s("msg-tool-2"),
            tool_call_id: s("tc-2"),
            content: Content::Parts(full_parts()),
            role: Some(ToolRole::Tool),
        }),
        full(StateSnapshot {
            snapshot: json!({"counter": 1, "nested": {"nullable": null}, "list": [1, null]}),
        }),
        full(StateDelta {
            delta: all_patch_ops(),
        }),
        full(MessagesSnapshot {
            messages: full_messages(),
        }),
        full(ActivitySnapshot {
            message_id: s("act-1"),
            activity_type: s("PLAN"),
            content: obj(json!({"steps": [{"title": "search", "done": false}], "x": null})),
            replace: Some(false),
        }),
        full(ActivityDelta {
            message_id: s("act-1"),
            activity_type: s("PLAN"),
            patch: all_patch_ops(),
        }),
        full(Raw {
            event: json!({"id": "chatcmpl-1", "choices": [{"delta": {"content": null}}]}),
            source: Some(s("openai")),
        }),
        full(Custom {
            name: s("app/highlight"),
            value: json!({"range": [1, 5], "color": null}),
        }),
        full(RunStarted {
            thread_id: s("thread-1"),
            run_id: s("run-2"),
            parent_run_id: Some(s("run-1")),
            input: Some(Box::new(full_run_agent_input())),
            protocol_version: Some(s(PROTOCOL_VERSION)),
        }),
        full(RunFinished {
            thread_id: s("thread-1"),
            run_id: s("run-2"),
            result: Some(json!({"answer": 42, "why": null})),
            outcome: Some(RunOutcome::Success {
                pending_tool_call_ids: Some(vec![s("tc-9"), s("tc-10")]),
            }),
            usage: Some(vec![full_usage(), TokenUsage::default()]),
        }),
        full(RunFinished {
            thread_id: s("thread-1"),
            run_id: s("run-3"),
            result: Some(json!("partial")),
            outcome: Some(RunOutcome::Interrupt {
                interrupts: vec![
                    full_interrupt(),
                    Interrupt {
                        id: s("int-2"),
                        reason: s("input_required"),
                        message: None,
                        tool_call_id: None,
                        response_schema: None,
                        expires_at: None,
                        metadata: None,
                        subagent_run_id: None,
                    },
                ],
            }),
            usage: Some(vec![full_usage()]),
        }),
        full(RunFinished {
            thread_id: s("thread-1"),
            run_id: s("run-4"),
            result: Some(json!([1, 2, 3])),
            outcome: Some(RunOutcome::Cancelled),
            usage: Some(vec![full_usage()]),
        }),
        full(RunError {
            message: s("The model provider timed out"),
            code: Some(s("PROVIDER_TIMEOUT")),
            usage: Some(vec![full_usage()]),
        }),
        full(StepStarted {
            step_name: s("plan"),
        }),
        full(StepFinished {
            step_name: s("plan"),
        }),
        full(ReasoningStart {
            message_id: s("rs-1"),
        }),
        full(ReasoningMessageStart {
            message_id: s("rs-1"),
            role: ReasoningRole::Reasoning,
        }),
        full(ReasoningMessageContent {
            message_id: s("rs-1"),
            delta: s("Considering options…"),
        }),
        full(ReasoningMessageEnd {
            message_id: s("rs-1"),
        }),
        full(ReasoningMessageChunk {
            message_id: Some(s("rs-2")),
            delta: Some(s("more thought")),
        }),
        full(ReasoningEnd {
            message_id: s("rs-1"),
        }),
        full(ReasoningEncryptedValue {
            subtype: EncryptedSubtype::Message,
            entity_id: s("rs-1"),
            encrypted_value: s("gAAAAB..."),
            encrypted_value_type: Some(s("openai/encrypted_content")),
        }),
        full(ReasoningEncryptedValue {
            subtype: EncryptedSubtype::ToolCall,
            entity_id: s("tc-1"),
            encrypted_value: s("sig-123"),
            encrypted_value_type: Some(s("anthropic/signature")),
        }),
        full(SubagentStarted {
            subagent_run_id: s("sub-run-2"),
            name: s("researcher"),
            description: Some(s("Finds sources")),
            parent_subagent_run_id: Some(s("sub-run-1")),
            parent_tool_call_id: Some(s("tc-1")),
            parent_message_id: Some(s("msg-1")),
        }),
        full(SubagentFinished {
            subagent_run_id: s("sub-run-2"),
            result: Some(json!({"sources": ["a", "b"], "x": null})),
            outcome: Some(SubagentOutcome::Success),
        }),
        full(SubagentFinished {
            subagent_run_id: s("sub-run-3"),
            result: Some(json!(false)),
            outcome: Some(SubagentOutcome::Suspended {
                interrupt_ids: Some(vec![s("int-1")]),
            }),
        }),
        full(SubagentError {
            subagent_run_id: s("sub-run-4"),
            message: s("crashed"),
            code: Some(s("E_SUBAGENT")),
        }),
    ];
    // Every text role on the start event.
    for role in [TextRole::Developer, TextRole::System, TextRole::User] {
        out.push(full(TextMessageStart {
            message_id: s("msg-role"),
            role: Some(role),
            name: Some(s("n")),
        }));
    }
    out
}

/// Exactly one instance of every event type with its required fields only (and non-null values,
/// so absence of optionals can be checked by looking for `null`).
fn minimal_instances() -> Vec<Event> {
    use EventKind::*;
    vec![
        minimal(TextMessageStart {
            message_id: s("m"),
            role: None,
            name: None,
        }),
        minimal(TextMessageContent {
            message_id: s("m"),
            delta: s("d"),
        }),
        minimal(TextMessageEnd { message_id: s("m") }),
        minimal(TextMessageChunk {
            message_id: None,
            role: None,
            delta: None,
            name: None,
        }),
        minimal(ToolCallStart {
            tool_call_id: s("c"),
            tool_call_name: s("f"),
            parent_message_id: None,
        }),
        minimal(ToolCallArgs {
            tool_call_id: s("c"),
            delta: s("{}"),
        }),
        minimal(ToolCallEnd {
            tool_call_id: s("c"),
        }),
        minimal(ToolCallChunk {
            tool_call_id: None,
            tool_call_name: None,
            parent_message_id: None,
            delta: None,
        }),
        minimal(ToolCallResult {
            message_id: s("m"),
            tool_call_id: s("c"),
            content: Content::Text(s("ok")),
            role: None,
        }),
        minimal(StateSnapshot {
            snapshot: json!({}),
        }),
        minimal(StateDelta { delta: vec![] }),
        minimal(MessagesSnapshot { messages: vec![] }),
        minimal(ActivitySnapshot {
            message_id: s("a"),
            activity_type: s("PLAN"),
            content: JsonObject::new(),
            replace: None,
        }),
        minimal(ActivityDelta {
            message_id: s("a"),
            activity_type: s("PLAN"),
            patch: vec![],
        }),
        minimal(Raw {
            event: json!({}),
            source: None,
        }),
        minimal(Custom {
            name: s("c"),
            value: json!(0),
        }),
        minimal(RunStarted {
            thread_id: s("t"),
            run_id: s("r"),
            parent_run_id: None,
            input: None,
            protocol_version: None,
        }),
        minimal(RunFinished {
            thread_id: s("t"),
            run_id: s("r"),
            result: None,
            outcome: None,
            usage: None,
        }),
        minimal(RunError {
            message: s("boom"),
            code: None,
            usage: None,
        }),
        minimal(StepStarted { step_name: s("s") }),
        minimal(StepFinished { step_name: s("s") }),
        minimal(ReasoningStart { message_id: s("r") }),
        minimal(ReasoningMessageStart {
            message_id: s("r"),
            role: ReasoningRole::Reasoning,
        }),
        minimal(ReasoningMessageContent {
            message_id: s("r"),
            delta: s("x"),
        }),
        minimal(ReasoningMessageEnd { message_id: s("r") }),
        minimal(ReasoningMessageChunk {
            message_id: None,
            delta: None,
        }),
        minimal(ReasoningEnd { message_id: s("r") }),
        minimal(ReasoningEncryptedValue {
            subtype: EncryptedSubtype::Message,
            entity_id: s("r"),
            encrypted_value: s("e"),
            encrypted_value_type: None,
        }),
        minimal(SubagentStarted {
            subagent_run_id: s("sr"),
            name: s("n"),
            description: None,
            parent_subagent_run_id: None,
            parent_tool_call_id: None,
            parent_message_id: None,
        }),
        minimal(SubagentFinished {
            subagent_run_id: s("sr"),
            result: None,
            outcome: None,
        }),
        minimal(SubagentError {
            subagent_run_id: s("sr"),
            message: s("m"),
            code: None,
        }),
    ]
}

/// Optional nested structures present, but each with its own required fields only.
fn sparse_nested_instances() -> Vec<Event> {
    use EventKind::*;
    vec![
        minimal(MessagesSnapshot {
            messages: minimal_messages(),
        }),
        minimal(RunStarted {
            thread_id: s("t"),
            run_id: s("r"),
            parent_run_id: None,
            input: Some(Box::new(RunAgentInput {
                protocol_version: None,
                messages: minimal_messages(),
                ..RunAgentInput::new("t", "r")
            })),
            protocol_version: None,
        }),
        minimal(RunFinished {
            thread_id: s("t"),
            run_id: s("r"),
            result: None,
            outcome: Some(RunOutcome::Success {
                pending_tool_call_ids: None,
            }),
            usage: Some(vec![TokenUsage::default()]),
        }),
        minimal(RunFinished {
            thread_id: s("t"),
            run_id: s("r"),
            result: None,
            outcome: Some(RunOutcome::Interrupt {
                interrupts: vec![Interrupt {
                    id: s("i"),
                    reason: s("tool_call"),
                    message: None,
                    tool_call_id: None,
                    response_schema: None,
                    expires_at: None,
                    metadata: None,
                    subagent_run_id: None,
                }],
            }),
            usage: None,
        }),
        minimal(SubagentFinished {
            subagent_run_id: s("sr"),
            result: None,
            outcome: Some(SubagentOutcome::Suspended {
                interrupt_ids: None,
            }),
        }),
        minimal(ToolCallResult {
            message_id: s("m"),
            tool_call_id: s("c"),
            content: Content::Parts(vec![]),
            role: None,
        }),
    ]
}

/// Events whose `null`s are data and must survive.
fn null_keeping_instances() -> Vec<Event> {
    use EventKind::*;
    vec![
        minimal(StateSnapshot {
            snapshot: Value::Null,
        }),
        minimal(Custom {
            name: s("c"),
            value: Value::Null,
        }),
        minimal(StepStarted { step_name: s("s") }).with_metadata(obj(json!({"k": null}))),
    ]
}

fn all_instances() -> Vec<Event> {
    let mut all = full_instances();
    all.extend(minimal_instances());
    all.extend(sparse_nested_instances());
    all.extend(null_keeping_instances());
    all
}

fn describe(e: &Event) -> String {
    format!(
        "{} event:\n{}",
        e.type_name(),
        serde_json::to_string_pretty(&e.to_value()).unwrap()
    )
}

/// Every JSON pointer in `v` at which a `null` sits.
fn null_paths(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Null => out.push(if at.is_empty() { s("/") } else { at }),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                null_paths(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                null_paths(item, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// The `$defs` entry describing the event whose `type` is `type_name`.
fn event_def<'a>(schema: &'a Value, type_name: &str) -> &'a Value {
    schema["$defs"]
        .as_object()
        .unwrap()
        .values()
        .find(|d| d["properties"]["type"]["const"] == type_name)
        .unwrap_or_else(|| panic!("the schema has no definition for {type_name}"))
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn every_event_type_validates_against_the_official_schema() {
    let schema = schema();
    let validator = event_validator(&schema);

    // The validator is not vacuous: it rejects a missing required field and an unknown one.
    assert!(!validator.is_valid(&json!({"type": "TEXT_MESSAGE_END"})));
    assert!(!validator.is_valid(&json!({"type": "TEXT_MESSAGE_END", "messageId": "m", "bogus": 1})));
    assert!(!validator.is_valid(
        &json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r",
        "subagentRunId": "s"})
    ));
    assert!(validator.is_valid(&json!({"type": "TEXT_MESSAGE_END", "messageId": "m"})));

    let mut failures = Vec::new();
    let groups = [
        ("fully-populated", full_instances()),
        ("minimal", minimal_instances()),
        ("sparse nested", sparse_nested_instances()),
        ("null-keeping", null_keeping_instances()),
    ];
    for (group, events) in &groups {
        for e in events {
            let v = e.to_value();
            assert_eq!(v["type"], e.type_name(), "wire type of {}", describe(e));
            let errs = errors(&validator, &v);
            if !errs.is_empty() {
                failures.push(format!(
                    "{group} {}\nerrors:\n{}",
                    describe(e),
                    errs.join("\n")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} instance(s) fail the official schema:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );

    // The instances cover every type, and our list of types is the schema's.
    let ours: BTreeSet<&str> = EVENT_TYPES.iter().copied().collect();
    assert_eq!(ours.len(), 31, "EVENT_TYPES has duplicates");
    let full: BTreeSet<&str> = groups[0].1.iter().map(Event::type_name).collect();
    let min: Vec<&str> = groups[1].1.iter().map(Event::type_name).collect();
    assert_eq!(full, ours, "fully-populated instances vs EVENT_TYPES");
    assert_eq!(
        min,
        EVENT_TYPES.to_vec(),
        "minimal instances vs EVENT_TYPES"
    );
    let schema_types: Vec<&str> = schema["$defs"]["EventType"]["enum"]
        .as_array()
        .expect("$defs.EventType.enum")
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        EVENT_TYPES.to_vec(),
        schema_types,
        "EVENT_TYPES vs $defs.EventType.enum"
    );

    // Coverage of the nested shapes the brief asks for.
    let snapshot_roles: BTreeSet<&str> = groups[0]
        .1
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MessagesSnapshot { messages } => Some(messages),
            _ => None,
        })
        .flatten()
        .map(|m| m.role().as_str())
        .collect();
    assert_eq!(
        snapshot_roles.len(),
        7,
        "all seven roles in MESSAGES_SNAPSHOT"
    );
    let outcomes: BTreeSet<String> = groups[0]
        .1
        .iter()
        .filter(|e| matches!(e.type_name(), "RUN_FINISHED" | "SUBAGENT_FINISHED"))
        .map(|e| {
            let v = e.to_value();
            format!(
                "{}:{}",
                e.type_name(),
                v["outcome"]["type"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            "RUN_FINISHED:cancelled",
            "RUN_FINISHED:interrupt",
            "RUN_FINISHED:success",
            "SUBAGENT_FINISHED:success",
            "SUBAGENT_FINISHED:suspended",
        ]
        .into_iter()
        .map(String::from)
        .collect()
    );
}

#[test]
fn round_trip_every_event_type() {
    for e in all_instances() {
        let v = e.to_value();
        let back = Event::from_value(v.clone())
            .unwrap_or_else(|err| panic!("cannot parse back {}: {err}", describe(&e)));
        assert_eq!(back, e, "from_value(to_value(e)) != e for {}", describe(&e));

        let first = e.to_json();
        assert!(!first.contains('\n'), "to_json is one line");
        let parsed: Value = serde_json::from_str(&first).expect("to_json is JSON");
        assert_eq!(parsed, v, "to_json parses to to_value");
        let again = Event::from_value(parsed).expect("parse to_json output");
        assert_eq!(again.to_value(), v);
        assert_eq!(again.to_json(), first, "second encode is byte-identical");

        // The serde impls agree with to_value / from_value.
        assert_eq!(serde_json::to_string(&e).unwrap(), first);
        let via_serde: Event = serde_json::from_str(&first).expect("Deserialize for Event");
        assert_eq!(via_serde, e);
    }
}

#[test]
fn absent_optionals_are_omitted_never_null() {
    let schema = schema();
    for e in minimal_instances() {
        let v = e.to_value();
        let mut nulls = Vec::new();
        null_paths(&v, String::new(), &mut nulls);
        assert!(nulls.is_empty(), "null at {nulls:?} in {}", describe(&e));

        // Exactly the schema's required members are on the wire.
        let keys: BTreeSet<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let required: BTreeSet<&str> = event_def(&schema, e.type_name())["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(
            keys,
            required,
            "wire members vs schema `required` for {}",
            describe(&e)
        );
    }
    for e in sparse_nested_instances() {
        let mut nulls = Vec::new();
        null_paths(&e.to_value(), String::new(), &mut nulls);
        assert!(nulls.is_empty(), "null at {nulls:?} in {}", describe(&e));
    }

    // Nulls that are data stay.
    let kept = null_keeping_instances();
    let snapshot = kept[0].to_value();
    assert_eq!(
        snapshot,
        json!({"type": "STATE_SNAPSHOT", "snapshot": null})
    );
    assert_eq!(
        kept[0].to_json(),
        r#"{"type":"STATE_SNAPSHOT","snapshot":null}"#
    );
    let custom = kept[1].to_value();
    assert_eq!(
        custom,
        json!({"type": "CUSTOM", "name": "c", "value": null})
    );
    let with_meta = kept[2].to_value();
    assert_eq!(
        with_meta,
        json!({"type": "STEP_STARTED", "stepName": "s", "metadata": {"k": null}})
    );
    for e in &kept {
        assert_eq!(&Event::from_value(e.to_value()).unwrap(), e);
    }
}

#[test]
fn run_agent_input_validates() {
    let schema = schema();
    let validator = anchor_validator(&schema, "RunAgentInput");

    // Not vacuous.
    assert!(!validator.is_valid(&json!({"threadId": "t", "runId": "r"})));
    assert!(
        !validator.is_valid(&json!({"threadId": "t", "runId": "r", "messages": [],
        "bogus": true}))
    );
    assert!(
        !validator.is_valid(&json!({"threadId": "t", "runId": "r", "messages": [],
        "state": null}))
    );

    let mut input = RunAgentInput::new("thread-1", "run-1");
    input.messages = full_messages();
    input.messages.extend(minimal_messages());
    let v = serde_json::to_value(&input).unwrap();
    assert_valid(&validator, "RunAgentInput::new + messages", &v);
    assert_eq!(v["protocolVersion"], PROTOCOL_VERSION);
    let back: RunAgentInput = serde_json::from_value(v).unwrap();
    assert_eq!(back, input);

    let full = full_run_agent_input();
    let v = serde_json::to_value(&full).unwrap();
    assert_valid(&validator, "a fully-populated RunAgentInput", &v);
    assert_eq!(serde_json::from_value::<RunAgentInput>(v).unwrap(), full);

    // The 1.1-minimal body parses, validates, and re-serialises validly.
    let minimal = json!({"threadId": "t", "runId": "r", "messages": []});
    assert_valid(&validator, "the 1.1-minimal RunAgentInput", &minimal);
    let parsed: RunAgentInput = serde_json::from_value(minimal).expect("1.1-minimal input parses");
    assert_eq!(parsed.thread_id, "t");
    assert_eq!(parsed.run_id, "r");
    assert!(parsed.messages.is_empty() && parsed.tools.is_empty() && parsed.context.is_empty());
    assert_eq!(parsed.state, json!({}));
    assert_eq!(parsed.forwarded_props, json!({}));
    assert_eq!(parsed.protocol_version, None);
    assert_eq!(parsed.resume, None);
    assert_valid(
        &validator,
        "re-serialised minimal input",
        &serde_json::to_value(&parsed).unwrap(),
    );

    // With messages too.
    let with_messages = json!({"threadId": "t", "runId": "r", "messages": [
        {"id": "1", "role": "user", "content": "hi"},
        {"id": "2", "role": "assistant", "content": "hello"}
    ]});
    assert_valid(&validator, "minimal input with messages", &with_messages);
    let parsed: RunAgentInput = serde_json::from_value(with_messages).unwrap();
    assert_eq!(parsed.messages.len(), 2);
}

#[test]
fn sse_round_trip_of_every_event() {
    let events = all_instances();

    // Frame every event, varying the framing: id only, data only (the id persists), a named
    // event with an id, and multi-line (pretty-printed) data. Keep-alives in between.
    struct Expect {
        event: Option<String>,
        id: Option<String>,
        data: String,
    }
    let mut stream = String::new();
    let mut expected = Vec::new();
    let mut last_id: Option<String> = None;
    for (i, e) in events.iter().enumerate() {
        let compact = e.to_json();
        let (frame, event, data) = match i % 4 {
            0 => {
                last_id = Some(format!("{i}"));
                (
                    sse::encode_event(&compact, last_id.as_deref(), None),
                    None,
                    compact,
                )
            }
            1 => (sse::encode_data(&compact), None, compact),
            2 => {
                last_id = Some(format!("ev-{i}"));
                (
                    sse::encode_event(&compact, last_id.as_deref(), Some("agui")),
                    Some(s("agui")),
                    compact,
                )
            }
            _ => {
                let pretty = serde_json::to_string_pretty(&e.to_value()).unwrap();
                assert!(pretty.contains('\n'));
                last_id = Some(format!("{i}:pretty"));
                (
                    sse::encode_event(&pretty, last_id.as_deref(), None),
                    None,
                    pretty,
                )
            }
        };
        stream.push_str(&frame);
        if i % 5 == 0 {
            stream.push_str(sse::KEEP_ALIVE);
        }
        expected.push(Expect {
            event,
            id: last_id.clone(),
            data,
        });
    }

    // One byte at a time (splitting UTF-8 characters and line ends everywhere).
    let mut decoder = sse::Decoder::new();
    let mut frames = Vec::new();
    for b in stream.as_bytes() {
        frames.extend(
            decoder
                .push(std::slice::from_ref(b))
                .expect("decoder accepts the stream"),
        );
    }
    frames.extend(decoder.finish().expect("finish"));
    assert!(
        !decoder.ended_mid_frame(),
        "the encoder terminates every frame"
    );

    // All at once gives the same frames.
    let mut whole = sse::Decoder::new();
    let mut at_once = whole.push(stream.as_bytes()).unwrap();
    at_once.extend(whole.finish().unwrap());
    assert_eq!(at_once, frames, "byte-at-a-time vs whole-stream decoding");

    assert_eq!(frames.len(), events.len(), "one frame per event");
    for ((frame, want), e) in frames.iter().zip(&expected).zip(&events) {
        assert_eq!(frame.data, want.data, "frame data for {}", describe(e));
        assert_eq!(
            frame.event,
            want.event,
            "frame event name for {}",
            e.type_name()
        );
        assert_eq!(frame.id, want.id, "frame id for {}", e.type_name());
        assert_eq!(frame.retry, None);
        let value: Value = serde_json::from_str(&frame.data).expect("frame data is JSON");
        let back = Event::from_value(value)
            .unwrap_or_else(|err| panic!("cannot parse frame of {}: {err}", describe(e)));
        assert_eq!(&back, e, "SSE round trip of {}", describe(e));
    }
}

/// The enforcement's fast path for flat events it has seen clean (`enforce::Shape`) gives what
/// the full check gives: the same event, the same warnings, for every instance above, each
/// sent twice (the second time may take the fast path), then with an unknown member added (a
/// new shape: the full check, which must name it), then with a known member of the wrong type
/// after its shape is known clean (a new shape too: fatal, with the event in the message), and a
/// `role` outside its enumeration after a good one (no shape: fatal, the event in the message).
#[test]
fn enforcement_fast_path_agrees_with_the_full_check() {
    use agui_studio::protocol::enforce::{enforce, Enforced};
    for e in all_instances() {
        let wire = e.to_value();
        let mut first = Vec::new();
        let a = enforce(wire.clone(), &mut first).unwrap();
        let mut second = Vec::new();
        let b = enforce(wire.clone(), &mut second).unwrap();
        assert_eq!(a, b, "{}", describe(&e));
        assert_eq!(first, second, "{}", describe(&e));
        assert_eq!(a, Enforced::Event(Box::new(e.clone())), "{}", describe(&e));

        let mut extra = wire.clone();
        extra["futureMember"] = json!("x");
        for _ in 0..2 {
            let mut w = Vec::new();
            let r = enforce(extra.clone(), &mut w).unwrap();
            assert_eq!(r, Enforced::Event(Box::new(e.clone())), "{}", describe(&e));
            assert_eq!(
                w,
                vec![format!(
                    "stripped unknown property /futureMember from {}",
                    e.type_name()
                )],
                "{}",
                describe(&e)
            );
        }
    }
    // A shape known clean, then a value of the wrong type in it.
    let ok =
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a", "timestamp": 1});
    for _ in 0..2 {
        assert!(enforce(ok.clone(), &mut Vec::new()).is_ok());
    }
    let bad = json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 5, "timestamp": 1});
    let err = enforce(bad, &mut Vec::new()).unwrap_err().to_string();
    assert!(
        err.contains("malformed TEXT_MESSAGE_CONTENT event") && err.contains("\"delta\":5"),
        "{err}"
    );
    let start = json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"});
    for _ in 0..2 {
        assert!(enforce(start.clone(), &mut Vec::new()).is_ok());
    }
    let bad = json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "tool"});
    let err = enforce(bad, &mut Vec::new()).unwrap_err().to_string();
    assert!(
        err.starts_with("malformed TEXT_MESSAGE_START event: unknown variant `tool`")
            && err.contains("\"role\":\"tool\""),
        "{err}"
    );
    // An unattributable event's subagentRunId is stripped, whatever shapes came before.
    let attributed =
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "subagentRunId": "s"});
    for _ in 0..2 {
        let mut w = Vec::new();
        enforce(attributed.clone(), &mut w).unwrap();
        assert_eq!(
            w,
            vec!["stripped unknown property /subagentRunId from RUN_STARTED"]
        );
    }
}

/// `to_json` writes the event without building its `Value`: the text must be exactly what
/// printing `to_value` gives, for every event type, with and without each base field, and with a
/// `subagentRunId` on the types that may not carry it (both leave it out).
#[test]
fn to_json_is_the_printed_value_for_every_event() {
    let mut events = all_instances();
    for e in full_instances() {
        let mut sub = e.clone();
        sub.subagent_run_id = Some(s("sub-run-2"));
        events.push(sub);
        let mut stamped = minimal(e.kind.clone());
        stamped.timestamp = Some(-5);
        events.push(stamped);
        let mut meta_only = minimal(e.kind);
        meta_only.metadata = Some(Box::new(meta()));
        events.push(meta_only);
    }
    assert!(events.len() > 100, "{} events", events.len());
    for e in &events {
        let direct = e.to_json();
        assert_eq!(
            direct,
            serde_json::to_string(&e.to_value()).unwrap(),
            "{}",
            describe(e)
        );
        let back = Event::from_value(serde_json::from_str(&direct).unwrap()).unwrap();
        assert_eq!(back.to_json(), direct, "round trip of {}", describe(e));
    }
}

//! The transcript: messages by role, render hints where they arrived, messages of subagents
//! indented under a header naming the subagent, and the approvals waiting for the user. It
//! sticks to the bottom while it streams, stops following when the reader scrolls up, and
//! offers "Jump to latest".

use std::collections::HashSet;

use leptos::html::Div;
use leptos::prelude::*;

use crate::client::session::{MessageEntry, UseAgentReturn};
use crate::protocol::reduce::PlacedHint;
use crate::protocol::types::{Message as Msg, Role};
use crate::ui::approval::on_demand_approval;
use crate::ui::message::on_demand_message;
use crate::ui::render_hints::RenderHint;
use crate::ui::run_status::subagent_status_key;
use crate::ui::tool_renderers::state_views;
use crate::ui::transcript::TranscriptCtx;
use crate::ui::util::{stick_to_bottom, Stick};

/// One row of the transcript.
#[derive(Clone)]
enum Row {
    /// A message, the subagent run it belongs to, and whether it continues the answer above
    /// it (an assistant message after another of the same author since the last user message:
    /// one author label per turn).
    Message(MessageEntry, Option<String>, bool),
    /// The render hint at this index of `RunView::render_hints`.
    Hint(usize),
    /// The header of a subagent run's messages.
    Subagent(String),
}

impl Row {
    fn key(&self) -> String {
        match self {
            Row::Message(e, sub, cont) => {
                format!("m:{}:{}:{cont}", e.id, sub.as_deref().unwrap_or(""))
            }
            Row::Hint(i) => format!("h:{i}"),
            Row::Subagent(id) => format!("s:{id}"),
        }
    }
}

/// The rows of a transcript. Tool results whose call is in the transcript are left out (the
/// call's card shows them). Reads roles and ids untracked: they are set when a message is added,
/// which replaces the list anyway.
fn rows_of(entries: &[MessageEntry], hints: &[PlacedHint]) -> Vec<Row> {
    let calls: HashSet<String> = entries
        .iter()
        .flat_map(|e| {
            e.msg.with_untracked(|m| match m {
                Msg::Assistant(a) => a
                    .tool_calls
                    .iter()
                    .flatten()
                    .map(|c| c.id.clone())
                    .collect(),
                _ => Vec::new(),
            })
        })
        .collect();
    let mut rows = Vec::with_capacity(entries.len() + hints.len());
    let mut seen_subagents = HashSet::new();
    let mut hint = 0;
    // The author of the last assistant message since the last user message: (subagent, name).
    let mut answering: Option<(Option<String>, Option<String>)> = None;
    for (i, e) in entries.iter().enumerate() {
        while hint < hints.len() && hints[hint].position <= i {
            rows.push(Row::Hint(hint));
            hint += 1;
        }
        let (hidden, sub, author) = e.msg.with_untracked(|m| {
            let hidden = matches!(m, Msg::Tool(t) if calls.contains(&t.tool_call_id));
            let author = match m {
                Msg::Assistant(a) => Some(Some(a.name.clone())),
                Msg::User(_) => Some(None),
                _ => None,
            };
            let sub = match m {
                Msg::Developer(x) | Msg::System(x) => x.subagent_run_id.clone(),
                Msg::Assistant(x) => x.subagent_run_id.clone(),
                Msg::User(x) => x.subagent_run_id.clone(),
                Msg::Tool(x) => x.subagent_run_id.clone(),
                Msg::Activity(x) => x.subagent_run_id.clone(),
                Msg::Reasoning(x) => x.subagent_run_id.clone(),
            };
            (hidden, sub, author)
        });
        if hidden {
            continue;
        }
        let continues = match author {
            // A user message starts a new turn.
            Some(None) => {
                answering = None;
                false
            }
            Some(Some(name)) => {
                let me = (sub.clone(), name);
                let same = answering.as_ref() == Some(&me);
                answering = Some(me);
                same
            }
            None => false,
        };
        if let Some(s) = &sub {
            if seen_subagents.insert(s.clone()) {
                rows.push(Row::Subagent(s.clone()));
            }
        }
        rows.push(Row::Message(e.clone(), sub, continues));
    }
    rows.extend((hint..hints.len()).map(Row::Hint));
    rows
}

/// The conversation (`role="log"`, accessible name "Conversation", `aria-live="polite"`), its
/// empty state with suggestion chips, the approvals, and the "Jump to latest" button.
#[component]
pub fn Chat(
    /// The session.
    agent: UseAgentReturn,
    /// Shown in the empty state under the explanation (e.g. suggestion chips).
    #[prop(optional, into)]
    empty_extra: Option<ViewFn>,
) -> impl IntoView {
    provide_context(TranscriptCtx { agent });

    let hints = Memo::new(move |_| agent.run.with(|r| r.render_hints.clone()));
    let subagents = Memo::new(move |_| agent.run.with(|r| r.subagents.clone()));
    let reasoning_open = Memo::new(move |_| agent.run.with(|r| r.reasoning_open));
    let last_id = Memo::new(move |_| agent.messages.with(|m| m.last().map(|e| e.id.clone())));
    let last_reasoning_id = Memo::new(move |_| {
        agent.messages.with(|m| {
            m.iter()
                .rev()
                .find(|e| e.msg.with_untracked(|x| x.role() == Role::Reasoning))
                .map(|e| e.id.clone())
        })
    });
    let is_empty = move || agent.messages.with(Vec::is_empty);
    // Between sending and the agent's first message: show that something is coming.
    let waiting = move || {
        agent.is_running.get()
            && agent.messages.with(|m| {
                m.last()
                    .is_none_or(|e| e.msg.with_untracked(|x| x.role() == Role::User))
            })
    };
    let rows = move || agent.messages.with(|m| hints.with(|h| rows_of(m, h)));
    let state_keys = Memo::new(move |_| {
        agent.state.with(|s| {
            state_views(s)
                .into_iter()
                .map(|(k, _, _)| k)
                .collect::<Vec<_>>()
        })
    });

    let log = NodeRef::<Div>::new();
    // The empty state (the introduction and its suggestions) is read from the top: nothing to
    // follow until there is a message.
    let Stick {
        following,
        on_scroll,
        jump,
        follow,
    } = stick_to_bottom(log, move || !is_empty());
    // Sending a message always brings the reader to it.
    Effect::new(move |prev: Option<usize>| {
        let (len, last_is_user) = agent.messages.with(|m| {
            (
                m.len(),
                m.last()
                    .is_some_and(|e| e.msg.with_untracked(|x| x.role() == Role::User)),
            )
        });
        if prev.is_some_and(|p| len > p) && last_is_user {
            follow();
        }
        len
    });

    let row_view = move |row: Row| match row {
        Row::Message(entry, sub, continues) => {
            let id = entry.id.clone();
            let streaming = Signal::derive(move || {
                agent.is_running.get()
                    && (last_id.with(|l| l.as_deref() == Some(id.as_str()))
                        || (reasoning_open.get()
                            && last_reasoning_id.with(|l| l.as_deref() == Some(id.as_str()))))
            });
            view! {
                <div
                    class="turn"
                    class:in-subagent=sub.is_some()
                    class:continues=continues
                    data-message-id=entry.id.clone()
                >
                    {on_demand_message(entry.msg, streaming)}
                </div>
            }
            .into_any()
        }
        Row::Hint(i) => {
            let (component, props) = hints
                .with_untracked(|h| h.get(i).map(|h| (h.component.clone(), h.props.clone())))
                .unwrap_or_default();
            view! {
                <div class="turn hint-turn">
                    <RenderHint component props=Signal::stored(props)/>
                </div>
            }
            .into_any()
        }
        Row::Subagent(id) => {
            let record =
                Memo::new(move |_| subagents.with(|s| s.iter().find(|r| r.id == id).cloned()));
            let name = move || {
                record.with(|r| {
                    r.as_ref()
                        .map(|r| r.name.clone())
                        .unwrap_or_else(|| "Subagent".into())
                })
            };
            let status = move || {
                record.with(|r| {
                    r.as_ref()
                        .map(|r| subagent_status_key(&r.status))
                        .unwrap_or("running")
                })
            };
            let description =
                move || record.with(|r| r.as_ref().and_then(|r| r.description.clone()));
            view! {
                <div class="turn subagent-head" data-status=status>
                    <span class="subagent-icon" aria-hidden="true">"↳"</span>
                    <span class="subagent-label">"Subagent"</span>
                    <strong class="subagent-name">{name}</strong>
                    <span class=move || format!("badge status-{}", status())>{status}</span>
                    {move || description().map(|d| view! { <span class="subagent-desc">{d}</span> })}
                </div>
            }
            .into_any()
        }
    };

    view! {
        <section class="chat" aria-label="Chat">
            <div
                class="chat-log"
                role="log"
                aria-live="polite"
                aria-relevant="additions"
                aria-label="Conversation"
                aria-busy=move || agent.is_running.get().to_string()
                tabindex="0"
                node_ref=log
                on:scroll=move |_| on_scroll()
            >
                <div class="transcript">
                    <Show when=is_empty>
                        <div class="empty-state">
                            <h2>"Talk to an AG-UI agent"</h2>
                            <p>
                                "Type a message below, or start one of the agent's scenarios. Tool calls, approvals, reasoning, activities and generative UI appear here as the agent streams them; open "
                                <strong>"Events"</strong>
                                " to see every AG-UI event and "
                                <strong>"State"</strong>
                                " for the shared state."
                            </p>
                            <p class="muted">
                                "To talk to another AG-UI agent (LangGraph, CrewAI, Mastra, the official SDKs…), paste its endpoint into Agent URL."
                            </p>
                            {empty_extra.as_ref().map(|v| v.run())}
                        </div>
                    </Show>
                    <For each=rows key=Row::key children=row_view/>
                    // State-based generative UI: registered state keys drawn live (see
                    // `tool_renderers`), e.g. the plan of an agentic run as a step list.
                    <For
                        each=move || state_keys.get()
                        key=|k| *k
                        children=move |key| {
                            let view_of = Memo::new(move |_| {
                                agent
                                    .state
                                    .with(|s| {
                                        state_views(s).into_iter().find(|(k, _, _)| *k == key)
                                    })
                            });
                            let component = view_of
                                .with_untracked(|v| v.as_ref().map(|v| v.1))
                                .unwrap_or("checklist");
                            let props = Signal::derive(move || {
                                view_of.with(|v| v.as_ref().map(|v| v.2.clone()).unwrap_or_default())
                            });
                            view! {
                                <div class="turn hint-turn state-view" data-state-key=key>
                                    <RenderHint component props/>
                                </div>
                            }
                        }
                    />
                    <Show when=waiting>
                        <div class="turn pending-turn">
                            <div class="typing" role="img" aria-label="Waiting for the agent">
                                <span></span>
                                <span></span>
                                <span></span>
                            </div>
                        </div>
                    </Show>
                    <div class="approvals">
                        <For
                            each=move || agent.approvals.get()
                            key=|a| format!("{:?}:{}", a.kind, a.id)
                            children=move |a| {
                                on_demand_approval(
                                    a,
                                    agent.approve,
                                    agent.reject,
                                    agent.answer_interrupt,
                                )
                            }
                        />
                    </div>
                </div>
            </div>
            <button
                type="button"
                class="btn jump-latest"
                hidden=move || following.get()
                on:click=move |_| jump()
            >
                <span aria-hidden="true">"↓ "</span>
                "Jump to latest"
            </button>
        </section>
    }
    .into_any()
}

//! The translator's stream state: every event leaves through `Translator::emit`, which keeps
//! track of the open run and the open reasoning; ids are minted and warnings deduplicated here.

use serde_json::Value;

use super::translator::Translator;

impl Translator {
    /// Every event leaves through here, translated or not, so the state that later
    /// translations rely on (open run, open reasoning) reflects 1.1 events too.
    pub(super) fn emit(&mut self, ev: Value) {
        if let Some(obj) = ev.as_object() {
            let id = obj
                .get("messageId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            match obj.get("type").and_then(Value::as_str).unwrap_or("") {
                "RUN_STARTED" => {
                    self.run_open = true;
                    self.run_thread = obj
                        .get("threadId")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    self.run_id = obj.get("runId").and_then(Value::as_str).map(str::to_owned);
                    if self.run_thread.is_some() {
                        self.thread_id = self.run_thread.clone();
                    }
                    if self.run_id.is_some() && self.run_id == self.given_run_id {
                        self.given_run_id_used = true;
                    }
                }
                "RUN_FINISHED" | "RUN_ERROR" => {
                    self.run_open = false;
                    self.open_spans.clear();
                    self.open_reasoning_messages.clear();
                    self.thinking_span = None;
                    self.thinking_message = None;
                }
                "REASONING_START" => self.open_spans.extend(id),
                "REASONING_END" => self.open_spans.retain(|s| Some(s) != id.as_ref()),
                "REASONING_MESSAGE_START" => {
                    self.open_reasoning_messages.extend(id.clone());
                    self.last_reasoning_message = id.or(self.last_reasoning_message.take());
                }
                "REASONING_MESSAGE_CHUNK" if id.is_some() => self.last_reasoning_message = id,
                "REASONING_MESSAGE_END" => self
                    .open_reasoning_messages
                    .retain(|m| Some(m) != id.as_ref()),
                _ => {}
            }
        }
        self.out.events.push(ev);
    }

    pub(super) fn warn(&mut self, warning: String) {
        if self.warned.insert(warning.clone()) {
            self.out.warnings.push(warning);
        }
    }

    pub(super) fn warn_shape(&mut self, ty: &str, what: &str) {
        self.warn(format!(
            "translated off-spec {ty} ({what}) into its AG-UI 1.1 shape"
        ));
    }

    /// Ids are `{run}-{prefix}-{n}`: deterministic, unique within the stream by the counter, and
    /// unique within the thread by the run id (1.1 message ids must be unique across a thread's
    /// runs, and every stream would otherwise mint the same `msg-1`).
    pub(super) fn mint(&mut self, prefix: &str) -> String {
        self.counter += 1;
        let scope = if self.run_open {
            self.run_id.as_ref()
        } else {
            self.given_run_id.as_ref()
        };
        match scope {
            Some(run) => format!("{run}-{prefix}-{}", self.counter),
            None => format!("{prefix}-{}", self.counter),
        }
    }

    pub(super) fn thread_for_new_run(&mut self, hint: Option<String>) -> String {
        if let Some(thread) = hint.or_else(|| self.thread_id.clone()) {
            return thread;
        }
        self.counter += 1;
        let thread = format!("thread-{}", self.counter);
        self.thread_id = Some(thread.clone());
        thread
    }

    pub(super) fn fresh_run_id(&mut self) -> String {
        match &self.given_run_id {
            Some(run) if !self.given_run_id_used => {
                self.given_run_id_used = true;
                run.clone()
            }
            _ => {
                self.counter += 1;
                format!("run-{}", self.counter)
            }
        }
    }

    pub(super) fn current_thread(&mut self) -> String {
        match self.run_thread.clone() {
            Some(thread) => thread,
            None => self.thread_for_new_run(None),
        }
    }

    pub(super) fn current_run(&mut self) -> String {
        match self.run_id.clone() {
            Some(run) => run,
            None => self.fresh_run_id(),
        }
    }
}

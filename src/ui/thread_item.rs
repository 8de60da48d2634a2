//! One entry of the thread list: the button that opens the thread (its title, agent, message
//! count and a relative time in a `<time datetime>`), and its actions — "Rename thread" (an
//! inline text field: Enter saves, Escape cancels) and "Delete thread" (asks to confirm). Knows
//! nothing of where threads come from: the list gives it signals and callbacks.

use leptos::prelude::*;

use crate::ui::icons::icon;

/// A thread in the list.
#[component]
pub fn ThreadItem(
    /// The thread's id (`data-thread-id`).
    thread_id: String,
    /// Its title (already shortened).
    #[prop(into)]
    title: Signal<String>,
    /// Agent, message count, status.
    #[prop(into)]
    meta: Signal<String>,
    /// When it last changed (Unix ms), if known.
    #[prop(into)]
    updated_at: Signal<Option<i64>>,
    /// The clock the relative time is measured against (Unix ms).
    #[prop(into)]
    now: Signal<i64>,
    /// The thread shown (`aria-current`).
    #[prop(into)]
    current: Signal<bool>,
    /// A run of it is in progress.
    #[prop(into)]
    running: Signal<bool>,
    /// It is being loaded (`aria-busy`).
    #[prop(into)]
    busy: Signal<bool>,
    /// Whether it can be renamed (stored by this server).
    #[prop(into)]
    renamable: Signal<bool>,
    on_open: Callback<()>,
    on_rename: Callback<String>,
    on_delete: Callback<()>,
) -> impl IntoView {
    let renaming = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let field = NodeRef::<leptos::html::Input>::new();
    let confirm_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(el) = field.get() {
            let _ = el.focus();
            el.select();
        }
    });
    Effect::new(move |_| {
        if let Some(el) = confirm_button.get() {
            let _ = el.focus();
        }
    });
    let start_rename = move |_| {
        draft.set(title.get_untracked());
        confirming.set(false);
        renaming.set(true);
    };
    let save = move || {
        renaming.set(false);
        let text = draft.get_untracked();
        if text.trim() != title.get_untracked().trim() {
            on_rename.run(text);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            save();
        }
        "Escape" => {
            ev.prevent_default();
            renaming.set(false);
        }
        _ => {}
    };
    let time = move || {
        updated_at.get().map(|t| {
            let n = now.get();
            view! { <time datetime=iso_utc(t) title=iso_utc(t)>{relative_time(t, n)}</time> }
        })
    };
    view! {
        <li class="thread-entry" class:current=move || current.get()>
            <Show
                when=move || renaming.get()
                fallback=move || view! {
                    <button
                        type="button"
                        class="thread-item"
                        class:current=move || current.get()
                        data-thread-id=thread_id.clone()
                        aria-current=move || current.get().then_some("true")
                        aria-busy=move || busy.get().to_string()
                        on:click=move |_| on_open.run(())
                    >
                        <span class="thread-title">{move || title.get()}</span>
                        <span class="thread-meta">
                            <span class="thread-dot" class:running=move || running.get() aria-hidden="true"></span>
                            <span>
                                {move || meta.get()}
                                {move || updated_at.get().is_some().then_some(" · ")}
                                {time}
                            </span>
                        </span>
                    </button>
                }
            >
                <form class="thread-rename" on:submit=move |ev| { ev.prevent_default(); save(); }>
                    <input
                        node_ref=field
                        type="text"
                        aria-label="Thread title"
                        maxlength=crate::wire::MAX_TITLE_CHARS
                        prop:value=move || draft.get()
                        on:input=move |ev| draft.set(event_target_value(&ev))
                        on:keydown=on_key
                        on:blur=move |_| renaming.set(false)
                    />
                </form>
            </Show>
            <div class="thread-actions" hidden=move || renaming.get() || confirming.get()>
                <Show when=move || renamable.get()>
                    <button type="button" class="thread-action" aria-label="Rename thread" title="Rename" on:click=start_rename>
                        {icon("edit")}
                    </button>
                </Show>
                <button
                    type="button"
                    class="thread-action"
                    aria-label="Delete thread"
                    title="Delete"
                    disabled=move || running.get()
                    on:click=move |_| {
                        renaming.set(false);
                        confirming.set(true);
                    }
                >
                    {icon("delete")}
                </button>
            </div>
            <Show when=move || confirming.get()>
                <div
                    class="thread-confirm"
                    role="group"
                    aria-label="Delete this thread?"
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        if ev.key() == "Escape" {
                            confirming.set(false);
                        }
                    }
                >
                    <span class="thread-confirm-text">"Delete this thread?"</span>
                    <button
                        type="button"
                        class="btn small danger"
                        node_ref=confirm_button
                        on:click=move |_| {
                            confirming.set(false);
                            on_delete.run(());
                        }
                    >
                        "Delete"
                    </button>
                    <button type="button" class="btn small" on:click=move |_| confirming.set(false)>
                        "Cancel"
                    </button>
                </div>
            </Show>
        </li>
    }
}

/// How long ago `then` was, for people: "just now", "5 min ago", "3 h ago", "yesterday",
/// "4 days ago", else the date (`2024-05-01`).
pub fn relative_time(then_ms: i64, now_ms: i64) -> String {
    let s = (now_ms - then_ms).max(0) / 1000;
    match s {
        0..=44 => "just now".into(),
        45..=3599 => format!("{} min ago", (s + 30) / 60),
        3600..=86_399 => format!("{} h ago", s / 3600),
        86_400..=172_799 => "yesterday".into(),
        172_800..=604_799 => format!("{} days ago", s / 86_400),
        _ => iso_utc(then_ms)[..10].to_string(),
    }
}

/// Unix milliseconds as an ISO 8601 UTC time (`2024-05-01T12:03:04Z`).
pub fn iso_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_people_say_them() {
        let now = 1_714_565_000_000;
        assert_eq!(relative_time(now - 10_000, now), "just now");
        assert_eq!(relative_time(now + 60_000, now), "just now");
        assert_eq!(relative_time(now - 120_000, now), "2 min ago");
        assert_eq!(relative_time(now - 3 * 3_600_000, now), "3 h ago");
        assert_eq!(relative_time(now - 30 * 3_600_000, now), "yesterday");
        assert_eq!(relative_time(now - 4 * 86_400_000, now), "4 days ago");
        assert_eq!(relative_time(0, now), "1970-01-01");
    }

    #[test]
    fn iso_times_are_utc() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(1_714_565_000_000), "2024-05-01T12:03:20Z");
        assert_eq!(iso_utc(951_782_400_000), "2000-02-29T00:00:00Z");
    }
}

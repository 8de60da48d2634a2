//! `ChoicePicker`: radios (mutually exclusive) or checkboxes (multiple selection) in a fieldset
//! whose legend is the label, its value a list of option values in the data model.

use leptos::prelude::*;
use serde_json::Value;

use super::inputs::{errors_view, failing_checks, field_value, store};
use super::node::Node;
use super::state::pick;
use crate::protocol::a2ui::binding::{display, resolve, Scope};

/// `ChoicePicker`: radios (mutually exclusive) or checkboxes (multiple) in a fieldset whose
/// legend is the label; chips are the same controls styled as chips; `filterable` adds a
/// search box over the options.
pub fn choice_picker(n: Node) -> AnyView {
    let label = n.text("label");
    let (value, bound, local) = field_value(&n);
    let selected = Memo::new(move |_| {
        let v = local.get().unwrap_or_else(|| value.get());
        v.as_array().map_or_else(Vec::new, |a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
    });
    let (variant, style, filterable) = (
        n.prop("variant"),
        n.prop("displayStyle"),
        n.prop("filterable"),
    );
    let multiple = Memo::new(move |_| {
        variant.with(|v| {
            pick(v.as_ref(), ("ChoicePicker", "variant"), "mutuallyExclusive")
                == "multipleSelection"
        })
    });
    let chips = move || {
        style.with(|v| pick(v.as_ref(), ("ChoicePicker", "displayStyle"), "checkbox") == "chips")
    };
    let options_prop = n.prop("options");
    let (data, scope) = (n.ctx.data, n.scope.clone());
    let options = Memo::new(move |_| {
        options_prop.with(|o| {
            o.as_ref()
                .and_then(Value::as_array)
                .map_or_else(Vec::new, |a| {
                    a.iter()
                        .filter_map(|opt| {
                            let value = opt.get("value")?.as_str()?.to_string();
                            let label = opt.get("label").map_or_else(
                                || value.clone(),
                                |l| {
                                    data.with(|d| {
                                        display(&resolve(
                                            l,
                                            &Scope {
                                                model: d,
                                                base: scope.as_deref(),
                                            },
                                        ))
                                    })
                                },
                            );
                            Some((label, value))
                        })
                        .collect::<Vec<_>>()
                })
        })
    });
    let filter = RwSignal::new(String::new());
    let group = n.dom_id("group");
    let checks = failing_checks(&n);
    let err_id = n.dom_id("errors");
    let node = n.clone();
    let toggle = move |v: String, on: bool| {
        let mut now = selected.get_untracked();
        if multiple.get_untracked() {
            now.retain(|s| *s != v);
            if on {
                now.push(v);
            }
        } else {
            now = vec![v];
        }
        store(
            &node,
            bound,
            local,
            Value::Array(now.into_iter().map(Value::String).collect()),
        );
    };
    let list = move || {
        let f = filter.get().to_lowercase();
        let group = group.clone();
        options
            .get()
            .into_iter()
            .filter(|(l, _)| f.is_empty() || l.to_lowercase().contains(&f))
            .map(|(l, v)| {
                let (v2, toggle) = (v.clone(), toggle.clone());
                let on = move || selected.with(|s| s.contains(&v2));
                let kind = if multiple.get() { "checkbox" } else { "radio" };
                view! {
                    <label class="a2ui-option">
                        <input type=kind name=group.clone() checked=on.clone() prop:checked=on
                            on:change=move |ev| toggle(v.clone(), event_target_checked(&ev))/>
                        " "<span>{l}</span>
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <fieldset class=move || if chips() { "a2ui-field a2ui-choices a2ui-chips" } else { "a2ui-field a2ui-choices" }>
            <legend class="a2ui-label">{move || label.get()}</legend>
            {move || filterable.with(|f| f.as_ref().and_then(Value::as_bool) == Some(true)).then(|| view! {
                <input type="search" class="a2ui-input" placeholder="Filter options" aria-label="Filter options"
                    prop:value=move || filter.get() on:input=move |ev| filter.set(event_target_value(&ev))/>
            })}
            {list}
            {errors_view(err_id, checks)}
        </fieldset>
    }
    .into_any()
}

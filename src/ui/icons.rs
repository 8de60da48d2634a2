//! Small line icons (inline SVG, `currentColor`, hidden from assistive technology: the button
//! around each one carries its accessible name).

use leptos::prelude::*;

/// An icon by name: `copy`, `edit`, `regenerate`, `up`, `down`, `delete`, `check`, `close`.
pub fn icon(name: &'static str) -> impl IntoView {
    let d = match name {
        "copy" => "M9 9h11v11H9zM5 15H4V4h11v1",
        "edit" => "M4 20h4L19 9l-4-4L4 16zM13.5 6.5l4 4",
        "regenerate" => "M20 12a8 8 0 1 1-2.34-5.66M20 4v5h-5",
        "up" => {
            "M7 11v9H4v-9zM7 11l4-8a3 3 0 0 1 3 3v4h5a2 2 0 0 1 2 2.3l-1.3 6.9A2 2 0 0 1 17.7 20H7"
        }
        "down" => {
            "M17 13V4h3v9zM17 13l-4 8a3 3 0 0 1-3-3v-4H5a2 2 0 0 1-2-2.3l1.3-6.9A2 2 0 0 1 6.3 4H17"
        }
        "delete" => "M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3",
        "check" => "M5 12l5 5 9-10",
        _ => "M6 6l12 12M18 6L6 18",
    };
    view! {
        <svg
            class="icon"
            viewBox="0 0 24 24"
            width="16"
            height="16"
            fill="none"
            stroke="currentColor"
            stroke-width="2"
            stroke-linecap="round"
            stroke-linejoin="round"
            aria-hidden="true"
            focusable="false"
        >
            <path d=d></path>
        </svg>
    }
}

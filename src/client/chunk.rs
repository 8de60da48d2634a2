//! The page's code that the browser fetches the first time it is needed: a split function (a
//! chunk of its own in a `cargo leptos build --split`) is declared with [`split_fn!`], and what
//! the page says when a chunk cannot be fetched is worded by [`unfetched`], the same everywhere.

/// Declares `fn NAME(ARGS) -> T BODY` as a split function of the chunk `MODULE`, whose preload
/// function is `PRELOAD` (hidden from the docs): calling it gives `Ok(BODY)` from the chunk, or
/// `Err` when the chunk could not be fetched (a future of it for an `async`-called split
/// function, as `wasm_split` makes every one). Attributes before `fn` (a `cfg`, docs) are kept.
///
/// A table of function pointers returned as `&'static` is how a group of functions shares one
/// chunk: the split function is the table's only reference, so everything it reaches is the
/// chunk's.
macro_rules! split_fn {
    (
        $module:ident, $preload:ident,
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $body:block
    ) => {
        $(#[$attr])*
        #[leptos::wasm_split::wasm_split(
            $module,
            wasm_split_path = ::leptos::wasm_split,
            fallible,
            preload(#[doc(hidden)] $preload)
        )]
        $vis fn $name($($arg: $ty),*) -> Result<$ret, leptos::wasm_split::SplitLoaderError> {
            Ok($body)
        }
    };
}
pub(crate) use split_fn;

/// The end of a note for something the reader can see again once the page is reloaded.
pub const RELOAD_TO_SEE: &str = "Reload the page to see it.";
/// The end of a note for an action that needs the page reloaded before it can be tried again.
pub const RELOAD_TO_RETRY: &str = "Reload the page to try again.";
/// The end of a note for an action whose next try fetches the chunk again.
pub const TRY_AGAIN: &str = "Try again, or reload the page.";

/// What the page says when the code for `what` could not be fetched: `what` is the sentence's
/// start ("The thread cannot be shown"), `then` one of [`RELOAD_TO_SEE`], [`RELOAD_TO_RETRY`],
/// [`TRY_AGAIN`].
pub fn unfetched(what: &str, then: &str) -> String {
    format!("{what}: the page's code for it could not be fetched. {then}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_names_its_subject_and_what_to_do() {
        assert_eq!(
            unfetched("The files cannot be read", RELOAD_TO_RETRY),
            "The files cannot be read: the page's code for it could not be fetched. \
             Reload the page to try again."
        );
    }
}

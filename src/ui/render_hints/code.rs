//! `code`: a code block with a language label.
//!
//! Props:
//! ```json
//! {"language": "rust",          // optional; shown as a label and kept as data-language
//!  "code": "fn main() {}"}      // required string, shown verbatim as text
//! ```
//! The language is only a label: it is cut to 32 characters and, in the `data-language`
//! attribute, to letters, digits and `+#._-`. No highlighting is applied.

use leptos::prelude::*;
use serde_json::Value;

use super::props::{as_object, opt_str, req_str, PropsError};

/// Validated code props.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeProps {
    pub language: Option<String>,
    pub code: String,
}

/// Validates code props.
pub fn parse(props: &Value) -> Result<CodeProps, PropsError> {
    let obj = as_object(props, "code props")?;
    let code = req_str(obj, "code")?;
    let language = opt_str(obj, "language")?
        .map(|l| l.trim().chars().take(32).collect::<String>())
        .filter(|l| !l.is_empty());
    Ok(CodeProps { language, code })
}

/// The language reduced to a safe token for the `data-language` attribute.
fn language_token(l: &str) -> String {
    l.chars()
        .filter(|c| c.is_ascii_alphanumeric() || "+#._-".contains(*c))
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The registry entry.
pub fn render(props: &Value) -> Result<AnyView, PropsError> {
    parse(props).map(view)
}

/// The code block built from validated props.
pub fn view(p: CodeProps) -> AnyView {
    let token = p
        .language
        .as_deref()
        .map(language_token)
        .unwrap_or_default();
    let label = p.language.unwrap_or_else(|| "text".into());
    view! {
        <div class="rh-code" data-language=token>
            <div class="rh-code-lang">{label}</div>
            <pre><code>{p.code}</code></pre>
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_code() {
        let p = parse(&json!({"language": "rust", "code": "fn main() {}"})).unwrap();
        assert_eq!(p.language.as_deref(), Some("rust"));
        assert_eq!(parse(&json!({"code": ""})).unwrap().language, None);
        assert_eq!(language_token("C++ <x>\""), "c++x");
    }

    #[test]
    fn invalid_code() {
        assert_eq!(
            parse(&json!({})).unwrap_err().to_string(),
            "\"code\" is required"
        );
        assert!(parse(&json!({"code": 1}))
            .unwrap_err()
            .to_string()
            .contains("\"code\" must be a string"));
        assert!(parse(&json!({"code": "", "language": []}))
            .unwrap_err()
            .to_string()
            .contains("\"language\""));
        assert!(parse(&json!(null))
            .unwrap_err()
            .to_string()
            .contains("must be an object"));
    }
}

//! The backend tools the server runs for the model (`tools=demo`): the demo agent's real local
//! functions, arithmetic and unit conversion, offered under the same names the demo uses.

use serde_json::{json, Value};

use crate::server::agents::demo::calc::{self, Request};

pub use crate::server::agents::demo::calc::{tool_definition as definition, TOOL_NAMES as NAMES};

/// Run backend tool `name` on the model's argument text. A failure is part of the result
/// (`{"error": …}`), for the model to read and recover from; it never fails the run.
pub fn run(name: &str, arguments: &str) -> Value {
    let args: Value = match serde_json::from_str(if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    }) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return json!({"error": "the arguments must be a JSON object"}),
        Err(e) => return json!({"error": format!("the arguments are not valid JSON: {e}")}),
    };
    match name {
        "calculate" => {
            let Some(expression) = args.get("expression").and_then(Value::as_str) else {
                return json!({"error": "missing string argument 'expression'"});
            };
            match calc::evaluate(expression) {
                Ok(v) => json!({"expression": expression, "result": calc::num(calc::round4(v))}),
                Err(e) => json!({"expression": expression, "error": e}),
            }
        }
        "convert_units" => {
            // Models send numbers as strings too.
            let value = args.get("value").and_then(|v| {
                v.as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            });
            let unit = |k: &str| args.get(k).and_then(Value::as_str).map(str::trim);
            let (Some(value), Some(from), Some(to)) = (value, unit("from"), unit("to")) else {
                return json!({"error": "expected arguments {value: number, from: string, to: string}"});
            };
            // The demo's parser knows the units' spellings (miles, °F, kilograms…).
            let (from_u, to_u) =
                match calc::parse_request(&format!("{} {from} to {to}", calc::fmt_num(value))) {
                    Request::Convert { from, to, .. } => (from, to),
                    Request::Calculate(_) => (from.to_lowercase(), to.to_lowercase()),
                };
            match calc::convert(value, &from_u, &to_u) {
                Ok(v) => json!({"value": calc::num(value), "from": from_u, "to": to_u,
                                "result": calc::num(calc::round4(v))}),
                Err(e) => json!({"value": calc::num(value), "from": from, "to": to, "error": e}),
            }
        }
        other => json!({"error": format!("there is no tool named '{other}'")}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calculate() {
        assert_eq!(
            run("calculate", r#"{"expression": "(3+4)/2"}"#),
            json!({"expression": "(3+4)/2", "result": 3.5})
        );
        assert_eq!(
            run("calculate", r#"{"expression": "1/0"}"#)["error"],
            "division by zero"
        );
        assert!(run("calculate", "{}")["error"]
            .as_str()
            .unwrap()
            .contains("expression"));
        assert!(run("calculate", "{oops")["error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"));
    }

    #[test]
    fn convert_units() {
        assert_eq!(
            run(
                "convert_units",
                r#"{"value": 10, "from": "km", "to": "mi"}"#
            ),
            json!({"value": 10, "from": "km", "to": "mi", "result": 6.2137})
        );
        assert_eq!(
            run(
                "convert_units",
                r#"{"value": "212", "from": "Fahrenheit", "to": "°C"}"#
            )["result"],
            100
        );
        assert_eq!(
            run("convert_units", r#"{"value": 5, "from": "kg", "to": "km"}"#)["error"],
            "cannot convert kg to km"
        );
        assert!(run("convert_units", r#"{"value": 5}"#)["error"].is_string());
    }

    #[test]
    fn unknown_tool_is_a_result() {
        assert_eq!(run("nope", "{}")["error"], "there is no tool named 'nope'");
        assert!(definition("nope").is_none());
        for n in NAMES {
            assert_eq!(definition(n).unwrap()["function"]["name"], n);
        }
    }
}

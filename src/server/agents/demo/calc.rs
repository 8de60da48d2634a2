//! The demo's real local tools as pure functions: an arithmetic evaluator (recursive descent,
//! no eval crate) and a unit converter, plus the parsing that finds their input in a chat
//! message.

use serde_json::{json, Value};

/// The names of these tools as offered to a model (and declared in capabilities), in order.
pub const TOOL_NAMES: [&str; 2] = ["calculate", "convert_units"];

/// The chat-completions `tools` entry of tool `name`.
pub fn tool_definition(name: &str) -> Option<Value> {
    let (description, parameters) = match name {
        "calculate" => (
            "Evaluate an arithmetic expression exactly: + - * /, parentheses, unary signs and decimals. Use it for any arithmetic instead of computing in your head.",
            json!({"type": "object", "properties": {
                "expression": {"type": "string", "description": "The expression, e.g. (3 + 4) * 2.5"}
            }, "required": ["expression"]}),
        ),
        "convert_units" => (
            "Convert a value between units of length (km, mi, m, ft), mass (kg, lb) or temperature (c, f, k).",
            json!({"type": "object", "properties": {
                "value": {"type": "number", "description": "The amount to convert"},
                "from": {"type": "string", "description": "The unit of the value, e.g. km"},
                "to": {"type": "string", "description": "The unit wanted, e.g. mi"}
            }, "required": ["value", "from", "to"]}),
        ),
        _ => return None,
    };
    Some(json!({"type": "function", "function": {
        "name": name, "description": description, "parameters": parameters
    }}))
}

/// What the `backend_tool` scenario found in the user's message.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Calculate(String),
    Convert {
        value: f64,
        from: String,
        to: String,
    },
}

/// Read a tool request from free text: a conversion (`10 km to mi`) first, because its number
/// would otherwise read as a one-number expression; then the longest arithmetic-looking run;
/// else the default `12 * 7`.
pub fn parse_request(text: &str) -> Request {
    if let Some((value, from, to)) = find_conversion(text) {
        return Request::Convert { value, from, to };
    }
    Request::Calculate(find_expression(text).unwrap_or_else(|| "12 * 7".to_string()))
}

/// Why an expression or a conversion has no answer (the tool result tells the model), serialised
/// as its text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, thiserror::Error)]
#[serde(transparent)]
#[error("{0}")]
pub struct CalcError(pub String);

/// Evaluate `+ - * /`, parentheses, unary signs and decimals.
pub fn evaluate(expression: &str) -> Result<f64, CalcError> {
    let chars: Vec<char> = expression
        .chars()
        .map(|c| match c {
            '×' => '*',
            '÷' => '/',
            '−' => '-',
            c => c,
        })
        .filter(|c| !c.is_whitespace())
        .collect();
    if chars.is_empty() {
        return Err(CalcError("the expression is empty".into()));
    }
    let mut p = Parser {
        chars,
        pos: 0,
        depth: 0,
    };
    let v = p.expr()?;
    if let Some(c) = p.peek() {
        return Err(CalcError(format!(
            "unexpected '{c}' at position {}",
            p.pos + 1
        )));
    }
    if !v.is_finite() {
        return Err(CalcError("the result is too large".into()));
    }
    Ok(v)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn expr(&mut self) -> Result<f64, CalcError> {
        let mut v = self.term()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.pos += 1;
            let r = self.term()?;
            v = if op == '+' { v + r } else { v - r };
        }
        Ok(v)
    }

    fn term(&mut self) -> Result<f64, CalcError> {
        let mut v = self.factor()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.pos += 1;
            let r = self.factor()?;
            if op == '/' && r == 0.0 {
                return Err(CalcError("division by zero".into()));
            }
            v = if op == '*' { v * r } else { v / r };
        }
        Ok(v)
    }

    fn factor(&mut self) -> Result<f64, CalcError> {
        // Nesting is bounded so hostile input cannot overflow the stack.
        self.depth += 1;
        if self.depth > 64 {
            return Err(CalcError("the expression is nested too deeply".into()));
        }
        let v = match self.peek() {
            Some('-') => {
                self.pos += 1;
                self.factor().map(|v| -v)
            }
            Some('+') => {
                self.pos += 1;
                self.factor()
            }
            Some('(') => {
                self.pos += 1;
                let v = self.expr()?;
                if self.peek() != Some(')') {
                    return Err(CalcError("missing ')'".into()));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) => Err(CalcError(format!(
                "unexpected '{c}' at position {}",
                self.pos + 1
            ))),
            None => Err(CalcError("the expression ends too early".into())),
        };
        self.depth -= 1;
        v
    }

    fn number(&mut self) -> Result<f64, CalcError> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
            self.pos += 1;
        }
        let s: String = self.chars[start..self.pos].iter().collect();
        s.parse::<f64>()
            .map_err(|_| CalcError(format!("'{s}' is not a number")))
    }
}

/// The longest run of arithmetic characters that holds a digit, trimmed.
fn find_expression(text: &str) -> Option<String> {
    let arithmetic = |c: char| c.is_ascii_digit() || " .+-*/()×÷−".contains(c);
    text.split(|c: char| !arithmetic(c))
        .map(|run| run.trim().trim_end_matches('.').trim())
        .filter(|run| run.chars().any(|c| c.is_ascii_digit()))
        .max_by_key(|run| run.len())
        .map(str::to_string)
}

/// `<number> <unit> (to|in|into) <unit>`, the number possibly glued to its unit (`10km`).
fn find_conversion(text: &str) -> Option<(f64, String, String)> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "?!,;:".contains(c)))
        .collect();
    let at = |j: usize| -> Option<(f64, String, String)> {
        if !matches!(words[j], "to" | "in" | "into" | "->") {
            return None;
        }
        let (value, from) = match unit(words[j - 1]) {
            Some(from) if j >= 2 => (words[j - 2].parse::<f64>().ok()?, from),
            _ => {
                let w = words[j - 1];
                let split = w
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
                    .filter(|&i| i > 0)?;
                (w[..split].parse::<f64>().ok()?, unit(&w[split..])?)
            }
        };
        // An unknown target unit is still a conversion request: the tool reports it.
        let to = words[j + 1].trim_end_matches('.');
        let to = unit(to).map_or_else(|| to.to_string(), str::to_string);
        Some((value, from.to_string(), to))
    };
    (1..words.len().saturating_sub(1)).find_map(at)
}

/// The canonical short name of a unit the converter knows.
fn unit(word: &str) -> Option<&'static str> {
    Some(match word.trim_start_matches('°') {
        "km" | "kms" | "kilometer" | "kilometers" | "kilometre" | "kilometres" => "km",
        "mi" | "mile" | "miles" => "mi",
        "m" | "meter" | "meters" | "metre" | "metres" => "m",
        "ft" | "foot" | "feet" => "ft",
        "kg" | "kgs" | "kilogram" | "kilograms" | "kilo" | "kilos" => "kg",
        "lb" | "lbs" | "pound" | "pounds" => "lb",
        "c" | "celsius" => "c",
        "f" | "fahrenheit" => "f",
        "k" | "kelvin" => "k",
        _ => return None,
    })
}

/// Convert between units of one dimension (length, mass, temperature).
pub fn convert(value: f64, from: &str, to: &str) -> Result<f64, CalcError> {
    let length = |u: &str| match u {
        "km" => Some(1000.0),
        "mi" => Some(1609.344),
        "m" => Some(1.0),
        "ft" => Some(0.3048),
        _ => None,
    };
    let mass = |u: &str| match u {
        "kg" => Some(1.0),
        "lb" => Some(0.453_592_37),
        _ => None,
    };
    let to_celsius = |u: &str, v: f64| match u {
        "c" => Some(v),
        "f" => Some((v - 32.0) * 5.0 / 9.0),
        "k" => Some(v - 273.15),
        _ => None,
    };
    let from_celsius = |u: &str, c: f64| match u {
        "c" => Some(c),
        "f" => Some(c * 9.0 / 5.0 + 32.0),
        "k" => Some(c + 273.15),
        _ => None,
    };
    if unit(to).is_none() {
        return Err(CalcError(format!("unknown unit '{to}'")));
    }
    if let (Some(a), Some(b)) = (length(from), length(to)) {
        return Ok(value * a / b);
    }
    if let (Some(a), Some(b)) = (mass(from), mass(to)) {
        return Ok(value * a / b);
    }
    if let Some(c) = to_celsius(from, value) {
        if let Some(v) = from_celsius(to, c) {
            return Ok(v);
        }
    }
    Err(CalcError(format!("cannot convert {from} to {to}")))
}

/// Round for display: four decimals are plenty for a demo.
pub fn round4(x: f64) -> f64 {
    let r = (x * 10_000.0).round() / 10_000.0;
    if r == 0.0 {
        0.0 // no "-0"
    } else {
        r
    }
}

/// A JSON number that prints `84`, not `84.0`, when the value is whole.
pub fn num(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// A number as text, whole values without a decimal point.
pub fn fmt_num(x: f64) -> String {
    num(x).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_precedence_parentheses_signs_and_decimals() {
        assert_eq!(evaluate("12 * 7"), Ok(84.0));
        assert_eq!(evaluate("(3+4)/2"), Ok(3.5));
        assert_eq!(evaluate("2 + 3 * 4 - 1"), Ok(13.0));
        assert_eq!(evaluate("-(2.5 * 2) + +1"), Ok(-4.0));
        assert_eq!(evaluate("10 / 4 / 5"), Ok(0.5));
        assert_eq!(evaluate("6 ÷ 3 × 2"), Ok(4.0));
    }

    #[test]
    fn reports_bad_input() {
        assert_eq!(evaluate("1 / 0"), Err(CalcError("division by zero".into())));
        assert_eq!(
            evaluate("1 / (2 - 2)"),
            Err(CalcError("division by zero".into()))
        );
        assert!(evaluate("(3 + 4").unwrap_err().0.contains("')'"));
        assert!(evaluate("3 + * 4").unwrap_err().0.contains("unexpected"));
        assert!(evaluate("1.2.3").unwrap_err().0.contains("not a number"));
        assert!(evaluate("").is_err());
        assert!(evaluate(&"(".repeat(200)).unwrap_err().0.contains("deeply"));
    }

    #[test]
    fn finds_requests_in_text() {
        assert_eq!(
            parse_request("what is 12 * 7?"),
            Request::Calculate("12 * 7".into())
        );
        assert_eq!(
            parse_request("(3+4)/2"),
            Request::Calculate("(3+4)/2".into())
        );
        assert_eq!(
            parse_request("nothing here"),
            Request::Calculate("12 * 7".into())
        );
        let conv = |v: f64, f: &str, t: &str| Request::Convert {
            value: v,
            from: f.into(),
            to: t.into(),
        };
        assert_eq!(parse_request("10 km to mi"), conv(10.0, "km", "mi"));
        assert_eq!(
            parse_request("convert 100 F to C please"),
            conv(100.0, "f", "c")
        );
        assert_eq!(parse_request("5 kg in lb?"), conv(5.0, "kg", "lb"));
        assert_eq!(parse_request("3.5km into miles"), conv(3.5, "km", "mi"));
        assert_eq!(
            parse_request("10 km to parsecs"),
            conv(10.0, "km", "parsecs")
        );
    }

    #[test]
    fn converts_within_a_dimension() {
        assert_eq!(round4(convert(10.0, "km", "mi").unwrap()), 6.2137);
        assert_eq!(round4(convert(100.0, "f", "c").unwrap()), 37.7778);
        assert_eq!(round4(convert(0.0, "c", "k").unwrap()), 273.15);
        assert_eq!(round4(convert(5.0, "kg", "lb").unwrap()), 11.0231);
        assert_eq!(
            convert(1.0, "kg", "km"),
            Err(CalcError("cannot convert kg to km".into()))
        );
        assert_eq!(
            convert(1.0, "km", "parsecs"),
            Err(CalcError("unknown unit 'parsecs'".into()))
        );
        assert_eq!(num(84.0).to_string(), "84");
        assert_eq!(fmt_num(6.2137), "6.2137");
    }
}

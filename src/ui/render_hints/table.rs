//! `table`: a data table.
//!
//! Props:
//! ```json
//! {"title": "Quarterly revenue",            // optional → <caption>
//!  "columns": ["Quarter", "Revenue"],       // non-empty array of strings
//!  "rows": [["Q1", 120], ["Q2", 135.5]]}    // arrays of scalars, one cell per column
//! ```
//! Cells are strings, numbers, booleans or `null` (an empty cell), rendered as text; numeric cells
//! are right-aligned. A row with a different number of cells than there are columns, or a nested
//! array/object in a cell, makes the props invalid.

use leptos::prelude::*;
use serde_json::Value;

use super::props::{as_object, kind_of, opt_str, req_array, scalar_text, PropsError};

/// Validated table props.
#[derive(Debug, Clone, PartialEq)]
pub struct TableProps {
    pub title: Option<String>,
    pub columns: Vec<String>,
    /// Cell text and whether the cell was a number.
    pub rows: Vec<Vec<(String, bool)>>,
}

/// Validates table props.
pub fn parse(props: &Value) -> Result<TableProps, PropsError> {
    let obj = as_object(props, "table props")?;
    let title = opt_str(obj, "title")?;
    let columns = req_array(obj, "columns")?;
    if columns.is_empty() {
        return Err(PropsError::Invalid("\"columns\" must not be empty".into()));
    }
    let columns = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            c.as_str().map(str::to_owned).ok_or_else(|| {
                PropsError::Invalid(format!(
                    "column {} must be a string, got {}",
                    i + 1,
                    kind_of(c)
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rows = req_array(obj, "rows")?
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let cells = row.as_array().ok_or_else(|| {
                PropsError::Invalid(format!(
                    "row {} must be an array, got {}",
                    r + 1,
                    kind_of(row)
                ))
            })?;
            if cells.len() != columns.len() {
                return Err(PropsError::Invalid(format!(
                    "row {} has {} cell(s) but there are {} columns",
                    r + 1,
                    cells.len(),
                    columns.len()
                )));
            }
            cells
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    scalar_text(cell)
                        .map(|t| (t, cell.is_number()))
                        .map_err(|e| {
                            PropsError::Invalid(format!("row {}, column {}: {e}", r + 1, c + 1))
                        })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TableProps {
        title,
        columns,
        rows,
    })
}

/// The registry entry.
pub fn render(props: &Value) -> Result<AnyView, PropsError> {
    parse(props).map(view)
}

/// The table built from validated props.
pub fn view(p: TableProps) -> AnyView {
    let caption = p.title.map(|t| view! { <caption>{t}</caption> });
    // A column of numbers has its header over the numbers: right-aligned like them.
    let numeric: Vec<bool> = (0..p.columns.len())
        .map(|i| {
            let mut cells = p
                .rows
                .iter()
                .filter_map(|r| r.get(i))
                .filter(|c| !c.0.is_empty());
            let mut any = false;
            let all = cells.all(|c| {
                any = true;
                c.1
            });
            any && all
        })
        .collect();
    let head = p
        .columns
        .into_iter()
        .zip(numeric)
        .map(|(c, num)| view! { <th scope="col" class=if num { "rh-num" } else { "rh-cell" }>{c}</th> })
        .collect::<Vec<_>>();
    let empty = p.rows.is_empty().then(|| {
        view! { <tr><td class="rh-empty" colspan=head.len()>"No rows"</td></tr> }
    });
    let body = p
        .rows
        .into_iter()
        .map(|row| {
            let cells = row
                .into_iter()
                .map(|(text, numeric)| view! { <td class=if numeric { "rh-num" } else { "rh-cell" }>{text}</td> })
                .collect::<Vec<_>>();
            view! { <tr>{cells}</tr> }
        })
        .collect::<Vec<_>>();
    view! {
        <div class="rh-table-wrap">
            <table class="rh-table">
                {caption}
                <thead><tr>{head}</tr></thead>
                <tbody>{body}{empty}</tbody>
            </table>
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_table() {
        let p =
            parse(&json!({"title": "T", "columns": ["a", "b"], "rows": [["x", 1], [null, true]]}))
                .unwrap();
        assert_eq!(p.title.as_deref(), Some("T"));
        assert_eq!(p.columns, ["a", "b"]);
        assert_eq!(
            p.rows[0],
            [("x".to_string(), false), ("1".to_string(), true)]
        );
        assert_eq!(
            p.rows[1],
            [(String::new(), false), ("true".to_string(), false)]
        );
        assert!(parse(&json!({"columns": ["a"], "rows": []})).is_ok());
    }

    #[test]
    fn invalid_tables() {
        let err = |v: Value| parse(&v).unwrap_err().to_string();
        assert!(err(json!([])).contains("must be an object"));
        assert!(err(json!({"rows": []})).contains("\"columns\" is required"));
        assert!(err(json!({"columns": [], "rows": []})).contains("must not be empty"));
        assert!(err(json!({"columns": ["a", 2], "rows": []})).contains("column 2 must be a string"));
        assert!(err(json!({"columns": ["a"]})).contains("\"rows\" is required"));
        assert!(err(json!({"columns": ["a"], "rows": {}})).contains("\"rows\" must be an array"));
        assert!(err(json!({"columns": ["a"], "rows": ["x"]})).contains("row 1 must be an array"));
        assert_eq!(
            err(json!({"columns": ["a", "b"], "rows": [["x", "y"], ["z"]]})),
            "row 2 has 1 cell(s) but there are 2 columns"
        );
        assert!(err(json!({"columns": ["a"], "rows": [[{"x": 1}]]})).contains("row 1, column 1"));
        assert!(err(json!({"title": 3, "columns": ["a"], "rows": []})).contains("\"title\""));
    }
}

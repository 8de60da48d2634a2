//! Tests of the `chart` module.
use super::*;
use serde_json::json;

fn valid() -> Value {
    json!({"type": "bar", "title": "Revenue", "labels": ["Q1", "Q2", "Q3"],
           "series": [{"name": "A", "values": [1, 2.5, -3]}, {"name": "B", "values": [0, 4, 5]}]})
}

#[test]
fn valid_chart() {
    let p = parse(&valid()).unwrap();
    assert_eq!(p.kind, ChartKind::Bar);
    assert_eq!(p.labels, ["Q1", "Q2", "Q3"]);
    assert_eq!(p.series[0].values, [1.0, 2.5, -3.0]);
    let mut line = valid();
    line["type"] = json!("line");
    assert_eq!(parse(&line).unwrap().kind, ChartKind::Line);
    line.as_object_mut().unwrap().remove("type");
    assert_eq!(parse(&line).unwrap().kind, ChartKind::Bar);
    // Numeric labels and an unnamed series.
    let p = parse(&json!({"labels": [2023, 2024], "series": [{"values": [1, 2]}]})).unwrap();
    assert_eq!(p.labels, ["2023", "2024"]);
    assert_eq!(p.series[0].name, "Series 1");
}

#[test]
fn invalid_charts() {
    let err = |f: &dyn Fn(&mut Value)| {
        let mut v = valid();
        f(&mut v);
        parse(&v).unwrap_err().to_string()
    };
    assert!(err(&|v| v["type"] = json!("pie")).contains("\"type\" must be \"bar\" or \"line\""));
    assert!(err(&|v| v["labels"] = json!([])).contains("1 to 50"));
    assert!(
        err(&|v| v["labels"] = json!((0..51).map(|i| i.to_string()).collect::<Vec<_>>()))
            .contains("got 51")
    );
    assert!(err(&|v| v["labels"] = json!(["a", {}, "c"])).contains("label 2 must be a string"));
    assert!(err(&|v| v["series"] = json!([])).contains("1 to 5"));
    assert!(err(&|v| v["series"] = json!(vec![json!({"values": [1, 2, 3]}); 6])).contains("got 6"));
    assert_eq!(
        err(&|v| v["series"][1]["values"] = json!([1, 2])),
        "series 2 has 2 values but there are 3 labels"
    );
    // NaN becomes null in serde_json.
    assert!(err(&|v| v["series"][0]["values"][1] = json!(f64::NAN))
        .contains("series 1, value 2: expected a finite number, got null"));
    assert!(err(&|v| v["series"][0]["values"][0] = json!("7")).contains("got a string"));
    assert!(err(&|v| v["series"][0]["name"] = json!(1)).contains("\"name\" must be a string"));
    assert!(err(&|v| v["series"][0] = json!([1, 2, 3])).contains("series 1 must be an object"));
    assert!(err(&|v| v["series"][0]
        .as_object_mut()
        .unwrap()
        .remove("values")
        .map(drop)
        .unwrap())
    .contains("series 1: \"values\" is required"));
    assert!(err(&|v| {
        v["series"][0]["values"] = json!([1e308, -1e308, 0]);
    })
    .contains("too large"));
    assert!(parse(&json!("x"))
        .unwrap_err()
        .to_string()
        .contains("must be an object"));
}

#[test]
fn layout_bars_and_zero_line() {
    let p = parse(&valid()).unwrap();
    let l = layout(&p);
    assert_eq!(l.bars.len(), 6);
    let (x0, y0, x1, y1) = l.plot;
    assert!(x0 < x1 && y0 < y1);
    assert!(
        l.zero_y > y0 && l.zero_y < y1,
        "zero inside the plot for negatives"
    );
    // A negative bar hangs below the zero line, a positive one stands on it.
    let neg = &l.bars[4]; // label 3, series A (-3)
    assert!((neg.y - l.zero_y).abs() < 1e-9 && neg.height > 0.0);
    let pos = &l.bars[1]; // label 1, series B (0) → zero height
    assert!(pos.height.abs() < 1e-9);
    for b in &l.bars {
        assert!(b.x >= x0 && b.x + b.width <= x1 + 1e-9);
        assert!(b.y >= y0 - 1e-9 && b.y + b.height <= y1 + 1e-9);
    }
    assert!(l.ticks.iter().any(|t| t.text == "0"));
}

#[test]
fn layout_extremes() {
    // 50 labels, 5 series, one label, all zeros, huge and tiny values: finite geometry.
    let many = json!({"type": "line",
        "labels": (0..50).map(|i| format!("label number {i}")).collect::<Vec<_>>(),
        "series": (0..5).map(|s| json!({"name": format!("s{s}"),
            "values": (0..50).map(|i| (i * s) as f64 - 40.0).collect::<Vec<_>>()})).collect::<Vec<_>>()});
    let l = layout(&parse(&many).unwrap());
    assert_eq!(l.lines.len(), 5);
    assert!(l.x_labels.len() < 50 && !l.x_labels.is_empty());
    for case in [
        json!({"labels": ["a"], "series": [{"values": [0]}]}),
        json!({"labels": ["a", "b"], "series": [{"values": [2e12, 1]}]}),
        json!({"labels": ["a", "b"], "series": [{"values": [1e-9, 3e-9]}]}),
        json!({"labels": ["a", "b"], "series": [{"values": [-5, -7]}]}),
    ] {
        let l = layout(&parse(&case).unwrap());
        assert!(!l.ticks.is_empty() && l.ticks.len() <= 13, "{case}");
        let all = l.bars.iter().flat_map(|b| [b.x, b.y, b.width, b.height]);
        assert!(all.chain([l.zero_y]).all(f64::is_finite), "{case}");
    }
}

#[test]
fn tick_formatting() {
    assert_eq!(format_tick(0.0, 1.0, 5.0), "0");
    assert_eq!(format_tick(2.5, 2.5, 10.0), "2.5");
    assert_eq!(format_tick(-4.0, 2.0, 4.0), "-4");
    assert_eq!(format_tick(20000.0, 5000.0, 20000.0), "20k");
    assert_eq!(format_tick(1_500_000.0, 500_000.0, 2e6), "1.5M");
    assert_eq!(format_tick(0.3, 0.1, 0.5), "0.3");
}

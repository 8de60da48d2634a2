//! Tests of the `markdown` module.
use super::parse::plain_text;
use super::render::shorten;
use super::*;

fn text(s: &str) -> Inline {
    Inline::Text(s.to_owned())
}
fn para(s: &str) -> Block {
    Block::Paragraph(vec![text(s)])
}
fn plain(s: &str) -> Block {
    Block::Plain(vec![text(s)])
}
fn item(blocks: Vec<Block>) -> ListItem {
    ListItem { task: None, blocks }
}
fn list(start: Option<u64>, items: Vec<ListItem>) -> Block {
    Block::List { start, items }
}
fn heading(level: u8, s: &str) -> Block {
    let content = vec![text(s)];
    Block::Heading { level, content }
}
fn code(lang: Option<&str>, code: &str) -> Block {
    let lang = lang.map(str::to_owned);
    let code = code.to_owned();
    Block::CodeBlock { lang, code }
}
fn inlines(blocks: &[Block]) -> &[Inline] {
    match blocks.first() {
        Some(Block::Paragraph(inl)) => inl,
        other => panic!("not a paragraph: {other:?}"),
    }
}

/// Every link and image href in the tree.
fn hrefs(blocks: &[Block]) -> Vec<String> {
    fn inl(inlines: &[Inline], out: &mut Vec<String>) {
        for i in inlines {
            match i {
                Inline::Link { href, content, .. } => {
                    out.push(href.clone());
                    inl(content, out);
                }
                Inline::Image { href: Some(h), .. } => out.push(h.clone()),
                Inline::Emphasis(c) | Inline::Strong(c) | Inline::Strikethrough(c) => inl(c, out),
                _ => {}
            }
        }
    }
    fn blk(blocks: &[Block], out: &mut Vec<String>) {
        for b in blocks {
            match b {
                Block::Heading { content: c, .. } | Block::Paragraph(c) | Block::Plain(c) => {
                    inl(c, out)
                }
                Block::List { items, .. } => items.iter().for_each(|i| blk(&i.blocks, out)),
                Block::BlockQuote(b) => blk(b, out),
                Block::Table { head, rows, .. } => {
                    head.iter().for_each(|c| inl(c, out));
                    rows.iter().flatten().for_each(|c| inl(c, out));
                }
                Block::CodeBlock { .. } | Block::Rule | Block::RawHtml(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    blk(blocks, &mut out);
    out
}

#[test]
fn headings() {
    let blocks = parse("# One\n## Two\n###### Six\n####### seven");
    let expected = vec![
        heading(1, "One"),
        heading(2, "Two"),
        heading(6, "Six"),
        para("####### seven"),
    ];
    assert_eq!(blocks, expected);
}

#[test]
fn paragraphs_and_breaks() {
    let blocks = parse("a\nb  \nc\\\nd\n\nsecond");
    let first = Block::Paragraph(vec![
        text("a\nb"),
        Inline::HardBreak,
        text("c"),
        Inline::HardBreak,
        text("d"),
    ]);
    assert_eq!(blocks, vec![first, para("second")]);
}

#[test]
fn emphasis_strong_strike_code() {
    let blocks = parse("*em* **strong** ~~del~~ `co*de*` ***both***");
    let inl = inlines(&blocks);
    assert_eq!(inl[0], Inline::Emphasis(vec![text("em")]));
    assert_eq!(inl[2], Inline::Strong(vec![text("strong")]));
    assert_eq!(inl[4], Inline::Strikethrough(vec![text("del")]));
    assert_eq!(inl[6], Inline::Code("co*de*".into()));
    let both = Inline::Emphasis(vec![Inline::Strong(vec![text("both")])]);
    assert_eq!(inl[8], both);
}

#[test]
fn code_blocks() {
    let blocks = parse("```rust title=x\nfn main() {}\n```\n\n    indented\n");
    let expected = vec![
        code(Some("rust"), "fn main() {}\n"),
        code(None, "indented\n"),
    ];
    assert_eq!(blocks, expected);
    // The language is sanitised (it ends up in a class attribute).
    let blocks = parse("```c\"><script>\nx\n```");
    assert_eq!(blocks, vec![code(Some("cscript"), "x\n")]);
    // Markdown inside a code block stays literal.
    let blocks = parse("```\n# not a heading <b>\n```");
    assert_eq!(blocks, vec![code(None, "# not a heading <b>\n")]);
}

#[test]
fn unterminated_fence_while_streaming() {
    let blocks = parse("Look:\n```python\nprint(1)\nprint(");
    let expected = vec![para("Look:"), code(Some("python"), "print(1)\nprint(")];
    assert_eq!(blocks, expected);
    // Every prefix of a document parses without panicking.
    let doc = "# T\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n  1. n\n\n> q `c`\n\n\
               ```rs\nx\n```\n[l](http://e.com) ![i](https://e.com/i.png) <b>h</b> [^1]\n\n\
               [^1]: note\n\n$x$ <!-- c";
    for (i, _) in doc.char_indices() {
        parse(&doc[..i]);
    }
}

#[test]
fn nested_lists() {
    let blocks = parse("- a\n  - b\n    - c\n- d\n\n3. x\n4. y\n");
    let inner = list(None, vec![item(vec![plain("c")])]);
    let middle = list(None, vec![item(vec![plain("b"), inner])]);
    let expected = vec![
        list(
            None,
            vec![item(vec![plain("a"), middle]), item(vec![plain("d")])],
        ),
        list(
            Some(3),
            vec![item(vec![plain("x")]), item(vec![plain("y")])],
        ),
    ];
    assert_eq!(blocks, expected);
}

#[test]
fn loose_list_has_paragraphs() {
    let blocks = parse("1. a\n\n2. b\n");
    let expected = vec![list(
        Some(1),
        vec![item(vec![para("a")]), item(vec![para("b")])],
    )];
    assert_eq!(blocks, expected);
}

#[test]
fn task_lists() {
    let blocks = parse("- [ ] todo\n- [x] done\n- plain\n\n* [X] loose\n\n* [ ] two\n");
    let task = |checked, blocks| ListItem {
        task: Some(checked),
        blocks,
    };
    let expected = vec![
        list(
            None,
            vec![
                task(false, vec![plain("todo")]),
                task(true, vec![plain("done")]),
                item(vec![plain("plain")]),
            ],
        ),
        list(
            None,
            vec![
                task(true, vec![para("loose")]),
                task(false, vec![para("two")]),
            ],
        ),
    ];
    assert_eq!(blocks, expected);
}

#[test]
fn tables() {
    let blocks = parse("| a | *b* | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n| x |\n");
    let cell = |s: &str| vec![text(s)];
    let expected = vec![Block::Table {
        alignments: vec![Align::Left, Align::Center, Align::Right, Align::None],
        head: vec![
            cell("a"),
            vec![Inline::Emphasis(vec![text("b")])],
            cell("c"),
            cell("d"),
        ],
        rows: vec![
            vec![cell("1"), cell("2"), cell("3"), cell("4")],
            vec![cell("x"), vec![], vec![], vec![]],
        ],
    }];
    assert_eq!(blocks, expected);
    // While streaming, a header without its delimiter row is just a paragraph...
    assert_eq!(parse("| a | b |\n|--"), vec![para("| a | b |\n|--")]);
    // ...and a table with a partial row is a table.
    let blocks = parse("| a | b |\n|--|--|\n| 1");
    assert!(
        matches!(&blocks[..], [Block::Table { rows, .. }] if rows.len() == 1),
        "{blocks:?}"
    );
}

#[test]
fn block_quotes_and_rules() {
    let blocks = parse("> quoted\n> > nested\n\n---\n\nafter");
    let quote = Block::BlockQuote(vec![
        para("quoted"),
        Block::BlockQuote(vec![para("nested")]),
    ]);
    assert_eq!(blocks, vec![quote, Block::Rule, para("after")]);
}

#[test]
fn links() {
    let blocks = parse(
        "[a](https://x.org \"T\") [b](/rel) [c](#frag) [d](mailto:me@x.org) \
         <http://auto.org> <me@x.org> [e](HTTP://UP.org) [f](rel/a:b) [g](//host/p) \
         [h][r]\n\n[r]: https://ref.org",
    );
    let expected = [
        "https://x.org",
        "/rel",
        "#frag",
        "mailto:me@x.org",
        "http://auto.org",
        "mailto:me@x.org",
        "HTTP://UP.org",
        "rel/a:b",
        "//host/p",
        "https://ref.org",
    ];
    assert_eq!(hrefs(&blocks), expected);
    let first = Inline::Link {
        href: "https://x.org".into(),
        title: Some("T".into()),
        content: vec![text("a")],
    };
    assert_eq!(inlines(&blocks)[0], first);
}

#[test]
fn images_are_text() {
    let blocks = parse("![a *cat*](https://x.org/c.png) ![](data:image/png;base64,AAA)");
    let inl = inlines(&blocks);
    let cat = Inline::Image {
        alt: "a cat".into(),
        url: "https://x.org/c.png".into(),
        href: Some("https://x.org/c.png".into()),
    };
    assert_eq!(inl[0], cat);
    let data = Inline::Image {
        alt: String::new(),
        url: "data:image/png;base64,AAA".into(),
        href: None,
    };
    assert_eq!(inl[2], data);
    assert_eq!(shorten("abcdef", 3), "abc…");
    assert_eq!(shorten("ééé", 3), "ééé");
}

#[test]
fn url_policy() {
    let allowed = [
        "http://a",
        "https://a",
        "HtTpS://a",
        "mailto:a@b",
        "/x",
        "x/y",
        "#f",
        "?q=1",
        "//h",
        "./a:b",
        " https://a ",
    ];
    for url in allowed {
        assert!(sanitize_url(url).is_some(), "{url}");
    }
    let refused = [
        "javascript:alert(1)",
        " JAVASCRIPT:alert(1)",
        "\u{1}javascript:x",
        "\u{a0}javascript:x",
        "java\tscript:x",
        "java\nscript:x",
        "jav\u{0}ascript:x",
        "data:text/html,x",
        "vbscript:x",
        "file:///etc/passwd",
        "ftp://x",
        "unknown:x",
        "",
        "  ",
    ];
    for url in refused {
        assert_eq!(sanitize_url(url), None, "{url:?}");
    }
    assert_eq!(sanitize_url(" h\tttp://a\n"), Some("http://a".into()));
}

const ATTACKS: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x]( JAVASCRIPT:alert(1))",
    "[x](data:text/html,<script>)",
    "![i](javascript:alert(1))",
    "<javascript:alert(1)>",
    "[x](&#106;avascript:alert(1))",
    "[x](java&#9;script:alert(1))",
    "[x][r]\n\n[r]: vbscript:msgbox",
    "text <b onclick=alert(1)>bold</b> <script>alert(2)</script>",
    "- <iframe src=\"javascript:alert(1)\"></iframe>\n- x",
    "| <svg onload=alert(1)> |\n|---|\n| [x](javascript:y) |",
];

#[test]
fn no_dangerous_links() {
    for md in ATTACKS {
        for href in hrefs(&parse(md)) {
            let lower = href.to_ascii_lowercase();
            assert!(
                lower.starts_with("http:")
                    || lower.starts_with("https:")
                    || lower.starts_with("mailto:")
                    || !lower.contains(':'),
                "{md}: {href}"
            );
        }
    }
    // Forbidden links keep only their text.
    assert_eq!(parse("[x](javascript:alert(1))"), vec![para("x")]);
    assert_eq!(parse("[x]( JAVASCRIPT:alert(1))"), vec![para("x")]);
    assert_eq!(parse("[x](data:text/html,<script>)"), vec![para("x")]);
    assert_eq!(parse("[x](&#106;avascript:alert(1))"), vec![para("x")]);
    assert_eq!(
        parse("<javascript:alert(1)>"),
        vec![para("javascript:alert(1)")]
    );
    let image = Inline::Image {
        alt: "i".into(),
        url: "javascript:alert(1)".into(),
        href: None,
    };
    assert_eq!(
        parse("![i](javascript:alert(1))"),
        vec![Block::Paragraph(vec![image])]
    );
}

#[test]
fn raw_html_is_text() {
    let raw = |s: &str| vec![Block::RawHtml(s.to_owned())];
    let script = "<script>alert(1)</script>";
    assert_eq!(parse(script), raw(script));
    let img = "<img src=x onerror=alert(1)>";
    assert_eq!(parse(img), raw(img));
    let inline = "a <b onclick=x>b</b> c";
    assert_eq!(parse(inline), vec![para(inline)]);
}

/// Feeds `doc` to an incremental parse in pieces of `step` characters and checks that after
/// each piece it equals a full parse of the text so far.
fn check_incremental(doc: &str, step: usize) {
    let mut inc = incremental::Incremental::default();
    let ends: Vec<usize> = doc
        .char_indices()
        .map(|(i, _)| i)
        .skip(1)
        .step_by(step.max(1))
        .chain([doc.len()])
        .collect();
    for end in ends {
        let text = &doc[..end];
        inc.update(text);
        assert_eq!(inc.blocks(), parse(text), "after {text:?}");
    }
}

const STREAMED: &[&str] = &[
    "# Title\n\nfirst para\n\n```rust\nfn a() {}\n```\n\nmore text\n",
    "para\n- a\n- b\n\n  continued\n\nafter\n\n1. one\n2. two\n\n---\n\n> quote\nlazy\n\nend",
    "a\nb\n===\n\nc\n---\n\n    indented\n    code\n\nd",
    "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\nx *y* **z** `c` [l](https://e.com)",
    "- [ ] todo\n- [x] done\n\n* other\n\n+ third\n\n<div>\nhtml\n</div>\n\nok",
    "~~~\nfence\n~~~\n\n```\nunclosed\n\nstill code",
    "> - quoted list\n> - two\n\n10) ten\n11) eleven\n\n***\n\n_e_ ~~s~~ line  \nbreak",
    "[ref]\n\n[ref]: https://e.com\n\nmore [ref] and [x]",
    "emoji 😀 é ü 中文 text\n\nnext — paragraph with ünïcödé",
    // Found by the property test below: a line that looks like a table header until its
    // delimiter row turns out not to be one; a lone `*` that becomes text.
    "| x | *\n | b c ---\n|- 1.",
    "- [ ] a\n*- b",
];

#[test]
fn incremental_parse_equals_full_parse() {
    for doc in STREAMED {
        for step in [1, 2, 3, 7, 50] {
            check_incremental(doc, step);
        }
    }
}

#[test]
fn incremental_keeps_closed_blocks() {
    let mut inc = incremental::Incremental::default();
    inc.update("# Title\n\nfirst para\n\n```rust\nfn a");
    let a = inc.rows();
    inc.update("# Title\n\nfirst para\n\n```rust\nfn a() {}\n```\n\nmore");
    let b = inc.rows();
    assert_eq!(a.len(), 3);
    assert_eq!(b.len(), 4);
    assert_eq!(a[..2], b[..2]);
    assert!(matches!(a[2], incremental::Row::Live(2, _)));
    assert!(matches!(b[2], incremental::Row::Done(2, _, _)));
    assert!(matches!(b[3], incremental::Row::Live(3, _)));
    // Keys are unique even for identical blocks.
    inc.update("---\n\n---\n\n---");
    let k: Vec<_> = inc.rows().iter().map(|r| r.key()).collect();
    assert_eq!(k.len(), 3);
    assert!(k[0] != k[1] && k[1] != k[2]);
    // Text that is not an extension of the previous text starts over.
    inc.update("other");
    assert_eq!(inc.blocks(), vec![para("other")]);
}

#[test]
fn reference_definitions_resolve_in_earlier_blocks() {
    let mut inc = incremental::Incremental::default();
    inc.update("see [docs]\n\nmore\n\n");
    inc.update("see [docs]\n\nmore\n\n[docs]: https://e.com/d");
    assert_eq!(hrefs(&inc.blocks()), vec!["https://e.com/d".to_string()]);
    assert!(incremental::may_define_references("> [a]: /x"));
    assert!(!incremental::may_define_references(
        "def f(x) -> list[int]:\n    pass"
    ));
}

#[test]
fn open_text_is_cut_into_stable_chunks() {
    let long: String = (0..3000).map(|i| format!("{i} ")).collect();
    let pieces = incremental::pieces(&[text(&long[..5000]), Inline::Code("c".into())]);
    let longer = incremental::pieces(&[text(&long[..9000]), Inline::Code("c".into())]);
    let texts: Vec<usize> = pieces
        .iter()
        .map(|(_, i)| match i {
            Inline::Text(t) => t.len(),
            _ => 0,
        })
        .collect();
    // Each full chunk runs from 1,024 bytes to just after the next space.
    assert_eq!(texts.len(), 6, "{texts:?}");
    for (n, (_, piece)) in texts.iter().zip(&pieces).take(4) {
        let Inline::Text(t) = piece else { panic!() };
        assert!((1025..1030).contains(n) && t.ends_with(' '), "{n} {t:?}");
    }
    // Every full chunk keeps its key as the text grows; the code span moves on.
    assert_eq!(pieces[..4], longer[..4]);
    let joined: String = incremental::chunks("añb😀c".repeat(400).as_str()).collect();
    assert_eq!(joined, "añb😀c".repeat(400));
    // Without whitespace a chunk ends at most 256 bytes later, on a character boundary.
    let lens: Vec<usize> = incremental::chunks("añb😀c".repeat(400).as_str())
        .map(str::len)
        .collect();
    assert!(
        lens[..lens.len() - 1]
            .iter()
            .all(|n| (1280..1288).contains(n)),
        "{lens:?}"
    );
}

/// A huge open paragraph is grouped into sections of 8 chunks; sections and their first pieces
/// stay put as the text grows, and the pieces read as the original text.
#[test]
fn huge_open_text_is_grouped_into_stable_sections() {
    let long: String = (0..30000).map(|i| format!("{i} ")).collect();
    let at = |n: usize| {
        let cut = long[..n].rfind(' ').unwrap();
        incremental::sections(incremental::pieces(&[text(&long[..cut])]))
    };
    assert_eq!(at(5000).len(), 1);
    let (a, b) = (at(60_000), at(90_000));
    assert!(a.len() >= 6 && b.len() > a.len(), "{} {}", a.len(), b.len());
    assert_eq!(a[..a.len() - 1], b[..a.len() - 1]);
    assert!(a[..a.len() - 1]
        .iter()
        .all(|s| s.len() == incremental::SECTION_CHUNKS));
    let joined: String = b
        .iter()
        .flatten()
        .map(|(_, i)| match i {
            Inline::Text(t) => t.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(joined, long[..long[..90_000].rfind(' ').unwrap()]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Documents made of markdown's block and inline syntax, streamed in random steps.
    #[test]
    fn incremental_parse_equals_full_parse_for_any_document(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "a", "b c", "\n", "\n\n", "- ", "* ", "+ ", "1. ", "2) ", "> ", "# ", "## ",
            "```", "~~~", "    ", "  ", "\t", "|", " | ", "---", "***", "===", ":-:", "`",
            "*", "_", "~~", "[x](https://e.com)", "[y]", "[y]: /u", "<div>", "</div>",
            "<b>", "- [ ] ", "é", "😀", "\\", "  \n",
        ]), 0..60),
        step in 1usize..6,
    ) {
        check_incremental(&tokens.concat(), step);
    }
}

#[test]
fn large_message_parses_quickly() {
    let chunk = "## Section\n\nSome *text* with `code` and a [link](https://e.com).\n\n\
                 - item one\n- item **two**\n\n```rust\nfn f() -> u32 { 42 }\n```\n\n\
                 | a | b |\n|---|---|\n| 1 | 2 |\n\n";
    let doc = chunk.repeat(50_000 / chunk.len() + 1);
    assert!(doc.len() >= 50_000);
    let start = std::time::Instant::now();
    let blocks = parse(&doc);
    let elapsed = start.elapsed();
    assert!(blocks.len() > 100);
    // Generous bound for unoptimised builds on shared machines.
    assert!(elapsed.as_millis() < 500, "{elapsed:?}");
}

#[cfg(feature = "ssr")]
fn render(md: &str) -> String {
    let md = md.to_owned();
    Owner::new().with(|| view! { <Markdown text=Signal::stored(md)/> }.to_html())
}

/// The tags of rendered HTML (every literal `<` of rendered text is escaped, so each
/// `<` starts a real tag).
#[cfg(feature = "ssr")]
fn tags(html: &str) -> Vec<&str> {
    html.split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(t))
        .collect()
}

#[cfg(feature = "ssr")]
#[test]
fn ssr_escapes_untrusted_input() {
    for md in ATTACKS {
        let html = render(md);
        assert!(html.starts_with("<div class=\"md\">"), "{html}");
        for tag in tags(&html) {
            let tag = tag.to_ascii_lowercase();
            let name = tag.split([' ', '/']).next().unwrap_or("");
            assert!(
                !["script", "img", "iframe", "svg", "b"].contains(&name),
                "{md}: <{tag}> in {html}"
            );
            for bad in [
                "onerror",
                "onclick",
                "onload",
                "src=",
                "javascript:",
                "data:",
            ] {
                assert!(!tag.contains(bad), "{md}: <{tag}> in {html}");
            }
        }
    }
    let html = render("<script>alert(1)</script>");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    let html = render("<img src=x onerror=alert(1)>");
    assert!(
        html.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{html}"
    );
    let html = render("x <script>alert(1)</script>");
    assert!(html.contains("x &lt;script&gt;"), "{html}");
    let html = render("[x](javascript:alert(1))");
    assert!(!html.contains("<a"), "{html}");
}

/// A long open paragraph is rendered as chunked text nodes that read as the original text.
#[cfg(feature = "ssr")]
#[test]
fn ssr_renders_open_block_in_chunks() {
    let long: String = (0..1000).map(|i| format!("{i} ")).collect();
    let html = render(&format!("# Head\n\n{long}"));
    let para = html
        .split("<p>")
        .nth(1)
        .unwrap()
        .split("</p>")
        .next()
        .unwrap();
    let chunks = incremental::chunks(long.trim_end()).count();
    assert_eq!(para.matches("<span>").count(), chunks, "{para}");
    assert!(!para.contains("md-sec"), "{para}");
    // A huge one is in block sections of 8 chunks, and still reads as the text.
    let huge: String = (0..20000).map(|i| format!("{i} ")).collect();
    let html = render(&huge);
    let chunks = incremental::chunks(huge.trim_end()).count();
    let sections = html.matches("<span class=\"md-sec\">").count();
    assert_eq!(
        sections,
        chunks.div_ceil(incremental::SECTION_CHUNKS),
        "{sections}"
    );
    let text = html
        .split("<p>")
        .nth(1)
        .unwrap()
        .split("</p>")
        .next()
        .unwrap()
        .replace("<!>", "")
        .replace("<span class=\"md-sec\">", "")
        .replace("<span>", "")
        .replace("</span>", "");
    assert_eq!(text, huge.trim_end());
    let text = para
        .replace("<!>", "")
        .replace("<span>", "")
        .replace("</span>", "");
    assert_eq!(text, long.trim_end());
}

#[cfg(feature = "ssr")]
#[test]
fn ssr_renders_constructs() {
    let html = render(
        "# Title\n\n| h1 | h2 |\n|:-:|---|\n| a | b |\n\n```rust\nlet x = 1 < 2;\n```\n\n\
         - [x] done\n- [ ] todo\n\n5. five\n\n> quote\n\n---\n\n[link](https://e.com) \
         ![alt](https://e.com/i.png) *em* **st** ~~del~~ `c` line  \nbreak",
    );
    let expect = [
        "<h1>Title",
        "<table><thead><tr><th style=\"text-align:center;\">h1",
        "<th>h2",
        "<tbody><tr><td style=\"text-align:center;\">a",
        "<div class=\"md-code\"><div class=\"md-code-header\">\
         <span class=\"md-code-lang\">rust</span>",
        "<button type=\"button\" aria-label=\"Copy code\" class=\"md-copy\">Copy</button>",
        "<pre><code class=\"language-rust\">let x = 1 &lt; 2;\n</code></pre>",
        "<li class=\"task-list-item\"><input type=\"checkbox\" disabled checked>",
        "<li class=\"task-list-item\"><input type=\"checkbox\" disabled> ",
        "<ol start=\"5\"><li>five",
        "<blockquote><p>quote",
        "<hr>",
        "<a href=\"https://e.com\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">link",
        "[image: alt]",
        "<span class=\"md-image-url\">(https://e.com/i.png)</span>",
        "<em>em",
        "<strong>st",
        "<del>del",
        "<code>c</code>",
    ];
    for e in expect {
        assert!(html.contains(e), "missing {e:?} in {html}");
    }
    // The last paragraph is the open block: its text is in chunk spans.
    let flat = html
        .replace("<!>", "")
        .replace("<span>", "")
        .replace("</span>", "");
    assert!(flat.contains("line<br>break"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    // A code block without a language has no class and an empty label. (As the open block, its
    // text is in chunks; `<!>` marks where their keyed list ends, for hydration.)
    let html = render("```\nplain\n```").replace("<!>", "");
    assert!(
        html.contains("<pre><code><span>plain\n</span></code></pre>"),
        "{html}"
    );
    assert!(html.contains("md-code-lang\">text<"), "{html}");
}

/// Runs `f` on a thread with a 256 KiB stack (far less than a server's worker or a browser's).
#[cfg(feature = "ssr")]
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .expect("the thread overflowed its stack or panicked")
}

/// How deep the parsed tree nests (iteratively, so the check itself cannot overflow).
fn tree_depth(blocks: &[Block]) -> usize {
    enum Node<'a> {
        B(&'a Block),
        I(&'a Inline),
    }
    let mut stack: Vec<(Node<'_>, usize)> = blocks.iter().map(|b| (Node::B(b), 1)).collect();
    let mut max = 0;
    while let Some((node, d)) = stack.pop() {
        max = max.max(d);
        match node {
            Node::B(Block::BlockQuote(bs)) => stack.extend(bs.iter().map(|b| (Node::B(b), d + 1))),
            Node::B(Block::List { items, .. }) => {
                for it in items {
                    stack.extend(it.blocks.iter().map(|b| (Node::B(b), d + 2)));
                }
            }
            Node::B(
                Block::Paragraph(is) | Block::Plain(is) | Block::Heading { content: is, .. },
            ) => stack.extend(is.iter().map(|i| (Node::I(i), d + 1))),
            Node::I(Inline::Emphasis(is) | Inline::Strong(is) | Inline::Strikethrough(is))
            | Node::I(Inline::Link { content: is, .. }) => {
                stack.extend(is.iter().map(|i| (Node::I(i), d + 1)))
            }
            _ => {}
        }
    }
    max
}

/// Inputs that nest as deep as they are long: the tree stays within the bound, and the
/// message renders to HTML on a 256 KiB stack (before the bound, 2,500 `>` killed the server).
#[cfg(feature = "ssr")]
#[test]
fn deep_nesting_renders_flat_on_a_small_stack() {
    let inputs: Vec<(&str, String)> = vec![
        ("quotes", ">".repeat(100_000)),
        ("quotes with text", format!("{} deep", "> ".repeat(20_000))),
        ("list markers", "- ".repeat(50_000) + "x"),
        ("numbered", "1. ".repeat(20_000) + "x"),
        (
            "indented lists",
            (0..3_000)
                .map(|i| format!("{}- x\n", "  ".repeat(i)))
                .collect(),
        ),
        (
            "brackets",
            "[".repeat(10_000) + "x" + &"](https://e.com)".repeat(10_000),
        ),
        ("emphasis", "*".repeat(10_000) + "x" + &"*".repeat(10_000)),
        ("strong", "**a ".repeat(5_000) + &" b**".repeat(5_000)),
        ("strike", "~~a ".repeat(5_000) + &" b~~".repeat(5_000)),
        ("images", "![".repeat(5_000) + "x" + &"](u)".repeat(5_000)),
    ];
    for (name, md) in inputs {
        eprintln!("rendering {name}");
        let (depth, html) = on_small_stack(move || {
            let blocks = parse(&md);
            (tree_depth(&blocks), render(&md))
        });
        assert!(depth <= 2 * MAX_NESTING + 4, "{name}: depth {depth}");
        assert!(html.starts_with("<div class=\"md\">"), "{name}");
    }
}

/// Within the bound, nesting is kept as it was.
#[test]
fn shallow_nesting_is_kept() {
    let blocks = parse(&format!("{}x", "> ".repeat(10)));
    assert_eq!(tree_depth(&blocks), 12);
    let deep = parse(&format!("{}x", "> ".repeat(MAX_NESTING + 10)));
    let mut text = String::new();
    let mut b = &deep[0];
    while let Block::BlockQuote(inner) = b {
        b = &inner[0];
    }
    if let Block::Paragraph(is) = b {
        plain_text(is, &mut text);
    }
    assert_eq!(text, "x", "the innermost text survives flattening");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Random runs of markdown punctuation, repeated to depths far past the bound, parse into a
    /// bounded tree without panicking.
    #[test]
    fn punctuation_runs_never_nest_past_the_bound(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            ">", "> ", "- ", "* ", "1. ", "[", "]", "(", ")", "*", "_", "**", "~~", "`", "!", "<",
            "\n", "  ", "|", "#", "x", "\\",
        ]), 1..8),
        repeat in 1usize..400,
    ) {
        let doc = tokens.concat().repeat(repeat);
        let blocks = parse(&doc);
        proptest::prop_assert!(tree_depth(&blocks) <= 2 * MAX_NESTING + 4);
    }
}

//! The sentences of docs/sdk-comparison.md that state a cell of the SDK matrix say which, in a
//! comment beside them (`<!-- cell: ROW | COLUMNS | VALUE -->`), and each is held to
//! peers/matrix.md: when `peers/check --update` changes a cell, the sentence about it fails here
//! until it is rewritten, so the prose cannot drift from the matrix again. COLUMNS is one column,
//! several (`, `-separated) or `*` for all; ROW may end in `*` for every row it begins (a
//! sentence about a group of rows).

use std::collections::HashMap;

/// The cells of peers/matrix.md: (row, column) → the cell's text, `✓`, `✗ \`HTTP 200 result\``,
/// `-`, or empty where the row was not judged.
fn matrix(text: &str) -> HashMap<(String, String), String> {
    let mut cells = HashMap::new();
    let mut columns: Vec<String> = Vec::new();
    for line in text.lines() {
        let Some(inner) = line.strip_prefix('|').and_then(|l| l.strip_suffix('|')) else {
            continue;
        };
        let parts: Vec<&str> = inner.split(" | ").map(str::trim).collect();
        if parts.first() == Some(&"check") {
            columns = parts.iter().skip(2).map(|c| c.to_string()).collect();
            continue;
        }
        // A row is `[`id`](url) ⚡ | level | cells…`; area headings and rules have no id.
        let Some(row) = parts
            .first()
            .and_then(|c| c.strip_prefix("[`"))
            .and_then(|c| c.split_once('`'))
            .map(|(id, _)| id.to_string())
        else {
            continue;
        };
        for (column, cell) in columns.iter().zip(parts.iter().skip(2)) {
            cells.insert((row.clone(), column.clone()), cell.to_string());
        }
    }
    cells
}

/// The claims of the prose (the part before the embedded matrix): (line, row, column, value).
fn claims(text: &str) -> Vec<(usize, String, String, String)> {
    let prose = text.split("<!-- matrix:start -->").next().unwrap_or(text);
    let mut found = Vec::new();
    for (n, line) in prose.lines().enumerate() {
        // A comment meant as a claim but misspelled would hold nothing: refused.
        for (at, _) in line.match_indices("<!--") {
            let inner = line[at + 4..].trim_start();
            if inner.starts_with("cell") && !line[at..].starts_with("<!-- cell: ") {
                panic!(
                    "line {}: a cell comment is written `<!-- cell: ROW | COLUMNS | VALUE -->`",
                    n + 1
                );
            }
        }
        let mut rest = line;
        while let Some(start) = rest.find("<!-- cell:") {
            let after = &rest[start + "<!-- cell:".len()..];
            let end = after
                .find("-->")
                .unwrap_or_else(|| panic!("line {}: a cell comment is not closed", n + 1));
            let fields: Vec<&str> = after[..end].split(" | ").map(str::trim).collect();
            let [row, column, value] = fields[..] else {
                panic!(
                    "line {}: a cell comment is `ROW | COLUMN | VALUE`, not `{}`",
                    n + 1,
                    &after[..end]
                );
            };
            found.push((n + 1, row.into(), column.into(), value.into()));
            rest = &after[end..];
        }
    }
    found
}

/// A claim holds when its value is the cell, or the cell's mark when the sentence states only
/// the verdict (`✗` for `✗ \`HTTP 200 result\``).
fn holds(claimed: &str, cell: &str) -> bool {
    claimed == cell || cell.split_whitespace().next() == Some(claimed)
}

/// The cells a claim names: its row (or every row its prefix begins) in each of its columns.
fn named(
    matrix: &HashMap<(String, String), String>,
    row: &str,
    columns: &str,
) -> Vec<(String, String)> {
    let mut cells: Vec<(String, String)> = match (row.strip_suffix('*'), columns) {
        (prefix, "*") => matrix
            .keys()
            .filter(|(r, _)| prefix.map_or(r == row, |p| r.starts_with(p)))
            .cloned()
            .collect(),
        (Some(prefix), _) => {
            let mut rows: Vec<&String> = matrix
                .keys()
                .map(|(r, _)| r)
                .filter(|r| r.starts_with(prefix))
                .collect();
            rows.sort();
            rows.dedup();
            rows.into_iter()
                .flat_map(|r| columns.split(", ").map(|c| (r.clone(), c.to_string())))
                .collect()
        }
        (None, _) => columns
            .split(", ")
            .map(|c| (row.to_string(), c.to_string()))
            .collect(),
    };
    if columns == "*" {
        cells.sort();
    }
    cells
}

#[test]
fn every_sentence_that_states_a_cell_of_the_sdk_matrix_agrees_with_it() {
    let root = env!("CARGO_MANIFEST_DIR");
    let matrix = matrix(&std::fs::read_to_string(format!("{root}/peers/matrix.md")).unwrap());
    let text = std::fs::read_to_string(format!("{root}/docs/sdk-comparison.md")).unwrap();
    let claims = claims(&text);
    assert!(
        claims.len() >= 270,
        "only {} cell claims in docs/sdk-comparison.md",
        claims.len()
    );
    let mut wrong: Vec<String> = Vec::new();
    for (line, row, columns, value) in &claims {
        let cells = named(&matrix, row, columns);
        if cells.is_empty() {
            wrong.push(format!(
                "docs/sdk-comparison.md:{line}: no row of peers/matrix.md begins {row}"
            ));
        }
        for (row, column) in cells {
            match matrix.get(&(row.clone(), column.clone())) {
                Some(cell) if holds(value, cell) => {}
                Some(cell) => wrong.push(format!(
                    "docs/sdk-comparison.md:{line}: says {row} on {column} is `{value}`, the matrix has `{cell}`"
                )),
                None => wrong.push(format!(
                    "docs/sdk-comparison.md:{line}: {row} on {column} is no cell of peers/matrix.md"
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "sentences of docs/sdk-comparison.md the matrix contradicts (rewrite the sentence and its comment):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_claim_against_another_cell_is_caught() {
    let matrix = matrix(
        "| check | level | a/stdio | a/http |\n|---|---|---|---|\n| [`x-y`](u) ⚡ | MUST | ✓ | ✗ `HTTP 200 result` |\n",
    );
    let key = |c: &str| ("x-y".to_string(), c.to_string());
    assert!(holds("✗", &matrix[&key("a/http")]));
    assert!(holds("✗ `HTTP 200 result`", &matrix[&key("a/http")]));
    assert!(!holds("✗ `HTTP 404 -32601`", &matrix[&key("a/http")]));
    assert!(!holds("✗", &matrix[&key("a/stdio")]));
    assert_eq!(named(&matrix, "x-*", "*").len(), 2);
    assert_eq!(
        named(&matrix, "x-y", "a/stdio, a/http"),
        vec![key("a/stdio"), key("a/http")]
    );
    let found = claims("a <!-- cell: x-y | a/http | ✗ --> b <!-- cell: x-y | a/stdio | ✓ -->\n<!-- matrix:start -->\n<!-- cell: z | a | ✓ -->");
    assert_eq!(found.len(), 2);
    assert_eq!(found[1].2, "a/stdio");
}

//! The layering rule, tested: a module imports only modules below it (see
//! docs/architecture.md), so the crate has no cycles and the record stays at the bottom.

use std::path::Path;

/// The top-level modules, lowest first. A module may name (as `crate::NAME`) only modules
/// earlier in the list; `exit` (the exit codes) and `record` sit at the bottom together.
const LAYERS: [&[&str]; 10] = [
    &["record", "exit"],
    &["transport"],
    &["protocol"],
    &["scenario"],
    &["check"],
    &["profile"],
    &["report"],
    &["run"],
    &["compare"],
    &["cli"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `crate::NAME` a source file names, with its line number.
fn named(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let name: String = rest[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((n + 1, name));
            rest = &rest[at + 7..];
        }
    }
    out
}

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            visit(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_module_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    visit(&src, &mut files);
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let top = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|c| c.trim_end_matches(".rs"))
            .unwrap_or_default();
        let Some(own) = layer(top) else { continue };
        seen += 1;
        let text = std::fs::read_to_string(file).expect("a source file");
        // A layer that passed a lower one's names on as its own would hide where they live.
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("pub use crate::") {
                wrong.push(format!(
                    "{}:{}: {top} re-exports another module's names; import them from there",
                    relative.display(),
                    n + 1
                ));
            }
        }
        for (line, name) in named(&text) {
            if let Some(other) = layer(&name) {
                if other > own {
                    wrong.push(format!(
                        "{}:{line}: {top} names crate::{name}",
                        relative.display()
                    ));
                }
            }
        }
    }
    assert!(seen > 40, "only {seen} files were examined");
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_imports() {
    assert_eq!(
        named("use crate::record::{Exchange}; x(crate::check::a)"),
        vec![(1, "record".to_string()), (1, "check".to_string())]
    );
}

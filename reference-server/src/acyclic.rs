//! The reference server's modules, tested to import one another without a cycle: a quirk's data
//! function may read a handler module's names only if that module does not read the quirks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module a source file belongs to (`http/mod.rs` is `http`).
fn module_of(relative: &Path) -> String {
    let first = relative
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .unwrap_or_default();
    first.trim_end_matches(".rs").to_string()
}

/// Every top-level module a source text names as `crate::NAME` or in a group,
/// `crate::{NAME::…, NAME}`, outside `//` comments; `$crate::` and `other_crate::` are not
/// this crate.
fn named(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|line| line.split_once("//").map_or(line, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::").map(|at| from + at) {
        from = at + "crate::".len();
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[from..];
        let Some(group) = rest.strip_prefix('{') else {
            out.insert(ident(rest));
            continue;
        };
        // The group's items at its own depth, each naming a module first.
        let mut depth = 0;
        let mut item = String::new();
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.insert(ident(&item));
                    item.clear();
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                item.push(c);
            }
        }
        out.insert(ident(&item));
    }
    out.remove("");
    out
}

/// Every `.rs` file under `dir`, in its subfolders too.
pub(crate) fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A cycle among the modules' imports, if there is one, as the modules along it.
fn cycle(imports: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        module: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut found = path[at..].to_vec();
            found.push(module.to_string());
            return Some(found);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for next in imports.get(module).into_iter().flatten() {
            if let Some(found) = walk(next, imports, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    imports
        .keys()
        .find_map(|module| walk(module, imports, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &all {
        let own = module_of(file.strip_prefix(&src).expect("under src"));
        let text = std::fs::read_to_string(file).expect("a source file");
        let entry = imports.entry(own.clone()).or_default();
        entry.extend(named(&text).into_iter().filter(|name| *name != own));
    }
    assert!(
        imports.len() > 10,
        "only {} modules were read",
        imports.len()
    );
    assert_eq!(cycle(&imports), None, "an import cycle");
}

#[test]
fn a_cycle_is_found() {
    let graph = |edges: &[(&str, &str)]| {
        let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            imports
                .entry(from.to_string())
                .or_default()
                .insert(to.to_string());
        }
        imports
    };
    assert_eq!(cycle(&graph(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        named("use crate::quirks::{Quirk}; crate::fixtures::RELATED"),
        ["fixtures".to_string(), "quirks".to_string()].into()
    );
    assert_eq!(
        named("use crate::{tasks::{Task, Tasks}, skills};\n// crate::server\n$crate::x other_crate::y"),
        ["skills".to_string(), "tasks".to_string()].into()
    );
}

//! Embeds the scenario library (`scenarios/**/*.toml`) into the mcpcheck binary.

use std::path::{Path, PathBuf};

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, files);
        } else if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    let library = root.join("scenarios");
    println!("cargo:rerun-if-changed=scenarios");
    let mut files = Vec::new();
    walk(&library, &mut files);
    files.sort();
    let mut out = String::from("&[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let shown = file
            .strip_prefix(&root)
            .expect("under the root")
            .display()
            .to_string();
        out.push_str(&format!(
            "    ({shown:?}, include_str!({:?})),\n",
            file.display().to_string()
        ));
    }
    out.push(']');
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("out dir")).join("library.rs");
    std::fs::write(dest, out).expect("write library.rs");
}

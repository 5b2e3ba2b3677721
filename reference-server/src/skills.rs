//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640), served from a folder
//! (`--skills DIR`): every folder under DIR that holds a `SKILL.md` is a skill, named by its
//! path (`tools/code-review`), its files readable as `skill://PATH/FILE` resources. The server
//! answers `skills/list`, `skills/get` and `resources/directory/read`, and reads skill files
//! with `resources/read`. The skills as loaded ([`Stock`]) pass through the quirks once; the
//! quirks that are data change them, a skill's entry or the listed resources from
//! `quirks::data`, so that the rest of the server stays the conformant one; an entry and an
//! answer are changed with the skills served at hand.

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::fixtures::DIRECTORY;
use crate::outcome::Outcome;
use crate::quirks::Quirks;
use crate::stock::{digest, Skill, Stock};

/// The extension's identifier, the key of its capability under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The skills of a folder, with the quirks that change them.
#[derive(Debug)]
pub struct Skills {
    stock: Stock,
    quirks: Quirks,
}

impl Skills {
    /// Loads every skill under `dir`, then applies the quirks that change skills themselves.
    pub fn load(dir: &Path, quirks: &Quirks) -> Result<Skills, String> {
        let mut files = Vec::new();
        walk(dir, dir, &mut files)?;
        files.sort();
        let mut skills = Vec::new();
        for (rel, text) in &files {
            let Some(path) = rel.strip_suffix("/SKILL.md") else {
                continue;
            };
            let text = String::from_utf8(text.clone())
                .map_err(|_| format!("{}/{rel} is not UTF-8", dir.display()))?;
            let frontmatter =
                frontmatter(&text).map_err(|why| format!("{}/{rel}: {why}", dir.display()))?;
            let prefix = format!("{path}/");
            let mut own: Vec<(String, Vec<u8>)> = files
                .iter()
                .filter_map(|(f, bytes)| {
                    Some((f.strip_prefix(&prefix)?.to_string(), bytes.clone()))
                })
                .collect();
            own.sort_by_key(|(f, _)| (f != "SKILL.md", f.clone()));
            skills.push(Skill {
                path: path.to_string(),
                frontmatter,
                files: own,
            });
        }
        if skills.is_empty() {
            return Err(format!(
                "{} holds no skill (a folder with a SKILL.md)",
                dir.display()
            ));
        }
        let mut stock = Stock {
            scheme: "skill",
            skills,
        };
        quirks.stocked(&mut stock);
        Ok(Skills {
            stock,
            quirks: quirks.clone(),
        })
    }

    /// The capability the server declares under `capabilities.extensions`.
    pub fn capability() -> Value {
        json!({"directoryRead": true})
    }

    /// A skill's entry, as skills/list and skills/get give it.
    fn entry(&self, index: usize) -> Value {
        let skill = &self.stock.skills[index];
        let root = self.stock.root(skill);
        let files: Vec<Value> = skill
            .files
            .iter()
            .map(|(f, bytes)| {
                json!({"uri": format!("{root}/{f}"), "digest": digest(bytes), "size": bytes.len()})
            })
            .collect();
        let mut entry = json!({"uri": format!("{root}/SKILL.md"), "frontmatter": skill.frontmatter, "resources": files});
        self.quirks.skill_entry(
            &self.stock,
            index,
            entry.as_object_mut().expect("an object"),
        );
        entry
    }

    /// The SKILL.md of every skill as resources/list lists it: named and described as its
    /// frontmatter says, as text/markdown.
    pub fn listed(&self) -> Vec<Value> {
        self.stock
            .skills
            .iter()
            .map(|skill| {
                json!({
                    "uri": format!("{}/SKILL.md", self.stock.root(skill)),
                    "name": skill.frontmatter["name"],
                    "description": skill.frontmatter["description"],
                    "mimeType": "text/markdown"
                })
            })
            .collect()
    }

    /// The answer to one of the extension's methods (`skills/list`, `skills/get`,
    /// `resources/directory/read`), as the quirks that are on have it.
    pub fn answer(&self, method: &str, params: &Value) -> Outcome {
        let outcome = match method {
            "skills/list" => self.list(params),
            "skills/get" => self.get(params),
            _ => self.directory(params),
        };
        self.quirks
            .skill_answer(method, &self.stock, params, outcome)
    }

    /// `skills/list`: every skill's entry, a page at a time.
    fn list(&self, params: &Value) -> Outcome {
        let entries = (0..self.stock.skills.len())
            .map(|i| self.entry(i))
            .collect();
        crate::outcome::list_page(entries, params, "skills")
    }

    /// `skills/get`: the entry of the skill whose SKILL.md is `uri`.
    fn get(&self, params: &Value) -> Outcome {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err((-32602, "Invalid params: uri must be a string".into(), None));
        };
        let found = (0..self.stock.skills.len())
            .find(|&i| format!("{}/SKILL.md", self.stock.root(&self.stock.skills[i])) == uri);
        match found {
            Some(i) => Ok(json!({"skill": self.entry(i)})),
            None => Err((
                -32602,
                format!("Invalid params: no skill has the SKILL.md {uri}"),
                Some(json!({"uri": uri})),
            )),
        }
    }

    /// The skill whose folder holds `uri` (the innermost, for nested skills) and the path inside
    /// it (empty for the skill's root).
    fn locate<'a>(&'a self, uri: &'a str) -> Option<(&'a Skill, &'a str)> {
        self.stock
            .skills
            .iter()
            .filter_map(|skill| {
                let root = self.stock.root(skill);
                let rest = uri.strip_prefix(root.as_str())?;
                let rest = if rest.is_empty() {
                    ""
                } else {
                    rest.strip_prefix('/')?
                };
                Some((skill, &uri[uri.len() - rest.len()..]))
            })
            .max_by_key(|(skill, _)| skill.path.len())
    }

    /// `resources/read` of a skill file: its text (or, not UTF-8, its bytes in base64).
    pub fn read(&self, uri: &str) -> Option<Value> {
        let (skill, rel) = self.locate(uri)?;
        let (file, bytes) = skill.files.iter().find(|(f, _)| f == rel)?;
        let mime = mime_type(file);
        let content = match std::str::from_utf8(bytes) {
            Ok(text) => json!({"uri": uri, "mimeType": mime, "text": text}),
            Err(_) => json!({"uri": uri, "mimeType": mime, "blob": base64(bytes)}),
        };
        Some(json!({"contents": [content]}))
    }

    /// `resources/directory/read`: the files and folders right inside a skill's folder or one
    /// of its subfolders, a page at a time; -32602 for anything else.
    fn directory(&self, params: &Value) -> Outcome {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err((-32602, "Invalid params: uri must be a string".into(), None));
        };
        let not_a_directory = || {
            Err((
                -32602,
                format!("Invalid params: {uri} is not a directory this server serves"),
                Some(json!({"uri": uri})),
            ))
        };
        let Some((skill, rel)) = self.locate(uri.trim_end_matches('/')) else {
            return not_a_directory();
        };
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        let mut children: Vec<(String, bool)> = Vec::new();
        for (file, _) in &skill.files {
            let Some(rest) = file.strip_prefix(&prefix) else {
                continue;
            };
            let child = match rest.split_once('/') {
                Some((folder, _)) => (folder.to_string(), true),
                None => (rest.to_string(), false),
            };
            if !children.contains(&child) {
                children.push(child);
            }
        }
        if children.is_empty() {
            return not_a_directory();
        }
        children.sort();
        let base = uri.trim_end_matches('/');
        let items = children
            .into_iter()
            .map(|(name, folder)| {
                let child = format!("{base}/{name}");
                if folder {
                    json!({"uri": child, "name": name, "mimeType": DIRECTORY})
                } else {
                    let path = format!("{prefix}{name}");
                    let size = skill
                        .files
                        .iter()
                        .find(|(f, _)| *f == path)
                        .map_or(0, |(_, b)| b.len());
                    json!({"uri": child, "name": name, "mimeType": mime_type(&name), "size": size})
                }
            })
            .collect();
        crate::outcome::list_page(items, params, "resources")
    }
}

/// Every file under `dir`, by its path relative to `base` with `/` between segments.
fn walk(base: &Path, dir: &Path, into: &mut Vec<(String, Vec<u8>)>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let path = entry.path();
        // A symbolic link is not followed: a link to a folder above would never end.
        let kind = entry
            .file_type()
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if kind.is_symlink() {
            continue;
        } else if kind.is_dir() {
            walk(base, &path, into)?;
        } else {
            let rel = path
                .strip_prefix(base)
                .expect("under the base")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let bytes =
                std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            into.push((rel, bytes));
        }
    }
    Ok(())
}

/// The YAML frontmatter of a SKILL.md (between a first line `---` and the next), as JSON; it
/// must hold `name` and `description`.
fn frontmatter(text: &str) -> Result<Value, String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not begin with a YAML frontmatter (a line ---)")?;
    let end = rest
        .find("\n---")
        .ok_or("its frontmatter is not closed by a line ---")?;
    let docs = yaml_rust2::YamlLoader::load_from_str(&rest[..end + 1])
        .map_err(|e| format!("its frontmatter is not YAML: {e}"))?;
    let value = docs.first().map(to_json).unwrap_or(Value::Null);
    for key in ["name", "description"] {
        if !value.get(key).is_some_and(Value::is_string) {
            return Err(format!("its frontmatter has no {key}"));
        }
    }
    Ok(value)
}

fn to_json(yaml: &yaml_rust2::Yaml) -> Value {
    use yaml_rust2::Yaml;
    match yaml {
        Yaml::String(s) => json!(s),
        Yaml::Integer(i) => json!(i),
        Yaml::Real(r) => r.parse::<f64>().map_or_else(|_| json!(r), |f| json!(f)),
        Yaml::Boolean(b) => json!(b),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Hash(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) => s.clone(),
                        other => to_json(other).to_string(),
                    };
                    (key, to_json(v))
                })
                .collect::<Map<String, Value>>(),
        ),
        _ => Value::Null,
    }
}

/// A file's mimeType by its extension.
fn mime_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("md") => "text/markdown",
        Some("py") => "text/x-python",
        Some("json") => "application/json",
        Some("txt") => "text/plain",
        Some("sh") => "text/x-shellscript",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads_and_digests_are_hex() {
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn the_example_folder_is_served() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
        let skills = Skills::load(&dir, &Quirks::default()).unwrap();
        let first = skills.entry(0);
        assert_eq!(first["uri"], "skill://pdf-processing/SKILL.md");
        assert_eq!(first["frontmatter"]["metadata"]["author"], "mcpcheck");
        assert_eq!(
            first["resources"][0]["uri"],
            "skill://pdf-processing/SKILL.md"
        );
        let root = skills
            .directory(&json!({"uri": "skill://pdf-processing"}))
            .unwrap();
        // Two on a page: SKILL.md, then the folder scripts.
        assert_eq!(root["resources"][1]["mimeType"], DIRECTORY);
        assert!(skills
            .directory(&json!({"uri": "skill://pdf-processing/SKILL.md"}))
            .is_err());
        assert!(skills
            .read("skill://tools/code-review/checklist.md")
            .is_some());
        assert_eq!(
            skills
                .get(&json!({"uri": "skill://nope/SKILL.md"}))
                .unwrap_err()
                .0,
            -32602
        );
    }
}

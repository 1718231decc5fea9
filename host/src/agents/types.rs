//! Agent types: `<name>.md` files with frontmatter (`name`, `description`,
//! `model`, `effort`) and a system-prompt body, looked up in
//! `<project>/.hermes/agents/` then `~/.hermes/agents/`. A bare prompt agent
//! is the built-in `general-purpose`. Unknown, malformed or path-unsafe
//! types fail closed with an error that names the type and the problem,
//! never the file's contents.

use hwf_core::ids::validate_name;
use std::path::PathBuf;

/// A resolved agent type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentType {
    /// Type name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Default model (a per-call `model` wins).
    pub model: Option<String>,
    /// Default effort (a per-call `effort` wins).
    pub effort: Option<String>,
    /// The system prompt (the file's body).
    pub system_prompt: String,
}

/// The built-in type for bare prompt agents.
pub const GENERAL_PURPOSE: &str = "general-purpose";

impl AgentType {
    /// The built-in `general-purpose` type.
    pub fn general_purpose() -> Self {
        Self {
            name: GENERAL_PURPOSE.into(),
            description: "A capable general agent: follows the prompt, answers in the requested shape.".into(),
            model: None,
            effort: None,
            system_prompt: "You are a careful, capable agent working inside an automated workflow. Do exactly what the prompt asks. When an output schema is given, answer with JSON that matches it and nothing else.".into(),
        }
    }
}

/// Where agent types are looked up.
#[derive(Debug, Clone, Default)]
pub struct AgentTypes {
    dirs: Vec<PathBuf>,
}

impl AgentTypes {
    /// Look up types in these directories, in order.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs }
    }

    /// The default directories: `<project>/.hermes/agents`, `~/.hermes/agents`.
    pub fn default_dirs(project: &std::path::Path) -> Self {
        let mut dirs = vec![project.join(".hermes").join("agents")];
        if let Some(home) = std::env::var_os("HOME") {
            dirs.push(PathBuf::from(home).join(".hermes").join("agents"));
        }
        Self { dirs }
    }

    /// Resolve a type (`None` → `general-purpose`).
    ///
    /// # Errors
    ///
    /// `unknown agent type …`, `agent type … is malformed: …`, or
    /// `agent type name … is not allowed`.
    pub fn resolve(&self, name: Option<&str>) -> Result<AgentType, String> {
        let name = match name {
            None => return Ok(AgentType::general_purpose()),
            Some(n) => n,
        };
        if validate_name("agent type", name).is_err() {
            return Err(format!(
                "agent type name {:?} is not allowed",
                name.chars().take(64).collect::<String>()
            ));
        }
        for dir in &self.dirs {
            let path = dir.join(format!("{name}.md"));
            match std::fs::read_to_string(&path) {
                Ok(text) => return parse(name, &text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(format!("agent type {name:?} cannot be read ({})", e.kind())),
            }
        }
        if name == GENERAL_PURPOSE {
            return Ok(AgentType::general_purpose());
        }
        Err(format!("unknown agent type {name:?}"))
    }
}

fn parse(name: &str, text: &str) -> Result<AgentType, String> {
    let malformed = |why: &str| format!("agent type {name:?} is malformed: {why}");
    let rest = text
        .strip_prefix("---")
        .ok_or_else(|| malformed("it must start with a --- frontmatter block"))?;
    let (front, body) = rest
        .split_once("\n---")
        .ok_or_else(|| malformed("the frontmatter block is not closed with ---"))?;
    let body = body.split_once('\n').map_or("", |(_, b)| b).trim();
    let (mut fm_name, mut description, mut model, mut effort) = (None, None, None, None);
    for (i, line) in front.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (k, v) = line
            .split_once(':')
            .ok_or_else(|| malformed(&format!("frontmatter line {} is not `key: value`", i)))?;
        let v = v.trim().trim_matches('"').trim_matches('\'').to_owned();
        match k.trim() {
            "name" => fm_name = Some(v),
            "description" => description = Some(v),
            "model" => model = Some(v).filter(|s| !s.is_empty()),
            "effort" => effort = Some(v).filter(|s| !s.is_empty()),
            "tools" | "color" => {}
            other => return Err(malformed(&format!("unknown frontmatter key {other:?}"))),
        }
    }
    let fm_name = fm_name.ok_or_else(|| malformed("`name` is missing"))?;
    if fm_name != name {
        return Err(malformed(&format!("its name is {fm_name:?}, not {name:?}")));
    }
    let description = description.ok_or_else(|| malformed("`description` is missing"))?;
    if body.is_empty() {
        return Err(malformed("the system prompt (the body) is empty"));
    }
    Ok(AgentType {
        name: fm_name,
        description,
        model,
        effort,
        system_prompt: body.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_files_builtin_and_fails_closed() {
        let tmp = tempfile::tempdir().expect("tmp");
        let project = tmp.path().join("project/.hermes/agents");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::write(
            project.join("reviewer.md"),
            "---\nname: reviewer\ndescription: Reviews diffs\nmodel: big\n---\nYou review code.\n",
        )
        .expect("w");
        std::fs::write(
            home.join("reviewer.md"),
            "---\nname: reviewer\ndescription: shadowed\n---\nNo.\n",
        )
        .expect("w");
        std::fs::write(home.join("broken.md"), "name: broken\n").expect("w");
        std::fs::write(
            home.join("odd.md"),
            "---\nname: odd\ndescription: x\nsecret_key: sk-abc\n---\nBody\n",
        )
        .expect("w");
        let types = AgentTypes::new(vec![project, home]);
        let r = types.resolve(Some("reviewer")).expect("reviewer");
        assert_eq!(
            (r.model.as_deref(), r.system_prompt.as_str()),
            (Some("big"), "You review code.")
        );
        assert_eq!(types.resolve(None).expect("gp").name, GENERAL_PURPOSE);
        assert!(
            types
                .resolve(Some("nobody"))
                .expect_err("unknown")
                .starts_with("unknown agent type")
        );
        assert!(types.resolve(Some("broken")).expect_err("broken").contains("malformed"));
        let odd = types.resolve(Some("odd")).expect_err("odd");
        assert!(odd.contains("secret_key") && !odd.contains("sk-abc"), "{odd}");
        assert!(
            types
                .resolve(Some("../etc/passwd"))
                .expect_err("unsafe")
                .contains("not allowed")
        );
    }
}

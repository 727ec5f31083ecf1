//! The functions directory as the Supabase CLI lays it out: `<dir>/<name>/index.ts` (or
//! `.js`, `.mjs`, `.tsx`) per function, names starting with `_` or `.` being shared code;
//! `verify_jwt` per function in the `config.toml` next to the directory
//! (`[functions.<name>]`); env from `<dir>/.env` then `<dir>/<name>/.env`. The directory is
//! looked at again at most every [`RECHECK_AFTER`], so a function added or edited is served
//! without a restart and requests in between touch no file.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Entry points looked for in a function's directory, in this order.
const ENTRYPOINTS: &[&str] = &[
    "index.ts",
    "index.js",
    "index.mjs",
    "index.tsx",
    "index.jsx",
];

/// Deepest directory level walked for a fingerprint (dependencies live elsewhere).
const MAX_DEPTH: usize = 6;

/// A function found in the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSource {
    pub dir: PathBuf,
    pub entrypoint: PathBuf,
}

/// Whether `name` can name a function: letters, digits, `-` and `_`, not starting with `_`.
pub fn is_function_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('_')
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
}

/// The function `name` in `root`, if it has an entry point.
pub fn find(root: &Path, name: &str) -> Option<FunctionSource> {
    if !is_function_name(name) {
        return None;
    }
    let dir = root.join(name);
    ENTRYPOINTS
        .iter()
        .map(|file| dir.join(file))
        .find(|path| path.is_file())
        .map(|entrypoint| FunctionSource {
            dir: dir.clone(),
            entrypoint,
        })
}

/// The project `config.toml` the Supabase CLI reads for this functions directory.
pub fn config_path(root: &Path) -> PathBuf {
    root.parent()
        .unwrap_or_else(|| Path::new("."))
        .join("config.toml")
}

/// The functions a `config.toml` text lets in without a JWT (`verify_jwt = false` under
/// `[functions.<name>]`); every other name needs one, also when the file is not valid TOML
/// (the safe side). Only that key is read; the rest of the file is the CLI's business.
pub fn unverified_functions(config_toml: &str) -> std::collections::HashSet<String> {
    let Ok(config) = config_toml.parse::<toml::Table>() else {
        return std::collections::HashSet::new();
    };
    config
        .get("functions")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .filter(|(_, function)| {
            function.get("verify_jwt").and_then(toml::Value::as_bool) == Some(false)
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// The variables of a `.env` text as the Supabase CLI reads them (godotenv): `KEY=value`
/// lines, `export ` allowed, quotes removed, blank lines and `#` comments skipped, and
/// unquoted values with spaces kept (dotenvy, the gateway's own `.env` reader, refuses
/// those, and functions' `.env` files written for Supabase have them).
pub fn parse_env(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                return None;
            }
            let line = line.strip_prefix("export ").unwrap_or(line);
            let (key, value) = line.split_once('=')?;
            let key = key.trim();
            if key.is_empty() {
                return None;
            }
            let value = value.trim();
            let unquoted = ['"', '\'']
                .iter()
                .find_map(|quote| {
                    value
                        .strip_prefix(*quote)
                        .and_then(|rest| rest.strip_suffix(*quote))
                })
                .unwrap_or(value);
            Some((key.to_owned(), unquoted.to_owned()))
        })
        .collect()
}

/// The env a function gets from its `.env` files: the directory's, then its own (later
/// wins). Missing files are no error.
pub fn function_env(root: &Path, source: &FunctionSource) -> Vec<(String, String)> {
    [root.join(".env"), source.dir.join(".env")]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .flat_map(|text| parse_env(&text))
        .collect()
}

/// How long a look at the functions directory stands for it: a change is served this
/// soon after it is saved, and requests in between cost no file-system walk.
pub const RECHECK_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

/// The functions directory as last looked at: its functions, their `verify_jwt` and its
/// fingerprint, looked at again once [`RECHECK_AFTER`] has passed.
#[derive(Debug)]
pub struct DirectoryWatch {
    root: std::path::PathBuf,
    seen: std::sync::Mutex<Option<std::sync::Arc<Seen>>>,
}

/// One look at the directory.
#[derive(Debug)]
pub struct Seen {
    at: std::time::Instant,
    functions: std::collections::HashMap<String, FunctionSource>,
    /// Each function's [`fingerprints`].
    fingerprints: std::collections::HashMap<String, Option<SystemTime>>,
    /// Functions whose `config.toml` section says `verify_jwt = false`.
    unverified: std::collections::HashSet<String>,
}

impl Seen {
    fn look(root: &Path, at: std::time::Instant) -> Self {
        let functions = list(root);
        let config = std::fs::read_to_string(config_path(root)).unwrap_or_default();
        let unverified = unverified_functions(&config);
        let fingerprints = fingerprints(root, &functions);
        Seen {
            at,
            functions,
            fingerprints,
            unverified,
        }
    }

    /// The function `name`, if it has an entry point.
    pub fn function(&self, name: &str) -> Option<&FunctionSource> {
        self.functions.get(name)
    }

    /// Whether calls to `name` need a valid JWT (the default).
    pub fn verify_jwt(&self, name: &str) -> bool {
        !self.unverified.contains(name)
    }

    /// When the function `name` or what it shares with the others last changed.
    pub fn fingerprint(&self, name: &str) -> Option<SystemTime> {
        self.fingerprints.get(name).copied().flatten()
    }

    /// Whether `name` is a function of the directory.
    pub fn has(&self, name: &str) -> bool {
        self.functions.contains_key(name)
    }

    /// When the directory was looked at.
    pub fn at(&self) -> std::time::Instant {
        self.at
    }
}

impl DirectoryWatch {
    pub fn new(root: std::path::PathBuf) -> Self {
        DirectoryWatch {
            root,
            seen: std::sync::Mutex::new(None),
        }
    }

    /// The directory as seen at most [`RECHECK_AFTER`] ago.
    pub fn current(&self) -> std::sync::Arc<Seen> {
        let now = std::time::Instant::now();
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*seen {
            Some(last) if now.duration_since(last.at) < RECHECK_AFTER => last.clone(),
            _ => {
                let fresh = std::sync::Arc::new(Seen::look(&self.root, now));
                *seen = Some(fresh.clone());
                fresh
            }
        }
    }
}

/// Every function of the directory, by name.
fn list(root: &Path) -> std::collections::HashMap<String, FunctionSource> {
    std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            find(root, &name).map(|source| (name, source))
        })
        .collect()
}

/// The latest modification time of anything a function's worker depends on: its own folder,
/// what the functions share (`config.toml`, the files at the top of the directory, folders
/// that are not functions, such as `_shared`). A change to one function leaves the others'
/// workers running.
fn fingerprints(
    root: &Path,
    functions: &std::collections::HashMap<String, FunctionSource>,
) -> std::collections::HashMap<String, Option<SystemTime>> {
    let mut shared = modified(&config_path(root));
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let is_function = entry
            .file_name()
            .to_str()
            .is_some_and(|name| functions.contains_key(name));
        match entry.file_type() {
            Ok(kind) if kind.is_dir() && !is_function => walk(&entry.path(), 1, &mut shared),
            Ok(kind) if !kind.is_dir() => shared = shared.max(modified(&entry.path())),
            _ => {}
        }
    }
    functions
        .iter()
        .map(|(name, source)| {
            let mut latest = shared;
            walk(&source.dir, 1, &mut latest);
            (name.clone(), latest)
        })
        .collect()
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .ok()
}

fn walk(dir: &Path, depth: usize, latest: &mut Option<SystemTime>) {
    *latest = (*latest).max(modified(dir));
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if entry.file_name() != "node_modules" {
                walk(&path, depth + 1, latest);
            }
        } else {
            *latest = (*latest).max(modified(&path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_exclude_shared_code_and_paths() {
        assert!(is_function_name("hello-world"));
        assert!(is_function_name("generate_plan2"));
        assert!(!is_function_name("_shared"));
        assert!(!is_function_name(".env"));
        assert!(!is_function_name("a/b"));
        assert!(!is_function_name(".."));
        assert!(!is_function_name(""));
    }

    fn verify_jwt(config_toml: &str, name: &str) -> bool {
        !unverified_functions(config_toml).contains(name)
    }

    /// A function's fingerprint as the watch sees it.
    fn fingerprint(root: &Path, name: &str) -> Option<SystemTime> {
        Seen::look(root, std::time::Instant::now()).fingerprint(name)
    }

    #[test]
    fn verify_jwt_is_read_per_function_and_defaults_to_true() {
        let config = r#"
[api]
verify_jwt = false   # not a function section

[functions.public-hook]
verify_jwt = false

[functions."quoted"]
verify_jwt = false # comment

[functions.strict]
verify_jwt = true
"#;
        assert!(!verify_jwt(config, "public-hook"));
        assert!(!verify_jwt(config, "quoted"));
        assert!(verify_jwt(config, "strict"));
        assert!(verify_jwt(config, "api"));
        assert!(verify_jwt(config, "unlisted"));
        assert!(verify_jwt("", "any"));
        assert!(verify_jwt("not [valid", "any"));
        let mut unverified: Vec<String> = unverified_functions(config).into_iter().collect();
        unverified.sort();
        assert_eq!(unverified, ["public-hook", "quoted"]);
    }

    #[test]
    fn env_files_are_parsed_like_dotenv() {
        let env = parse_env("# comment\nA=1\nexport B = \"two words\"\nC='x=y'\n\nbroken\n");
        assert_eq!(
            env,
            vec![
                ("A".to_owned(), "1".to_owned()),
                ("B".to_owned(), "two words".to_owned()),
                ("C".to_owned(), "x=y".to_owned()),
            ]
        );
    }

    #[test]
    fn env_values_with_unquoted_spaces_are_kept_as_the_supabase_cli_does() {
        assert_eq!(
            parse_env("SHARED=from the directory\n"),
            vec![("SHARED".to_owned(), "from the directory".to_owned())]
        );
    }

    #[test]
    fn functions_are_found_by_entry_point_and_fingerprinted() {
        let root = tempfile::tempdir().unwrap();
        let functions = root.path().join("functions");
        std::fs::create_dir_all(functions.join("hello")).unwrap();
        std::fs::create_dir_all(functions.join("empty")).unwrap();
        std::fs::write(
            functions.join("hello/index.ts"),
            "Deno.serve(() => new Response())",
        )
        .unwrap();
        let found = find(&functions, "hello").unwrap();
        assert_eq!(found.entrypoint, functions.join("hello/index.ts"));
        assert_eq!(find(&functions, "empty"), None);
        assert_eq!(find(&functions, "missing"), None);
        assert_eq!(config_path(&functions), root.path().join("config.toml"));

        std::fs::create_dir_all(functions.join("other")).unwrap();
        std::fs::write(functions.join("other/index.ts"), "").unwrap();
        let before = fingerprint(&functions, "hello").unwrap();
        let other = fingerprint(&functions, "other").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(functions.join("hello/.env"), "GREETING=hola").unwrap();
        assert!(fingerprint(&functions, "hello").unwrap() > before);
        assert_eq!(
            fingerprint(&functions, "other").unwrap(),
            other,
            "another function's change leaves it be"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::create_dir_all(functions.join("_shared")).unwrap();
        std::fs::write(functions.join("_shared/cors.ts"), "").unwrap();
        assert!(
            fingerprint(&functions, "other").unwrap() > other,
            "shared code is everyone's"
        );
        assert_eq!(fingerprint(&functions, "missing"), None);
        assert_eq!(
            function_env(&functions, &found),
            vec![("GREETING".to_owned(), "hola".to_owned())]
        );
    }
}

//! Embeds the ordered SQL migrations of `../sql/migrations`, the data files they load from
//! `../sql/data` and the demo seed `../sql/seed/demo.sql` into the binary, so a gateway binary
//! (or container image) carries the schema, the reference data and the demo it needs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let sql = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sql");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));

    let migrations = sql.join("migrations");
    println!("cargo:rerun-if-changed={}", migrations.display());
    let mut names: Vec<String> = std::fs::read_dir(&migrations)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", migrations.display()))
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".sql"))
        .collect();
    names.sort();
    let files: Vec<(String, PathBuf)> = names
        .into_iter()
        .map(|name| {
            let path = migrations.join(&name);
            (name, path)
        })
        .collect();
    write_table(&out_dir.join("migrations.rs"), &files, "include_str");

    // Data files (gzip CSV and the like) loaded by `--! copy` lines of the migrations, keyed
    // by their path relative to sql/data. READMEs (sources and licences) stay out.
    let data = sql.join("data");
    println!("cargo:rerun-if-changed={}", data.display());
    let mut data_files = Vec::new();
    collect_data_files(&data, &data, &mut data_files);
    data_files.sort();
    write_table(&out_dir.join("data_files.rs"), &data_files, "include_bytes");

    let seed = sql.join("seed/demo.sql");
    println!("cargo:rerun-if-changed={}", seed.display());
    let seed_path = seed.canonicalize().unwrap_or(seed);
    std::fs::write(
        out_dir.join("demo_seed.rs"),
        format!("include_str!({seed_path:?})"),
    )
    .unwrap_or_else(|error| panic!("cannot write demo_seed.rs: {error}"));
}

/// Writes `&[(name, include_*!(path)), ...]` for `include!`.
fn write_table(out: &Path, files: &[(String, PathBuf)], macro_name: &str) {
    let mut generated = String::from("&[\n");
    for (name, path) in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(
            generated,
            "    ({name:?}, {macro_name}!({:?})),",
            path.canonicalize().unwrap_or(path.clone())
        );
    }
    generated.push(']');
    std::fs::write(out, generated)
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", out.display()));
}

fn collect_data_files(root: &Path, dir: &Path, found: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect_data_files(root, &path, found);
        } else if !name.ends_with(".md") {
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            found.push((relative, path));
        }
    }
}

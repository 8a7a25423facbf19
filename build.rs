//! Capability cfgs: what the PostgreSQL being built for offers, set once
//! from its version feature (`pg15` … `pg18`), so that every version branch
//! in the code names the reason it exists (docs/operations.md "Versions"):
//! - `soft_errors` (16+): input functions report into an `ErrorSaveContext`
//!   instead of raising (`pg_input_is_valid`, `COPY … ON_ERROR`);
//! - `guc_malloc` (16+): a setting's `extra` is allocated with `guc_malloc`
//!   and freed with `guc_free` (before, `malloc`/`free`);
//! - `named_dsm` (17+): `GetNamedDSMSegment`, shared mode without preloading;
//! - `proc_number` (17+): a backend's slot is `MyProcNumber` (before,
//!   `MyBackendId - 1`);
//! - `skip_support` (18+): B-tree skip support for skip scans.
//!
//! PostgreSQL 13 and 14 are not supported (no `shmem_request_hook`, no
//! custom WAL resource managers): the crate has no feature for them.

const CAPABILITIES: [(&str, u32); 5] = [
    ("soft_errors", 16),
    ("guc_malloc", 16),
    ("named_dsm", 17),
    ("proc_number", 17),
    ("skip_support", 18),
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    for (capability, _) in CAPABILITIES {
        println!("cargo::rustc-check-cfg=cfg({capability})");
    }
    write_symbol_checks();
    let Some(version) =
        (15..=18).find(|v| std::env::var_os(format!("CARGO_FEATURE_PG{v}")).is_some())
    else {
        return;
    };
    for (capability, since) in CAPABILITIES {
        if version >= since {
            println!("cargo::rustc-cfg={capability}");
        }
    }
}

/// For every `sql/<name>.sql` (a format's SQL surface; not the versioned
/// scripts `pg_flake--*.sql`), `$OUT_DIR/sql_symbols/<name>.rs`: a constant
/// that names every C symbol of the file (`AS 'MODULE_PATHNAME', '<symbol>'`)
/// as a version-1 function, so a symbol the module does not define fails the
/// build instead of `CREATE EXTENSION` (`sql_file!` in src/plumbing/fmgr/c_function.rs
/// includes it). A symbol inside `DO $<cfg>$ … $<cfg>$` is checked only
/// under that capability cfg.
fn write_symbol_checks() {
    let out =
        std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("sql_symbols");
    std::fs::create_dir_all(&out).expect("create OUT_DIR/sql_symbols");
    println!("cargo::rerun-if-changed=sql");
    let mut files: Vec<_> = std::fs::read_dir("sql")
        .expect("read sql/")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "sql"))
        .filter(|path| {
            !path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("pg_flake--"))
        })
        .collect();
    files.sort();
    println!("cargo::rerun-if-changed=src");
    let rust = rust_sources("src");
    check_doc_aliases(&rust);
    for path in files {
        println!("cargo::rerun-if-changed={}", path.display());
        let sql = std::fs::read_to_string(&path).expect("read a SQL file");
        let name = path
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let mut check = format!(
            "// From sql/{name}.sql by build.rs (write_symbol_checks).\nconst _: () = {{\n"
        );
        for (symbol, cfg) in c_symbols(&sql) {
            require_written_whole(&symbol, &name, &rust);
            if let Some(cfg) = cfg {
                check += &format!("    #[cfg({cfg})]\n");
            }
            check += &format!(
                "    crate::plumbing::fmgr::version_1_function({symbol}, pg_finfo_{symbol});\n"
            );
        }
        check += "};\n";
        std::fs::write(out.join(format!("{name}.rs")), check).expect("write a symbol check");
    }
}

/// Every Rust file under `dir`, with its path and text.
fn rust_sources(dir: &str) -> Vec<(String, String)> {
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources.extend(rust_sources(&path.to_string_lossy()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read a Rust file");
            sources.push((path.to_string_lossy().into_owned(), text));
        }
    }
    sources
}

/// Whether `text` holds `word` with no identifier character on either side.
fn has_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].ends_with(is_ident) && !text[at + word.len()..].starts_with(is_ident)
    })
}

/// Every symbol a SQL file names is written whole in the Rust that defines
/// it, so that grep leads from the SQL to the code (docs/development.md "A
/// walk through one call"): as a `c_function!`'s or `native_type!`'s name,
/// or as the `#[doc(alias)]` of the `#[pg_extern]` function pgrx names so.
fn require_written_whole(symbol: &str, sql_file: &str, rust: &[(String, String)]) {
    if !rust.iter().any(|(_, text)| has_word(text, symbol)) {
        panic!(
            "sql/{sql_file}.sql names the symbol {symbol}, which no file under src/ writes whole: \
             give its c_function! that name, list it in its native_type!, or put \
             #[doc(alias = \"{symbol}\")] on its #[pg_extern] function"
        );
    }
}

/// A `#[doc(alias = "<name>_wrapper")]` stands on the function `<name>`,
/// whose symbol pgrx makes `<name>_wrapper`: an alias can name no other.
fn check_doc_aliases(rust: &[(String, String)]) {
    const ALIAS: &str = "#[doc(alias = \"";
    for (path, text) in rust {
        let lines: Vec<&str> = text.lines().collect();
        for (at, line) in lines.iter().enumerate() {
            let Some(alias) = line.trim().strip_prefix(ALIAS) else {
                continue;
            };
            let alias = alias.trim_end_matches("\")]");
            let function = lines[at + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| l.starts_with("fn ") || l.starts_with("pub fn "))
                .and_then(|l| l.split(['(', '<']).next())
                .map(|l| {
                    l.trim_start_matches("pub ")
                        .trim_start_matches("fn ")
                        .to_string()
                });
            if function.map(|f| f + "_wrapper").as_deref() != Some(alias) {
                panic!("{path}:{}: #[doc(alias = \"{alias}\")] is not on the function pgrx names {alias}", at + 1);
            }
        }
    }
}

/// The symbols of `AS 'MODULE_PATHNAME', '<symbol>'` in `sql`, each with the
/// capability cfg of the `DO $<cfg>$` block it is in, if any.
fn c_symbols(sql: &str) -> Vec<(String, Option<String>)> {
    const MARK: &str = "'MODULE_PATHNAME', '";
    let capability_blocks: Vec<(usize, usize, &str)> = CAPABILITIES
        .iter()
        .filter_map(|(cfg, _)| {
            let tag = format!("${cfg}$");
            let start = sql.find(&tag)?;
            let end = start + tag.len() + sql[start + tag.len()..].find(&tag)?;
            Some((start, end, *cfg))
        })
        .collect();
    let mut symbols = Vec::new();
    let mut from = 0;
    while let Some(at) = sql[from..].find(MARK) {
        let start = from + at + MARK.len();
        let end = start
            + sql[start..]
                .find('\'')
                .expect("a closing quote after a symbol");
        let cfg = capability_blocks
            .iter()
            .find(|(first, last, _)| (*first..*last).contains(&start))
            .map(|(_, _, cfg)| cfg.to_string());
        symbols.push((sql[start..end].to_string(), cfg));
        from = end;
    }
    symbols
}

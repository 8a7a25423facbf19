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
/// build instead of `CREATE EXTENSION` (`sql_file!` in src/c_function.rs
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
            if let Some(cfg) = cfg {
                check += &format!("    #[cfg({cfg})]\n");
            }
            check += &format!(
                "    crate::c_function::version_1_function({symbol}, pg_finfo_{symbol});\n"
            );
        }
        check += "};\n";
        std::fs::write(out.join(format!("{name}.rs")), check).expect("write a symbol check");
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

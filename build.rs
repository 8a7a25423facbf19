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

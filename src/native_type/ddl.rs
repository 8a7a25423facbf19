//! The type files `sql/types/<type>.sql`: each native type's SQL, literal
//! and checked in, made from the one template `sql/types/native_type.sql.in`
//! with the type's name and its length as the core states it
//! (`FlakeId::LEN`), so the length is written once.
//!
//! `cargo pgrx test` runs the check below; to rewrite the files after
//! changing the template or adding a type to
//! `flake_core::for_each_native_type!`, run it with `PG_FLAKE_WRITE_TYPES=1`.

use flake_core::FlakeId;

const TEMPLATE: &str = include_str!("../../sql/types/native_type.sql.in");

/// The type file of `T`.
pub fn render<T: FlakeId>() -> String {
    // `flake_core::<module>::<Type>`: the module is the format's, in both crates.
    let core = std::any::type_name::<T>();
    let module = core.split("::").nth(1).unwrap_or(T::TYPE_NAME);
    TEMPLATE
        .replace("{name}", T::TYPE_NAME)
        .replace("{len}", &T::LEN.to_string())
        .replace("{module}", module)
        .replace("{core}", core)
}

/// Where the type file of `T` is checked in.
pub fn path<T: FlakeId>() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sql/types")
        .join(format!("{}.sql", T::TYPE_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: FlakeId>(write: bool, stale: &mut Vec<String>) {
        let (path, expected) = (path::<T>(), render::<T>());
        if std::fs::read_to_string(&path).ok().as_deref() != Some(expected.as_str()) {
            if write {
                std::fs::write(&path, &expected).expect("write the type file");
            } else {
                stale.push(path.display().to_string());
            }
        }
    }

    #[test]
    fn type_files_are_the_template_for_every_native_type() {
        let write = std::env::var_os("PG_FLAKE_WRITE_TYPES").is_some();
        let mut stale = Vec::new();
        macro_rules! check_type {
            ($ty:ty) => {
                check::<$ty>(write, &mut stale)
            };
        }
        flake_core::for_each_native_type!(check_type);
        assert!(
            stale.is_empty(),
            "type files differ from sql/types/native_type.sql.in: {stale:?}; \
             rewrite them with PG_FLAKE_WRITE_TYPES=1"
        );
    }
}

//! The native type section of each format's `sql/<format>.sql`: literal and
//! checked in, made from the one template `sql/native_type.sql.in` with the
//! type's name and its length as the core states it (`FlakeId::LEN`), so the
//! length is written once.
//!
//! `cargo pgrx test` runs the check below; to rewrite the sections after
//! changing the template or adding a type to
//! `flake_core::for_each_native_type!`, run it with `PG_FLAKE_WRITE_TYPES=1`.

use flake_core::FlakeId;

const TEMPLATE: &str = include_str!("../../../../sql/native_type.sql.in");

/// The format module of `T`, the same name in both crates: the segment
/// before the type's own in `flake_core::formats::<module>::<Type>`.
fn module<T: FlakeId>() -> &'static str {
    std::any::type_name::<T>()
        .rsplit("::")
        .nth(1)
        .unwrap_or(T::TYPE_NAME)
}

/// The native type section of `T`. `{core}` is the type's public path,
/// `flake_core::<module>::<Type>` (the core re-exports its formats there).
pub fn render<T: FlakeId>() -> String {
    let module = module::<T>();
    let type_name = std::any::type_name::<T>()
        .rsplit("::")
        .next()
        .unwrap_or(T::TYPE_NAME);
    let core = format!("flake_core::{module}::{type_name}");
    TEMPLATE
        .replace("{name}", T::TYPE_NAME)
        .replace("{len}", &T::LEN.to_string())
        .replace("{module}", module)
        .replace("{core}", &core)
}

/// The SQL file of `T`'s format.
pub fn path<T: FlakeId>() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sql")
        .join(format!("{}.sql", module::<T>()))
}

/// `file` with `T`'s section, from its first line to its last (the
/// template's first and last lines), replaced by `section`; `None` without one.
fn with_section<T: FlakeId>(file: &str, section: &str) -> Option<String> {
    let first = format!("-- == The native type {} ", T::TYPE_NAME);
    let last = format!("-- == End of the native type {} ", T::TYPE_NAME);
    let start = file.find(&first)?;
    let end = start + file[start..].find(&last)?;
    let end = end + file[end..].find('\n').map_or(file.len() - end, |n| n + 1);
    Some(format!("{}{section}{}", &file[..start], &file[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: FlakeId>(write: bool, stale: &mut Vec<String>) {
        let (path, section) = (path::<T>(), render::<T>());
        let file = std::fs::read_to_string(&path).unwrap_or_default();
        if !file.contains(&section) {
            match with_section::<T>(&file, &section) {
                Some(rewritten) if write => {
                    std::fs::write(&path, rewritten).expect("write the SQL file")
                }
                _ => stale.push(path.display().to_string()),
            }
        }
    }

    #[test]
    fn type_sections_are_the_template_for_every_native_type() {
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
            "native type sections differ from sql/native_type.sql.in: {stale:?}; \
             rewrite them with PG_FLAKE_WRITE_TYPES=1"
        );
    }
}

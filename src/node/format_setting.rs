//! A format's own node setting (0.1.0's `pg_flake.sno_node`, `siq_node`,
//! `snowflake_worker`), declared once with [`format_node_setting!`]: its
//! name, range and descriptions, its value and whether it is set
//! (docs/operations.md "Several servers").

use super::FormatNode;
use crate::plumbing::settings::{Definition, FormatSetting};
use pgrx::guc::{GucContext, GucFlags, GucSetting};
use std::ffi::CStr;

/// An integer node setting of one format, superuser-only (a role that could
/// change it could forge another node's IDs).
pub struct IntNodeSetting {
    pub name: &'static CStr,
    pub short: &'static CStr,
    pub long: &'static CStr,
    pub max: i32,
    pub value: GucSetting<i32>,
    pub tracked: FormatSetting,
    /// `settings::define_int` with this setting's hooks.
    pub define: fn(Definition, &'static GucSetting<i32>, i32, i32),
    /// The value as a node number.
    pub node: fn() -> u32,
}

impl IntNodeSetting {
    /// What the format's [`NodeField`](super::NodeField) reads of it.
    pub const fn field(&'static self) -> FormatNode {
        (&self.tracked, self.node)
    }

    /// Defines it (from the format's `init`, in `_PG_init`).
    pub fn define(&'static self) {
        (self.define)(
            Definition {
                name: self.name,
                short: self.short,
                long: self.long,
                context: GucContext::Suset,
                flags: GucFlags::default(),
            },
            &self.value,
            0,
            self.max,
        );
    }
}

/// `text` with its NUL, at build time.
pub const fn c_text(text: &'static [u8]) -> &'static CStr {
    match CStr::from_bytes_with_nul(text) {
        Ok(text) => text,
        Err(_) => panic!("a setting's text holds a NUL"),
    }
}

/// Declares a format's integer node setting, named once:
/// `format_node_setting!(static SNO_NODE = "pg_flake.sno_node", max 255, "short", "long");`
macro_rules! format_node_setting {
    (
        $(#[$doc:meta])*
        static $id:ident = $name:literal, max $max:expr, $short:literal, $long:literal $(,)?
    ) => {
        $(#[$doc])*
        static $id: $crate::node::format_setting::IntNodeSetting =
            $crate::node::format_setting::IntNodeSetting {
                name: $crate::node::format_setting::c_text(concat!($name, "\0").as_bytes()),
                short: $crate::node::format_setting::c_text(concat!($short, "\0").as_bytes()),
                long: $crate::node::format_setting::c_text(concat!($long, "\0").as_bytes()),
                max: $max,
                value: ::pgrx::guc::GucSetting::<i32>::new(0),
                tracked: $crate::plumbing::settings::FormatSetting::new($name),
                define: {
                    struct Hooks;
                    impl $crate::plumbing::settings::IntSetting for Hooks {
                        fn tracked() -> Option<&'static $crate::plumbing::settings::FormatSetting> {
                            Some(&$id.tracked)
                        }
                    }
                    $crate::plumbing::settings::define_int::<Hooks>
                },
                node: || $id.value.get() as u32,
            };
    };
}
pub(crate) use format_node_setting;

//! The `pg_flake.*` settings (`sql-api.md` §3). Server identities (node
//! numbers) are superuser-only: an ordinary role that could change them could
//! forge another node's IDs or collide with it.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};

pub static SNO_NODE: GucSetting<i32> = GucSetting::<i32>::new(0);

pub fn define() {
    GucRegistry::define_int_guc(
        c"pg_flake.sno_node",
        c"High byte of the sno partition: this server's node number.",
        c"Give every server that generates sno values its own number (0-255).",
        &SNO_NODE,
        0,
        255,
        GucContext::Suset,
        GucFlags::default(),
    );
    // SAFETY: called once from _PG_init with a static string.
    unsafe { pgrx::pg_sys::MarkGUCPrefixReserved(c"pg_flake".as_ptr()) };
}

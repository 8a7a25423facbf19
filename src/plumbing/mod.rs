//! The SQL plumbing every layer above stands on, and which knows no format,
//! no generator and no node (docs/development.md "Layout and tests"): how a
//! C function is declared and guarded, the native types' datums and support
//! functions, errors and their SQLSTATEs, settings, shared memory, the clock
//! a backend reads, and the few FFI shims pgrx does not give.

pub mod backend_local;
pub mod c_function;
pub mod clock;
pub mod derived;
#[cfg(named_dsm)]
pub mod dsm_claim;
pub mod errors;
pub mod ffi;
pub mod fmgr;
pub mod log_secret;
pub mod native_type;
pub mod numeric;
#[cfg(any(test, feature = "pg_test"))]
pub mod pg_test_support;
#[cfg(not(named_dsm))]
pub mod pinned_segment;
pub mod random;
pub mod record;
pub mod settings;
pub mod shared_memory;
pub mod spinlock;
pub mod time;

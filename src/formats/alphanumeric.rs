//! SQL surface of the alphanumeric (base62) encoding
//! (docs/formats/alphanumeric.md): `alphanumeric_encode` for `bigint`, `uuid`
//! and `distributed_id`, and one strict decoder per type.

use super::format::Format;
use crate::formats::distributed_id::DistributedId;
use crate::plumbing::backend::errors::OrRaise;
use crate::plumbing::fmgr::c_function::sql_file;
use flake_core::alphanumeric;
use pgrx::datum::Uuid;
use pgrx::prelude::*;

sql_file!(
    "../../sql/alphanumeric.sql",
    name = "alphanumeric",
    requires = ["flaxid"]
);

pub static FORMAT: Format = Format::named("alphanumeric");

#[doc(alias = "alphanumeric_encode_bigint_wrapper")]
#[pg_extern(sql = false)]
fn alphanumeric_encode_bigint(value: i64) -> String {
    alphanumeric::encode_i64(value).or_raise()
}

#[doc(alias = "alphanumeric_encode_uuid_wrapper")]
#[pg_extern(sql = false)]
fn alphanumeric_encode_uuid(value: Uuid) -> String {
    alphanumeric::encode_u128_blocks(*value.as_bytes())
}

#[doc(alias = "alphanumeric_encode_distributed_id_wrapper")]
#[pg_extern(sql = false)]
fn alphanumeric_encode_distributed_id(value: DistributedId) -> String {
    alphanumeric::encode_distributed_id(&value.0)
}

#[doc(alias = "alphanumeric_decode_bigint_wrapper")]
#[pg_extern(sql = false)]
fn alphanumeric_decode_bigint(text: &str) -> i64 {
    alphanumeric::decode_i64(text).or_raise()
}

#[doc(alias = "alphanumeric_decode_uuid_wrapper")]
#[pg_extern(sql = false)]
fn alphanumeric_decode_uuid(text: &str) -> Uuid {
    Uuid::from_bytes(alphanumeric::decode_u128_blocks(text).or_raise())
}

#[doc(alias = "alphanumeric_decode_distributed_id_wrapper")]
#[pg_extern(sql = false)]
fn alphanumeric_decode_distributed_id(text: &str) -> DistributedId {
    DistributedId(alphanumeric::decode_distributed_id(text).or_raise())
}

//! SQL surface of the alphanumeric (base62) encoding
//! (docs/formats/alphanumeric.md): `alphanumeric_encode` for `bigint`, `uuid`
//! and `distributed_id`, and one strict decoder per type.

use crate::c_function::sql_file;
use crate::distributed_id::DistributedId;
use crate::errors::OrRaise;
use crate::format::Format;
use flake_core::alphanumeric;
use pgrx::datum::Uuid;
use pgrx::prelude::*;

sql_file!(
    "../sql/alphanumeric.sql",
    name = "alphanumeric",
    requires = ["flaxid"]
);

pub static FORMAT: Format = Format::named("alphanumeric");

#[pg_extern(sql = false)]
fn alphanumeric_encode_bigint(value: i64) -> String {
    alphanumeric::encode_i64(value).or_raise()
}

#[pg_extern(sql = false)]
fn alphanumeric_encode_uuid(value: Uuid) -> String {
    alphanumeric::encode_u128_blocks(*value.as_bytes())
}

#[pg_extern(sql = false)]
fn alphanumeric_encode_distributed_id(value: DistributedId) -> String {
    alphanumeric::encode_distributed_id(&value.0)
}

#[pg_extern(sql = false)]
fn alphanumeric_decode_bigint(text: &str) -> i64 {
    alphanumeric::decode_i64(text).or_raise()
}

#[pg_extern(sql = false)]
fn alphanumeric_decode_uuid(text: &str) -> Uuid {
    Uuid::from_bytes(alphanumeric::decode_u128_blocks(text).or_raise())
}

#[pg_extern(sql = false)]
fn alphanumeric_decode_distributed_id(text: &str) -> DistributedId {
    DistributedId(alphanumeric::decode_distributed_id(text).or_raise())
}

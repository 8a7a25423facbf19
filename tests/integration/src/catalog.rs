//! The extension's functions as the catalog lists them, and a valid call
//! of each with its documented arguments: what the privileges test calls
//! as an ordinary role and the trojan test as a superuser (tests/integration/tests/privileges.rs,
//! tests/integration/tests/trojan.rs), so that a new function is covered by both
//! without editing either.

use postgres::Client;

/// A value of each type the functions take, as SQL.
pub const SAMPLES: [(&str, &str); 6] = [
    ("sno", "'brpk4q72xwf2m63l'::sno"),
    ("siq", "'crxckuyagku7racaaacmgzymuoabo'::siq"),
    ("flaxid", "'17cQYV3E6XowHpdd'::flaxid"),
    ("kuid96", "'.5.tXa0xODNvPN.0'::kuid96"),
    (
        "distributed_id",
        "'1088824355131185736905670087'::distributed_id",
    ),
    ("uuid", "'094dc056-1a01-7001-0000-000000000000'::uuid"),
];

/// A key for `pg_flake.public_id_key` (the example of docs/sql-reference.md "Public identities"), as the
/// setting's base64 and as `bytea`.
pub const KEY: &str = "k7fBDJcQam02hsByaOWPeP2CqeDeGXvrPUkEAQBtAFc=";

fn sample(sql_type: &str) -> &'static str {
    SAMPLES
        .iter()
        .find(|(t, _)| *t == sql_type)
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("no sample value of type {sql_type}"))
}

/// A valid argument for parameter `name` of type `sql_type` of `function`
/// (returning `returns`): by name where the range depends on it, else by
/// type. A new function with an unknown parameter fails here: add it.
pub fn argument(function: &str, name: &str, sql_type: &str, returns: &str) -> String {
    let literal = match (sql_type, name) {
        // Type input takes the text of a value, `bytea::T` its bytes.
        ("cstring", _) => return format!("{}::text::cstring", sample(returns)),
        ("bytea", "bytes") => return format!("{}::bytea", sample(returns)),
        ("bytea", "key") => return format!("decode('{KEY}', 'base64')"),
        // A mark set to now moves nothing back (the superuser's call in the
        // trojan test; refused to others).
        ("timestamp with time zone", "mark") => "now()",
        ("timestamp with time zone", _) => "'2024-02-29 12:00:00.001+00'",
        ("boolean", _) => "false",
        ("numeric", _) => "42",
        ("integer", "interval") => "8",
        ("integer", "shard") => "9",
        ("integer", _) => "1",
        ("bigint", "epoch_ms") => "1420070400000",
        ("bigint", "node") => "65742641",
        ("bigint", "ticks") => "111411200032768",
        ("bigint", "domain_hash") => "2261653831",
        ("bigint", "kuid64") => "27084864703004673",
        ("bigint", "snowflake") => "175928847299117063",
        ("bigint", "random" | "seed" | "value") => "42",
        ("regclass", "fence") => "'pg_flake_lease_promised'",
        // The role's own table, partitioned by range on an sno column.
        ("regclass", "parent") => "'partitioned_ids'",
        ("interval", "step") => "'1 day'",
        ("text", "kind") => "'message'",
        ("text", "holder") => "'privileges test'",
        ("interval", "ttl") => "'30 s'",
        ("bigint", "lease_id") => "1",
        ("text", "format") => "'sno'",
        ("text", "bound") => "'brpk4q72xwf2m63l'",
        ("text", "name") => "'uid@127.0.0.1'",
        ("text", "domain") => "'example.com'",
        ("text", "hex") => "'000384A786907DB2AD82883DC7'",
        ("text", "text") => match function {
            "kuid64_decode" => "'.5.tXbhdV.3'",
            "alphanumeric_decode_bigint" => "'1TCKi1nFuNh'",
            "alphanumeric_decode_uuid" => "'48XoooHHCe1CiOHrghM7Dl'",
            "alphanumeric_decode_distributed_id" => "'3zfAkCP7ZtzfeQYp'",
            _ => panic!("no sample text for {function}"),
        },
        (t, _) if SAMPLES.iter().any(|(s, _)| *s == t) => return sample(t).to_string(),
        (t, _) => panic!("no sample argument for {function}({name} {t}): add one"),
    };
    format!("{literal}::{sql_type}")
}

/// One function of the extension, from the catalog.
pub struct Function {
    pub signature: String,
    pub name: String,
    pub qualified: String,
    pub aggregate: bool,
    /// Input parameters: (name, type).
    pub parameters: Vec<(String, String)>,
    pub returns: String,
}

pub fn extension_functions(db: &mut Client) -> Vec<Function> {
    db.query(
        "SELECT p.oid::regprocedure::text, p.proname, format('%I.%I', n.nspname, p.proname),
                p.prokind = 'a',
                ARRAY(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) t),
                coalesce(p.proargnames, '{}'), coalesce(p.proargmodes::text[], '{}'),
                format_type(p.prorettype, NULL)
         FROM pg_depend d
         JOIN pg_proc p ON p.oid = d.objid
         JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
           AND d.refclassid = 'pg_extension'::regclass
           AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_flake')
         ORDER BY 1",
        &[],
    )
    .expect("the extension's functions")
    .iter()
    .map(|row| {
        let types: Vec<String> = row.get(4);
        let names: Vec<String> = row.get(5);
        let modes: Vec<String> = row.get(6);
        // Names cover every parameter; modes (when present) say which are inputs.
        let inputs: Vec<String> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                modes
                    .get(*i)
                    .is_none_or(|m| matches!(m.as_str(), "i" | "b" | "v"))
            })
            .map(|(_, n)| n.clone())
            .collect();
        Function {
            signature: row.get(0),
            name: row.get(1),
            qualified: row.get(2),
            aggregate: row.get(3),
            parameters: types
                .into_iter()
                .enumerate()
                .map(|(i, t)| (inputs.get(i).cloned().unwrap_or_default(), t))
                .collect(),
            returns: row.get(7),
        }
    })
    .collect()
}

impl Function {
    /// A statement calling the function, or None if it takes `internal`
    /// (receive and sort support functions, which SQL cannot call).
    pub fn call(&self) -> Option<String> {
        if self.parameters.iter().any(|(_, t)| t == "internal") {
            return None;
        }
        let args: Vec<String> = self
            .parameters
            .iter()
            .map(|(name, t)| argument(&self.name, name, t, &self.returns))
            .collect();
        Some(if self.aggregate {
            format!(
                "SELECT {}(x) FROM (VALUES ({}), ({})) v(x)",
                self.qualified, args[0], args[0]
            )
        } else {
            format!("SELECT {}({})", self.qualified, args.join(", "))
        })
    }
}

/// Drops `role` and everything it owns in this database, if it exists.
pub fn drop_role(admin: &mut Client, role: &str) {
    admin
        .batch_execute(&format!(
            "DO $$ BEGIN
                 IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN
                     DROP OWNED BY {role} CASCADE; DROP ROLE {role};
                 END IF;
             END $$"
        ))
        .unwrap_or_else(|e| panic!("drop role {role}: {e:?}"));
}

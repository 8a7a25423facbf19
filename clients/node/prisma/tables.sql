-- The tables of schema.prisma. `prisma migrate diff --from-empty
-- --to-schema-datamodel prisma/schema.prisma --script` writes this with
-- TEXT for the String IDs; here they are the native types. (With the
-- schema engine, this is a migration made with `--create-only` and edited.)
CREATE TABLE prisma_events (
    id sno PRIMARY KEY DEFAULT sno_generate(),
    kind text NOT NULL,
    trace_id siq NOT NULL DEFAULT siq_generate('event')
);

CREATE TABLE prisma_tags (
    id flaxid PRIMARY KEY DEFAULT flaxid_generate(),
    event_id sno NOT NULL REFERENCES prisma_events (id) ON DELETE CASCADE ON UPDATE CASCADE,
    name text NOT NULL
);

CREATE TABLE prisma_samples (
    n integer PRIMARY KEY,
    sno sno,
    siq siq,
    distributed_id distributed_id,
    flaxid flaxid,
    kuid96 kuid96
);

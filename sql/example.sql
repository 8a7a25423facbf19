-- The example schema `make run` creates (idempotent).
CREATE EXTENSION IF NOT EXISTS pg_flake;

CREATE TABLE IF NOT EXISTS events (
    id      sno PRIMARY KEY DEFAULT sno_generate(),
    created timestamptz GENERATED ALWAYS AS (sno_timestamp(id)) STORED,
    kind    text NOT NULL,
    payload jsonb
);
CREATE INDEX IF NOT EXISTS events_id_brin ON events USING brin (id);

INSERT INTO events (kind, payload)
SELECT k, jsonb_build_object('n', g)
FROM generate_series(1, 10) g, (VALUES ('signup'), ('login')) AS v(k)
WHERE NOT EXISTS (SELECT 1 FROM events);

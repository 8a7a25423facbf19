-- PostgreSQL 17+ (scripts/test-sql.sh runs this test there only: 16 has no
-- COPY … ON_ERROR): bad input
-- of every native type is a soft error where the caller asks for one, with
-- the same SQLSTATE, message and detail as the hard error
-- (pg_input_is_valid, pg_input_error_info, COPY … ON_ERROR ignore), docs/sql-reference.md
-- "Errors". Binary input and bytea::T: the pg_test soft_errors_of_receive.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_flake;
RESET client_min_messages;

-- Every error path of the text inputs, with the hard error's report.
SELECT t AS type, input, pg_input_is_valid(input, t) AS valid, e.*
FROM (VALUES
    ('sno', 'brpk4q72xwf2m63l'),
    ('sno', 'brpk4q72xwf2m63'),
    ('sno', 'brpk4q72xwf2m63lm'),
    ('sno', 'brpk4q72xwf2m631'),
    ('sno', 'BRPK4Q72XWF2M63L'),
    ('sno', 'brpk4q72xwf2m63ü'),
    ('sno', ''),
    ('siq', 'crxckuyagku7racaaacmgzymuoabo'),
    ('siq', 'did:siq:crxckuyagku7racaaacmgzymuoabo'),
    ('siq', 'crxckuyagku7racaaacmgzymuoabp'),
    ('siq', 'crxckuyagku7racaaacmgzymuoab'),
    ('siq', 'did:sno:crxckuyagku7racaaacmgzymuoabo'),
    ('siq', 'crxckuyagku7racaaacmgzymuoab1'),
    ('flaxid', '17cQYV3E6XowHpdd'),
    ('flaxid', '17cQYV3E6XowHpd'),
    ('flaxid', '17cQYV3E6XowHpd+'),
    ('kuid96', '.5.tXa0xODNvPN.0'),
    ('kuid96', '.5.tXa0xODNvPN.'),
    ('kuid96', '.5.tXa0xODNvPN.-'),
    ('distributed_id', '1088824355131185736905670087'),
    ('distributed_id', ' 42 '),
    ('distributed_id', '10000000000000000000000000000'),
    ('distributed_id', '-1'),
    ('distributed_id', '1e5'),
    ('distributed_id', '')
) v(t, input), LATERAL pg_input_error_info(input, t) e
ORDER BY 1, 2;

-- COPY skips the bad rows of every type and keeps the good ones.
CREATE TEMP TABLE soft (sno sno, siq siq, flaxid flaxid, kuid96 kuid96, distributed_id distributed_id);
COPY soft FROM stdin WITH (ON_ERROR ignore);
brpk4q72xwf2m63l	crxckuyagku7racaaacmgzymuoabo	17cQYV3E6XowHpdd	.5.tXa0xODNvPN.0	1088824355131185736905670087
brpk4q72xwf2m63	crxckuyagku7racaaacmgzymuoabo	17cQYV3E6XowHpdd	.5.tXa0xODNvPN.0	1
brpk4q72xwf2m63l	crxckuyagku7racaaacmgzymuoabp	17cQYV3E6XowHpdd	.5.tXa0xODNvPN.0	2
brpk4q72xwf2m63l	crxckuyagku7racaaacmgzymuoabo	17cQYV3E6XowHpd	.5.tXa0xODNvPN.0	3
brpk4q72xwf2m63l	crxckuyagku7racaaacmgzymuoabo	17cQYV3E6XowHpdd	.5.tXa0xODNvPN.	4
brpk4q72xwf2m63l	crxckuyagku7racaaacmgzymuoabo	17cQYV3E6XowHpdd	.5.tXa0xODNvPN.0	10000000000000000000000000000
brpk4q72xwf2m63m	crxckuyagku7racaaacmgzymuoabo	17cQYV3E6XowHpdd	.5.tXa0xODNvPN.0	5
\.
SELECT * FROM soft;

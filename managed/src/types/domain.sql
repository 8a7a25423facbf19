-- The five types without pg_tle (docs/managed.md "Three ways in, two editions"): domains
-- over bytea holding exactly the native type's bytes, so that id::bytea is
-- the native value and byte order, hashing (bytea's hash_bytes) and
-- equality are the native type's. A CHECK keeps the length, and for
-- distributed_id the range; a wrong length is 22P03 and a value out of
-- range 22003, as the native types' binary input raises them. The checks
-- call the error functions only where a value fails (OR evaluates them
-- last), so a valid value costs one length() call.
--
-- What a domain cannot do: its text form is bytea's (\x...), so values are
-- written and read with <type>_from_text and <type>_to_text (api/*.sql),
-- and a domain has no operators of its own (bytea's apply, which are the
-- native order).

CREATE DOMAIN @extschema@.sno AS pg_catalog.bytea
    CHECK (VALUE IS NULL OR pg_catalog.length(VALUE) OPERATOR(pg_catalog.=) 10
           OR @extschema@._flake_invalid_binary('type sno', 'exactly 10',
                                                pg_catalog.length(VALUE)));

CREATE DOMAIN @extschema@.siq AS pg_catalog.bytea
    CHECK (VALUE IS NULL OR pg_catalog.length(VALUE) OPERATOR(pg_catalog.=) 14
           OR @extschema@._flake_invalid_binary('type siq',
                  '14, or 16 of which the first two are zero', pg_catalog.length(VALUE)));

CREATE DOMAIN @extschema@.flaxid AS pg_catalog.bytea
    CHECK (VALUE IS NULL OR pg_catalog.length(VALUE) OPERATOR(pg_catalog.=) 12
           OR @extschema@._flake_invalid_binary('type flaxid', 'exactly 12',
                                                pg_catalog.length(VALUE)));

CREATE DOMAIN @extschema@.kuid96 AS pg_catalog.bytea
    CHECK (VALUE IS NULL OR pg_catalog.length(VALUE) OPERATOR(pg_catalog.=) 12
           OR @extschema@._flake_invalid_binary('type kuid96', 'exactly 12',
                                                pg_catalog.length(VALUE)));

-- 12 bytes up to 10^28 - 1 (hex 204fce5e3e2502610fffffff): bytea compares
-- bytes first, so for 12 bytes that is numeric order.
CREATE DOMAIN @extschema@.distributed_id AS pg_catalog.bytea
    CHECK (VALUE IS NULL OR (pg_catalog.length(VALUE) OPERATOR(pg_catalog.=) 12
            OR @extschema@._flake_invalid_binary('type distributed_id', 'exactly 12',
                                                 pg_catalog.length(VALUE)))
           AND (VALUE OPERATOR(pg_catalog.<=) '\x204fce5e3e2502610fffffff'::pg_catalog.bytea
                OR @extschema@._flake_value_out_of_range('type distributed_id',
                       @extschema@._flake_numeric(VALUE)::pg_catalog.text,
                       '0 to 9999999999999999999999999999')));

-- min and max, as the native types have them (bytea has none before
-- PostgreSQL 18): the smaller or larger of two values in bytea's order,
-- which is the native order. No SORTOP: a domain has no < of its own.

CREATE FUNCTION @extschema@.sno_smaller(a @extschema@.sno, b @extschema@.sno) RETURNS @extschema@.sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.sno_larger(a @extschema@.sno, b @extschema@.sno) RETURNS @extschema@.sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.sno) (
    SFUNC = @extschema@.sno_smaller, STYPE = @extschema@.sno,
    COMBINEFUNC = @extschema@.sno_smaller, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.sno) (
    SFUNC = @extschema@.sno_larger, STYPE = @extschema@.sno,
    COMBINEFUNC = @extschema@.sno_larger, PARALLEL = SAFE);

CREATE FUNCTION @extschema@.siq_smaller(a @extschema@.siq, b @extschema@.siq) RETURNS @extschema@.siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.siq_larger(a @extschema@.siq, b @extschema@.siq) RETURNS @extschema@.siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.siq) (
    SFUNC = @extschema@.siq_smaller, STYPE = @extschema@.siq,
    COMBINEFUNC = @extschema@.siq_smaller, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.siq) (
    SFUNC = @extschema@.siq_larger, STYPE = @extschema@.siq,
    COMBINEFUNC = @extschema@.siq_larger, PARALLEL = SAFE);

CREATE FUNCTION @extschema@.flaxid_smaller(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS @extschema@.flaxid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.flaxid_larger(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS @extschema@.flaxid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.flaxid) (
    SFUNC = @extschema@.flaxid_smaller, STYPE = @extschema@.flaxid,
    COMBINEFUNC = @extschema@.flaxid_smaller, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.flaxid) (
    SFUNC = @extschema@.flaxid_larger, STYPE = @extschema@.flaxid,
    COMBINEFUNC = @extschema@.flaxid_larger, PARALLEL = SAFE);

CREATE FUNCTION @extschema@.kuid96_smaller(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS @extschema@.kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.kuid96_larger(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS @extschema@.kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.kuid96) (
    SFUNC = @extschema@.kuid96_smaller, STYPE = @extschema@.kuid96,
    COMBINEFUNC = @extschema@.kuid96_smaller, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.kuid96) (
    SFUNC = @extschema@.kuid96_larger, STYPE = @extschema@.kuid96,
    COMBINEFUNC = @extschema@.kuid96_larger, PARALLEL = SAFE);

CREATE FUNCTION @extschema@.distributed_id_smaller(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS @extschema@.distributed_id
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.distributed_id_larger(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS @extschema@.distributed_id
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.distributed_id) (
    SFUNC = @extschema@.distributed_id_smaller, STYPE = @extschema@.distributed_id,
    COMBINEFUNC = @extschema@.distributed_id_smaller, PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.distributed_id) (
    SFUNC = @extschema@.distributed_id_larger, STYPE = @extschema@.distributed_id,
    COMBINEFUNC = @extschema@.distributed_id_larger, PARALLEL = SAFE);

-- Text in and out: the native type's text input and output as functions
-- (a domain's text is bytea's), with the codecs' bodies (codec/*.sql) on
-- the domain, a bytea: one function call each.
CREATE FUNCTION @extschema@.sno_from_text(input text) RETURNS @extschema@.sno
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:sno_in@$$;
CREATE FUNCTION @extschema@.sno_to_text(id @extschema@.sno) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:sno_out@$$;
CREATE FUNCTION @extschema@.siq_from_text(input text) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:siq_in@$$;
CREATE FUNCTION @extschema@.siq_to_text(id @extschema@.siq) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:siq_out@$$;
CREATE FUNCTION @extschema@.flaxid_from_text(input text) RETURNS @extschema@.flaxid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:flaxid_in@$$;
CREATE FUNCTION @extschema@.flaxid_to_text(id @extschema@.flaxid) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:flaxid_out@$$;
CREATE FUNCTION @extschema@.kuid96_from_text(input text) RETURNS @extschema@.kuid96
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:kuid96_in@$$;
CREATE FUNCTION @extschema@.kuid96_to_text(id @extschema@.kuid96) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:kuid96_out@$$;
CREATE FUNCTION @extschema@.distributed_id_from_text(input text) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:distributed_id_in@$$;
CREATE FUNCTION @extschema@.distributed_id_to_text(id @extschema@.distributed_id) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$@body:distributed_id_out@$$;

-- The native types' functions around their operators and casts: on a
-- domain, the comparisons are bytea's, the same order.

CREATE FUNCTION @extschema@.sno_from_bytea(bytes bytea) RETURNS @extschema@.sno
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@._sno_bytes(bytes)::@extschema@.sno; END $$;
CREATE FUNCTION @extschema@.sno_cmp(a @extschema@.sno, b @extschema@.sno) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT sign(byteacmp(a, b))::integer $$;
CREATE FUNCTION @extschema@.sno_eq(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea = b::bytea $$;
CREATE FUNCTION @extschema@.sno_ne(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <> b::bytea $$;
CREATE FUNCTION @extschema@.sno_lt(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea < b::bytea $$;
CREATE FUNCTION @extschema@.sno_le(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <= b::bytea $$;
CREATE FUNCTION @extschema@.sno_gt(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea > b::bytea $$;
CREATE FUNCTION @extschema@.sno_ge(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea >= b::bytea $$;

CREATE FUNCTION @extschema@.siq_from_bytea(bytes bytea) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@._siq_bytes(bytes)::@extschema@.siq; END $$;
CREATE FUNCTION @extschema@.siq_cmp(a @extschema@.siq, b @extschema@.siq) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT sign(byteacmp(a, b))::integer $$;
CREATE FUNCTION @extschema@.siq_eq(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea = b::bytea $$;
CREATE FUNCTION @extschema@.siq_ne(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <> b::bytea $$;
CREATE FUNCTION @extschema@.siq_lt(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea < b::bytea $$;
CREATE FUNCTION @extschema@.siq_le(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <= b::bytea $$;
CREATE FUNCTION @extschema@.siq_gt(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea > b::bytea $$;
CREATE FUNCTION @extschema@.siq_ge(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea >= b::bytea $$;

CREATE FUNCTION @extschema@.flaxid_from_bytea(bytes bytea) RETURNS @extschema@.flaxid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@._flaxid_bytes(bytes)::@extschema@.flaxid; END $$;
CREATE FUNCTION @extschema@.flaxid_cmp(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT sign(byteacmp(a, b))::integer $$;
CREATE FUNCTION @extschema@.flaxid_eq(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea = b::bytea $$;
CREATE FUNCTION @extschema@.flaxid_ne(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <> b::bytea $$;
CREATE FUNCTION @extschema@.flaxid_lt(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea < b::bytea $$;
CREATE FUNCTION @extschema@.flaxid_le(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <= b::bytea $$;
CREATE FUNCTION @extschema@.flaxid_gt(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea > b::bytea $$;
CREATE FUNCTION @extschema@.flaxid_ge(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea >= b::bytea $$;

CREATE FUNCTION @extschema@.kuid96_from_bytea(bytes bytea) RETURNS @extschema@.kuid96
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@._kuid96_bytes(bytes)::@extschema@.kuid96; END $$;
CREATE FUNCTION @extschema@.kuid96_cmp(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT sign(byteacmp(a, b))::integer $$;
CREATE FUNCTION @extschema@.kuid96_eq(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea = b::bytea $$;
CREATE FUNCTION @extschema@.kuid96_ne(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <> b::bytea $$;
CREATE FUNCTION @extschema@.kuid96_lt(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea < b::bytea $$;
CREATE FUNCTION @extschema@.kuid96_le(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <= b::bytea $$;
CREATE FUNCTION @extschema@.kuid96_gt(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea > b::bytea $$;
CREATE FUNCTION @extschema@.kuid96_ge(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea >= b::bytea $$;

CREATE FUNCTION @extschema@.distributed_id_from_bytea(bytes bytea) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@._distributed_id_bytes(bytes)::@extschema@.distributed_id; END $$;
CREATE FUNCTION @extschema@.distributed_id_cmp(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT sign(byteacmp(a, b))::integer $$;
CREATE FUNCTION @extschema@.distributed_id_eq(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea = b::bytea $$;
CREATE FUNCTION @extschema@.distributed_id_ne(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <> b::bytea $$;
CREATE FUNCTION @extschema@.distributed_id_lt(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea < b::bytea $$;
CREATE FUNCTION @extschema@.distributed_id_le(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea <= b::bytea $$;
CREATE FUNCTION @extschema@.distributed_id_gt(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea > b::bytea $$;
CREATE FUNCTION @extschema@.distributed_id_ge(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT a::bytea >= b::bytea $$;

-- The five types with pg_tle (docs/managed.md "Three ways in, two editions"): fixed-length
-- base types with the native names and lengths, made by pg_tle's
-- create_shell_type and create_base_type from the codecs' text I/O
-- (codec/*.sql: <type>_in(text) -> bytea, <type>_out(bytea) -> text). pg_tle
-- keeps a value as a bytea of that length (a 4-byte header and the bytes,
-- int4-aligned): id::bytea, the binary cast pg_tle makes, is exactly the
-- native value.
--
-- Operators: PL/pgSQL comparisons of the bytes on the type itself (not
-- pg_tle's create_operator_func, whose bytea overloads make a call with
-- untyped literals, sno_cmp('...', '...'), ambiguous where the native one
-- resolves, and which looks its function up by name on every call: 16 µs
-- a comparison against 10 here, docs/managed.md "Three ways in, two editions"). The
-- operator classes support
-- btree, sorting and hashing with PostgreSQL's own bytea functions
-- (byteacmp, bytea_sortsupport, hashvarlena), which read pg_tle's values as
-- the bytea they are: an index, ORDER BY, a hash join or a hash partition
-- runs at bytea's speed, and hashes are the native types' (hash_bytes over
-- the bytes). CREATE OPERATOR CLASS needs a superuser on PostgreSQL itself
-- (RDS and Aurora let rds_superuser): without the right, the types come
-- without operator classes and a WARNING says how to add them
-- (docs/managed.md "Installing").
--
-- bytea::<type> goes through the type's text (its cast function checks the
-- length, 22P03, and the range, 22003): pg_tle makes no bytea-to-type cast,
-- and a binary-coercible one needs a superuser.

-- == sno (10 bytes) =============================================================

SELECT pgtle.create_shell_type('@extschema@', 'sno');
SELECT pgtle.create_base_type('@extschema@', 'sno', '@extschema@.sno_in(text)'::pg_catalog.regprocedure,
    '@extschema@.sno_out(bytea)'::pg_catalog.regprocedure, 10);

CREATE FUNCTION @extschema@.sno_eq(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea = b::bytea; END $$;
CREATE FUNCTION @extschema@.sno_ne(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <> b::bytea; END $$;
CREATE FUNCTION @extschema@.sno_lt(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea < b::bytea; END $$;
CREATE FUNCTION @extschema@.sno_le(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <= b::bytea; END $$;
CREATE FUNCTION @extschema@.sno_gt(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea > b::bytea; END $$;
CREATE FUNCTION @extschema@.sno_ge(a @extschema@.sno, b @extschema@.sno) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea >= b::bytea; END $$;
CREATE FUNCTION @extschema@.sno_cmp(a @extschema@.sno, b @extschema@.sno) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN sign(byteacmp(a::bytea, b::bytea))::integer; END $$;
CREATE FUNCTION @extschema@.sno_from_text(input text) RETURNS @extschema@.sno
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN input::@extschema@.sno; END $$;
CREATE FUNCTION @extschema@.sno_to_text(id @extschema@.sno) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN id::text; END $$;


CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.sno, RIGHTARG = @extschema@.sno, FUNCTION = @extschema@.sno_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.sno_from_bytea(bytes bytea) RETURNS @extschema@.sno
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@.sno_out(@extschema@._sno_bytes(bytes))::@extschema@.sno; END $$;
CREATE CAST (bytea AS @extschema@.sno) WITH FUNCTION @extschema@.sno_from_bytea(bytea);

CREATE FUNCTION @extschema@.sno_smaller(a @extschema@.sno, b @extschema@.sno) RETURNS @extschema@.sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.sno_larger(a @extschema@.sno, b @extschema@.sno) RETURNS @extschema@.sno
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.sno) (
    SFUNC = @extschema@.sno_smaller, STYPE = @extschema@.sno, COMBINEFUNC = @extschema@.sno_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.sno) (
    SFUNC = @extschema@.sno_larger, STYPE = @extschema@.sno, COMBINEFUNC = @extschema@.sno_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);

-- == siq (14 bytes) =============================================================

SELECT pgtle.create_shell_type('@extschema@', 'siq');
SELECT pgtle.create_base_type('@extschema@', 'siq', '@extschema@.siq_in(text)'::pg_catalog.regprocedure,
    '@extschema@.siq_out(bytea)'::pg_catalog.regprocedure, 14);

CREATE FUNCTION @extschema@.siq_eq(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea = b::bytea; END $$;
CREATE FUNCTION @extschema@.siq_ne(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <> b::bytea; END $$;
CREATE FUNCTION @extschema@.siq_lt(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea < b::bytea; END $$;
CREATE FUNCTION @extschema@.siq_le(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <= b::bytea; END $$;
CREATE FUNCTION @extschema@.siq_gt(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea > b::bytea; END $$;
CREATE FUNCTION @extschema@.siq_ge(a @extschema@.siq, b @extschema@.siq) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea >= b::bytea; END $$;
CREATE FUNCTION @extschema@.siq_cmp(a @extschema@.siq, b @extschema@.siq) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN sign(byteacmp(a::bytea, b::bytea))::integer; END $$;
CREATE FUNCTION @extschema@.siq_from_text(input text) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN input::@extschema@.siq; END $$;
CREATE FUNCTION @extschema@.siq_to_text(id @extschema@.siq) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN id::text; END $$;


CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.siq, RIGHTARG = @extschema@.siq, FUNCTION = @extschema@.siq_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.siq_from_bytea(bytes bytea) RETURNS @extschema@.siq
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@.siq_out(@extschema@._siq_bytes(bytes))::@extschema@.siq; END $$;
CREATE CAST (bytea AS @extschema@.siq) WITH FUNCTION @extschema@.siq_from_bytea(bytea);

CREATE FUNCTION @extschema@.siq_smaller(a @extschema@.siq, b @extschema@.siq) RETURNS @extschema@.siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.siq_larger(a @extschema@.siq, b @extschema@.siq) RETURNS @extschema@.siq
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.siq) (
    SFUNC = @extschema@.siq_smaller, STYPE = @extschema@.siq, COMBINEFUNC = @extschema@.siq_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.siq) (
    SFUNC = @extschema@.siq_larger, STYPE = @extschema@.siq, COMBINEFUNC = @extschema@.siq_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);

-- == flaxid (12 bytes) ==========================================================

SELECT pgtle.create_shell_type('@extschema@', 'flaxid');
SELECT pgtle.create_base_type('@extschema@', 'flaxid', '@extschema@.flaxid_in(text)'::pg_catalog.regprocedure,
    '@extschema@.flaxid_out(bytea)'::pg_catalog.regprocedure, 12);

CREATE FUNCTION @extschema@.flaxid_eq(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea = b::bytea; END $$;
CREATE FUNCTION @extschema@.flaxid_ne(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <> b::bytea; END $$;
CREATE FUNCTION @extschema@.flaxid_lt(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea < b::bytea; END $$;
CREATE FUNCTION @extschema@.flaxid_le(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <= b::bytea; END $$;
CREATE FUNCTION @extschema@.flaxid_gt(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea > b::bytea; END $$;
CREATE FUNCTION @extschema@.flaxid_ge(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea >= b::bytea; END $$;
CREATE FUNCTION @extschema@.flaxid_cmp(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN sign(byteacmp(a::bytea, b::bytea))::integer; END $$;
CREATE FUNCTION @extschema@.flaxid_from_text(input text) RETURNS @extschema@.flaxid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN input::@extschema@.flaxid; END $$;
CREATE FUNCTION @extschema@.flaxid_to_text(id @extschema@.flaxid) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN id::text; END $$;


CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.flaxid, RIGHTARG = @extschema@.flaxid, FUNCTION = @extschema@.flaxid_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.flaxid_from_bytea(bytes bytea) RETURNS @extschema@.flaxid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@.flaxid_out(@extschema@._flaxid_bytes(bytes))::@extschema@.flaxid; END $$;
CREATE CAST (bytea AS @extschema@.flaxid) WITH FUNCTION @extschema@.flaxid_from_bytea(bytea);

CREATE FUNCTION @extschema@.flaxid_smaller(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS @extschema@.flaxid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.flaxid_larger(a @extschema@.flaxid, b @extschema@.flaxid) RETURNS @extschema@.flaxid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.flaxid) (
    SFUNC = @extschema@.flaxid_smaller, STYPE = @extschema@.flaxid, COMBINEFUNC = @extschema@.flaxid_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.flaxid) (
    SFUNC = @extschema@.flaxid_larger, STYPE = @extschema@.flaxid, COMBINEFUNC = @extschema@.flaxid_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);

-- == kuid96 (12 bytes) ==========================================================

SELECT pgtle.create_shell_type('@extschema@', 'kuid96');
SELECT pgtle.create_base_type('@extschema@', 'kuid96', '@extschema@.kuid96_in(text)'::pg_catalog.regprocedure,
    '@extschema@.kuid96_out(bytea)'::pg_catalog.regprocedure, 12);

CREATE FUNCTION @extschema@.kuid96_eq(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea = b::bytea; END $$;
CREATE FUNCTION @extschema@.kuid96_ne(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <> b::bytea; END $$;
CREATE FUNCTION @extschema@.kuid96_lt(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea < b::bytea; END $$;
CREATE FUNCTION @extschema@.kuid96_le(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <= b::bytea; END $$;
CREATE FUNCTION @extschema@.kuid96_gt(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea > b::bytea; END $$;
CREATE FUNCTION @extschema@.kuid96_ge(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea >= b::bytea; END $$;
CREATE FUNCTION @extschema@.kuid96_cmp(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN sign(byteacmp(a::bytea, b::bytea))::integer; END $$;
CREATE FUNCTION @extschema@.kuid96_from_text(input text) RETURNS @extschema@.kuid96
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN input::@extschema@.kuid96; END $$;
CREATE FUNCTION @extschema@.kuid96_to_text(id @extschema@.kuid96) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN id::text; END $$;


CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.kuid96, RIGHTARG = @extschema@.kuid96, FUNCTION = @extschema@.kuid96_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.kuid96_from_bytea(bytes bytea) RETURNS @extschema@.kuid96
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@.kuid96_out(@extschema@._kuid96_bytes(bytes))::@extschema@.kuid96; END $$;
CREATE CAST (bytea AS @extschema@.kuid96) WITH FUNCTION @extschema@.kuid96_from_bytea(bytea);

CREATE FUNCTION @extschema@.kuid96_smaller(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS @extschema@.kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.kuid96_larger(a @extschema@.kuid96, b @extschema@.kuid96) RETURNS @extschema@.kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.kuid96) (
    SFUNC = @extschema@.kuid96_smaller, STYPE = @extschema@.kuid96, COMBINEFUNC = @extschema@.kuid96_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.kuid96) (
    SFUNC = @extschema@.kuid96_larger, STYPE = @extschema@.kuid96, COMBINEFUNC = @extschema@.kuid96_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);

-- == distributed_id (12 bytes) ==================================================

SELECT pgtle.create_shell_type('@extschema@', 'distributed_id');
SELECT pgtle.create_base_type('@extschema@', 'distributed_id', '@extschema@.distributed_id_in(text)'::pg_catalog.regprocedure,
    '@extschema@.distributed_id_out(bytea)'::pg_catalog.regprocedure, 12);

CREATE FUNCTION @extschema@.distributed_id_eq(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea = b::bytea; END $$;
CREATE FUNCTION @extschema@.distributed_id_ne(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <> b::bytea; END $$;
CREATE FUNCTION @extschema@.distributed_id_lt(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea < b::bytea; END $$;
CREATE FUNCTION @extschema@.distributed_id_le(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea <= b::bytea; END $$;
CREATE FUNCTION @extschema@.distributed_id_gt(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea > b::bytea; END $$;
CREATE FUNCTION @extschema@.distributed_id_ge(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN a::bytea >= b::bytea; END $$;
CREATE FUNCTION @extschema@.distributed_id_cmp(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN sign(byteacmp(a::bytea, b::bytea))::integer; END $$;
CREATE FUNCTION @extschema@.distributed_id_from_text(input text) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN input::@extschema@.distributed_id; END $$;
CREATE FUNCTION @extschema@.distributed_id_to_text(id @extschema@.distributed_id) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN id::text; END $$;


CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.distributed_id, RIGHTARG = @extschema@.distributed_id, FUNCTION = @extschema@.distributed_id_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE FUNCTION @extschema@.distributed_id_from_bytea(bytes bytea) RETURNS @extschema@.distributed_id
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ BEGIN RETURN @extschema@.distributed_id_out(@extschema@._distributed_id_bytes(bytes))::@extschema@.distributed_id; END $$;
CREATE CAST (bytea AS @extschema@.distributed_id) WITH FUNCTION @extschema@.distributed_id_from_bytea(bytea);

CREATE FUNCTION @extschema@.distributed_id_smaller(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS @extschema@.distributed_id
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea <= b::bytea THEN a ELSE b END $$;
CREATE FUNCTION @extschema@.distributed_id_larger(a @extschema@.distributed_id, b @extschema@.distributed_id) RETURNS @extschema@.distributed_id
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT CASE WHEN a::bytea >= b::bytea THEN a ELSE b END $$;
CREATE AGGREGATE @extschema@.min(@extschema@.distributed_id) (
    SFUNC = @extschema@.distributed_id_smaller, STYPE = @extschema@.distributed_id, COMBINEFUNC = @extschema@.distributed_id_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
CREATE AGGREGATE @extschema@.max(@extschema@.distributed_id) (
    SFUNC = @extschema@.distributed_id_larger, STYPE = @extschema@.distributed_id, COMBINEFUNC = @extschema@.distributed_id_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);

-- == Operator classes ===========================================================
-- btree (default): byteacmp and bytea's sort support on the bytes; hash
-- (default): hashvarlena, PostgreSQL's hash_bytes over the bytes, as the
-- native types hash; BRIN minmax (default). CREATE OPERATOR CLASS is
-- PostgreSQL's superusers' (RDS and Aurora also let rds_superuser):
-- CREATE EXTENSION by another role makes the types without them, with a
-- WARNING, and a superuser adds them later with
-- SELECT pg_flake_sql_operator_classes() (docs/managed.md
-- "Installing"), which also makes them members of the extension.
CREATE FUNCTION @extschema@.pg_flake_sql_operator_classes(add_to_extension boolean DEFAULT true)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    CREATE OPERATOR CLASS @extschema@.sno_ops DEFAULT FOR TYPE @extschema@.sno USING btree AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 (@extschema@.sno, @extschema@.sno) pg_catalog.byteacmp(bytea, bytea),
        FUNCTION 2 (@extschema@.sno, @extschema@.sno) pg_catalog.bytea_sortsupport(internal),
        FUNCTION 4 (@extschema@.sno, @extschema@.sno) pg_catalog.btequalimage(oid);
    CREATE OPERATOR CLASS @extschema@.sno_hash_ops DEFAULT FOR TYPE @extschema@.sno USING hash AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 (@extschema@.sno, @extschema@.sno) pg_catalog.hashvarlena(internal),
        FUNCTION 2 (@extschema@.sno, @extschema@.sno) pg_catalog.hashvarlenaextended(internal, int8);
    CREATE OPERATOR CLASS @extschema@.sno_minmax_ops DEFAULT FOR TYPE @extschema@.sno USING brin AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
        FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);
    CREATE OPERATOR CLASS @extschema@.siq_ops DEFAULT FOR TYPE @extschema@.siq USING btree AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 (@extschema@.siq, @extschema@.siq) pg_catalog.byteacmp(bytea, bytea),
        FUNCTION 2 (@extschema@.siq, @extschema@.siq) pg_catalog.bytea_sortsupport(internal),
        FUNCTION 4 (@extschema@.siq, @extschema@.siq) pg_catalog.btequalimage(oid);
    CREATE OPERATOR CLASS @extschema@.siq_hash_ops DEFAULT FOR TYPE @extschema@.siq USING hash AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 (@extschema@.siq, @extschema@.siq) pg_catalog.hashvarlena(internal),
        FUNCTION 2 (@extschema@.siq, @extschema@.siq) pg_catalog.hashvarlenaextended(internal, int8);
    CREATE OPERATOR CLASS @extschema@.siq_minmax_ops DEFAULT FOR TYPE @extschema@.siq USING brin AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
        FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);
    CREATE OPERATOR CLASS @extschema@.flaxid_ops DEFAULT FOR TYPE @extschema@.flaxid USING btree AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 (@extschema@.flaxid, @extschema@.flaxid) pg_catalog.byteacmp(bytea, bytea),
        FUNCTION 2 (@extschema@.flaxid, @extschema@.flaxid) pg_catalog.bytea_sortsupport(internal),
        FUNCTION 4 (@extschema@.flaxid, @extschema@.flaxid) pg_catalog.btequalimage(oid);
    CREATE OPERATOR CLASS @extschema@.flaxid_hash_ops DEFAULT FOR TYPE @extschema@.flaxid USING hash AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 (@extschema@.flaxid, @extschema@.flaxid) pg_catalog.hashvarlena(internal),
        FUNCTION 2 (@extschema@.flaxid, @extschema@.flaxid) pg_catalog.hashvarlenaextended(internal, int8);
    CREATE OPERATOR CLASS @extschema@.flaxid_minmax_ops DEFAULT FOR TYPE @extschema@.flaxid USING brin AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
        FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);
    CREATE OPERATOR CLASS @extschema@.kuid96_ops DEFAULT FOR TYPE @extschema@.kuid96 USING btree AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 (@extschema@.kuid96, @extschema@.kuid96) pg_catalog.byteacmp(bytea, bytea),
        FUNCTION 2 (@extschema@.kuid96, @extschema@.kuid96) pg_catalog.bytea_sortsupport(internal),
        FUNCTION 4 (@extschema@.kuid96, @extschema@.kuid96) pg_catalog.btequalimage(oid);
    CREATE OPERATOR CLASS @extschema@.kuid96_hash_ops DEFAULT FOR TYPE @extschema@.kuid96 USING hash AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 (@extschema@.kuid96, @extschema@.kuid96) pg_catalog.hashvarlena(internal),
        FUNCTION 2 (@extschema@.kuid96, @extschema@.kuid96) pg_catalog.hashvarlenaextended(internal, int8);
    CREATE OPERATOR CLASS @extschema@.kuid96_minmax_ops DEFAULT FOR TYPE @extschema@.kuid96 USING brin AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
        FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);
    CREATE OPERATOR CLASS @extschema@.distributed_id_ops DEFAULT FOR TYPE @extschema@.distributed_id USING btree AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 (@extschema@.distributed_id, @extschema@.distributed_id) pg_catalog.byteacmp(bytea, bytea),
        FUNCTION 2 (@extschema@.distributed_id, @extschema@.distributed_id) pg_catalog.bytea_sortsupport(internal),
        FUNCTION 4 (@extschema@.distributed_id, @extschema@.distributed_id) pg_catalog.btequalimage(oid);
    CREATE OPERATOR CLASS @extschema@.distributed_id_hash_ops DEFAULT FOR TYPE @extschema@.distributed_id USING hash AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 (@extschema@.distributed_id, @extschema@.distributed_id) pg_catalog.hashvarlena(internal),
        FUNCTION 2 (@extschema@.distributed_id, @extschema@.distributed_id) pg_catalog.hashvarlenaextended(internal, int8);
    CREATE OPERATOR CLASS @extschema@.distributed_id_minmax_ops DEFAULT FOR TYPE @extschema@.distributed_id USING brin AS
        OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
        FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
        FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);
    IF add_to_extension THEN
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.sno_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.sno_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.sno_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.sno_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.sno_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.sno_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.siq_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.siq_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.siq_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.siq_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.siq_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.siq_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.flaxid_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.flaxid_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.flaxid_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.flaxid_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.flaxid_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.flaxid_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.kuid96_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.kuid96_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.kuid96_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.kuid96_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.kuid96_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.kuid96_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.distributed_id_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.distributed_id_ops USING btree;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.distributed_id_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.distributed_id_hash_ops USING hash;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR CLASS @extschema@.distributed_id_minmax_ops USING brin;
        ALTER EXTENSION pg_flake_sql ADD OPERATOR FAMILY @extschema@.distributed_id_minmax_ops USING brin;
    END IF;
END
$$;
REVOKE EXECUTE ON FUNCTION @extschema@.pg_flake_sql_operator_classes(boolean) FROM PUBLIC;

DO $opclasses$
BEGIN
    PERFORM @extschema@.pg_flake_sql_operator_classes(false);
EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'pg_flake_sql: the types sno, siq, flaxid, kuid96 and distributed_id have no operator classes: %', SQLERRM
        USING HINT = 'Without them ORDER BY, PRIMARY KEY and indexes on these types fail. A superuser (on RDS and Aurora, rds_superuser) runs SELECT pg_flake_sql_operator_classes() in this database (docs/managed.md "Installing").';
END
$opclasses$;

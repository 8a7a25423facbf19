-- SIQ's codecs on the stored bytes (docs/formats/siq.md#text-forms): the
-- DID body (29 base32 characters over a frame of two zero bytes, the
-- CRC-32 of the 14 bytes and the 14 bytes), hex, base64, the 112-bit
-- integer; the kinds (docs/formats/siq.md#kinds) and the domain hash.

-- CRC-32 (zlib's polynomial) of the bytes: PostgreSQL 18's crc32(), or a
-- table-driven one in PL/pgSQL before it.
DO $crc32$
BEGIN
    IF pg_catalog.to_regprocedure('pg_catalog.crc32(bytea)') IS NOT NULL THEN
        CREATE FUNCTION @extschema@._flake_crc32(b bytea) RETURNS bigint
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            SET search_path = pg_catalog, pg_temp
            AS $f$ SELECT crc32(b) $f$;
    ELSE
        CREATE FUNCTION @extschema@._flake_crc32(b bytea) RETURNS bigint
            LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
            SET search_path = pg_catalog, pg_temp
            AS $f$
DECLARE
    crc bigint := 4294967295;
    tbl constant bigint[] := ARRAY[
        0, 1996959894, 3993919788, 2567524794, 124634137, 1886057615, 3915621685, 2657392035,
        249268274, 2044508324, 3772115230, 2547177864, 162941995, 2125561021, 3887607047, 2428444049,
        498536548, 1789927666, 4089016648, 2227061214, 450548861, 1843258603, 4107580753, 2211677639,
        325883990, 1684777152, 4251122042, 2321926636, 335633487, 1661365465, 4195302755, 2366115317,
        997073096, 1281953886, 3579855332, 2724688242, 1006888145, 1258607687, 3524101629, 2768942443,
        901097722, 1119000684, 3686517206, 2898065728, 853044451, 1172266101, 3705015759, 2882616665,
        651767980, 1373503546, 3369554304, 3218104598, 565507253, 1454621731, 3485111705, 3099436303,
        671266974, 1594198024, 3322730930, 2970347812, 795835527, 1483230225, 3244367275, 3060149565,
        1994146192, 31158534, 2563907772, 4023717930, 1907459465, 112637215, 2680153253, 3904427059,
        2013776290, 251722036, 2517215374, 3775830040, 2137656763, 141376813, 2439277719, 3865271297,
        1802195444, 476864866, 2238001368, 4066508878, 1812370925, 453092731, 2181625025, 4111451223,
        1706088902, 314042704, 2344532202, 4240017532, 1658658271, 366619977, 2362670323, 4224994405,
        1303535960, 984961486, 2747007092, 3569037538, 1256170817, 1037604311, 2765210733, 3554079995,
        1131014506, 879679996, 2909243462, 3663771856, 1141124467, 855842277, 2852801631, 3708648649,
        1342533948, 654459306, 3188396048, 3373015174, 1466479909, 544179635, 3110523913, 3462522015,
        1591671054, 702138776, 2966460450, 3352799412, 1504918807, 783551873, 3082640443, 3233442989,
        3988292384, 2596254646, 62317068, 1957810842, 3939845945, 2647816111, 81470997, 1943803523,
        3814918930, 2489596804, 225274430, 2053790376, 3826175755, 2466906013, 167816743, 2097651377,
        4027552580, 2265490386, 503444072, 1762050814, 4150417245, 2154129355, 426522225, 1852507879,
        4275313526, 2312317920, 282753626, 1742555852, 4189708143, 2394877945, 397917763, 1622183637,
        3604390888, 2714866558, 953729732, 1340076626, 3518719985, 2797360999, 1068828381, 1219638859,
        3624741850, 2936675148, 906185462, 1090812512, 3747672003, 2825379669, 829329135, 1181335161,
        3412177804, 3160834842, 628085408, 1382605366, 3423369109, 3138078467, 570562233, 1426400815,
        3317316542, 2998733608, 733239954, 1555261956, 3268935591, 3050360625, 752459403, 1541320221,
        2607071920, 3965973030, 1969922972, 40735498, 2617837225, 3943577151, 1913087877, 83908371,
        2512341634, 3803740692, 2075208622, 213261112, 2463272603, 3855990285, 2094854071, 198958881,
        2262029012, 4057260610, 1759359992, 534414190, 2176718541, 4139329115, 1873836001, 414664567,
        2282248934, 4279200368, 1711684554, 285281116, 2405801727, 4167216745, 1634467795, 376229701,
        2685067896, 3608007406, 1308918612, 956543938, 2808555105, 3495958263, 1231636301, 1047427035,
        2932959818, 3654703836, 1088359270, 936918000, 2847714899, 3736837829, 1202900863, 817233897,
        3183342108, 3401237130, 1404277552, 615818150, 3134207493, 3453421203, 1423857449, 601450431,
        3009837614, 3294710456, 1567103746, 711928724, 3020668471, 3272380065, 1510334235, 755167117    ];
BEGIN
    FOR i IN 0 .. length(b) - 1 LOOP
        crc := tbl[((crc # get_byte(b, i)) & 255) + 1] # (crc >> 8);
    END LOOP;
    RETURN crc # 4294967295;
END
$f$;
    END IF;
END
$crc32$;

-- The kind named `kind` (case-insensitively) as (suffix, suffix bits);
-- 22023 for an unknown one.
CREATE FUNCTION @extschema@._siq_kind(kind text, OUT suffix integer, OUT bits integer)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    CASE lower(kind)
        WHEN 'user' THEN suffix := 0; bits := 5;
        WHEN 'application' THEN suffix := 16; bits := 5;
        WHEN 'event' THEN suffix := 8; bits := 5;
        WHEN 'premium' THEN suffix := 24; bits := 5;
        WHEN 'group' THEN suffix := 4; bits := 5;
        WHEN 'collection' THEN suffix := 20; bits := 5;
        WHEN 'invite' THEN suffix := 12; bits := 5;
        WHEN 'tag' THEN suffix := 2; bits := 5;
        WHEN 'channel' THEN suffix := 10; bits := 5;
        WHEN 'thread' THEN suffix := 6; bits := 4;
        WHEN 'message' THEN suffix := 14; bits := 4;
        WHEN 'ternary' THEN suffix := 1; bits := 3;
        WHEN 'manytomany' THEN suffix := 5; bits := 3;
        WHEN 'multi' THEN suffix := 3; bits := 3;
        WHEN 'content' THEN suffix := 7; bits := 3;
        ELSE
            RAISE EXCEPTION 'unknown SIQ kind "%"; accepted kinds: user, application, event, premium, group, collection, invite, tag, channel, thread, message, ternary, manytomany, multi, content', kind
                USING ERRCODE = '22023';
    END CASE;
END
$$;

-- The kind of a low16, NULL for an unassigned 5-bit suffix: a final 1 is
-- a 3-bit suffix, a final 110 a 4-bit one, anything else 5 bits.
CREATE FUNCTION @extschema@._siq_kind_of(low16 integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT CASE
        WHEN low16 & 1 = 1 THEN
            CASE low16 & 7 WHEN 1 THEN 'ternary' WHEN 5 THEN 'manytomany' WHEN 3 THEN 'multi'
                           ELSE 'content' END
        WHEN low16 & 7 = 6 THEN
            CASE low16 & 15 WHEN 6 THEN 'thread' ELSE 'message' END
        ELSE
            CASE low16 & 31 WHEN 0 THEN 'user' WHEN 16 THEN 'application' WHEN 8 THEN 'event'
                            WHEN 24 THEN 'premium' WHEN 4 THEN 'group' WHEN 20 THEN 'collection'
                            WHEN 12 THEN 'invite' WHEN 2 THEN 'tag' WHEN 10 THEN 'channel' END
    END
$$;

-- The serial of a low16: the bits above its suffix (5 for unassigned ones).
CREATE FUNCTION @extschema@._siq_serial_of(low16 integer) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT low16 >> CASE WHEN low16 & 1 = 1 THEN 3 WHEN low16 & 7 = 6 THEN 4 ELSE 5 END
$$;

-- siq_domain_hash of a domain: the last 4 bytes of its SHA-256, ASCII only
-- (22023), '' and '0' are 0 (docs/formats/siq.md#domain-hash).
CREATE FUNCTION @extschema@.siq_domain_name_hash(domain text) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF domain !~ '^[\x01-\x7f]*$' THEN
        RAISE EXCEPTION 'SIQ domain "%" is not ASCII; pass the punycode (IDNA) form of the domain', domain
            USING ERRCODE = '22023';
    END IF;
    IF domain = '' OR domain = '0' THEN
        RETURN 0;
    END IF;
    RETURN ('x' || encode(substr(sha256(convert_to(domain, 'UTF8')), 29, 4), 'hex'))::bit(32)::bigint;
END
$$;

-- The DID body: any case, optionally after did:siq:; 22P02 for another
-- length, a character outside the alphabet, a first character beyond p, or
-- a checksum that does not match.
CREATE FUNCTION @extschema@.siq_in(input text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    body text := input;
    c bytea;
    g0 bigint;
    g1 bigint;
    g2 bigint;
    g3 bigint;
    frame bytea;
BEGIN
    IF lower(left(body, 8)) = 'did:siq:' THEN
        body := substr(body, 9);
    END IF;
    body := lower(body);
    IF body !~ '^[a-p][a-z2-7]{28}$' THEN
        PERFORM @extschema@._flake_invalid_text('type siq', input,
            '29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by "did:siq:"');
    END IF;
    -- The frame's 160 bits are 32 characters, the first three 'aaa'.
    c := convert_to('aaa' || body, 'UTF8');
    g0 := ((get_byte(c, 0) - CASE WHEN get_byte(c, 0) >= 97 THEN 97 ELSE 24 END)::bigint << 35)
        | ((get_byte(c, 1) - CASE WHEN get_byte(c, 1) >= 97 THEN 97 ELSE 24 END)::bigint << 30)
        | ((get_byte(c, 2) - CASE WHEN get_byte(c, 2) >= 97 THEN 97 ELSE 24 END)::bigint << 25)
        | ((get_byte(c, 3) - CASE WHEN get_byte(c, 3) >= 97 THEN 97 ELSE 24 END)::bigint << 20)
        | ((get_byte(c, 4) - CASE WHEN get_byte(c, 4) >= 97 THEN 97 ELSE 24 END)::bigint << 15)
        | ((get_byte(c, 5) - CASE WHEN get_byte(c, 5) >= 97 THEN 97 ELSE 24 END)::bigint << 10)
        | ((get_byte(c, 6) - CASE WHEN get_byte(c, 6) >= 97 THEN 97 ELSE 24 END)::bigint << 5)
        | (get_byte(c, 7) - CASE WHEN get_byte(c, 7) >= 97 THEN 97 ELSE 24 END)::bigint;
    g1 := ((get_byte(c, 8) - CASE WHEN get_byte(c, 8) >= 97 THEN 97 ELSE 24 END)::bigint << 35)
        | ((get_byte(c, 9) - CASE WHEN get_byte(c, 9) >= 97 THEN 97 ELSE 24 END)::bigint << 30)
        | ((get_byte(c, 10) - CASE WHEN get_byte(c, 10) >= 97 THEN 97 ELSE 24 END)::bigint << 25)
        | ((get_byte(c, 11) - CASE WHEN get_byte(c, 11) >= 97 THEN 97 ELSE 24 END)::bigint << 20)
        | ((get_byte(c, 12) - CASE WHEN get_byte(c, 12) >= 97 THEN 97 ELSE 24 END)::bigint << 15)
        | ((get_byte(c, 13) - CASE WHEN get_byte(c, 13) >= 97 THEN 97 ELSE 24 END)::bigint << 10)
        | ((get_byte(c, 14) - CASE WHEN get_byte(c, 14) >= 97 THEN 97 ELSE 24 END)::bigint << 5)
        | (get_byte(c, 15) - CASE WHEN get_byte(c, 15) >= 97 THEN 97 ELSE 24 END)::bigint;
    g2 := ((get_byte(c, 16) - CASE WHEN get_byte(c, 16) >= 97 THEN 97 ELSE 24 END)::bigint << 35)
        | ((get_byte(c, 17) - CASE WHEN get_byte(c, 17) >= 97 THEN 97 ELSE 24 END)::bigint << 30)
        | ((get_byte(c, 18) - CASE WHEN get_byte(c, 18) >= 97 THEN 97 ELSE 24 END)::bigint << 25)
        | ((get_byte(c, 19) - CASE WHEN get_byte(c, 19) >= 97 THEN 97 ELSE 24 END)::bigint << 20)
        | ((get_byte(c, 20) - CASE WHEN get_byte(c, 20) >= 97 THEN 97 ELSE 24 END)::bigint << 15)
        | ((get_byte(c, 21) - CASE WHEN get_byte(c, 21) >= 97 THEN 97 ELSE 24 END)::bigint << 10)
        | ((get_byte(c, 22) - CASE WHEN get_byte(c, 22) >= 97 THEN 97 ELSE 24 END)::bigint << 5)
        | (get_byte(c, 23) - CASE WHEN get_byte(c, 23) >= 97 THEN 97 ELSE 24 END)::bigint;
    g3 := ((get_byte(c, 24) - CASE WHEN get_byte(c, 24) >= 97 THEN 97 ELSE 24 END)::bigint << 35)
        | ((get_byte(c, 25) - CASE WHEN get_byte(c, 25) >= 97 THEN 97 ELSE 24 END)::bigint << 30)
        | ((get_byte(c, 26) - CASE WHEN get_byte(c, 26) >= 97 THEN 97 ELSE 24 END)::bigint << 25)
        | ((get_byte(c, 27) - CASE WHEN get_byte(c, 27) >= 97 THEN 97 ELSE 24 END)::bigint << 20)
        | ((get_byte(c, 28) - CASE WHEN get_byte(c, 28) >= 97 THEN 97 ELSE 24 END)::bigint << 15)
        | ((get_byte(c, 29) - CASE WHEN get_byte(c, 29) >= 97 THEN 97 ELSE 24 END)::bigint << 10)
        | ((get_byte(c, 30) - CASE WHEN get_byte(c, 30) >= 97 THEN 97 ELSE 24 END)::bigint << 5)
        | (get_byte(c, 31) - CASE WHEN get_byte(c, 31) >= 97 THEN 97 ELSE 24 END)::bigint;    frame := substr(int8send(g0), 4, 5) || substr(int8send(g1), 4, 5)
          || substr(int8send(g2), 4, 5) || substr(int8send(g3), 4, 5);
    IF substr(frame, 3, 4) <> int4send(@extschema@._flake_crc32(substr(frame, 7))::bit(32)::integer) THEN
        PERFORM @extschema@._flake_invalid_text('type siq', input,
            '29 base32 characters (a-z, 2-7) with a valid checksum, optionally prefixed by "did:siq:"');
    END IF;
    RETURN substr(frame, 7);
END
$$;

CREATE FUNCTION @extschema@.siq_out(id bytea) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    a constant text := 'abcdefghijklmnopqrstuvwxyz234567';
    frame bytea;
    g0 bigint;
    g1 bigint;
    g2 bigint;
    g3 bigint;
BEGIN
    IF length(id) <> 14 THEN
        PERFORM @extschema@._flake_invalid_binary('type siq', 'exactly 14', length(id));
    END IF;
    frame := '\x0000'::bytea || int4send(@extschema@._flake_crc32(id)::bit(32)::integer) || id;
    g0 := ('x' || encode(substr(frame, 1, 5), 'hex'))::bit(40)::bigint;
    g1 := ('x' || encode(substr(frame, 6, 5), 'hex'))::bit(40)::bigint;
    g2 := ('x' || encode(substr(frame, 11, 5), 'hex'))::bit(40)::bigint;
    g3 := ('x' || encode(substr(frame, 16, 5), 'hex'))::bit(40)::bigint;
    RETURN substr(a, ((g0 >> 20) & 31)::int + 1, 1) || substr(a, ((g0 >> 15) & 31)::int + 1, 1)
        || substr(a, ((g0 >> 10) & 31)::int + 1, 1) || substr(a, ((g0 >> 5) & 31)::int + 1, 1)
        || substr(a, (g0 & 31)::int + 1, 1) || substr(a, ((g1 >> 35) & 31)::int + 1, 1)
        || substr(a, ((g1 >> 30) & 31)::int + 1, 1) || substr(a, ((g1 >> 25) & 31)::int + 1, 1)
        || substr(a, ((g1 >> 20) & 31)::int + 1, 1) || substr(a, ((g1 >> 15) & 31)::int + 1, 1)
        || substr(a, ((g1 >> 10) & 31)::int + 1, 1) || substr(a, ((g1 >> 5) & 31)::int + 1, 1)
        || substr(a, (g1 & 31)::int + 1, 1) || substr(a, ((g2 >> 35) & 31)::int + 1, 1)
        || substr(a, ((g2 >> 30) & 31)::int + 1, 1) || substr(a, ((g2 >> 25) & 31)::int + 1, 1)
        || substr(a, ((g2 >> 20) & 31)::int + 1, 1) || substr(a, ((g2 >> 15) & 31)::int + 1, 1)
        || substr(a, ((g2 >> 10) & 31)::int + 1, 1) || substr(a, ((g2 >> 5) & 31)::int + 1, 1)
        || substr(a, (g2 & 31)::int + 1, 1) || substr(a, ((g3 >> 35) & 31)::int + 1, 1)
        || substr(a, ((g3 >> 30) & 31)::int + 1, 1) || substr(a, ((g3 >> 25) & 31)::int + 1, 1)
        || substr(a, ((g3 >> 20) & 31)::int + 1, 1) || substr(a, ((g3 >> 15) & 31)::int + 1, 1)
        || substr(a, ((g3 >> 10) & 31)::int + 1, 1) || substr(a, ((g3 >> 5) & 31)::int + 1, 1)
        || substr(a, (g3 & 31)::int + 1, 1);
END
$$;

-- The bytes of bytea::siq: 14, or 16 whose first two are zero (the
-- reference's ORM columns); 22P03 otherwise.
CREATE FUNCTION @extschema@._siq_bytes(bytes bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF length(bytes) = 14 THEN
        RETURN bytes;
    ELSIF length(bytes) = 16 AND substr(bytes, 1, 2) = '\x0000'::bytea THEN
        RETURN substr(bytes, 3);
    END IF;
    PERFORM @extschema@._flake_invalid_binary('type siq', '14, or 16 of which the first two are zero',
        length(bytes));
END
$$;

-- 1 to 28 hexadecimal digits in any case (22P02 otherwise).
CREATE FUNCTION @extschema@._siq_from_hex(hex text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF hex !~ '^[0-9A-Fa-f]{1,28}$' THEN
        PERFORM @extschema@._flake_invalid_text('type siq', hex, '1 to 28 hexadecimal digits');
    END IF;
    RETURN decode(lpad(hex, 28, '0'), 'hex');
END
$$;

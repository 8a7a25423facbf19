-- pg_temp.sqlstate_of(statement): the SQLSTATE the statement fails with, or
-- 'no error'. Included by the tests that list the SQLSTATE of every error.
CREATE FUNCTION pg_temp.sqlstate_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END
$$;

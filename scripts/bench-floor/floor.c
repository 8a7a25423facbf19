/*
 * The physical floor of an ID-generating SQL function (`make bench`,
 * docs/BENCHMARKS.md "Generation profile"): a version-1 C function that
 * returns a constant 16-byte value, allocated as every by-reference result
 * is. Whatever a generator costs above this is its own work: the clock,
 * the lock, the checks and the encoding. Built by scripts/bench.py into the
 * benchmark's output directory, never installed.
 */
#include "postgres.h"
#include "fmgr.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(bench_floor16);

Datum
bench_floor16(PG_FUNCTION_ARGS)
{
	unsigned char *value = palloc(16);

	memset(value, 0x42, 16);
	PG_RETURN_POINTER(value);
}

/*
 * The cost of one reading of the real-time clock through the vDSO, as
 * every generator reads it (`make bench`, docs/BENCHMARKS.md "Generation
 * profile"): prints the nanoseconds per clock_gettime(CLOCK_REALTIME) call,
 * the best of five runs of ten million.
 */
#include <stdio.h>
#include <time.h>

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(void)
{
	const long calls = 10000000;
	double best = 1e9;
	volatile long sink = 0;

	for (int run = 0; run < 5; run++)
	{
		double start = seconds();

		for (long i = 0; i < calls; i++)
		{
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			sink += ts.tv_nsec;
		}
		double per_call = (seconds() - start) * 1e9 / calls;

		if (per_call < best)
			best = per_call;
	}
	printf("%.1f\n", best);
	return 0;
}

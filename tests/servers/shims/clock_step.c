/*
 * An LD_PRELOAD shim that steps a server's real-time clock by the offset a
 * file holds, read afresh at every reading (tests/servers/harness.py,
 * Server.set_clock): the servers' clock tests and the nemesis move clocks
 * with it (docs/guarantees.md "The nemesis").
 *
 * Why not libfaketime, which the servers used before: Debian 12's 0.9.10
 * reads its timestamp file with fopen and fclose, so every clock reading
 * may allocate; PostgreSQL's SIGALRM handler (statement_timeout,
 * deadlock_timeout) reads the clock, and when the signal came while the
 * backend was itself inside malloc the handler's fopen waited for ever on
 * malloc's lock: a backend that ignores cancel, with no wait event (the
 * nemesis's "uncancellable" finding; PostgreSQL 18 once aborted with
 * "malloc(): invalid size"). libfaketime fixed it upstream after 0.9.10.
 * This shim uses only open, read and close, which are async-signal-safe,
 * and no lock.
 *
 * What it moves, as libfaketime did with FAKETIME_DONT_FAKE_MONOTONIC:
 * clock_gettime's CLOCK_REALTIME and CLOCK_REALTIME_COARSE, gettimeofday and
 * time; never the monotonic clocks, so PostgreSQL's waits and timeouts keep
 * their length. The file (PG_FLAKE_CLOCK_FILE) holds seconds with a sign and
 * an optional fraction and unit: "+5.000000s", "-0.5", "+2m". A missing,
 * empty or unreadable file means no offset.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime;

/* dlsym may allocate: resolved once at load, never in a signal handler. */
__attribute__((constructor)) static void resolve(void)
{
    real_clock_gettime = (clock_gettime_fn) dlsym(RTLD_NEXT, "clock_gettime");
}

static int system_clock(clockid_t id, struct timespec *ts)
{
    if (real_clock_gettime != NULL)
        return real_clock_gettime(id, ts);
    return (int) syscall(SYS_clock_gettime, id, ts);
}

/* The file's offset in nanoseconds; 0 where there is none. */
static long long offset_ns(void)
{
    const char *path = getenv("PG_FLAKE_CLOCK_FILE");
    char text[64];
    ssize_t length = 0, got;
    long long whole = 0, fraction = 0, scale = 1000000000LL, unit = 1;
    int sign = 1, fd, i = 0;

    if (path == NULL || *path == '\0')
        return 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    while (length < (ssize_t) sizeof(text) - 1
           && (got = read(fd, text + length, sizeof(text) - 1 - length)) > 0)
        length += got;
    close(fd);
    text[length] = '\0';

    while (text[i] == ' ' || text[i] == '\t')
        i++;
    if (text[i] == '+' || text[i] == '-')
        sign = text[i++] == '-' ? -1 : 1;
    for (; text[i] >= '0' && text[i] <= '9'; i++)
        whole = whole * 10 + (text[i] - '0');
    if (text[i] == '.')
        for (i++; text[i] >= '0' && text[i] <= '9'; i++)
            if (scale > 1)
            {
                scale /= 10;
                fraction += (text[i] - '0') * scale;
            }
    switch (text[i])
    {
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: unit = 1;
    }
    return sign * (whole * 1000000000LL + fraction) * unit;
}

static void step(struct timespec *ts)
{
    int saved = errno;
    long long ns = (long long) ts->tv_nsec + offset_ns();

    errno = saved;
    ts->tv_sec += ns / 1000000000LL;
    ns %= 1000000000LL;
    if (ns < 0)
    {
        ns += 1000000000LL;
        ts->tv_sec -= 1;
    }
    ts->tv_nsec = (long) ns;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    int result = system_clock(id, ts);

    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        step(ts);
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    struct timespec ts;

    (void) tz;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return -1;
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *out)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return (time_t) -1;
    if (out != NULL)
        *out = ts.tv_sec;
    return ts.tv_sec;
}

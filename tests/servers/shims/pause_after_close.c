/*
 * An LD_PRELOAD shim for the servers' tests: pauses a backend just after it
 * closes a pg_flake marks file, that is just after it let the file's lock go
 * (the lock is an flock, released by the close), so that a test can run
 * another session's step inside that window (tests/servers/test_set_mark.py,
 * test_a_set_during_an_announcement_holds; issue 49, item 8).
 *
 * pg_flake's library closes files through libc, which a library preloaded
 * into the server comes before; this close() passes every call on to libc's
 * (dlsym(RTLD_NEXT)) and acts only for the one backend a test names: when
 * PG_FLAKE_PAUSE_DIR/pause-<its pid> exists and the descriptor is
 * pg_flake/PG_FLAKE_PAUSE_FILE (default sno.marks), it renames that file to
 * paused-<pid> after the close, waits until resume-<pid> exists (10 ms at a
 * time, 60 s at most) and returns. Once: the pause file is gone after.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*close_fn)(int fd);

/* Whether descriptor fd is pg_flake/<file> under some data directory. */
static int is_marks_file(int fd, const char *file)
{
    char link[64], target[PATH_MAX], suffix[PATH_MAX];
    ssize_t n;

    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    snprintf(suffix, sizeof suffix, "/pg_flake/%s", file);
    return (size_t) n >= strlen(suffix) && strcmp(target + n - strlen(suffix), suffix) == 0;
}

int close(int fd)
{
    static close_fn libc_close;
    const char *dir = getenv("PG_FLAKE_PAUSE_DIR");
    const char *file = getenv("PG_FLAKE_PAUSE_FILE");
    char pause[PATH_MAX], paused[PATH_MAX], resume[PATH_MAX];
    int marks, done, i;

    if (libc_close == NULL)
        libc_close = (close_fn) dlsym(RTLD_NEXT, "close");
    if (dir == NULL)
        return libc_close(fd);
    snprintf(pause, sizeof pause, "%s/pause-%d", dir, (int) getpid());
    if (access(pause, F_OK) != 0)
        return libc_close(fd);
    marks = is_marks_file(fd, file ? file : "sno.marks");
    done = libc_close(fd);
    if (!marks)
        return done;
    snprintf(paused, sizeof paused, "%s/paused-%d", dir, (int) getpid());
    snprintf(resume, sizeof resume, "%s/resume-%d", dir, (int) getpid());
    if (rename(pause, paused) != 0)
        return done;
    for (i = 0; i < 6000 && access(resume, F_OK) != 0; i++)
        usleep(10000);
    return done;
}

/* pairbench's exec helper: runs one command and reports the command's own rusage.
 *
 * Why: at exec, Linux folds the peak RSS of the address space being replaced into the new
 * program's ru_maxrss, so a command started from a Python process (even the lean launcher,
 * ~8 MiB) never reads below that process's size: `/bin/true` read 11 MiB where /usr/bin/time
 * says 1 MiB. Forked from this ~1 MiB helper, the command's ru_maxrss is its own, as under
 * /usr/bin/time. Built once with the system's C compiler (rss.py).
 *
 * Usage: exec_helper REPORT_FD PROGRAM ARGV0 [ARGS...]
 * Writes "status maxrss_kib utime_us stime_us wall_ns\n" on REPORT_FD once the command ends;
 * status is the raw wait status. Exits 0 after reporting, 126 when it could not fork or wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        dprintf(2, "usage: %s REPORT_FD PROGRAM ARGV0 [ARGS...]\n", argv[0]);
        return 126;
    }
    int report = atoi(argv[1]);
    fcntl(report, F_SETFD, FD_CLOEXEC); /* the command never sees the report pipe */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        dprintf(2, "pairbench: cannot fork: %s\n", strerror(errno));
        return 126;
    }
    if (pid == 0) {
        execv(argv[2], argv + 3);
        dprintf(2, "pairbench: cannot run %s: %s\n", argv[3], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            return 126;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long wall_ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    dprintf(report, "%d %ld %lld %lld %lld %ld %ld\n", status, ru.ru_maxrss,
            (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
            (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec, wall_ns,
            ru.ru_minflt + ru.ru_majflt, ru.ru_nvcsw + ru.ru_nivcsw);
    return 0;
}

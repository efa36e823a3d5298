/* pairbench's exec helper: the lasting process that starts every measured command.
 *
 * Why C: at exec, Linux folds the peak RSS of the address space being replaced into the new
 * program's ru_maxrss, so a command started from a Python process (even the lean launcher,
 * ~8 MiB) never reads below that process's size: `/bin/true` read 11 MiB where /usr/bin/time
 * says 1 MiB. Forked from this ~1 MiB helper, the command's ru_maxrss is its own, as under
 * /usr/bin/time. Built once with the system's C compiler (rss.py).
 *
 * Why lasting: one helper serves the whole pairbench call, so a run costs one fork and one exec,
 * as in hyperfine. Started afresh for each run (behind the Python launcher), it was a second
 * exec per run: 1.4 ms a run of /bin/true against 0.65 ms.
 *
 * Protocol (launcher.py): requests on stdin, each a list of NUL-terminated fields:
 *   "R" TIMEOUT_S CWD STDIN STDOUT_MODE STDOUT_PATH STDERR_PATH INHERIT_OUT INHERIT_ERR PROGRAM
 *   ARGC ARGV... ENVC ENV...
 * (an empty field is "none"; STDOUT_MODE is null, file, pipe or inherit: discarded, written to
 * STDOUT_PATH, drained through a pipe, or the descriptors INHERIT_OUT and INHERIT_ERR, which
 * pairbench passed to this process). One reply line per request on stdout:
 *   "STATUS MAXRSS_KIB UTIME_US STIME_US WALL_NS TIMED_OUT\n" (STATUS the raw wait status).
 * The command runs in a session of its own; whatever it leaves in it is killed once it ends. The
 * helper ends at the end of its input, and on SIGTERM (also sent when pairbench dies) after
 * killing the running command's group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

enum { TIMEOUT, CWD, STDIN_PATH, STDOUT_MODE, STDOUT_PATH, STDERR_PATH, INHERIT_OUT, INHERIT_ERR, PROGRAM, FIXED };

static volatile sig_atomic_t child = 0;
static volatile sig_atomic_t timed_out = 0;

static void on_alarm(int sig) {
    (void)sig;
    if (child > 0) {
        timed_out = 1;
        killpg(child, SIGKILL);
    }
}

static void on_term(int sig) {
    (void)sig;
    if (child > 0) {
        killpg(child, SIGKILL);
    }
    _exit(143);
}

/* One field of a request, malloc'd; NULL at the end of the input. */
static char *field(void) {
    char *text = NULL;
    size_t size = 0;
    if (getdelim(&text, &size, '\0', stdin) < 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Reads `count` fields into a NULL-terminated list; 0 when the input ended first. */
static int fields(char **into, long count) {
    for (long i = 0; i < count; i++) {
        if ((into[i] = field()) == NULL) {
            return 0;
        }
    }
    into[count] = NULL;
    return 1;
}

static void free_list(char **list) {
    if (list) {
        for (char **p = list; *p; p++) {
            free(*p);
        }
        free(list);
    }
}

/* "WHAT NAME: strerror(error)" on fd, with write alone (async-signal-safe, for the forked child). */
static void say(int fd, const char *what, const char *name, int error) {
    const char *why = strerror(error);
    if (write(fd, what, strlen(what)) < 0 || write(fd, name, strlen(name)) < 0 || write(fd, ": ", 2) < 0 ||
        write(fd, why, strlen(why)) < 0 || write(fd, "\n", 1) < 0) {
        return;
    }
}

static int open_for_writing(const char *path) {
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* A process that reads the pipe to its end (hyperfine's --output=pipe); its pid, or -1. */
static pid_t drain(int read_end, int write_end) {
    pid_t pid = fork();
    if (pid == 0) {
        char buffer[65536];
        close(write_end);
        while (read(read_end, buffer, sizeof buffer) > 0) {
        }
        _exit(0);
    }
    close(read_end);
    return pid;
}

static void run(char **head, char **argv, char **envp) {
    const char *mode = head[STDOUT_MODE];
    int inherit = strcmp(mode, "inherit") == 0;
    int in = open(head[STDIN_PATH][0] ? head[STDIN_PATH] : "/dev/null", O_RDONLY | O_CLOEXEC);
    int out = -1, err = -1;
    pid_t drainer = -1;
    if (inherit) {
        out = atoi(head[INHERIT_OUT]);
        err = atoi(head[INHERIT_ERR]);
    } else {
        err = open_for_writing(head[STDERR_PATH]);
        if (strcmp(mode, "file") == 0) {
            out = open_for_writing(head[STDOUT_PATH]);
        } else if (strcmp(mode, "pipe") == 0) {
            int ends[2];
            if (pipe2(ends, O_CLOEXEC) == 0) {
                out = ends[1];
                drainer = drain(ends[0], ends[1]);
            }
        } else {
            out = open("/dev/null", O_WRONLY | O_CLOEXEC);
        }
    }
    int status = 127 << 8;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    t1 = t0;
    timed_out = 0;
    if (in < 0 || out < 0 || err < 0) {
        if (err >= 0) {
            dprintf(err, "pairbench: cannot open the input or output of %s: %s\n", argv[0], strerror(errno));
        }
    } else {
        /* vfork where this helper is linked statically: the child borrows this process's memory
         * until exec, so no page table is copied and no page is copied on write afterwards (fork
         * cost ~0.1 ms a run of /bin/true, and ~11 page faults here). exec folds the peak RSS of
         * the memory it replaces into the command's own: static, that is ~0.8 MiB, below any
         * program's own; linked dynamically it would be ~1.3 MiB, so there a forked child, which
         * starts with this process's anonymous pages alone, keeps the command's reading its own.
         * The child only makes system calls before exec, as vfork requires. */
#ifdef PAIRBENCH_VFORK
        pid_t pid = vfork();
#else
        pid_t pid = fork();
#endif
        if (pid == 0) {
            setsid();
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGALRM, SIG_DFL);
            dup2(in, 0);
            dup2(out, 1);
            dup2(err, 2);
            if (head[CWD][0] && chdir(head[CWD]) != 0) {
                say(2, "pairbench: cannot enter ", head[CWD], errno);
                _exit(127);
            }
            execve(head[PROGRAM], argv, envp);
            say(2, "pairbench: cannot run ", argv[0], errno);
            _exit(127);
        }
        if (pid > 0) {
            child = pid;
            double timeout = head[TIMEOUT][0] ? strtod(head[TIMEOUT], NULL) : 0.0;
            if (timeout > 0) {
                struct itimerval timer = {{0, 0}, {(time_t)timeout, (suseconds_t)((timeout - (time_t)timeout) * 1e6)}};
                if (timer.it_value.tv_sec == 0 && timer.it_value.tv_usec == 0) {
                    timer.it_value.tv_usec = 1;
                }
                setitimer(ITIMER_REAL, &timer, NULL);
            }
            while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
            }
            clock_gettime(CLOCK_MONOTONIC, &t1);
            struct itimerval off = {{0, 0}, {0, 0}};
            setitimer(ITIMER_REAL, &off, NULL);
            killpg(pid, SIGKILL); /* anything the command left running in its group goes too */
            child = 0;
        } else {
            dprintf(err, "pairbench: cannot fork: %s\n", strerror(errno));
        }
    }
    if (in >= 0) {
        close(in);
    }
    if (!inherit) {
        if (out >= 0) {
            close(out);
        }
        if (err >= 0) {
            close(err);
        }
    }
    if (drainer > 0) {
        waitpid(drainer, NULL, 0);
    }
    long long wall_ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    printf("%d %ld %lld %lld %lld %d %ld %ld\n", status, ru.ru_maxrss,
           (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
           (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec, wall_ns, (int)timed_out,
           ru.ru_minflt + ru.ru_majflt, ru.ru_nvcsw + ru.ru_nivcsw);
    fflush(stdout);
}

int main(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    action.sa_handler = on_alarm; /* no SA_RESTART: wait4 returns EINTR and is called again */
    sigaction(SIGALRM, &action, NULL);
    action.sa_handler = on_term;
    sigaction(SIGTERM, &action, NULL);
    signal(SIGINT, SIG_IGN); /* Ctrl-C is pairbench's to handle */
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* no command outlives pairbench */
#endif
    for (;;) {
        char *head[FIXED + 2];
        char *tag = field();
        if (tag == NULL) {
            return 0;
        }
        free(tag);
        char *count = NULL;
        if (!fields(head, FIXED) || (count = field()) == NULL) {
            return 0;
        }
        long argc = atol(count);
        free(count);
        char **argv = calloc((size_t)argc + 1, sizeof *argv);
        char **envp = NULL;
        long envc = 0;
        if (argv == NULL || !fields(argv, argc) || (count = field()) == NULL) {
            return 0;
        }
        envc = atol(count);
        free(count);
        envp = calloc((size_t)envc + 1, sizeof *envp);
        if (envp == NULL || !fields(envp, envc)) {
            return 0;
        }
        run(head, argv, envp);
        for (int i = 0; i < FIXED; i++) {
            free(head[i]);
        }
        free_list(argv);
        free_list(envp);
    }
}

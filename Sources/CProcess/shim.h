#ifndef GITBAY_SYNC_CPROCESS_SHIM_H
#define GITBAY_SYNC_CPROCESS_SHIM_H

#if defined(__linux__)
#include <sys/prctl.h>

// prctl is variadic, which Swift cannot call: this wrapper passes its one option. Clearing the
// dumpable attribute (as ssh-agent does) also stops other processes of the same user from
// attaching with ptrace or reading /proc/<pid>/mem.
static inline int cprocess_clear_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

// Makes the process (or no longer) the child subreaper of its descendants: an orphan of a
// pre-remove hook is reparented here instead of to init, so a stop reaches it.
static inline int cprocess_set_child_subreaper(int on) {
    return prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)on, 0, 0, 0);
}

static inline int cprocess_is_child_subreaper(void) {
    int value = 0;
    return prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&value, 0, 0, 0) == 0 ? value : -1;
}

#if defined(__GLIBC__)
#include <malloc.h>

// At most `count` glibc malloc arenas; 0 when glibc refused.
static inline int cprocess_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
#endif
#endif

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

// The write end of the pipe that `cprocess_forward_signal` sends signal numbers to.
static int cprocess_signal_pipe = -1;

// The signal handler: writes the signal's number, one byte, to the pipe. Only write(2), which
// is async-signal-safe; a full pipe drops the byte (the reader has many waiting already).
static void cprocess_signal_written(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    ssize_t written = write(cprocess_signal_pipe, &byte, 1);
    (void)written;
    errno = saved;
}

// Makes every `number` signal write its number to `descriptor` (a non-blocking pipe's write
// end) instead of taking its action. The handler is in place when this returns, so no signal
// that comes later is lost. Returns sigaction's result.
static inline int cprocess_forward_signal(int number, int descriptor) {
    cprocess_signal_pipe = descriptor;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cprocess_signal_written;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(number, &action, NULL);
}

#if defined(__linux__)
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

// What the keeper tells the process that started it, one record a write (atomic on a pipe).
struct cprocess_keeper_record {
    int tag;   // 'P': the hook's pid; 'E': errno of the hook's failed exec
    int value;
};

// Closes every descriptor from `low` up to and including `high` (close_range, else one by one).
static inline void cprocess_close_span(int low, int high) {
    if (low > high) return;
    if (syscall(SYS_close_range, (unsigned)low, (unsigned)high, 0) == 0) return;
    int last = high < 65535 ? high : 65535;
    for (int fd = low; fd <= last; fd++) close(fd);
}

// Closes every descriptor above 2 but the three given (in any order, -1 for none).
static inline void cprocess_close_except(int a, int b, int c) {
    int keep[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (keep[j] < keep[i]) { int t = keep[i]; keep[i] = keep[j]; keep[j] = t; }
    int low = 3;
    for (int i = 0; i < 3; i++) {
        if (keep[i] < low) continue;
        cprocess_close_span(low, keep[i] - 1);
        low = keep[i] + 1;
    }
    cprocess_close_span(low, 0x7fffffff);
}

// SIGKILL to every child of the keeper (/proc/<pid>/task/<pid>/children, read with read(2));
// returns how many were listed, -1 when the list cannot be read.
static inline int cprocess_keeper_kill_children(const char *list) {
    int fd = open(list, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buffer[4096];
    ssize_t count = read(fd, buffer, sizeof buffer);
    close(fd);
    if (count < 0) return -1;
    int found = 0, digits = 0;
    pid_t pid = 0;
    for (ssize_t i = 0; i <= count; i++) {
        char c = i < count ? buffer[i] : ' ';
        if (c >= '0' && c <= '9') {
            pid = pid * 10 + (c - '0');
            digits = 1;
        } else if (digits) {
            kill(pid, SIGKILL);
            found++;
            pid = 0;
            digits = 0;
        }
    }
    return found;
}

// `/proc/<pid>/task/<pid>/children` for this process, without snprintf (not async-signal-safe).
static inline void cprocess_children_list(char *out) {
    char digits[16];
    int n = 0;
    for (pid_t pid = getpid(); pid > 0; pid /= 10) digits[n++] = (char)('0' + pid % 10);
    const char *parts[] = {"/proc/", "/task/", "/children"};
    char *at = out;
    for (int part = 0; part < 3; part++) {
        for (const char *c = parts[part]; *c; c++) *at++ = *c;
        if (part < 2)
            for (int i = n - 1; i >= 0; i--) *at++ = digits[i];
    }
    *at = 0;
}

// The keeper's life after its fork (async-signal-safe calls only: the process that forked it
// has other threads). It is the child subreaper of the hook it starts, so everything the hook
// starts stays below it whatever it does (a new session, a cleared environment, a double
// fork); it ignores the signals that stop a hook, reaps the hook, then kills whatever the hook
// left until nothing is left, and ends as the hook ended.
static inline void cprocess_keeper(const char *path, char *const argv[], char *const envp[], int output, int errors, int channel) {
    cprocess_close_except(output, errors, channel);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    int stops[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    action.sa_handler = SIG_IGN;
    for (int i = 0; i < 5; i++) sigaction(stops[i], &action, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    pid_t hook = fork();
    if (hook == 0) {
        action.sa_handler = SIG_DFL;
        for (int i = 0; i < 5; i++) sigaction(stops[i], &action, NULL);
        setpgid(0, 0);
        int null = open("/dev/null", O_RDONLY);
        if (null != 0) { dup2(null, 0); close(null); }
        dup2(output, 1);
        dup2(errors, 2);
        cprocess_close_except(channel, -1, -1);
        execve(path, argv, envp);
        struct cprocess_keeper_record failed = {'E', errno};
        ssize_t written = write(channel, &failed, sizeof failed);
        (void)written;
        _exit(127);
    }
    // As the hook does itself: the group exists before anyone signals it, whichever runs first.
    if (hook > 0) setpgid(hook, hook);
    struct cprocess_keeper_record started = {hook > 0 ? 'P' : 'E', hook > 0 ? hook : errno};
    ssize_t written = write(channel, &started, sizeof started);
    (void)written;
    close(channel);
    close(output);
    close(errors);
    if (hook < 0) _exit(127);
    char list[64];
    cprocess_children_list(list);
    int status = 0, hookStatus = 0, hookDone = 0;
    for (;;) {
        pid_t done = waitpid(-1, &status, 0);
        if (done == hook) {
            hookStatus = status;
            hookDone = 1;
        } else if (done < 0 && errno == ECHILD) {
            break;
        } else if (done < 0 && errno != EINTR) {
            break;
        }
        if (hookDone) cprocess_keeper_kill_children(list);
    }
    if (WIFSIGNALED(hookStatus)) {
        action.sa_handler = SIG_DFL;
        sigaction(WTERMSIG(hookStatus), &action, NULL);
        kill(getpid(), WTERMSIG(hookStatus));
        _exit(128 + WTERMSIG(hookStatus));
    }
    _exit(WIFEXITED(hookStatus) ? WEXITSTATUS(hookStatus) : 127);
}

// Starts `path` as the pre-remove hook below a keeper (`cprocess_keeper`), in a process group
// of its own led by the hook, standard input from /dev/null. Returns the keeper's pid (wait
// for it: it ends as the hook did, once nothing the hook started is left) and the hook's in
// `*hook`; -1 with `*error` set when either could not be started (the keeper is reaped then).
static inline pid_t cprocess_spawn_kept(
    const char *path, char *const argv[], char *const envp[], int output, int errors, pid_t *hook, int *error) {
    int channel[2];
    if (pipe(channel) != 0) {
        *error = errno;
        return -1;
    }
    // Only until the fork: a program another thread starts meanwhile closes what it was not given.
    fcntl(channel[0], F_SETFD, FD_CLOEXEC);
    fcntl(channel[1], F_SETFD, FD_CLOEXEC);
    pid_t keeper = fork();
    if (keeper == 0) {
        close(channel[0]);
        cprocess_keeper(path, argv, envp, output, errors, channel[1]);
    }
    int forkError = errno;
    close(channel[1]);
    if (keeper < 0) {
        close(channel[0]);
        *error = forkError;
        return -1;
    }
    *hook = -1;
    *error = 0;
    struct cprocess_keeper_record record;
    for (;;) {
        ssize_t count = read(channel[0], &record, sizeof record);
        if (count < 0 && errno == EINTR) continue;
        if (count != (ssize_t)sizeof record) break;
        if (record.tag == 'P') *hook = record.value;
        if (record.tag == 'E') *error = record.value;
    }
    close(channel[0]);
    if (*hook < 0 || *error != 0) {
        if (*error == 0) *error = ECHILD;
        int status;
        while (waitpid(keeper, &status, 0) < 0 && errno == EINTR) {}
        return -1;
    }
    return keeper;
}
#endif

#endif

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

#endif

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

#endif

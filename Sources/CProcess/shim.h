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
#endif

#endif

/* Preloaded into runs counted by `pairbench micro --measure instructions`: getrandom() and
 * getentropy() return the same bytes in every process, so an interpreter's hash seed (Ruby's
 * siphash key, Python's os.urandom callers) and anything it derives from it are repeatable, and
 * so is the count of instructions spent on them. Never used for timed runs. */
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

ssize_t getrandom(void *buf, size_t n, unsigned int flags) {
    (void)flags;
    memset(buf, 0x5a, n);
    return (ssize_t)n;
}

int getentropy(void *buf, size_t n) {
    memset(buf, 0x5a, n);
    return 0;
}

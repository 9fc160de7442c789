#include <stdint.h>
/// Number of heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign) made by this process since it started.
uint64_t mallocCounterAllocations(void);
/// The same, made by the calling thread only (other threads' work does not disturb it).
uint64_t mallocCounterThreadAllocations(void);
/// Whether allocations are counted: not under a sanitizer, which has its own allocator.
int mallocCounterIsActive(void);

// Counts heap allocations by interposing the allocator entry points and forwarding to
// glibc's own implementations, in all and per thread. Linked only into benchmark executables
// and the allocation tests.
#include "MallocCounter.h"
#include <stddef.h>
#include <stdatomic.h>

// A sanitizer brings its own allocator: forwarding to glibc's behind its back would hand
// its free() pointers it never made. Under one the counter stays at zero and says so.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define MALLOC_COUNTER_OFF 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define MALLOC_COUNTER_OFF 1
#endif

#ifdef MALLOC_COUNTER_OFF
int mallocCounterIsActive(void) { return 0; }
uint64_t mallocCounterAllocations(void) { return 0; }
uint64_t mallocCounterThreadAllocations(void) { return 0; }
#else
int mallocCounterIsActive(void) { return 1; }

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Atomic uint64_t allocations;
// initial-exec: a thread-local read that never calls malloc itself (the general model may).
static _Thread_local uint64_t threadAllocations __attribute__((tls_model("initial-exec")));

uint64_t mallocCounterAllocations(void) { return atomic_load(&allocations); }
uint64_t mallocCounterThreadAllocations(void) { return threadAllocations; }

static inline void note_allocation(void) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  threadAllocations++;
}

void *malloc(size_t size) {
  note_allocation();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  note_allocation();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  note_allocation();
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  note_allocation();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  note_allocation();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  note_allocation();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return 12; // ENOMEM
  *result = pointer;
  return 0;
}
#endif

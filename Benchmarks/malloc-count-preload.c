// An LD_PRELOAD build of MallocCounter for measuring whole programs: at exit it appends one
// line to the file named by MALLOC_COUNT_OUTPUT: heap allocations, peak resident memory and
// private dirty memory (both KiB, the latter read from /proc/self/smaps_rollup).
// Benchmarks/cli-throughput.sh builds it: cc -O2 -shared -fPIC -I Benchmarks/MallocCounter/include …
#include "MallocCounter/MallocCounter.c"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static long private_dirty_kib(void) {
  int fd = open("/proc/self/smaps_rollup", O_RDONLY);
  if (fd < 0) return -1;
  char text[4096];
  ssize_t count = read(fd, text, sizeof text - 1);
  close(fd);
  if (count <= 0) return -1;
  text[count] = 0;
  long total = 0;
  for (char *line = strstr(text, "Private_Dirty:"); line; line = strstr(line + 1, "Private_Dirty:")) {
    total += strtol(line + strlen("Private_Dirty:"), NULL, 10);
  }
  return total;
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("MALLOC_COUNT_OUTPUT");
  if (!path) return;
  uint64_t count = mallocCounterAllocations();  // before the report allocates anything
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  char line[160];
  int length = snprintf(line, sizeof line, "%llu %ld %ld\n", (unsigned long long)count, usage.ru_maxrss,
                        private_dirty_kib());
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)length) < 0) {}
  close(fd);
}

// checksum-scan FILE: the checksum-only scan over a whole file, read in 64 KiB pieces, as the
// baseline that `gpsbridge check FILE` is timed against. Prints the sentences that matched.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "ChecksumScan.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: checksum-scan FILE\n");
    return 64;
  }
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) {
    perror(argv[1]);
    return 1;
  }
  static unsigned char buffer[65536];
  checksum_scan_state state = {0};
  size_t sentences = 0;
  ssize_t count;
  while ((count = read(fd, buffer, sizeof buffer)) > 0) sentences += checksum_scan(buffer, (size_t)count, &state);
  close(fd);
  printf("%zu sentences\n", sentences);
  return 0;
}

// A libgps program, as Navit or foxtrotgps are: reads fixes from a gpsd through libgps.
//
//   libgps-client read HOST PORT COUNT   prints COUNT fixes: "seconds.nanoseconds lat lon mode"
//   libgps-client unpack                 feeds each line of stdin to gps_unpack, prints "ok N"
//
// Built by the tests with: clang … $(pkg-config --cflags --libs libgps)
#include <gps.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_fixes(const char *host, const char *port, int wanted) {
  struct gps_data_t data;
  memset(&data, 0, sizeof data);
  if (gps_open(host, port, &data) != 0) {
    fprintf(stderr, "gps_open: %s\n", gps_errstr(errno));
    return 2;
  }
  gps_stream(&data, WATCH_ENABLE | WATCH_JSON, NULL);
  int got = 0;
  timespec_t last = {0, 0};
  while (got < wanted && gps_waiting(&data, 5000000)) {
    if (gps_read(&data, NULL, 0) == -1) {
      fprintf(stderr, "gps_read failed\n");
      return 3;
    }
    // Each fix once: the SKY that follows a TPV leaves its flags set.
    if ((data.set & TIME_SET) && (data.set & LATLON_SET) && data.fix.mode >= MODE_2D &&
        (data.fix.time.tv_sec != last.tv_sec || data.fix.time.tv_nsec != last.tv_nsec)) {
      last = data.fix.time;
      printf("%lld.%09ld %.9f %.9f %d\n", (long long)data.fix.time.tv_sec, data.fix.time.tv_nsec, data.fix.latitude,
             data.fix.longitude, data.fix.mode);
      got++;
    }
  }
  gps_stream(&data, WATCH_DISABLE, NULL);
  gps_close(&data);
  return got == wanted ? 0 : 4;
}

static int unpack_lines(void) {
  static char line[16384];
  int count = 0;
  while (fgets(line, sizeof line, stdin) != NULL) {
    struct gps_data_t data;
    memset(&data, 0, sizeof data);
    if (gps_unpack(line, &data) < 0) {
      fprintf(stderr, "gps_unpack refused: %s", line);
      return 5;
    }
    count++;
  }
  printf("ok %d\n", count);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "read") == 0) return read_fixes(argv[2], argv[3], atoi(argv[4]));
  if (argc == 2 && strcmp(argv[1], "unpack") == 0) return unpack_lines();
  fprintf(stderr, "usage: libgps-client read HOST PORT COUNT | unpack\n");
  return 64;
}

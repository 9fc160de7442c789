#include "ClockState.h"

#include <string.h>
#include <sys/timex.h>

int gpsbridge_system_clock_is_synchronised(void) {
  struct timex state;
  memset(&state, 0, sizeof state);  // modes 0: read, never set
  int result = adjtimex(&state);
  if (result < 0) return -1;
  return result == TIME_ERROR ? 0 : 1;
}

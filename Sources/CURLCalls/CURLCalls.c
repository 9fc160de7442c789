#include "CURLCalls.h"

typedef int (*variadic_call)(void *, int, ...);

int gpsbridge_curl_setopt_long(void *function, void *handle, int option, long value) {
  return ((variadic_call)function)(handle, option, value);
}

int gpsbridge_curl_setopt_pointer(void *function, void *handle, int option, const void *value) {
  return ((variadic_call)function)(handle, option, value);
}

int gpsbridge_curl_getinfo_long(void *function, void *handle, int info, long *value) {
  return ((variadic_call)function)(handle, info, value);
}

#ifndef GPSBRIDGE_CURL_CALLS_H
#define GPSBRIDGE_CURL_CALLS_H

// libcurl's variadic calls, made through a function pointer that dlsym gave: Swift cannot call
// a C variadic function, and these pass the one argument each option takes with C's own
// calling convention. No curl header is needed: the library is loaded at run time, only by
// processes that POST webhooks (Sources/Automation/LibCURL.swift).

/// `curl_easy_setopt` or `curl_multi_setopt` (at `function`) with a `long` argument.
int gpsbridge_curl_setopt_long(void *function, void *handle, int option, long value);

/// `curl_easy_setopt` or `curl_multi_setopt` (at `function`) with a pointer argument: a
/// string, a list, user data, or a callback.
int gpsbridge_curl_setopt_pointer(void *function, void *handle, int option, const void *value);

/// `curl_easy_getinfo` (at `function`) into `*value`, for a `long` or a pointer.
int gpsbridge_curl_getinfo_long(void *function, void *handle, int info, long *value);

#endif

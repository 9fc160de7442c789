#include "ChecksumScan.h"

static int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

size_t checksum_scan(const unsigned char *bytes, size_t count, checksum_scan_state *state) {
  size_t good = 0;
  for (size_t i = 0; i < count; i++) {
    unsigned char c = bytes[i];
    if (c == '$') {
      state->in_sentence = 1;
      state->after_star = 0;
      state->checksum = 0;
      continue;
    }
    if (!state->in_sentence) continue;
    if (!state->after_star) {
      if (c == '*') {
        state->after_star = 1;
        state->hex_digits = 0;
        state->stated = 0;
      } else {
        state->checksum ^= c;
      }
      continue;
    }
    int value = hex_value(c);
    if (value < 0) {
      state->in_sentence = 0;
      continue;
    }
    state->stated = (unsigned char)(state->stated << 4 | value);
    if (++state->hex_digits == 2) {
      if (state->stated == state->checksum) good++;
      state->in_sentence = 0;
    }
  }
  return good;
}

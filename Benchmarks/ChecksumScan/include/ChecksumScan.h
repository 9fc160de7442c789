#ifndef CHECKSUM_SCAN_H
#define CHECKSUM_SCAN_H

#include <stddef.h>
#include <stdint.h>

/// Where a scan stands between buffers: inside a sentence or not, and its XOR so far.
typedef struct {
  int in_sentence;
  int after_star;
  unsigned char checksum;
  int hex_digits;
  unsigned char stated;
} checksum_scan_state;

/// The least any NMEA reader must do: find each `$`, XOR the bytes up to `*`, compare the two
/// hex digits that follow. No framing rules, no length limit, no decoding. Returns the number
/// of sentences whose checksum matched in `bytes`; `state` carries a sentence across buffers.
size_t checksum_scan(const unsigned char *bytes, size_t count, checksum_scan_state *state);

#endif

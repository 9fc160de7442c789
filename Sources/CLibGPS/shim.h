// gpsd's client library, seen through a layout of our own: libgps's structs change between
// releases, so only this header, compiled against the installed <gps.h>, touches them, and
// Swift reads the flat values below.
#ifndef GPSBRIDGE_CLIBGPS_SHIM_H
#define GPSBRIDGE_CLIBGPS_SHIM_H

#include <errno.h>
#include <gps.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// API 9 (gpsd 3.20) brought altHAE/altMSL and timespec times; gps_read has taken a message
// buffer since API 7. Checked against API 11 (3.22); 12 to 14 (3.23 to 3.27) keep the fields
// used here.
#if !defined(GPSD_API_MAJOR_VERSION) || GPSD_API_MAJOR_VERSION < 9 || GPSD_API_MAJOR_VERSION > 14
#error "gpsbridge's libgps trait needs libgps API 9 to 14 (gpsd 3.20 to 3.27); 'pkg-config --modversion libgps' shows what is installed. Build without --traits libgps to use gpsbridge's own gpsd client."
#endif

/// A TPV's values; NaN where gpsd sent none.
typedef struct {
  int mode;
  long long seconds;
  long nanoseconds;
  double latitude, longitude, altHAE, altMSL, geoidSeparation;
  double speed, track, climb, magneticVariation;
  double eph, epx, epy, epv;
} gpsbridge_tpv;

/// A satellite of the latest SKY.
typedef struct {
  int prn, gnssid, svid;
  double elevation, azimuth, ss;
  bool used;
} gpsbridge_satellite;

static inline struct gps_data_t *gpsbridge_open(const char *host, const char *port, int *failure) {
  struct gps_data_t *data = calloc(1, sizeof(struct gps_data_t));
  if (data == NULL) { *failure = ENOMEM; return NULL; }
  if (gps_open(host, port, data) != 0) {
    *failure = errno;
    free(data);
    return NULL;
  }
  return data;
}

static inline void gpsbridge_close(struct gps_data_t *data) {
  gps_close(data);
  free(data);
}

static inline int gpsbridge_watch(struct gps_data_t *data, const char *device) {
  unsigned int flags = WATCH_ENABLE | WATCH_JSON;
  if (device != NULL) flags |= WATCH_DEVICE;
  return gps_stream(data, flags, (void *)device);
}

static inline int gpsbridge_descriptor(const struct gps_data_t *data) { return (int)data->gps_fd; }

/// One message: its JSON in `message` (for its class), its values in `data`. -1 when the
/// connection is gone.
static inline int gpsbridge_read(struct gps_data_t *data, char *message, int length) {
  return gps_read(data, message, length);
}

static inline bool gpsbridge_waiting(const struct gps_data_t *data) { return gps_waiting(data, 0); }

static inline gpsbridge_tpv gpsbridge_tpv_of(const struct gps_data_t *data) {
  const struct gps_fix_t *fix = &data->fix;
  gpsbridge_tpv tpv = {
    .mode = fix->mode, .seconds = (long long)fix->time.tv_sec, .nanoseconds = fix->time.tv_nsec,
    .latitude = fix->latitude, .longitude = fix->longitude, .altHAE = fix->altHAE, .altMSL = fix->altMSL,
    .geoidSeparation = fix->geoid_sep, .speed = fix->speed, .track = fix->track, .climb = fix->climb,
    .magneticVariation = fix->magnetic_var, .eph = fix->eph, .epx = fix->epx, .epy = fix->epy, .epv = fix->epv,
  };
  return tpv;
}

static inline int gpsbridge_satellites_visible(const struct gps_data_t *data) { return data->satellites_visible; }
static inline int gpsbridge_satellites_used(const struct gps_data_t *data) { return data->satellites_used; }
static inline double gpsbridge_hdop(const struct gps_data_t *data) { return data->dop.hdop; }
static inline double gpsbridge_vdop(const struct gps_data_t *data) { return data->dop.vdop; }
static inline double gpsbridge_pdop(const struct gps_data_t *data) { return data->dop.pdop; }

static inline gpsbridge_satellite gpsbridge_satellite_at(const struct gps_data_t *data, int index) {
  const struct satellite_t *satellite = &data->skyview[index];
  gpsbridge_satellite result = {
    .prn = satellite->PRN, .gnssid = satellite->gnssid, .svid = satellite->svid, .elevation = satellite->elevation,
    .azimuth = satellite->azimuth, .ss = satellite->ss, .used = satellite->used,
  };
  return result;
}

static inline int gpsbridge_device_count(const struct gps_data_t *data) { return data->devices.ndevices; }

static inline const char *gpsbridge_error_message(const struct gps_data_t *data) { return data->error; }

static inline const char *gpsbridge_describe(int failure) { return gps_errstr(failure); }

#endif

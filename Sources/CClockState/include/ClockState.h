#ifndef GPSBRIDGE_CLOCK_STATE_H
#define GPSBRIDGE_CLOCK_STATE_H

/// Whether the kernel holds the system clock synchronised (adjtimex's state is not
/// TIME_ERROR, which it is while no time service has disciplined the clock): 1 or 0; -1 when
/// it cannot be asked. Read only: it changes nothing.
int gpsbridge_system_clock_is_synchronised(void);

#endif

#ifndef TODOD_CSYSTEMD_SHIM_H
#define TODOD_CSYSTEMD_SHIM_H
// Without this, sd_journal_sendv is a macro adding CODE_FILE/CODE_LINE, which Swift cannot call.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif

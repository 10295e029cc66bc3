#ifndef TODOD_CSQLITE_SHIM_H
#define TODOD_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type todod_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0): no memory statistics, so no global mutex around
/// every allocation. sqlite3_config is variadic, which Swift cannot call. Must run before the
/// library initializes (the first sqlite3_open).
static inline int todod_sqlite_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif

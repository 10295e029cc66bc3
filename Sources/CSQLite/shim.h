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

/// Keeps up to `todod_sqlite_pool_limit` freed 1,024-byte blocks for reuse. A savepoint's undo
/// log in memory (the statement journal, PRAGMA temp_store = MEMORY) is a chain of 1,024-byte
/// chunks, about 140 for one todo.add, all freed when the request's savepoint is released: glibc's
/// per-thread cache holds 7 blocks of a size, so the rest went through its slower bins on every
/// request. The blocks come from and go back to SQLite's own allocator (the pool only holds them
/// between uses), so sizes and reallocation stay its own.
#include <pthread.h>
enum { todod_sqlite_pooled_size = 1024, todod_sqlite_pool_limit = 512 };
struct todod_sqlite_pool {
    sqlite3_mem_methods system;  // SQLite's allocator, which the pool sits in front of
    pthread_mutex_t lock;
    int count;
    void *blocks[todod_sqlite_pool_limit];
};

/// The one pool. (A function's static: Swift's importer emits no variables of a header.)
static inline struct todod_sqlite_pool *todod_sqlite_the_pool(void) {
    static struct todod_sqlite_pool pool = { .lock = PTHREAD_MUTEX_INITIALIZER };
    return &pool;
}

static inline void *todod_sqlite_pool_malloc(int bytes) {
    struct todod_sqlite_pool *pool = todod_sqlite_the_pool();
    if (bytes == todod_sqlite_pooled_size) {
        void *block = 0;
        pthread_mutex_lock(&pool->lock);
        if (pool->count > 0) block = pool->blocks[--pool->count];
        pthread_mutex_unlock(&pool->lock);
        if (block) return block;
    }
    return pool->system.xMalloc(bytes);
}

static inline void todod_sqlite_pool_free(void *block) {
    struct todod_sqlite_pool *pool = todod_sqlite_the_pool();
    if (block && pool->system.xSize(block) == todod_sqlite_pooled_size) {
        int kept = 0;
        pthread_mutex_lock(&pool->lock);
        if (pool->count < todod_sqlite_pool_limit) {
            pool->blocks[pool->count++] = block;
            kept = 1;
        }
        pthread_mutex_unlock(&pool->lock);
        if (kept) return;
    }
    pool->system.xFree(block);
}

/// Puts the pool in front of SQLite's allocator. Must run before the library initializes.
/// Returns SQLITE_OK or the error of sqlite3_config.
static inline int todod_sqlite_pool_small_blocks(void) {
    struct todod_sqlite_pool *pool = todod_sqlite_the_pool();
    int rc = sqlite3_config(SQLITE_CONFIG_GETMALLOC, &pool->system);
    if (rc != SQLITE_OK) return rc;
    sqlite3_mem_methods pooled = pool->system;
    pooled.xMalloc = todod_sqlite_pool_malloc;
    pooled.xFree = todod_sqlite_pool_free;
    return sqlite3_config(SQLITE_CONFIG_MALLOC, &pooled);
}
#endif

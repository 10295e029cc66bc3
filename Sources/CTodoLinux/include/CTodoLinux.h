#ifndef TODOD_CTODOLINUX_H
#define TODOD_CTODOLINUX_H
#include <stdint.h>

/// Reads the credentials of the process at the other end of a Unix socket (SO_PEERCRED).
/// `struct ucred` needs _GNU_SOURCE, which Swift's Glibc module does not define.
/// Returns 0, or -1 with errno set.
int todod_peer_credentials(int fd, uint32_t *uid, uint32_t *gid, int32_t *pid);

/// The terminal width of `fd` in columns (TIOCGWINSZ), or 0 when it is not a terminal.
int todod_terminal_columns(int fd);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC): accept4 needs _GNU_SOURCE.
int todod_accept_nonblocking(int fd);

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start. pipe2 needs _GNU_SOURCE.
int todod_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, from) (glibc 2.34): the child closes every
/// descriptor from `from` up. Takes a posix_spawn_file_actions_t *, which <spawn.h> declares.
int todod_spawn_close_from(void *actions, int from);

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes` get their own mapping,
/// returned to the system when freed. <malloc.h> is not part of Swift's Glibc module.
/// Returns 1 on success, 0 on failure.
int todod_map_allocations_from(int bytes);

/// sched_setaffinity(tid, ...) to the CPUs whose bits are set in `mask` (CPU 0 is bit 0): for
/// measurements that must not depend on where the scheduler places threads. `tid` 0 is the
/// calling thread. Returns 0, or -1 with errno set.
int todod_set_affinity(int tid, uint64_t mask);

/// The calling thread's id (gettid).
int todod_thread_id(void);

/// epoll_create1(EPOLL_CLOEXEC). <sys/epoll.h> is not part of Swift's Glibc module.
int todod_epoll_create(void);

/// Adds `fd` to `epfd` for readability (level-triggered), reported with `token`.
/// Returns 0, or -1 with errno set.
int todod_epoll_add_readable(int epfd, int fd, uint64_t token);

/// Removes `fd` from `epfd`. Returns 0, or -1 with errno set.
int todod_epoll_remove(int epfd, int fd);

/// Waits up to `timeout_ms` (-1: forever) and stores the tokens of up to `max` ready descriptors.
/// Returns how many, or -1 with errno set.
int todod_epoll_wait_tokens(int epfd, uint64_t *tokens, int max, int timeout_ms);

/// timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC). <sys/timerfd.h> is not part of
/// Swift's Glibc module. Returns the descriptor, or -1 with errno set.
int todod_realtime_timer_create(void);

/// Arms `fd` to expire once at the absolute CLOCK_REALTIME instant `seconds`.`nanoseconds`
/// (TFD_TIMER_ABSTIME; an instant already past expires at once; TFD_TIMER_CANCEL_ON_SET: a read
/// fails with ECANCELED once the clock was set). Both zero disarms it.
/// Returns 0, or -1 with errno set.
int todod_realtime_timer_set(int fd, int64_t seconds, int64_t nanoseconds);

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): a counter to wake a waiting thread through poll(2).
/// <sys/eventfd.h> is not part of Swift's Glibc module. Returns the descriptor, or -1 with errno.
int todod_eventfd_create(void);

/// Blocks the `count` signals in the calling thread and returns signalfd(-1, those,
/// SFD_NONBLOCK | SFD_CLOEXEC), or -1 with errno set. <sys/signalfd.h> is not part of Swift's
/// Glibc module.
int todod_signalfd_create(const int *signals, int count);

/// Reads every pending signal from a signalfd made by todod_signalfd_create: the number of the
/// last one read, 0 when none was pending.
int todod_signalfd_drain(int fd);
#endif

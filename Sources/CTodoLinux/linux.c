#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <malloc.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include <fcntl.h>
#include <spawn.h>
#include "CTodoLinux.h"

int todod_peer_credentials(int fd, uint32_t *uid, uint32_t *gid, int32_t *pid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *uid = cred.uid;
    *gid = cred.gid;
    *pid = cred.pid;
    return 0;
}

int todod_terminal_columns(int fd) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
    return ws.ws_col;
}

int todod_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int todod_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int todod_spawn_close_from(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}

int todod_map_allocations_from(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int todod_set_affinity(int tid, uint64_t mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < 64; cpu++) {
        if (mask & ((uint64_t)1 << cpu)) CPU_SET(cpu, &set);
    }
    return sched_setaffinity(tid, sizeof(set), &set);
}

int todod_thread_id(void) {
    return gettid();
}

int todod_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int todod_epoll_add_readable(int epfd, int fd, uint64_t token) {
    struct epoll_event event = { .events = EPOLLIN, .data.u64 = token };
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int todod_epoll_remove(int epfd, int fd) {
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

int todod_epoll_wait_tokens(int epfd, uint64_t *tokens, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, events, max, timeout_ms);
    for (int i = 0; i < n; i++) tokens[i] = events[i].data.u64;
    return n;
}

int todod_realtime_timer_create(void) {
    return timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
}

int todod_realtime_timer_set(int fd, int64_t seconds, int64_t nanoseconds) {
    struct itimerspec spec = { .it_interval = { 0, 0 }, .it_value = { (time_t)seconds, (long)nanoseconds } };
    /* CANCEL_ON_SET: a read fails with ECANCELED once the clock was set (stepped), so the
       daemon looks at every reminder again (while armed; a disarmed timer has nothing to miss). */
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

int todod_eventfd_create(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int todod_signalfd_create(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    int error = pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int todod_signalfd_drain(int fd) {
    struct signalfd_siginfo info;
    int last = 0;
    while (read(fd, &info, sizeof info) == (ssize_t)sizeof info) last = (int)info.ssi_signo;
    return last;
}

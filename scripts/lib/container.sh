# The booted-systemd container shared by scripts/systemd-e2e and scripts/package-e2e: a cached
# minimal Debian root file system (debootstrap), a throwaway overlay of it per run, systemd 252
# booted in it with systemd-nspawn (also where PID 1 of the host is not systemd), commands as root
# or as the test user with its session environment, and a clean power-off. Sourced, not run.
#
# The caller defines log, say, skip and die, sets keep (1 = keep the run directory) and verbose,
# and then calls, in this order:
#   container_rootfs        build the root file system once (cached in $CACHE, keyed by the recipe)
#   container_overlay       RUN, MACHINE and M (the container's root on the host); cleanup on EXIT
#   ...copy files into $M...
#   container_boot          boot, wait for the system manager and the test user's manager
#                           (skips, exit 77, when no container can boot here)
#   in_root T CMD / in_user T CMD   bash -c CMD inside, bounded by T seconds
#   poweroff_container      after the last command (cleanup does it too)

CACHE=${TODOD_E2E_CACHE:-/var/cache/todod-e2e}
SUITE=${TODOD_E2E_SUITE:-bookworm}
# libcurl4 and libxml2: todod-sync's libraries, so that the package installs without a network.
PACKAGES="systemd,dbus,libsystemd0,libsqlite3-0,libpam-systemd,dbus-user-session,libstdc++6,libncursesw6,libcurl4,libxml2"
RECIPE=1                      # bump when the rootfs recipe (build_rootfs) changes
E2E_USER=todo E2E_UID=1000
PATH_IN=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

detect_mirror() {
    [ -n "${TODOD_E2E_MIRROR:-}" ] && { echo "$TODOD_E2E_MIRROR"; return; }
    grep -hoE '^(URIs:|deb)[[:space:]]+(\[[^]]*\][[:space:]]+)?https?://[^[:space:]]+/debian/?([[:space:]]|$)' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -oE 'https?://[^[:space:]]+' | grep -v security | head -1
}

rootfs_key() { printf '%s|%s|%s|%s|%s' "$RECIPE" "$SUITE" "$PACKAGES" "$E2E_USER" "$E2E_UID" | sha256sum | cut -c1-12; }
ROOTFS=$CACHE/rootfs-$SUITE-$(rootfs_key)

build_rootfs() {
    local mirror t
    mirror=$(detect_mirror) || true
    [ -n "$mirror" ] || skip "no Debian mirror in /etc/apt/sources*; set TODOD_E2E_MIRROR"
    mkdir -p "$CACHE"
    exec 8>"$CACHE/.lock"
    timeout 900 flock 8 || die "timed out waiting for the rootfs build lock $CACHE/.lock"
    [ -f "$ROOTFS/.todod-e2e-ready" ] && return 0
    t=$ROOTFS.tmp
    rm -rf "$t"
    say "debootstrap $SUITE from $mirror into $ROOTFS (once; about a minute)"
    if ! timeout 900 debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$t" "$mirror" \
            >"$CACHE/debootstrap.log" 2>&1; then
        tail -20 "$CACHE/debootstrap.log" >&2
        rm -rf "$t"
        skip "debootstrap failed (log: $CACHE/debootstrap.log)"
    fi
    echo todod-e2e >"$t/etc/hostname"
    : >"$t/etc/machine-id"
    chroot "$t" useradd --create-home --uid "$E2E_UID" --shell /bin/bash "$E2E_USER"
    # linger: the user's manager starts at boot, without a login
    mkdir -p "$t/var/lib/systemd/linger" && touch "$t/var/lib/systemd/linger/$E2E_USER"
    # persistent journal: journald then keeps per-user files that `journalctl --user` reads
    mkdir -p "$t/var/log/journal"
    # quiet, fast boots and shutdowns
    for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
             fstrim.timer systemd-tmpfiles-clean.timer e2scrub_reap.service; do
        ln -sf /dev/null "$t/etc/systemd/system/$u"
    done
    mkdir -p "$t/etc/systemd/system.conf.d" "$t/etc/systemd/user.conf.d"
    printf '[Manager]\nDefaultTimeoutStopSec=10s\n' >"$t/etc/systemd/system.conf.d/todod-e2e.conf"
    printf '[Manager]\nDefaultTimeoutStopSec=10s\n' >"$t/etc/systemd/user.conf.d/todod-e2e.conf"
    rm -rf "$t"/var/cache/apt/archives/*.deb "$t"/var/lib/apt/lists/*_* "$t"/usr/share/doc/*
    touch "$t/.todod-e2e-ready"
    mv "$t" "$ROOTFS"
}
container_rootfs() {
    [ -f "$ROOTFS/.todod-e2e-ready" ] || build_rootfs
    log "rootfs: $ROOTFS"
}

# --- One run: overlay, boot, cleanup -----------------------------------------------------------
RUN="" MACHINE="" MOUNTED=0 WRAP="" LEADER="" CGDIRS=()
nspawn_pid() { [ -n "$WRAP" ] && pgrep -P "$WRAP" 2>/dev/null | head -1; }
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

poweroff_container() {
    [ -n "$WRAP" ] || return 0
    local np; np=$(nspawn_pid || true)
    if alive "$LEADER"; then
        log "systemctl poweroff"
        timeout 10 nsenter -t "$LEADER" -a -- env -i PATH=$PATH_IN systemctl poweroff --no-block >/dev/null 2>&1 || true
    fi
    if alive "$np" && ! timeout 30 tail --pid="$np" -f /dev/null 2>/dev/null; then
        echo "${0##*/}: the container did not power off in 30 s; terminating it" >&2
        kill -TERM "$np" 2>/dev/null || true
        timeout 10 tail --pid="$np" -f /dev/null 2>/dev/null || { kill -KILL "$LEADER" "$np" 2>/dev/null || true; }
    fi
    wait "$WRAP" 2>/dev/null || true
    WRAP="" LEADER=""
}

# cleanup [STATUS]: power off, unmount, remove; then exit with STATUS (default: the status it finds).
cleanup() {
    local rc=${1:-$?}
    trap '' INT TERM
    poweroff_container || true
    if [ "$MOUNTED" = 1 ]; then
        if [ "$keep" = 1 ] && [ -d "$RUN/upper/var/log/journal" ]; then :; fi
        umount "$RUN/root" 2>/dev/null || umount -l "$RUN/root" 2>/dev/null || true
        MOUNTED=0
    fi
    local d p
    for d in "${CGDIRS[@]}"; do
        for p in $(cat $(find "$d" -name cgroup.procs 2>/dev/null) 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
        find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null || true
    done
    [ -n "$MACHINE" ] && rm -rf "/run/systemd/nspawn/propagate/$MACHINE"
    if [ -n "$RUN" ] && [ -d "$RUN" ]; then
        if [ "$keep" = 1 ]; then echo "kept $RUN (journal: journalctl -D $RUN/upper/var/log/journal; console: $RUN/console.log)" >&2
        else rm -rf "$RUN"; fi
    fi
    exit $rc
}

container_overlay() {
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    RUN=$(mktemp -d /tmp/todod-e2e.XXXXXX)
    MACHINE=todod-e2e-${RUN##*.}
    mkdir -p "$RUN/upper" "$RUN/work" "$RUN/root"
    if mount -t overlay overlay -o "lowerdir=$ROOTFS,upperdir=$RUN/upper,workdir=$RUN/work" "$RUN/root" 2>/dev/null; then
        MOUNTED=1
    else
        log "no overlayfs here; copying the rootfs"
        rmdir "$RUN/root"; cp -a --reflink=auto "$ROOTFS" "$RUN/root"
    fi
    M=$RUN/root
    tr -d - </proc/sys/kernel/random/uuid >"$M/etc/machine-id"
}

container_boot() {
    local np d args
    args=(-q -D "$M" -M "$MACHINE" --boot --register=no --private-network --console=pipe)
    if [ ! -d /run/systemd/system ]; then
        # No systemd on the host: nspawn cannot get a scope from it; --keep-unit plus a cgroup of our own.
        args+=(--keep-unit)
        if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then CGDIRS+=("/sys/fs/cgroup/$MACHINE")
        else
            [ -d /sys/fs/cgroup/systemd ] && CGDIRS+=("/sys/fs/cgroup/systemd/$MACHINE")
            [ -d /sys/fs/cgroup/unified ] && CGDIRS+=("/sys/fs/cgroup/unified/$MACHINE")
        fi
        for d in "${CGDIRS[@]}"; do mkdir -p "$d"; done
    fi
    say "booting systemd in $MACHINE"
    (
        for d in "${CGDIRS[@]}"; do echo "$BASHPID" >"$d/cgroup.procs"; done
        exec timeout -k 10 900 systemd-nspawn "${args[@]}"
    ) </dev/null >"$RUN/console.log" 2>&1 &
    WRAP=$!

    for _ in $(seq 1 1200); do     # 60 s
        np=$(nspawn_pid || true)
        if [ -n "$np" ]; then
            LEADER=$(pgrep -P "$np" 2>/dev/null | head -1 || true)
            [ -n "$LEADER" ] && [ -S "/proc/$LEADER/root/run/systemd/private" ] && break
        fi
        if ! alive "$WRAP"; then
            tail -20 "$RUN/console.log" >&2
            skip "systemd-nspawn could not boot a container here (console log above)"
        fi
        sleep 0.05
    done
    [ -n "$LEADER" ] && [ -S "/proc/$LEADER/root/run/systemd/private" ] || { tail -20 "$RUN/console.log" >&2; skip "the container did not boot within 60 s"; }
    container_wait_managers
}

# in_root TIMEOUT CMD: bash -c CMD as root inside; in_user TIMEOUT CMD: as the test user with its
# session environment (user manager, user bus). Both bounded; output to stdout, errors to stderr.
in_root() {
    local t=$1; shift
    log "root# $*"
    timeout -k 5 "$t" nsenter -t "$LEADER" -a -- env -i PATH=$PATH_IN HOME=/root LANG=C.UTF-8 TERM=dumb \
        SYSTEMD_PAGER= SYSTEMD_COLORS=0 /bin/bash -c "$*" </dev/null
}
in_user() {
    local t=$1; shift
    log "$E2E_USER\$ $*"
    timeout -k 5 "$t" nsenter -t "$LEADER" -a -- setpriv --reuid="$E2E_UID" --regid="$E2E_UID" --init-groups --reset-env \
        env XDG_RUNTIME_DIR=/run/user/$E2E_UID DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$E2E_UID/bus \
        LANG=C.UTF-8 TERM=dumb SYSTEMD_PAGER= SYSTEMD_COLORS=0 PATH=/home/$E2E_USER/.local/bin:$PATH_IN \
        /bin/bash -c "cd; $*" </dev/null
}

# Waits for the system manager and the user manager of the test user (container_boot calls it).
container_wait_managers() {
    local state
    state=$(in_root 60 'systemctl is-system-running --wait' 2>&1 || true)
    log "system manager: $state"
    [ "$state" = running ] || { echo "${0##*/}: system state '$state'; failed units:" >&2; in_root 10 'systemctl --failed --no-legend' >&2 || true; }
    in_root 60 "for i in \$(seq 600); do [ -S /run/user/$E2E_UID/systemd/private ] && exit 0; sleep 0.1; done; exit 1" ||
        { tail -20 "$RUN/console.log" >&2; skip "the user manager of $E2E_USER did not come up"; }
    in_user 60 'systemctl --user is-system-running --wait >/dev/null' || true
    say "booted: system '$state', user manager up"
}

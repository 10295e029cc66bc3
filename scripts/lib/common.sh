# Shared by scripts/run, scripts/test and scripts/install: install what the build needs and
# start what the tests need. Sourced, not run.

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "error: need root to run: $*" >&2; return 1; fi
}

# Installs the given Debian packages when any of them is missing.
ensure_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "==> installing ${missing[*]}" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# What building todod needs beyond the Swift toolchain.
ensure_build_packages() {
    command -v swift >/dev/null || { echo "error: the Swift toolchain (swift) is not on PATH" >&2; return 1; }
    ensure_packages pkg-config libsqlite3-dev libsystemd-dev libcurl4-openssl-dev libxml2-dev libncurses-dev
}

# Starts a private systemd-journald when none is listening (machines whose PID 1 is not systemd
# have none). A socket file alone proves nothing: where /run outlives the journald that made it,
# the file stays behind and refuses connections, so ask a live journald with systemd-cat.
# Tests read reminders back from it.
ensure_journald() {
    journald_listens && return 0
    ensure_packages systemd
    local journald=/lib/systemd/systemd-journald
    [ -x "$journald" ] || journald=/usr/lib/systemd/systemd-journald
    echo "==> starting a private systemd-journald" >&2
    as_root mkdir -p /run/systemd/journal
    as_root setsid "$journald" </dev/null >/dev/null 2>&1 &
    for _ in $(seq 50); do
        journald_listens && return 0
        sleep 0.1
    done
    echo "error: systemd-journald is not listening on /run/systemd/journal/socket" >&2
    return 1
}

journald_listens() {
    [ -S /run/systemd/journal/socket ] && command -v systemd-cat >/dev/null && systemd-cat true 2>/dev/null
}

# The private Python environment of the tests, .build/test-venv: python-dateutil (the RRULE
# oracle TodoCalendarTests compare recurrence rules with, scripts/lib/rrule-oracle.py) and jeepney
# (the D-Bus library of the stand-in notification server, scripts/lib/notification-server.py), plus
# the session bus daemon the notifier tests start, and todoman (the iCalendar interop test lists
# and writes a vdir exported by todoctl with it). Made once; what is already there is kept.
# Exports TODOD_RRULE_PYTHON, which makes the comparison test run and fail when the oracle does not,
# and TODOD_TODOMAN, which makes the todoman interop test run and fail when todoman does not.
# The CalDAV servers the sync tests run against, Radicale and xandikos, and vdirsyncer (the peer
# the sync figures are measured beside) are installed there too; TODOD_RADICALE, TODOD_XANDIKOS
# and TODOD_VDIRSYNCER name their console scripts (.build/test-venv/bin/radicale ...), Python files
# whose first line names the venv's python (TodoTestSupport/CalDAVServers.swift runs them through
# it). Set, they make the CalDAV tests run and fail when a server does not start.
ensure_test_environment() {
    ensure_packages python3 python3-venv dbus dbus-bin
    local venv=.build/test-venv
    if [ ! -x "$venv/bin/python" ]; then
        echo "==> creating $venv" >&2
        rm -rf "$venv"
        mkdir -p .build
        python3 -m venv "$venv"
    fi
    "$venv/bin/python" -c 'import dateutil.rrule, jeepney' 2>/dev/null || {
        echo "==> installing python-dateutil and jeepney into $venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check python-dateutil jeepney
    }
    [ -x "$venv/bin/todo" ] || {
        echo "==> installing todoman into $venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check todoman
    }
    [ -x "$venv/bin/radicale" ] && [ -x "$venv/bin/xandikos" ] && [ -x "$venv/bin/vdirsyncer" ] || {
        echo "==> installing radicale, xandikos and vdirsyncer into $venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check radicale xandikos vdirsyncer
    }
    "$venv/bin/python" -c 'import recurring_ical_events, caldav' 2>/dev/null || {
        echo "==> installing recurring-ical-events and caldav into $venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check recurring-ical-events caldav
    }
    # recurring-ical-events pins python-dateutil below 3, whose tz ignores the TZif footer (no DST
    # after 2037): the dateutil oracle needs 4 or later, with which recurring-ical-events works too.
    "$venv/bin/python" -c 'import dateutil, sys; sys.exit(int(dateutil.__version__.split(".")[0]) < 4)' 2>/dev/null || {
        echo "==> installing python-dateutil 4 into $venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check "python-dateutil>=4" 2>/dev/null
    }
    export TODOD_RRULE_PYTHON="$PWD/$venv/bin/python"
    export TODOD_TODOMAN="$PWD/$venv/bin/todo"
    export TODOD_RADICALE="$PWD/$venv/bin/radicale"
    export TODOD_XANDIKOS="$PWD/$venv/bin/xandikos"
    export TODOD_VDIRSYNCER="$PWD/$venv/bin/vdirsyncer"
}

# The given Debian packages that are not installed, on one line.
missing_packages() {
    local pkg missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    echo "${missing[*]}"
}

# Installs the given Debian packages as ensure_packages does, with their system services kept from
# starting: a policy-rc.d that refuses them is in place for the install (made for it and removed
# after where the machine has none), so no packaged PostgreSQL, Apache or Cyrus takes a port; under
# systemd, the services of the packages it installed are disabled too.
ensure_packages_without_services() {
    local policy=/usr/sbin/policy-rc.d made=0 status=0 pkg fresh
    read -ra fresh <<<"$(missing_packages "$@")"
    [ ${#fresh[@]} -eq 0 ] && return 0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# scripts/lib/common.sh: no service starts while the tests install packages\nexit 101\n' |
            as_root tee "$policy" >/dev/null && as_root chmod 755 "$policy" && made=1
    fi
    ensure_packages "$@" || status=$?
    [ "$made" -eq 0 ] || as_root rm -f "$policy"
    # Under systemd the new packages' services would start at the next boot: not for the tests.
    if [ -d /run/systemd/system ]; then
        for pkg in "${fresh[@]}"; do
            case "$pkg" in apache2 | postgresql | cyrus-imapd) as_root systemctl disable --quiet "$pkg" 2>/dev/null || true ;; esac
        done
    fi
    return "$status"
}

# The production CalDAV servers the CalDAV tests run beside Radicale and xandikos, from Debian's
# packages: Cyrus IMAP with its CalDAV module, and DAViCal (PHP under Apache on PostgreSQL).
# Installed here without prompts or system services; the tests start each on loopback with
# scripts/lib/caldav-server.sh, in a private directory it removes. Exports TODOD_CYRUS and
# TODOD_DAVICAL (that script) for each installed, or TODOD_CYRUS_SKIP / TODOD_DAVICAL_SKIP with
# the reason it is not (the tests print it and skip that server): not root, no apt-get, the
# install failed.
ensure_caldav_servers() {
    unset TODOD_CYRUS TODOD_DAVICAL TODOD_CYRUS_SKIP TODOD_DAVICAL_SKIP
    local script="$PWD/scripts/lib/caldav-server.sh" reason="" name packages started missing
    if [ "$(id -u)" -ne 0 ]; then
        reason="needs root (its daemons run as the packages' users)"
    elif ! command -v apt-get >/dev/null || ! command -v dpkg-query >/dev/null; then
        reason="installs from Debian's packages, and this machine has no apt-get"
    fi
    for name in CYRUS DAVICAL; do
        case "$name" in
            CYRUS) packages="cyrus-imapd cyrus-caldav sasl2-bin python3" ;;
            DAVICAL) packages="davical postgresql apache2 libapache2-mod-php php-pgsql python3" ;;
        esac
        if [ -n "$reason" ]; then
            export "TODOD_${name}_SKIP=$reason"
            echo "==> ${name,,}: the CalDAV tests skip it: $reason" >&2
            continue
        fi
        started=$(date +%s)
        # shellcheck disable=SC2086 # the package lists are split on purpose
        missing=$(missing_packages $packages)
        # shellcheck disable=SC2086
        if ensure_packages_without_services $packages; then
            export "TODOD_${name}=$script"
            [ -z "$missing" ] || echo "==> ${name,,}: installed in $(($(date +%s) - started)) s" >&2
        else
            export "TODOD_${name}_SKIP=apt-get install $packages failed"
            echo "==> ${name,,}: the CalDAV tests skip it: apt-get install $packages failed" >&2
        fi
    done
}

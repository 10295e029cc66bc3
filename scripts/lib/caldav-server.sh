#!/usr/bin/env bash
# Runs one production CalDAV server from Debian's packages on loopback, for the tests and
# scripts/bench-sync (scripts/lib/common.sh's ensure_caldav_servers installs the packages):
#   caldav-server.sh cyrus|davical DIR PORT USER PASSWORD
# Cyrus IMAP with its CalDAV module (the engine Fastmail runs), or DAViCal (PHP under Apache on
# PostgreSQL), answers CalDAV on http://127.0.0.1:PORT/ with one user USER (password PASSWORD).
# Everything it writes lives in DIR (made when missing; the caller may keep its log there): its
# own configuration, its own PostgreSQL cluster (a Unix socket in DIR, no TCP); no system service
# is started, nothing is written under /etc. It prints "ready" when the server answers, then runs
# until its standard input closes or it gets SIGTERM/SIGINT: then it stops every daemon it started
# and removes DIR (when it could not start, all but the *.log files there). Needs root (the daemons
# drop to the packages' users: cyrus, postgres, www-data).
set -euo pipefail

kind=${1:?usage: caldav-server.sh cyrus|davical DIR PORT USER PASSWORD}
dir=${2:?directory}
port=${3:?port}
user=${4:?user}
password=${5:?password}

case "$dir" in
    /tmp/?* | "${TMPDIR:-/tmp}"/?*) ;;
    *) echo "error: $kind: $dir is not under /tmp (it is removed at the end)" >&2; exit 1 ;;
esac
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 755 "$dir"  # the daemons' users reach their files (and PostgreSQL's socket) in it
pids=()
pgbin=
ready=0

cleanup() {
    # A signal that comes while stopping (the test process and its group ending) must not cut
    # the cleanup short and leave PostgreSQL running.
    trap - EXIT
    trap '' TERM INT HUP
    local i pid
    # Last started first: Apache before the PostgreSQL it holds connections to.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        pid=${pids[i]}
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    [ -z "${pgbin:-}" ] || [ ! -f "$dir/pg/data/postmaster.pid" ] ||
        runuser -u postgres -- "$pgbin/pg_ctl" -D "$dir/pg/data" -m immediate stop >/dev/null 2>&1 || true
    if [ "$ready" -eq 1 ]; then
        rm -rf "$dir"
    else  # it did not start: the caller's log (*.log in DIR) says why
        find "$dir" -mindepth 1 -maxdepth 1 ! -name '*.log' -exec rm -rf {} +
    fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

fail() { echo "error: $kind: $*" >&2; exit 1; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits (30 s at most) until something answers HTTP on 127.0.0.1:$1.
wait_http() {
    for _ in $(seq 300); do
        python3 - "$1" <<'EOF' 2>/dev/null && return 0
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
s.sendall(b"OPTIONS / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
sys.exit(0 if s.recv(5) == b"HTTP/" else 1)
EOF
        sleep 0.1
    done
    return 1
}

start_cyrus() {
    local bin=/usr/lib/cyrus/bin conf="$dir/imapd.conf" imap_port
    [ -x "$bin/master" ] || fail "$bin/master is missing (package cyrus-imapd)"
    imap_port=$(free_port)
    mkdir -p "$dir/config" "$dir/partition" "$dir/run" "$dir/socket"
    cat >"$conf" <<EOF
configdirectory: $dir/config
defaultpartition: default
partition-default: $dir/partition
proc_path: $dir/run/proc
mboxname_lockpath: $dir/run/lock
lmtpsocket: $dir/socket/lmtp
idlesocket: $dir/socket/idle
notifysocket: $dir/socket/notify
sievedir: $dir/sieve
servername: 127.0.0.1
httpmodules: caldav
caldav_create_default: yes
caldav_allowscheduling: no
caldav_create_sched: no
caldav_create_attach: no
allowplaintext: yes
sasl_pwcheck_method: auxprop
sasl_auxprop_plugin: sasldb
sasl_sasldb_path: $dir/sasldb2
sasl_mech_list: PLAIN LOGIN
admins: cyrus
unixhierarchysep: yes
altnamespace: yes
virtdomains: off
syslog_prefix: todod-cyrus
EOF
    cat >"$dir/cyrus.conf" <<EOF
START {
  recover cmd="ctl_cyrusdb -C $conf -r"
}
SERVICES {
  imap cmd="imapd -C $conf" listen="127.0.0.1:$imap_port" prefork=0
  http cmd="httpd -C $conf" listen="127.0.0.1:$port" prefork=0
}
EVENTS {
}
EOF
    local admin_password
    admin_password=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
    printf '%s' "$admin_password" | saslpasswd2 -p -f "$dir/sasldb2" -u 127.0.0.1 -c cyrus
    printf '%s' "$password" | saslpasswd2 -p -f "$dir/sasldb2" -u 127.0.0.1 -c "$user"
    chown -R cyrus:mail "$dir"
    chmod 640 "$dir/sasldb2"
    "$bin/master" -C "$conf" -M "$dir/cyrus.conf" -p "$dir/master.pid" -l 16 >"$dir/master.log" 2>&1 &
    pids+=($!)
    wait_http "$port" || fail "httpd does not answer on 127.0.0.1:$port: $(tail -c 1000 "$dir/master.log")"
    # The user's mailbox (the calendar home hangs under it), made by the admin over IMAP.
    python3 - "$imap_port" "$admin_password" "$user" <<'EOF' || fail "could not create the mailbox of $user over IMAP"
import imaplib, sys
imap = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
imap.login("cyrus", sys.argv[2])
status, detail = imap.create("user/" + sys.argv[3])
if status != "OK":
    sys.exit("CREATE user/%s: %s" % (sys.argv[3], detail))
imap.logout()
EOF
}

start_davical() {
    local pg="$dir/pg" modules=/usr/lib/apache2/modules php
    pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] || fail "no PostgreSQL server (package postgresql)"
    [ -x /usr/share/davical/dba/create-database.sh ] || fail "no DAViCal (package davical)"
    php=$(ls "$modules"/libphp*.so 2>/dev/null | sort -V | tail -n 1)
    [ -n "$php" ] || fail "no PHP module for Apache (package libapache2-mod-php)"
    command -v apache2 >/dev/null || [ -x /usr/sbin/apache2 ] || fail "no Apache (package apache2)"

    # A private PostgreSQL cluster: a socket in $pg, no TCP, no fsync.
    mkdir -p "$pg"
    chown postgres "$pg"
    runuser -u postgres -- "$pgbin/initdb" -D "$pg/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync \
        >"$dir/initdb.log" 2>&1 || fail "initdb: $(tail -c 1000 "$dir/initdb.log")"
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$pg/data" -l "$pg/postgres.log" -w -t 30 \
        -o "-k $pg -c listen_addresses= -p 5432 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start \
        >"$dir/pg_ctl.log" 2>&1 || fail "PostgreSQL did not start: $(tail -c 1000 "$pg/postgres.log" "$dir/pg_ctl.log" 2>&1)"
    runuser -u postgres -- env PGHOST="$pg" PGPORT=5432 TMPDIR="$pg" \
        /usr/share/davical/dba/create-database.sh davical "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
        >"$dir/create-database.log" 2>&1 || fail "create-database.sh: $(tail -c 1000 "$dir/create-database.log")"
    # The user: AWL keeps a plain-text password as '**' followed by it.
    local sql_user=${user//\'/\'\'} sql_password=${password//\'/\'\'}
    runuser -u postgres -- env PGHOST="$pg" PGPORT=5432 psql -qXAt -v ON_ERROR_STOP=1 davical >"$dir/user.log" 2>&1 <<EOF || fail "adding $user: $(cat "$dir/user.log")"
INSERT INTO usr (active, email_ok, updated, username, password, fullname, email)
    VALUES (TRUE, current_date, current_date, '$sql_user', '**$sql_password', '$sql_user', '$sql_user@example.net');
INSERT INTO principal (type_id, user_no, displayname, default_privileges)
    SELECT 1, user_no, '$sql_user', 0::BIT(24) FROM usr WHERE username = '$sql_user';
EOF

    # Apache with a configuration of its own: DAViCal's htdocs, the well-known redirect, PHP.
    # The packaged /etc/davical/config.php connects with libpq's defaults, which PGHOST/PGPORT
    # in Apache's environment point at the private cluster.
    cat >"$dir/apache2.conf" <<EOF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $dir/apache2.pid
DefaultRuntimeDir $dir
Mutex file:$dir default
ErrorLog $dir/apache2-error.log
LogLevel warn
User www-data
Group www-data
LoadModule mpm_prefork_module $modules/mod_mpm_prefork.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule alias_module $modules/mod_alias.so
LoadModule dir_module $modules/mod_dir.so
LoadModule mime_module $modules/mod_mime.so
LoadModule rewrite_module $modules/mod_rewrite.so
LoadModule php_module $php
StartServers 2
MinSpareServers 2
MaxSpareServers 4
MaxRequestWorkers 8
KeepAlive On
TypesConfig /etc/mime.types
DocumentRoot /usr/share/davical/htdocs
DirectoryIndex index.php
AcceptPathInfo On
<Directory />
    Require all denied
    AllowOverride None
</Directory>
<Directory /usr/share/davical/htdocs>
    Require all granted
</Directory>
<FilesMatch "\.php$">
    SetHandler application/x-httpd-php
</FilesMatch>
php_flag magic_quotes_gpc Off
RewriteEngine On
RewriteRule ^/\.well-known/(.*)$ /caldav.php/.well-known/\$1 [NC,L]
EOF
    local apache=/usr/sbin/apache2
    command -v apache2 >/dev/null && apache=$(command -v apache2)
    # In a session of its own: stopping, Apache signals its whole process group, which would
    # otherwise be ours and our caller's.
    PGHOST="$pg" PGPORT=5432 APACHE_RUN_DIR="$dir" APACHE_LOCK_DIR="$dir" APACHE_LOG_DIR="$dir" \
        setsid "$apache" -f "$dir/apache2.conf" -DFOREGROUND >"$dir/apache2.log" 2>&1 &
    pids+=($!)
    wait_http "$port" || fail "Apache does not answer on 127.0.0.1:$port: $(tail -c 1000 "$dir/apache2.log" "$dir/apache2-error.log" 2>&1)"
}

[ "$(id -u)" -eq 0 ] || fail "needs root (its daemons run as the packages' users)"
runuser -u nobody -- test -x "$dir" || fail "$dir is out of reach of other users (a parent directory is private)"
case "$kind" in
    cyrus) start_cyrus ;;
    davical) start_davical ;;
    *) fail "unknown server kind (cyrus or davical)" ;;
esac
ready=1
echo ready
# Until our standard input closes (the test process ended) or a signal comes.
cat <&0 >/dev/null &
wait $! || true

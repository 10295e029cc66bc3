# Unit-file helpers shared by scripts/install, scripts/check-units and scripts/systemd-e2e.
# Sourced, not run. Needs only bash, sed and coreutils (it runs inside minimal containers too).

# The four unit files, relative to the repository's systemd/ directory.
TODOD_UNITS=(user/todod.socket user/todod.service system/todod.socket system/todod.service)

# render_unit SRC DST BINDIR: copies unit SRC to DST with @bindir@ replaced by BINDIR (absolute)
# in settings; comment lines (# or ;) are copied as they are, so no path is pasted into prose.
render_unit() {
    local src=$1 dst=$2 bindir=$3
    case "$bindir" in /*) ;; *) echo "error: render_unit: bindir must be absolute: $bindir" >&2; return 1;; esac
    local escaped=${bindir//\\/\\\\}
    escaped=${escaped//|/\\|}
    escaped=${escaped//&/\\&}
    sed "/^[[:space:]]*[#;]/!s|@bindir@|$escaped|g" "$src" >"$dst"
}

# unit_placeholders FILE: prints the @...@ placeholders left in FILE (none after render_unit).
unit_placeholders() {
    grep -o '@[a-z_]*@' "$1" | sort -u || true
}

# bash completion for todoctl                                    -*- shell-script -*-
# Installed as .../share/bash-completion/completions/todoctl by scripts/install.
# Works with or without the bash-completion package. Todo ids, tags and category names are asked
# from the daemon (`todoctl __complete ids|tags PREFIX`, which reads every todo, and `todoctl --json
# category list`), within 2 seconds, silently: an unreachable daemon just means no suggestions.

# The connection options already on the command line (--socket PATH, --system), one per line.
_todoctl_connection() {
    local i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
            --system) printf '%s\n' --system ;;
            --socket=*) printf '%s\n' "$w" ;;
            --socket)
                # COMP_WORDBREAKS usually splits --socket=PATH into --socket, =, PATH
                [[ ${COMP_WORDS[i + 1]-} == "=" ]] && ((i++))
                ((i + 1 < COMP_CWORD)) && printf '%s\n' "--socket=${COMP_WORDS[i + 1]}" ;;
        esac
    done
}

# Runs todoctl --json ARGS against the same daemon as the command line being completed.
_todoctl_query() {
    local prog=${COMP_WORDS[0]} conn
    [[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}
    mapfile -t conn < <(_todoctl_connection)
    timeout 2 "$prog" "${conn[@]}" --json "$@" 2>/dev/null </dev/null
}

# Runs todoctl __complete ARGS (words one per line) against the same daemon.
_todoctl_complete_words() {
    local prog=${COMP_WORDS[0]} conn
    [[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}
    mapfile -t conn < <(_todoctl_connection)
    timeout 2 "$prog" "${conn[@]}" __complete "$@" 2>/dev/null </dev/null
}

# Todo ids starting with $cur, one per line: every todo's, or with "open" or "done" only those
# (done completes open todos, reopen reopens done ones).
_todoctl_ids() {
    local status=--all
    case $1 in open) status=--open ;; done) status=--done ;; esac
    _todoctl_complete_words ids "$status" "$cur" | cut -f1
}

# The tags in use starting with $cur, one per line.
_todoctl_tags() {
    _todoctl_complete_words tags "$cur"
}

_todoctl_categories() {
    _todoctl_query category list | grep -o '"name":"\([^"\\]\|\\.\)*"' |
        sed 's/^"name":"//; s/"$//; s/\\"/"/g; s/\\\\/\\/g'
}

# The alias names of the configuration file (alias.NAME = ...), one per line.
_todoctl_aliases() {
    local dir=${XDG_CONFIG_HOME-}
    [[ $dir == /* ]] || dir=$HOME/.config
    [[ -r $dir/todod/config ]] &&
        sed -n 's/^[[:space:]]*alias\.\([^[:space:]=]*\)[[:space:]]*=.*/\1/p' "$dir/todod/config" 2>/dev/null
}

# Adds the words (one per line on stdin) that start with $cur to COMPREPLY, quoted for the shell.
_todoctl_add_words() {
    local w
    while IFS= read -r w; do
        [[ -n $w && $w == "$cur"* ]] || continue
        if [[ $w == *[[:space:]\'\"\\\$\`\&\;\|\<\>\(\)\*\?\[\]\#\!]* ]]; then
            COMPREPLY+=("$(printf '%q' "$w")")
        else
            COMPREPLY+=("$w")
        fi
    done
}

# The account names of sync.conf (read from the file; no daemon needed).
_todoctl_sync_accounts() {
    local conf=${XDG_CONFIG_HOME:-$HOME/.config}/todod/sync.conf
    [[ -r $conf ]] && sed -n 's/^[[:space:]]*\[\([A-Za-z0-9._-]*\)\][[:space:]]*$/\1/p' "$conf"
}

_todoctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=""
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    local commands="add list show edit done reopen rm move snooze annotate dismiss category agenda reminders watch status ui export import undo redo sync help"
    local global_flags="--socket --system --json --help --version -j -h"
    # Options that take a value (the next word, or after =; a short one also joined: -n5).
    local valued=" --socket --category --due --remind --nag --nag-count --alarm --notes --due-before --due-after --search --search-exact --sort --limit --title --to --before --after --since --format --output --priority --tag --untag --every --days --if-revision --parent --start --url --user --password-file --credential --calendar --default-list --initial --from -c -d -s -n -p -t "
    local when_words="now today tomorrow yesterday tonight noon eod eow eom eoy monday tuesday wednesday thursday friday saturday sunday +15m +1h +2h +1d +1w +1mo"

    # Find the command, the category or sync subcommand and the positionals before the cursor.
    local i w command="" sub="" npos=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ ($w == --* && $w != *=* || $w == -?) && $valued == *" $w "* ]]; then
            [[ ${COMP_WORDS[i + 1]-} == "=" ]] && ((i++))
            ((i++)); continue
        fi
        if [[ $w == "=" ]]; then ((i++)); continue; fi  # --flag = value from a split --flag=value
        [[ $w == -* ]] && continue
        if [[ -z $command ]]; then command=$w
        elif [[ ($command == category || $command == sync) && -z $sub ]]; then sub=$w
        else ((npos++))
        fi
    done

    # A value of an option: --opt VALUE or --opt=VALUE.
    local opt="" value_prefix=""
    if [[ $cur == --*=* ]]; then            # = is not in COMP_WORDBREAKS
        opt=${cur%%=*}; value_prefix=$opt=; cur=${cur#*=}
    elif [[ $cur == "=" && $valued == *" $prev "* ]]; then   # --opt=| (split at =)
        opt=$prev; cur=""
    elif [[ $prev == "=" ]] && ((COMP_CWORD >= 2)) && [[ $valued == *" ${COMP_WORDS[COMP_CWORD - 2]} "* ]]; then
        opt=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $valued == *" $prev "* ]]; then
        opt=$prev
    fi
    if [[ -n $opt ]]; then
        case $opt in  # one-letter options as their long forms (ShortOptions in todoctl)
            -c) opt=--category ;; -d) opt=--due ;; -s) opt=--sort ;; -n) opt=--limit ;;
            -p) opt=--priority ;; -t) opt=--tag ;;
        esac
        case $opt in
            --socket | --output | --password-file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
            --category) _todoctl_add_words < <(_todoctl_categories) ;;
            --before | --after) _todoctl_add_words < <(_todoctl_ids) ;;
            --format) _todoctl_add_words < <(printf '%s\n' json ics vdir todotxt) ;;
            --from) _todoctl_add_words < <(printf '%s\n' taskwarrior todotxt) ;;
            --initial) _todoctl_add_words < <(printf '%s\n' merge remote local) ;;
            --sort)
                # Complete the key after the last comma; a leading - means descending.
                local head="" last=$cur sign="" k
                [[ $cur == *,* ]] && { head=${cur%,*},; last=${cur##*,}; }
                [[ $last == -* ]] && { sign=-; last=${last#-}; }
                for k in id title created updated due position category priority start; do
                    [[ $k == "$last"* ]] && COMPREPLY+=("$head$sign$k")
                done
                compopt -o nospace 2>/dev/null   # room for a comma and the next key
                ;;
            --priority) _todoctl_add_words < <(printf '%s\n' high medium low) ;;
            --tag | --untag) _todoctl_add_words < <(_todoctl_tags) ;;
            --every) _todoctl_add_words < <(printf '%s\n' day weekday week month year mon,thu FREQ=) ;;
            --since) [[ $command == watch ]] || _todoctl_add_words < <(printf '%s\n' $when_words) ;;   # watch: a seq
            --due | --remind | --due-before | --due-after)
                _todoctl_add_words < <(printf '%s\n' $when_words) ;;
        esac
        if [[ -n $value_prefix ]]; then
            for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=$value_prefix${COMPREPLY[i]}; done
        fi
        return 0
    fi

    if [[ $cur == -* ]]; then
        local flags=$global_flags
        case $command in
            add) flags+=" --category --due --remind --nag --nag-count --notes --top --after --priority --tag --every --parent --start -c -d -p -t" ;;
            list) flags+=" --open --done --all --category --no-category --overdue --due-before --due-after --search --search-exact --sort --limit --by-category --tag --priority --recurring --flat --ready --all-starts --parent -a -c -s -n -p -t" ;;
            edit) flags+=" --title --notes --no-notes --category --no-category --due --no-due --remind --no-remind --remind-clear --nag --nag-count --priority --no-priority --tag --untag --every --no-every --if-revision --parent --no-parent --start --no-start --all --yes -a -c -d -p -t" ;;
            done|reopen|rm|move|snooze|annotate|dismiss) flags+=" --open --done --all --category --no-category --overdue --due-before --due-after --search --search-exact --sort --limit --by-category --tag --priority --recurring --flat --ready --all-starts --parent -a -c -s -n -p -t --yes" ;;&
            done) flags+=" --stop" ;;
            rm) flags+=" --recursive" ;;
            move) flags+=" --to --before --after --top --bottom" ;;
            dismiss) flags+=" --alarm" ;;
            category)
                case $sub in
                    rm) flags+=" --force" ;;
                    move) flags+=" --to" ;;
                esac ;;
            sync)
                case $sub in
                    add) flags+=" --url --user --password-file --credential --calendar --initial --lists --default-list" ;;
                esac ;;
            agenda) flags+=" --days" ;;
            reminders) flags+=" --since --limit -n" ;;
            watch) flags+=" --since --reconnect" ;;
            export) flags+=" --format --output" ;;
            import) flags+=" --from -" ;;
            undo) flags+=" --list --limit -n" ;;
        esac
        mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
        return 0
    fi

    case $command in
        "") mapfile -t COMPREPLY < <(compgen -W "$commands $(_todoctl_aliases)" -- "$cur") ;;
        show) ((npos == 0)) && _todoctl_add_words < <(_todoctl_ids) ;;
        edit | move | annotate) _todoctl_add_words < <(_todoctl_ids) ;;
        done) _todoctl_add_words < <(_todoctl_ids open) ;;
        reopen) _todoctl_add_words < <(_todoctl_ids done) ;;
        rm) _todoctl_add_words < <(_todoctl_ids) ;;
        dismiss) _todoctl_add_words < <(_todoctl_ids open) ;;
        snooze)
            if ((npos == 0)); then _todoctl_add_words < <(_todoctl_ids open)
            elif ((npos == 1)); then _todoctl_add_words < <(printf '%s\n' 15m 30m 1h 2h 1d 1w tomorrow)
            fi ;;
        category)
            if [[ -z $sub ]]; then mapfile -t COMPREPLY < <(compgen -W "list add rename rm move" -- "$cur")
            elif [[ $sub == rename || $sub == rm || $sub == move ]] && ((npos == 0)); then
                _todoctl_add_words < <(_todoctl_categories)
            fi ;;
        sync)
            if [[ -z $sub ]]; then mapfile -t COMPREPLY < <(compgen -W "add list remove now status" -- "$cur")
            elif [[ $sub == remove || $sub == now ]] && ((npos == 0)); then
                _todoctl_add_words < <(_todoctl_sync_accounts)
            fi ;;
        import) ((npos == 0)) && mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        help) ((npos == 0)) && mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur") ;;
    esac
    return 0
}

complete -F _todoctl todoctl

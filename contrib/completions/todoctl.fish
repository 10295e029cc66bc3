# fish completion for todoctl. Installed by scripts/install as PREFIX/share/fish/vendor_completions.d/todoctl.fish:
# ~/.local/share/fish/vendor_completions.d/todoctl.fish (--user), or /etc/fish/completions/todoctl.fish
# for --system with the default prefix /usr/local (which fish does not read).
# Todo ids (with their titles), tags and category names are asked from the daemon
# (`todoctl __complete ids|tags PREFIX`, which reads every todo, and `todoctl --json category
# list`), within 2 seconds, silently: an unreachable daemon just means no suggestions.

set -l __todoctl_commands add list show edit done reopen rm move snooze annotate dismiss category agenda reminders watch status ui export import undo redo sync help
# Options that take a value in the next word.
set -g __todoctl_valued --socket --category --due --remind --notes --due-before --due-after --search --search-exact --sort --limit --title --to --before --after --since --format --priority --tag --untag --every --days --parent --start --url --user --password-file --credential --calendar --default-list --initial -c -d -s -n -p -t

# Prints the command, then the category or sync subcommand (if any), then the positionals, one per line.
function __todoctl_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l skip 0
    for t in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        if contains -- $t $__todoctl_valued
            set skip 1
            continue
        end
        string match -q -- '-*' $t; and continue
        echo $t
    end
end

# True when the command is one of the arguments (or, with no arguments, when there is none yet).
function __todoctl_command_is
    set -l words (__todoctl_words)
    if test (count $argv) -eq 0
        test (count $words) -eq 0
        return
    end
    test (count $words) -ge 1; and contains -- $words[1] $argv
end

# True when the command is `category` followed by one of the given subcommands
# (with no arguments: when no subcommand is there yet).
function __todoctl_category_sub
    set -l words (__todoctl_words)
    test (count $words) -ge 1; and test $words[1] = category; or return 1
    if test (count $argv) -eq 0
        test (count $words) -eq 1
        return
    end
    test (count $words) -ge 2; and contains -- $words[2] $argv
end

# The same for `sync` and its subcommands.
function __todoctl_sync_sub
    set -l words (__todoctl_words)
    test (count $words) -ge 1; and test $words[1] = sync; or return 1
    if test (count $argv) -eq 0
        test (count $words) -eq 1
        return
    end
    test (count $words) -ge 2; and contains -- $words[2] $argv
end

# The account names of sync.conf (read from the file; no daemon needed).
function __todoctl_sync_accounts
    set -l base $XDG_CONFIG_HOME
    test -n "$base"; or set base $HOME/.config
    test -r $base/todod/sync.conf; and string match -r -g '^\s*\[([A-Za-z0-9._-]+)\]\s*$' <$base/todod/sync.conf
end

# True when the command has exactly N positionals so far: __todoctl_npos N
function __todoctl_npos
    set -l words (__todoctl_words)
    test (count $words) -eq (math $argv[1] + 1)
end

# The --socket/--system options on the command line, to ask the same daemon.
function __todoctl_connection
    set -l tokens (commandline -opc)
    set -l n (count $tokens)
    for i in (seq 2 $n)
        switch $tokens[$i]
            case --system
                echo --system
            case '--socket=*'
                echo $tokens[$i]
            case --socket
                if test $i -lt $n
                    echo --socket=$tokens[(math $i + 1)]
                end
        end
    end
end

function __todoctl_query
    set -l prog (commandline -opc)[1]
    timeout 2 $prog (__todoctl_connection) --json $argv 2>/dev/null </dev/null
end

# Runs todoctl __complete ARGS (one word a line) against the daemon the command line names.
function __todoctl_complete_words
    set -l prog (commandline -opc)[1]
    timeout 2 $prog (__todoctl_connection) __complete $argv 2>/dev/null </dev/null
end

# Todo ids starting with what is typed, with their titles as descriptions: every todo's, or with
# open or done only those.
function __todoctl_ids
    set -l todo_status --all
    test "$argv[1]" = open; and set todo_status --open
    test "$argv[1]" = done; and set todo_status --done
    __todoctl_complete_words ids $todo_status (commandline -ct)
end

function __todoctl_categories
    __todoctl_query category list | string match -a -r -g '"name":"((?:[^"\\\\]|\\\\.)*)"' |
        string replace -a '\\"' '"' | string replace -a '\\\\' '\\'
end

# The tags in use starting with what is typed.
function __todoctl_tags
    __todoctl_complete_words tags (commandline -ct)
end

# The alias names of the configuration file (alias.NAME = ...).
function __todoctl_aliases
    set -l dir $XDG_CONFIG_HOME
    string match -q -- '/*' "$dir"; or set dir $HOME/.config
    test -r $dir/todod/config; or return
    string replace -r -f '^\s*alias\.([^\s=]+)\s*=.*' '$1' <$dir/todod/config
end

function __todoctl_sort_keys
    set -l token (commandline -ct)
    string match -q -- '--sort=*' $token; and set token (string replace -- '--sort=' '' $token)
    set -l head (string replace -r '[^,]*$' '' -- $token)
    for k in id title created updated due position category priority start
        echo $head$k
        echo $head-$k
    end
end

set -l rules day weekday week month year mon,thu FREQ=
set -l priorities high medium low
set -l when now today tomorrow yesterday tonight noon eod eow eom eoy monday tuesday wednesday thursday friday saturday sunday +15m +1h +2h +1d +1w +1mo

complete -c todoctl -f

# Global options (accepted before and after the command).
complete -c todoctl -l socket -r -F -d 'Talk to the daemon at PATH'
complete -c todoctl -l system -d 'Talk to the system daemon at /run/todod/todod.sock'
complete -c todoctl -s j -l json -d 'Print only JSON on stdout'
complete -c todoctl -s h -l help -d 'Show help'
complete -c todoctl -n '__todoctl_command_is' -l version -d 'Show the version'

# Commands.
complete -c todoctl -n '__todoctl_command_is' -a add -d 'Add a todo'
complete -c todoctl -n '__todoctl_command_is' -a list -d 'List todos'
complete -c todoctl -n '__todoctl_command_is' -a show -d 'Show one todo'
complete -c todoctl -n '__todoctl_command_is' -a edit -d 'Change a todo'
complete -c todoctl -n '__todoctl_command_is' -a done -d 'Mark todos as done'
complete -c todoctl -n '__todoctl_command_is' -a reopen -d 'Mark done todos as open again'
complete -c todoctl -n '__todoctl_command_is' -a rm -d 'Delete todos'
complete -c todoctl -n '__todoctl_command_is' -a move -d 'Move a todo in the manual order'
complete -c todoctl -n '__todoctl_command_is' -a snooze -d 'Postpone a reminder'
complete -c todoctl -n '__todoctl_command_is' -a annotate -d 'Append a dated line to the notes'
complete -c todoctl -n '__todoctl_command_is' -a dismiss -d 'Dismiss alarms that fired'
complete -c todoctl -n '__todoctl_command_is' -a category -d 'List and manage categories'
complete -c todoctl -n '__todoctl_command_is' -a agenda -d 'The coming days: due todos and recurring occurrences'
complete -c todoctl -n '__todoctl_command_is' -a reminders -d 'List reminders that fired'
complete -c todoctl -n '__todoctl_command_is' -a watch -d 'Print live events'
complete -c todoctl -n '__todoctl_command_is' -a status -d 'Show the daemon health'
complete -c todoctl -n '__todoctl_command_is' -a ui -d 'The interactive list'
complete -c todoctl -n '__todoctl_command_is' -a export -d 'Write the whole store as JSON, iCalendar or a vdir'
complete -c todoctl -n '__todoctl_command_is' -a import -d 'Add everything in an export, an iCalendar file or a vdir'
complete -c todoctl -n '__todoctl_command_is' -a undo -d 'Revert the most recent change'
complete -c todoctl -n '__todoctl_command_is' -a redo -d 'Apply again what undo reverted'
complete -c todoctl -n '__todoctl_command_is' -a sync -d 'CalDAV sync accounts (todod-sync)'
complete -c todoctl -n '__todoctl_command_is' -a help -d 'Show help'
complete -c todoctl -n '__todoctl_command_is' -a '(__todoctl_aliases)' -d 'Alias (configuration file)'

# add
complete -c todoctl -n '__todoctl_command_is add' -s c -l category -x -a '(__todoctl_categories)' -d 'Put it in category NAME'
complete -c todoctl -n '__todoctl_command_is add' -s d -l due -x -a "$when" -d 'When it is due'
complete -c todoctl -n '__todoctl_command_is add' -l remind -x -a "5m 15m 30m 1h 1d $when" -d 'DURATION before --due, or WHEN'
complete -c todoctl -n '__todoctl_command_is add edit' -l nag -x -a "5m 10m 15m 30m 1h" -d 'Repeat each alarm every DURATION'
complete -c todoctl -n '__todoctl_command_is add edit' -l nag-count -x -d 'How many times --nag repeats (default 6)'
complete -c todoctl -n '__todoctl_command_is edit' -l remind-clear -d 'Remove every alarm'
complete -c todoctl -n '__todoctl_command_is add' -l notes -x -d 'Free-form notes'
complete -c todoctl -n '__todoctl_command_is add' -l top -d 'Put it first in the manual order'
complete -c todoctl -n '__todoctl_command_is add' -l after -x -a '(__todoctl_ids)' -d 'Put it directly after todo ID'
complete -c todoctl -n '__todoctl_command_is add' -s p -l priority -x -a "$priorities" -d 'Its priority'
complete -c todoctl -n '__todoctl_command_is add' -s t -l tag -x -a '(__todoctl_tags)' -d 'Tag it T (repeatable)'
complete -c todoctl -n '__todoctl_command_is add' -l every -x -a "$rules" -d 'Make it recurring: RULE'
complete -c todoctl -n '__todoctl_command_is add' -l parent -x -a '(__todoctl_ids)' -d 'Make it a subtask of todo ID'
complete -c todoctl -n '__todoctl_command_is add' -l start -x -a "$when" -d 'When it can be started'

# list
complete -c todoctl -n '__todoctl_command_is list' -l open -d 'Open todos (default)'
complete -c todoctl -n '__todoctl_command_is list' -l done -d 'Done todos'
complete -c todoctl -n '__todoctl_command_is list' -s a -l all -d 'All todos'
complete -c todoctl -n '__todoctl_command_is list' -s c -l category -x -a '(__todoctl_categories)' -d 'Only todos in category NAME'
complete -c todoctl -n '__todoctl_command_is list' -l no-category -d 'Only todos without a category'
complete -c todoctl -n '__todoctl_command_is list' -l overdue -d 'Only open todos past their due time'
complete -c todoctl -n '__todoctl_command_is list' -l due-before -x -a "$when" -d 'Only todos due before WHEN'
complete -c todoctl -n '__todoctl_command_is list' -l due-after -x -a "$when" -d 'Only todos due at or after WHEN'
complete -c todoctl -n '__todoctl_command_is list' -l search -x -d 'Only todos whose title or notes contain TEXT'
complete -c todoctl -n '__todoctl_command_is list' -l search-exact -x -d 'Only todos whose title or notes contain TEXT as written'
complete -c todoctl -n '__todoctl_command_is list' -s s -l sort -x -a '(__todoctl_sort_keys)' -d 'Sort keys, comma-separated; - for descending'
complete -c todoctl -n '__todoctl_command_is list' -s n -l limit -x -d 'Show at most N todos'
complete -c todoctl -n '__todoctl_command_is list' -l by-category -d 'Group by category'
complete -c todoctl -n '__todoctl_command_is list' -s t -l tag -x -a '(__todoctl_tags)' -d 'Only todos tagged T (all must match)'
complete -c todoctl -n '__todoctl_command_is list' -s p -l priority -x -a "$priorities" -d 'Only todos of priority P'
complete -c todoctl -n '__todoctl_command_is list' -l recurring -d 'Only recurring todos, with their rule'
complete -c todoctl -n '__todoctl_command_is list' -l flat -d 'A plain list, subtasks not under their parents'
complete -c todoctl -n '__todoctl_command_is list' -l ready -d 'Only todos whose start has come'
complete -c todoctl -n '__todoctl_command_is list' -l all-starts -d 'Todos whose start is to come too'
complete -c todoctl -n '__todoctl_command_is list' -l parent -x -a '(__todoctl_ids)' -d 'Only the subtasks of todo ID'

# show, edit, done, reopen, rm, move, snooze: todo ids
complete -c todoctl -n '__todoctl_command_is show; and __todoctl_npos 0' -x -a '(__todoctl_ids)'
complete -c todoctl -n '__todoctl_command_is edit move annotate' -x -a '(__todoctl_ids)'
complete -c todoctl -n '__todoctl_command_is snooze; and __todoctl_npos 0' -x -a '(__todoctl_ids open)'
complete -c todoctl -n '__todoctl_command_is done' -x -a '(__todoctl_ids open)'
complete -c todoctl -n '__todoctl_command_is reopen' -x -a '(__todoctl_ids done)'
complete -c todoctl -n '__todoctl_command_is rm' -x -a '(__todoctl_ids)'
complete -c todoctl -n '__todoctl_command_is dismiss' -x -a '(__todoctl_ids open)'
complete -c todoctl -n '__todoctl_command_is dismiss' -l alarm -x -d 'Only that alarm: its uid or its number as show lists them'
complete -c todoctl -n '__todoctl_command_is snooze; and __todoctl_npos 1' -x -a "15m 30m 1h 2h 1d 1w $when"

# edit
complete -c todoctl -n '__todoctl_command_is edit' -l title -x -d 'New title'
complete -c todoctl -n '__todoctl_command_is edit' -l notes -x -d 'Set the notes'
complete -c todoctl -n '__todoctl_command_is edit' -l no-notes -d 'Clear the notes'
complete -c todoctl -n '__todoctl_command_is edit' -s c -l category -x -a '(__todoctl_categories)' -d 'Set the category'
complete -c todoctl -n '__todoctl_command_is edit' -l no-category -d 'Clear the category'
complete -c todoctl -n '__todoctl_command_is edit' -s d -l due -x -a "$when" -d 'Set the due time'
complete -c todoctl -n '__todoctl_command_is edit' -l no-due -d 'Clear the due time and the reminder'
complete -c todoctl -n '__todoctl_command_is edit' -l remind -x -a "5m 15m 30m 1h 1d $when" -d 'Set the reminder'
complete -c todoctl -n '__todoctl_command_is edit' -l no-remind -d 'Clear the reminder'
complete -c todoctl -n '__todoctl_command_is edit' -s p -l priority -x -a "$priorities" -d 'Set the priority'
complete -c todoctl -n '__todoctl_command_is edit' -l no-priority -d 'Clear the priority'
complete -c todoctl -n '__todoctl_command_is edit' -s t -l tag -x -a '(__todoctl_tags)' -d 'Add a tag'
complete -c todoctl -n '__todoctl_command_is edit' -l untag -x -a '(__todoctl_tags)' -d 'Remove a tag'
complete -c todoctl -n '__todoctl_command_is edit' -l every -x -a "$rules" -d 'Make it recurring: RULE'
complete -c todoctl -n '__todoctl_command_is edit' -l no-every -d 'Make it a one-off todo'
complete -c todoctl -n '__todoctl_command_is edit' -l if-revision -x -d 'Change it only while its revision is N'
complete -c todoctl -n '__todoctl_command_is edit' -l parent -x -a '(__todoctl_ids)' -d 'Make it a subtask of todo ID'
complete -c todoctl -n '__todoctl_command_is edit' -l no-parent -d 'Make it a top-level todo'
complete -c todoctl -n '__todoctl_command_is edit' -l start -x -a "$when" -d 'When it can be started'
complete -c todoctl -n '__todoctl_command_is edit' -l no-start -d 'Clear the start'

# done, reopen, rm, move, snooze, annotate, dismiss: a filter as list takes it (edit: before the command)
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l open -d 'Open todos (default)'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l done -d 'Done todos'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -s a -l all -d 'Every todo list shows without a filter'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -s c -l category -x -a '(__todoctl_categories)' -d 'Only todos in category NAME'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l no-category -d 'Only todos without a category'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l overdue -d 'Only open todos past their due time'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l due-before -x -a "$when" -d 'Only todos due before WHEN'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l due-after -x -a "$when" -d 'Only todos due at or after WHEN'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l search -x -d 'Only todos whose title or notes contain TEXT'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l search-exact -x -d 'Only todos whose title or notes contain TEXT as written'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -s s -l sort -x -a '(__todoctl_sort_keys)' -d 'Sort keys, comma-separated; - for descending'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -s n -l limit -x -d 'Show at most N todos'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l by-category -d 'Group by category'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -s t -l tag -x -a '(__todoctl_tags)' -d 'Only todos tagged T (all must match)'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -s p -l priority -x -a "$priorities" -d 'Only todos of priority P'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l recurring -d 'Only recurring todos, with their rule'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l flat -d 'A plain list, subtasks not under their parents'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l ready -d 'Only todos whose start has come'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l all-starts -d 'Todos whose start is to come too'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss' -l parent -x -a '(__todoctl_ids)' -d 'Only the subtasks of todo ID'
complete -c todoctl -n '__todoctl_command_is done reopen rm move snooze annotate dismiss edit' -l yes -d 'Go on without asking'
complete -c todoctl -n '__todoctl_command_is edit' -s a -l all -d 'Every todo list shows without a filter'

# done
complete -c todoctl -n '__todoctl_command_is done' -l stop -d 'End recurring todos for good'
complete -c todoctl -n '__todoctl_command_is rm' -l recursive -d 'Delete their subtasks too'

# move
complete -c todoctl -n '__todoctl_command_is move' -l to -x -d 'To be the N-th todo of the open list'
complete -c todoctl -n '__todoctl_command_is move' -l before -x -a '(__todoctl_ids)' -d 'Directly before todo ID'
complete -c todoctl -n '__todoctl_command_is move' -l after -x -a '(__todoctl_ids)' -d 'Directly after todo ID'
complete -c todoctl -n '__todoctl_command_is move' -l top -d 'To the first position'
complete -c todoctl -n '__todoctl_command_is move' -l bottom -d 'To the last position'

# category
complete -c todoctl -n '__todoctl_category_sub' -a list -d 'List categories'
complete -c todoctl -n '__todoctl_category_sub' -a add -d 'Add a category'
complete -c todoctl -n '__todoctl_category_sub' -a rename -d 'Rename a category'
complete -c todoctl -n '__todoctl_category_sub' -a rm -d 'Remove a category'
complete -c todoctl -n '__todoctl_category_sub' -a move -d 'Move a category in the category order'
complete -c todoctl -n '__todoctl_category_sub rename rm move; and __todoctl_npos 1' -x -a '(__todoctl_categories)'
complete -c todoctl -n '__todoctl_category_sub rm' -l force -d 'Remove even if todos use it'
complete -c todoctl -n '__todoctl_category_sub move' -l to -x -d 'To position N'

# sync
complete -c todoctl -n '__todoctl_sync_sub' -a add -d 'Add a CalDAV account (checked first)'
complete -c todoctl -n '__todoctl_sync_sub' -a list -d 'List the accounts'
complete -c todoctl -n '__todoctl_sync_sub' -a remove -d 'Remove an account (the todos stay)'
complete -c todoctl -n '__todoctl_sync_sub' -a now -d 'Sync now'
complete -c todoctl -n '__todoctl_sync_sub' -a status -d 'Each account and the recent conflicts'
complete -c todoctl -n '__todoctl_sync_sub remove now; and __todoctl_npos 1' -x -a '(__todoctl_sync_accounts)'
complete -c todoctl -n '__todoctl_sync_sub add' -l url -x -d 'The server, a principal or a calendar'
complete -c todoctl -n '__todoctl_sync_sub add' -l user -x -d 'The user name on the server'
complete -c todoctl -n '__todoctl_sync_sub add' -l password-file -r -F -d 'A file holding the password (mode 0600)'
complete -c todoctl -n '__todoctl_sync_sub add' -l credential -x -d 'The systemd credential holding the password'
complete -c todoctl -n '__todoctl_sync_sub add' -l calendar -x -d 'The calendar to use'
complete -c todoctl -n '__todoctl_sync_sub add' -l lists -d 'Every calendar is a list (a category)'
complete -c todoctl -n '__todoctl_sync_sub add' -l default-list -x -d 'The list for todos without a category (implies --lists)'
complete -c todoctl -n '__todoctl_sync_sub add' -l initial -x -a 'merge remote local' -d 'What the first round does when both sides hold todos'

# agenda, reminders, export, import, help
complete -c todoctl -n '__todoctl_command_is agenda' -l days -x -d 'How many days, today included'
complete -c todoctl -n '__todoctl_command_is reminders' -l since -x -a "$when" -d 'Only reminders fired at or after WHEN'
complete -c todoctl -n '__todoctl_command_is reminders' -s n -l limit -x -d 'At most N reminders'
complete -c todoctl -n '__todoctl_command_is watch' -l since -x -d 'First replay the changes after SEQ'
complete -c todoctl -n '__todoctl_command_is watch' -l reconnect -d 'Wait for the daemon and resume when it goes away'
complete -c todoctl -n '__todoctl_command_is export' -l format -x -a 'json ics vdir todotxt' -d 'Output format'
complete -c todoctl -n '__todoctl_command_is export' -l output -r -F -d 'Write to FILE instead of stdout'
complete -c todoctl -n '__todoctl_command_is undo' -l list -d 'Show the recent changes'
complete -c todoctl -n '__todoctl_command_is undo' -s n -l limit -x -d 'With --list: the latest N changes'
complete -c todoctl -n '__todoctl_command_is import; and __todoctl_npos 0' -F -a '-' -d 'Export, .ics file or vdir; - for stdin'
complete -c todoctl -n '__todoctl_command_is import' -l from -x -a 'taskwarrior todotxt' -d "Read another tool's file"
complete -c todoctl -n '__todoctl_command_is help; and __todoctl_npos 0' -x -a "$__todoctl_commands"

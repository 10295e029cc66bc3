#!/usr/bin/env python3
"""Checks the man page and the bash, zsh and fish completions against todoctl's command table.

Usage: check-command-table.py TABLE   (TABLE: the output of `todoctl __command-table`)
Each command, option, subcommand (of category and sync) and sort key must appear where it belongs: in the
man page entry of its command; in each completion's list of commands and in the options it
offers for that command, with the right arity (value or flag), and nothing the table lacks.
One-letter options (`short LETTER LONG`) belong wherever their long option is: in the man page
entry (or GLOBAL OPTIONS) and in each completion's options for that command.
Prints ok:/FAIL: lines; exit status 1 when anything drifted.
"""
import re
import sys

failed = False


def fail(message):
    global failed
    print("FAIL: " + message, file=sys.stderr)
    failed = True


def compare(label, found, wanted):
    """`found` and `wanted`: dicts of option -> arity (or sets of words)."""
    missing = sorted(set(wanted) - set(found))
    extra = sorted(set(found) - set(wanted))
    wrong = sorted(o for o in set(found) & set(wanted) if isinstance(found, dict) and found[o] != wanted[o])
    if missing:
        fail(f"{label} lacks: {' '.join(missing)}")
    if extra:
        fail(f"{label} has what todoctl does not: {' '.join(extra)}")
    if wrong:
        fail(f"{label} has the wrong arity (value or flag) for: {' '.join(wrong)}")
    return not (missing or extra or wrong)


# The table.
# subs: {command: [subcommand]}; suboptions: {command: {subcommand: {option: arity}}}.
globals_, commands, options, subs, suboptions, sortkeys, shorts = {}, [], {}, {}, {}, [], {}
for line in open(sys.argv[1], encoding="utf-8"):
    f = line.split()
    if not f:
        continue
    if f[0] == "global":
        globals_[f[1]] = f[2]
    elif f[0] == "command":
        commands.append(f[1])
        options[f[1]] = {}
    elif f[0] == "option":
        options[f[1]][f[2]] = f[3]
    elif f[0] == "subcommand":
        subs.setdefault(f[1], []).append(f[2])
        suboptions.setdefault(f[1], {})[f[2]] = {}
    elif f[0] == "suboption":
        suboptions[f[1]][f[2]][f[3]] = f[4]
    elif f[0] == "sortkey":
        sortkeys.append(f[1])
    elif f[0] == "short":
        shorts["-" + f[1]] = f[2]
if not commands or not globals_ or "category" not in subs or not sortkeys:
    fail("could not read the command table")
    sys.exit(1)
# Options of a command without subcommands; category's and sync's belong to their subcommands.
plain = {c: options[c] for c in commands if c not in subs}


def shorts_for(table):
    """The one-letter options whose long option is in `table`: {"-a": "--all"}."""
    return {s: long for s, long in shorts.items() if long in table}


global_shorts = shorts_for(globals_)


def read(path):
    return open(path, encoding="utf-8").read()


# --- man page: each command's entry (": `name` ...", up to the next entry) names its options.
man = read("docs/man/todoctl.1.md")
entries = {}
for m in re.finditer(r"^: `([a-z]+)(?: ([a-z]+))?`(.*?)(?=^: `|^## )", man, re.S | re.M):
    # A name may have two entries (the command `snooze` and the config key `snooze`): both count.
    entries[(m.group(1), m.group(2))] = entries.get((m.group(1), m.group(2)), "") + m.group(3)
ok = True
for c in commands:
    if c in subs:
        continue
    body = entries.get((c, None))
    if body is None:
        fail(f"todoctl(1) has no entry for the command {c}")
        ok = False
        continue
    for o in list(options[c]) + list(shorts_for(options[c])):
        if f"`{o}`" not in body:
            fail(f"todoctl(1) entry of {c} does not mention {o}")
            ok = False
for c in subs:
    for s in subs[c]:
        body = entries.get((c, s))
        if body is None:
            fail(f"todoctl(1) has no entry for {c} {s}")
            ok = False
            continue
        for o in suboptions[c][s]:
            if f"`{o}`" not in body:
                fail(f"todoctl(1) entry of {c} {s} does not mention {o}")
                ok = False
section = re.search(r"^## GLOBAL OPTIONS$(.*?)^## ", man, re.S | re.M)
for o in list(globals_) + list(global_shorts):
    if not section or f"`{o}`" not in section.group(1):
        fail(f"todoctl(1) GLOBAL OPTIONS does not mention {o}")
        ok = False
sort = entries.get(("list", None), "")
for k in sortkeys:
    if f"`{k}`" not in sort:
        fail(f"todoctl(1) entry of list does not name the sort key {k}")
        ok = False
if ok:
    print("ok: todoctl(1) documents every command, subcommand, option and sort key where it belongs")


# --- bash.
bash = read("contrib/completions/todoctl.bash")


def words(pattern, text, label):
    m = re.search(pattern, text, re.S)
    if not m:
        fail(f"{label}: cannot find {pattern!r}")
        return []
    return m.group(1).split()


ok = compare("todoctl.bash commands", set(words(r'local commands="([^"]*)"', bash, "bash")), set(commands))
ok &= compare("todoctl.bash global flags", set(words(r'local global_flags="([^"]*)"', bash, "bash")), set(globals_) | set(global_shorts))
valued = set(words(r'local valued="([^"]*)"', bash, "bash"))
all_valued = {o for table in [globals_, *options.values()] for o, a in table.items() if a == "value"}
all_valued |= {s for s, long in shorts.items() if long in all_valued}
ok &= compare("todoctl.bash valued options", valued, all_valued)
flags_block = re.search(r'if \[\[ \$cur == -\* \]\]; then(.*?)\n    fi\n', bash, re.S)
block = flags_block.group(1) if flags_block else ""
sub_texts = {}
for c in subs:
    m = re.search(c + r"\)\s*case \$sub in(.*?)esac", block, re.S)
    sub_texts[c] = m.group(1) if m else ""
outside = block
for text in sub_texts.values():
    outside = outside.replace(text, "")
found = {c: set() for c in plain}
found_short = {c: set() for c in plain}
for m in re.finditer(r'^\s*([a-z|]+)\) flags\+="([^"]*)"', outside, re.M):
    for c in m.group(1).split("|"):
        found.setdefault(c, set()).update(w for w in m.group(2).split() if w.startswith("--"))
        found_short.setdefault(c, set()).update(w for w in m.group(2).split() if re.fullmatch(r"-[a-z]", w))
for c in plain:
    ok &= compare(f"todoctl.bash options of {c}", found.get(c, set()), set(plain[c]))
    ok &= compare(f"todoctl.bash one-letter options of {c}", found_short.get(c, set()), set(shorts_for(plain[c])) - set(global_shorts))
for c in subs:
    sub_found = {}
    for m in re.finditer(r'^\s*([a-z|]+)\) flags\+="([^"]*)"', sub_texts[c], re.M):
        for s in m.group(1).split("|"):
            sub_found.setdefault(s, set()).update(m.group(2).split())
    for s in subs[c]:
        ok &= compare(f"todoctl.bash options of {c} {s}", sub_found.get(s, set()), set(suboptions[c][s]))
    listed = words(r"\n        " + c + r'\)\n            if \[\[ -z \$sub \]\]; then mapfile -t COMPREPLY < <\(compgen -W "([^"]*)"', bash, "bash")
    ok &= compare(f"todoctl.bash {c} subcommands", set(listed), set(subs[c]))
ok &= compare("todoctl.bash sort keys", set(words(r"for k in ([^;]*); do", bash, "bash")), set(sortkeys))
if ok:
    print("ok: todoctl.bash completes every command, subcommand, option and sort key, and nothing else")


# --- zsh: `'--name=[...]'` takes a value, `'--name[...]'` is a flag.
zsh = read("contrib/completions/_todoctl")


def zsh_options(text):
    # (`{-h,--help}'[...]` is zsh's brace expansion of two spellings.)
    return {m.group(1): ("value" if m.group(2) == "=" else "flag")
            for m in re.finditer(r"(--[a-z][a-z-]*)(=?)(?:\}')?\[", text)}


def zsh_shorts(text):
    """`{-a,--all}` and `{-c+,--category=}`: {"-a": "--all", "-c": "--category"}."""
    return {m.group(1): m.group(2) for m in re.finditer(r"\{(-[a-z])\+?,(--[a-z][a-z-]*)=?\}", text)}


commands_list = re.search(r"commands=\((.*?)\)", zsh, re.S)
ok = compare("_todoctl commands", set(re.findall(r"'([a-z]+):", commands_list.group(1) if commands_list else "")), set(commands))
global_block = re.search(r"global=\((.*?)\n  \)", zsh, re.S)
zsh_globals = zsh_options(global_block.group(1) if global_block else "")
zsh_globals.update(zsh_options(re.search(r"_arguments -C \$global(.*?)&& ret=0", zsh, re.S).group(1)))
ok &= compare("_todoctl global options", zsh_globals, globals_)
ok &= compare("_todoctl global one-letter options", zsh_shorts(global_block.group(1) if global_block else ""), global_shorts)
args = re.search(r"case \$words\[1\] in(.*)", zsh, re.S).group(1)
sub_texts = {}
for c in subs:
    m = re.search(r"\n        " + c + r"\)(.*?)fi ;;", args, re.S)
    sub_texts[c] = m.group(1) if m else ""
outside = args
for text in sub_texts.values():
    outside = outside.replace(text, "")
found, found_short = {}, {}
for m in re.finditer(r"^        ([a-z|]+)\)(.*?);;", outside, re.S | re.M):
    for c in m.group(1).split("|"):
        found[c] = zsh_options(m.group(2))
        found_short[c] = zsh_shorts(m.group(2))
for c in plain:
    ok &= compare(f"_todoctl options of {c}", found.get(c, {}), plain[c])
    wanted = {s: long for s, long in shorts_for(plain[c]).items() if s not in global_shorts}
    ok &= compare(f"_todoctl one-letter options of {c}", found_short.get(c, {}), wanted)
for c in subs:
    subs_list = re.search(r"subs=\((.*?)\)\n", sub_texts[c], re.S)
    ok &= compare(f"_todoctl {c} subcommands", set(re.findall(r"'([a-z]+):", subs_list.group(1) if subs_list else "")), set(subs[c]))
    sub_found = {}
    for m in re.finditer(r"^              ([a-z|*]+)\)(.*?);;", sub_texts[c], re.S | re.M):
        for s in m.group(1).split("|"):
            sub_found[s] = zsh_options(m.group(2))
    for s in subs[c]:
        ok &= compare(f"_todoctl options of {c} {s}", sub_found.get(s, {}), suboptions[c][s])
ok &= compare("_todoctl sort keys",
              {k for k in words(r"_todoctl_sort_keys\(\) \{.*?keys=\(([^)]*)\)", zsh, "zsh") if not k.startswith("-")}, set(sortkeys))
if ok:
    print("ok: _todoctl completes every command, subcommand, option and sort key, and nothing else")


# --- fish: `-l name` takes a value with -x or -r.
fish = read("contrib/completions/todoctl.fish")
fish_commands, fish_globals, fish_subs, fish_global_shorts = set(), {}, {c: set() for c in subs}, {}
found, sub_found, found_short = {}, {}, {}
for line in fish.splitlines():
    if not line.startswith("complete -c todoctl"):
        continue
    cond = re.search(r"-n '([^']*)'", line)
    cond = cond.group(1) if cond else ""
    long = re.search(r" -l ([a-z][a-z-]*)", line)
    short = re.search(r" -s ([a-z]) ", line)
    arity = "value" if re.search(r" -[xr]\b", line) else "flag"
    arg = re.search(r" -a ([a-z]+) ", line)
    if cond in ("", "__todoctl_command_is"):
        if long:
            fish_globals["--" + long.group(1)] = arity
            if short:
                fish_global_shorts["-" + short.group(1)] = "--" + long.group(1)
        elif arg and cond:
            fish_commands.add(arg.group(1))
        continue
    m = re.fullmatch(r"__todoctl_command_is ([a-z ]+)", cond)
    if m and long:
        for c in m.group(1).split():
            found.setdefault(c, {})["--" + long.group(1)] = arity
            if short:
                found_short.setdefault(c, {})["-" + short.group(1)] = "--" + long.group(1)
        continue
    m = re.fullmatch(r"__todoctl_([a-z]+)_sub(?: ([a-z ]+))?", cond)
    if m and m.group(1) in subs:
        if long:
            for s in (m.group(2) or "").split():
                sub_found.setdefault((m.group(1), s), {})["--" + long.group(1)] = arity
        elif arg and not m.group(2):
            fish_subs[m.group(1)].add(arg.group(1))
ok = compare("todoctl.fish commands", fish_commands, set(commands))
ok &= compare("todoctl.fish global options", fish_globals, globals_)
ok &= compare("todoctl.fish global one-letter options", fish_global_shorts, global_shorts)
for c in plain:
    ok &= compare(f"todoctl.fish options of {c}", found.get(c, {}), plain[c])
    wanted = {s: long for s, long in shorts_for(plain[c]).items() if s not in global_shorts}
    ok &= compare(f"todoctl.fish one-letter options of {c}", found_short.get(c, {}), wanted)
for c in subs:
    ok &= compare(f"todoctl.fish {c} subcommands", fish_subs[c], set(subs[c]))
    for s in subs[c]:
        ok &= compare(f"todoctl.fish options of {c} {s}", sub_found.get((c, s), {}), suboptions[c][s])
ok &= compare("todoctl.fish sort keys", set(words(r"function __todoctl_sort_keys.*?for k in ([^\n]*)", fish, "fish")), set(sortkeys))
if ok:
    print("ok: todoctl.fish completes every command, subcommand, option and sort key, and nothing else")

sys.exit(1 if failed else 0)

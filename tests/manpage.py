#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""manpage.py: what tests/t0093-manpages.sh reads out of the man pages.

  manpage.py settings PAGE.7   the MAXCODE_* names in the tags of the
                               SETTINGS section's items, one a line
  manpage.py options PAGE.7    the KEY of each KEY=... tag of the OPTIONS
                               section's items, one a line
  manpage.py names TEXT        the names of the items of the COMMANDS
                               section of a page man rendered as TEXT
                               (groff -man -Tascii), each once, in order
  manpage.py item TEXT NAME    those items whose name is NAME (the tag's
                               first word, a trailing comma dropped),
                               dedented, a blank line between two
  manpage.py items TEXT DIR    for each NAME of names, what item prints
                               into DIR/NAME (one run for every name)
  manpage.py words FILE        FILE's words, one a line, with the line
                               breaks that man may put after a hyphen
                               undone: the text, whatever its layout
  manpage.py words FILE...     (two or more) each FILE's words into
                               FILE.words (one run for every file)

Items are the .TP items of a section outside any .RS block (in the
source), or the paragraphs whose tag starts at the section's indent after
a blank line (in the rendering).
"""
import os
import re
import sys


def source_tags(path, section):
    """The tags of the top-level .TP/.TQ items of SECTION in PATH."""
    out, on, depth, want = [], False, 0, False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith(".SH"):
            on = line[3:].strip().strip('"') == section
            depth = 0
            continue
        if not on:
            continue
        if line.startswith(".RS"):
            depth += 1
        elif line.startswith(".RE"):
            depth -= 1
        elif line.startswith((".TP", ".TQ")):
            want = depth == 0
        elif want:
            want = False
            out.append(plain(line))
    return out


def plain(line):
    """The text of one roff line: font macros and escapes dropped."""
    m = re.match(r"\.(B|I|BR|RB|BI|IB|IR|RI)\s+(.*)", line)
    if m:
        args = re.findall(r'"((?:[^"]|"")*)"|(\S+)', m.group(2))
        sep = " " if m.group(1) in ("B", "I") else ""
        line = sep.join(a.replace('""', '"') or b for a, b in args)
    line = re.sub(r"\\f(\[[^]]*\]|\(..|.)", "", line)
    return line.replace("\\-", "-").replace("\\&", "").replace("\\ ", " ")


def rendered_items(path):
    """(name, lines) of each top-level item of COMMANDS in rendered PATH."""
    items, on, prev_blank = [], False, True
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if re.match(r"\S", line):
            on = line.strip() == "COMMANDS"
            prev_blank = True
            continue
        if not on:
            continue
        if re.match(r" {7}\S", line) and prev_blank:
            name = line.split()[0].rstrip(",")
            items.append((name, []))
        if items:
            items[-1][1].append(line[7:])
        prev_blank = line.strip() == ""
    return [(n, trim(ls)) for n, ls in items]


def trim(lines):
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def item(items, name):
    """The text of the items of ITEMS whose name is NAME."""
    chosen = [ls for n, ls in items if n == name]
    return "\n\n".join("\n".join(ls) for ls in chosen)


def words(path):
    """PATH's words, one a line, hyphenated line breaks undone."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"(?<=\w-)\n\s*(?=\w)", "", text)
    return "\n".join(text.split())


def main(argv):
    cmd = argv[1]
    if cmd == "settings":
        for t in source_tags(argv[2], "SETTINGS"):
            for name in re.findall(r"\bMAXCODE_[A-Z_]+", t):
                print(name)
    elif cmd == "options":
        for t in source_tags(argv[2], "OPTIONS"):
            m = re.match(r"([a-z][a-z0-9-]*)=", t)
            print(m.group(1) if m else "(no KEY= in the tag: %s)" % t)
    elif cmd == "names":
        seen = []
        for name, _ in rendered_items(argv[2]):
            if name not in seen:
                seen.append(name)
        print("\n".join(seen))
    elif cmd == "item":
        print(item(rendered_items(argv[2]), argv[3]))
    elif cmd == "items":
        items = rendered_items(argv[2])
        for name in dict.fromkeys(n for n, _ in items):
            with open(os.path.join(argv[3], name), "w",
                      encoding="utf-8") as f:
                print(item(items, name), file=f)
    elif cmd == "words" and len(argv) == 3:
        print(words(argv[2]))
    elif cmd == "words":
        for path in argv[2:]:
            with open(path + ".words", "w", encoding="utf-8") as f:
                print(words(path), file=f)
    else:
        sys.exit("manpage.py: unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)

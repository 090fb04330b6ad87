#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0093-manpages: maxcode(1) and maxcode(7) render with `groff -ww`
# without a warning; maxcode(7) documents every setting of the settings
# table (runtime/core/conf.c) and every option of the options table
# (runtime/core/target.c), and documents none that is not in them; and
# `maxcode help COMMAND` (and `maxcode COMMAND --help`) prints the text
# of COMMAND's items in maxcode(1), for every command, and `maxcode
# --help` its SYNOPSIS, NAME, DESCRIPTION and the paragraph that opens
# SETTINGS (groff renders the page without hyphenation, so that a hyphen
# at a line's end is the text's own). tests/unit/test-help checks the
# command table against the items.
. "$MC_SRCDIR/tests/lib.sh"

MAN1=$MC_SRCDIR/doc/maxcode.1
MAN7=$MC_SRCDIR/doc/maxcode.7
PAGE="python3 $MC_SRCDIR/tests/manpage.py"

if ! command -v groff >/dev/null 2>&1; then
  test_skip 'the man pages render without warnings' \
    'groff is missing (Debian: groff-base)'
  test_skip 'help COMMAND prints the manual item' \
    'groff is missing (Debian: groff-base)'
  HAVE_GROFF=
else
  HAVE_GROFF=1
fi

if [ -n "$HAVE_GROFF" ]; then
  test_expect_success 'the man pages render without warnings' '
    for p in "$MAN1" "$MAN7"; do
      for dev in utf8 ascii; do
        groff -ww -man -T$dev "$p" >out 2>err &&
        test -s out && test ! -s err || {
          echo "# $p (-T$dev):"; sed "s/^/#   /" err; exit 1; }
      done
    done
  '
fi

if [ -n "$HAVE_GROFF" ] && command -v man >/dev/null 2>&1; then
  test_expect_success 'man -l renders them with every warning on, silently' '
    for p in "$MAN1" "$MAN7"; do
      MANWIDTH=80 man --warnings=w -l "$p" >out 2>err &&
      test -s out && test ! -s err || {
        echo "# man -l $p:"; sed "s/^/#   /" err; exit 1; }
    done
  '
fi

# same_names WHAT CODE DOC: the names in CODE and in DOC are the same;
# each side's extra names are shown.
same_names () {
  sort -u "$2" >code.sorted && sort -u "$3" >doc.sorted &&
  comm -23 code.sorted doc.sorted >undocumented &&
  comm -13 code.sorted doc.sorted >unknown &&
  test -s code.sorted && test ! -s undocumented && test ! -s unknown || {
    sed "s/^/# $1 not in maxcode(7): /" undocumented
    sed "s/^/# maxcode(7) documents a $1 the code lacks: /" unknown
    return 1; }
}

test_expect_success 'maxcode(7) SETTINGS is the settings table' '
  "$MAXCODE_BIN" config --list-settings >code &&
  grep -q "^MAXCODE_MODE\$" code && $PAGE settings "$MAN7" >doc &&
  same_names setting code doc
'

test_expect_success 'maxcode(7) OPTIONS is the options table' '
  "$MAXCODE_BIN" config --list-options >code &&
  grep -q "^budget\$" code && $PAGE options "$MAN7" >doc &&
  same_names option code doc
'

test_expect_success 'the test sees a gap: a setting or option removed' '
  sed "/^\.B MAXCODE_LAUNCHER\$/d; /^\.BI kernel= NAME\$/d" "$MAN7" >gap.7 &&
  "$MAXCODE_BIN" config --list-settings >code &&
  $PAGE settings gap.7 >doc && ! same_names setting code doc >msg &&
  contains msg "setting not in maxcode(7): MAXCODE_LAUNCHER" &&
  "$MAXCODE_BIN" config --list-options >code &&
  $PAGE options gap.7 >doc && ! same_names option code doc >msg &&
  grep -q "option not in maxcode(7): kernel\$" msg
'

if [ -n "$HAVE_GROFF" ]; then
  test_expect_success 'help COMMAND prints the manual item' '
    sed "/^\.TH/a\\
.nh" "$MAN1" | groff -man -Tascii -P-cbou >man.txt 2>/dev/null &&
    $PAGE names man.txt >names && grep -q "^stats\$" names &&
    grep -q "^help\$" names && grep -q "^cache\$" names &&
    mkdir items helps && $PAGE items man.txt items &&
    while read -r name; do
      "$MAXCODE_BIN" help "$name" >"helps/$name" ||
        { echo "# maxcode help $name failed"; exit 1; }
    done <names &&
    $PAGE words $(sed "s|.*|items/& helps/&|" names) &&
    while read -r name; do
      test -s "helps/$name.words" &&
      test_cmp "items/$name.words" "helps/$name.words" ||
        { echo "# maxcode help $name differs from maxcode(1)"; exit 1; }
    done <names
  '
fi

if [ -n "$HAVE_GROFF" ]; then
  # section NAME: the lines of section NAME of man.txt, less its heading.
  section () {
    sed -n "/^$1\$/,/^[A-Z]/{/^[A-Z]/d;p}" man.txt
  }
  test_expect_success '--help is the manual: SYNOPSIS, NAME, DESCRIPTION' '
    sed "/^\.TH/a\\
.nh" "$MAN1" | groff -man -Tascii -P-cbou >man.txt 2>/dev/null &&
    "$MAXCODE_BIN" --help >help.txt &&
    section SYNOPSIS >want.txt &&
    sed -n "1,/^\$/{s/^usage: //;p;}" help.txt >got.txt &&
    $PAGE words want.txt >want.words && $PAGE words got.txt >got.words &&
    grep -q "^optimize\$" got.words && test_cmp want.words got.words &&
    { section NAME; section DESCRIPTION; } >want.txt &&
    sed -n "1,/^\$/d; /^Commands:\$/q; p" help.txt >got.txt &&
    $PAGE words want.txt >want.words && $PAGE words got.txt >got.words &&
    grep -q "^loadable\$" got.words && test_cmp want.words got.words &&
    sed "1,/^Commands:\$/d" help.txt | sed "1,/^\$/d" >got.txt &&
    $PAGE words got.txt >got.words && test -s got.words &&
    section SETTINGS >want.txt && $PAGE words want.txt >want.words &&
    head -n "$(wc -l <got.words)" want.words >want.head &&
    test_cmp want.head got.words
  '
fi

test_expect_success 'the usage of a usage error is the usage of --help' '
  "$MAXCODE_BIN" --help | sed "/^\$/q" | sed "\$d" >want &&
  expect_exit 2 "$MAXCODE_BIN" no-such-command 2>err &&
  sed 1d err >got && test_cmp want got &&
  expect_exit 2 "$MAXCODE_BIN" 2>got && test_cmp want got
'

test_expect_success 'each command of the usage has its help' '
  "$MAXCODE_BIN" --help >usage &&
  sed -n "1,/^\$/s/^.*maxcode \([a-z][a-z]*\).*/\1/p" usage | sort -u >cmds &&
  grep -q "^optimize\$" cmds && grep -q "^stats\$" cmds &&
  while read -r c; do
    "$MAXCODE_BIN" help "$c" >h 2>err && test -s h && test ! -s err &&
    head -n 1 h | grep -q "^$c\\b" &&
    { [ "$c" = help ] ||
      { "$MAXCODE_BIN" "$c" --help >h2 && test_cmp h h2; }; } ||
      { echo "# no help for $c"; exit 1; }
  done <cmds
'

test_expect_success 'help CMD SUB narrows to the subcommand' '
  "$MAXCODE_BIN" help cache >all && "$MAXCODE_BIN" help cache trim >trim &&
  head -n 1 trim | grep -q "^cache trim --max-size SIZE" &&
  ! grep -q "^cache list" trim && grep -q "^cache list" all &&
  "$MAXCODE_BIN" cache trim --max-size 1G --help >trim2 &&
  test_cmp trim trim2
'

test_expect_success 'help alone is --help; an unknown command is exit 2' '
  "$MAXCODE_BIN" help >h && "$MAXCODE_BIN" --help >h2 && test_cmp h2 h &&
  expect_exit 2 "$MAXCODE_BIN" help no-such-command 2>err &&
  contains err "no command '"'"'no-such-command'"'"' in maxcode(1)" &&
  contains err "usage: maxcode" &&
  expect_exit 2 "$MAXCODE_BIN" help cache no-such 2>err &&
  contains err "cache no-such" &&
  expect_exit 2 "$MAXCODE_BIN" no-such-command --help 2>err &&
  contains err "usage: maxcode"
'

test_done

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0103-files-trust: what files= brings into a run, and the names a
# generated rule holds (issue 25, findings 1, 2, 5 and 9).
#  1. files= is checked as expanded: ".*" matches "..", ".[.]/x" is
#     "../x", a link may lead out; compare=file:NAME stays in the run.
#  2. a link in a files= tree to a file outside it is refused, never
#     copied (the copy runs as root).
#  5. a link to /dev/zero, a FIFO or links to "." in a files= tree
#     neither spin nor hang make; links inside the tree work.
#  9. '$' in a file name reaches the generated rule intact; a name make
#     cannot take is refused at the caller's line.
# The project sits beside a sibling folder whose root-only 0600 file
# must appear nowhere: make's output, .maxcode/, the cache.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
MARK=SIBLING-SECRET-5c1e
mkdir -p parent/sib &&
printf '%s\n' "$MARK" >parent/sib/secret && chmod 600 parent/sib/secret ||
  exit 1

# A program that sums the bytes of the file named by its first argument
# into the file named by its second.
cat >reader.c <<-\EOF
	#include <stdio.h>
	int main(int argc, char **argv)
	{
	    FILE *f, *g;
	    long s = 0;
	    int c;
	    if (argc < 3 || !(f = fopen(argv[1], "r"))) { perror("in"); return 1; }
	    for (int r = 0; r < 100; r++) {
	        rewind(f);
	        while ((c = getc(f)) != EOF)
	            s += (c * 7 + r) % 13;
	    }
	    fclose(f);
	    if (!(g = fopen(argv[2], "w"))) { perror("out"); return 1; }
	    fprintf(g, "%ld\n", s);
	    return fclose(g) != 0;
	}
	EOF

# project NAME: parent/NAME with hot.c (reader.c) and data/in.txt.
project () {
  mkdir -p "$TRASH/parent/$1/data" && cd "$TRASH/parent/$1" &&
  cp "$TRASH/reader.c" hot.c && seq 1 500 >data/in.txt
}

# call 'ARGS': a Makefile whose line 3 is $(maxcode hot.c, ARGS).
call () {
  tabify >Makefile <<-EOF
	load $PLUGIN
	CFLAGS = -O2
	prog: \$(maxcode hot.c, $1)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
}

# tmake MAKE-ARGS: run_make, killed after 10 s.
tmake () { run_make_within 10 "$@"; }

# fails_at LINE TEXT [MAKE-ARGS]: make stops at Makefile:LINE saying
# TEXT, within 10 s; nothing was built, searched or stored.
fails_at () {
  _line=$1 _text=$2 _entries=$(entries) _searches=$(stat_of searches)
  shift 2
  tmake "$@" >out 2>err
  _rc=$?
  [ "$_rc" = 2 ] || {
    echo "# make exited $_rc, not 2"; sed 's/^/#   /' err; return 1; }
  contains err "Makefile:$_line: *** maxcode: " &&
  contains err "$_text" &&
  test ! -e prog && test ! -e .maxcode &&
  test "$(entries)" = "$_entries" &&
  test "$(stat_of searches)" = "$_searches"
}

# nowhere: the secret is in no file of the project (links not
# followed), make's output or the cache.
nowhere () {
  ! grep -rl "$MARK" . "$MAXCODE_CACHE_DIR" 2>/dev/null
}

test_expect_success '1: files=.* matches "..": refused, the secret nowhere' '
  project p1 && call "args=data/in.txt out.txt, compare=file:out.txt, files=.*" &&
  fails_at 3 "files '\''.*'\'': its match '\''..'\'' is outside make'\''s directory, refused" &&
  contains err "for dot files write '\''.[!.]*'\''" && nowhere
'

test_expect_success '1: files=.[.]/sib and a link out of the project: refused' '
  cd parent/p1 &&
  call "args=data/in.txt out.txt, compare=file:out.txt, files=.[.]/sib" &&
  fails_at 3 "files '\''.[.]/sib'\'': its match '\''../sib'\'' is outside make'\''s directory" &&
  ln -s ../sib up && call "args=up/secret out.txt, compare=file:out.txt, files=up" &&
  fails_at 3 "files '\''up'\'': its match '\''up'\'' is outside make'\''s directory once its links are resolved" &&
  nowhere
'

test_expect_success '1: compare=file:NAME outside the run: refused' '
  cd parent/p1 &&
  call "args=data/in.txt ../sib/secret, compare=file:../sib/secret, files=data" &&
  fails_at 3 "option '\''compare=file:../sib/secret'\'': name the file relative to the run'\''s directory and inside it" &&
  call "args=data/in.txt out.txt, compare=file:$TRASH/parent/sib/secret, files=data" &&
  fails_at 3 "option '\''compare=file:$TRASH/parent/sib/secret'\'': name the file relative" &&
  nowhere
'

test_expect_success '2: a link in a files= tree to an outside file: refused' '
  project p2 && ln -s ../../sib/secret data/peek &&
  call "args=data/in.txt out.txt, compare=file:out.txt, files=data" &&
  fails_at 3 "'\''data/peek'\'' is a symbolic link to '\''../../sib/secret'\'', outside '\''data'\''" &&
  nowhere
'

# The copy into a run's directory applies the same rule on its own
# (maxcode eval keys nothing).
test_expect_success '2: the copy into a run refuses it too, and names it' '
  cd parent/p2 && cp hot.c cand.c &&
  expect_exit 1 "$MAXCODE_BIN" eval hot.c cand.c files=data \
    "args=data/in.txt out.txt" compare=file:out.txt --no-time >fb 2>fberr &&
  contains fberr "'\''data/peek'\'' is a symbolic link to '\''../../sib/secret'\'', outside '\''data'\''" &&
  ! grep -q "$MARK" fb fberr && nowhere
'

test_expect_success '5: links to /dev/zero, a FIFO: make -n stops at once' '
  project p5 && ln -s /dev/zero data/zero &&
  call "args=data/in.txt out.txt, compare=file:out.txt, files=data" &&
  fails_at 3 "'\''data/zero'\'' is a symbolic link to '\''/dev/zero'\'', outside '\''data'\''" -n &&
  rm data/zero && mkfifo data/fifo &&
  fails_at 3 "'\''data/fifo'\'' is a FIFO" -n &&
  rm data/fifo && ln -s "$TRASH/nothere" data/gone &&
  fails_at 3 "'\''data/gone'\'' is a dangling symbolic link" -n
'

# Two links to "." used to nest "too deep"; links inside the tree are
# copied as links, and a run reads through them.
test_expect_success '5: links to "." and inside the tree: a run reads through them' '
  cd parent/p5 && rm -f data/gone data/zero data/fifo && ln -s . data/self && ln -s . data/again &&
  ln -s in.txt data/alias &&
  call "args=data/self/again/alias out.txt, compare=file:out.txt, files=data" &&
  tmake -n >out 2>err &&
  ! grep -q "nested too deep" err &&
  run_make >out 2>err && ./prog data/in.txt got &&
  cc -O2 -o orig hot.c && ./orig data/in.txt want && test_cmp want got &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"correct_candidates\"] > 0"
'

# '#' and '%' go into the rule escaped too ('%' in its target would
# make it a pattern rule). A makefile writes '#' in a call through a
# variable: make cuts a rule line at it before it expands the call.
test_expect_success '9: $, # and % in the names of SOURCE, a link file and an input' '
  mkdir p9 && cd p9 &&
  printf "#include <stdio.h>\nint half(int x);\nint main(void)\n{\n    long s = 0;\n    int x;\n    while (scanf(\"%%d\", &x) == 1)\n        for (int r = 0; r < 2000; r++)\n            s += half(x + r);\n    printf(\"%%ld\\\\n\", s);\n    return 0;\n}\n" >"ho\$t%.c" &&
  printf "int half(int x) { return x / 2; }\n" >"li\$b#.c" &&
  seq 1 200 >"in\$1.txt" &&
  tabify >Makefile <<-\EOF &&
	load $(PLUGIN)
	CFLAGS = -O2
	H := \#
	prog: $(maxcode ho$$t%.c, link=li$$b$(H).c, inputs=in$$1.txt) li$$b$(H).c
	>$(CC) $(CFLAGS) -o $@ $(foreach f,$^,'\''$f'\'')
	EOF
  s0=$(stat_of searches) && run_make PLUGIN="$PLUGIN" >out 2>err &&
  test "$(stat_of searches)" = $((s0 + 1)) &&
  ./prog <"in\$1.txt" >got &&
  cc -O2 -o orig "ho\$t%.c" "li\$b#.c" && ./orig <"in\$1.txt" >want &&
  test_cmp want got && rm prog &&
  h0=$(stat_of hits) && run_make PLUGIN="$PLUGIN" >out 2>err &&
  test "$(stat_of hits)" = $((h0 + 1)) &&
  ./prog <"in\$1.txt" >got && test_cmp want got
'

test_expect_success '9: a name make cannot take in a rule: refused' '
  mkdir p9b && cd p9b && cp ../reader.c "h*t.c" &&
  tabify >Makefile <<-\EOF &&
	load $(PLUGIN)
	CFLAGS = -O2
	prog: $(maxcode h*t.c)
	>$(CC) $(CFLAGS) -o $@ $^
	EOF
  fails_at 3 "h*t.c: the file name '\''h*t.c'\'' has '\''*'\'', which make cannot read in a rule; rename the file" PLUGIN="$PLUGIN"
'

test_done

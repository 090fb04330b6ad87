#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0003-config: `maxcode config` and $(maxcode-setting) show every layer:
# make variable > environment > ./maxcode.conf > user file > default.
. "$MC_SRCDIR/tests/lib.sh"

# setting NAME: the line of `maxcode config` for NAME.
setting () { "$MAXCODE_BIN" config | grep "^$1 "; }

test_expect_success 'config lists every setting with its origin' '
  "$MAXCODE_BIN" config >out &&
  contains out "MAXCODE_MODE" && contains out "MAXCODE_CACHE_DIR" &&
  contains out "MAXCODE_LLM_API" && contains out "MAXCODE_STRICT" &&
  setting MAXCODE_MODE | grep -q "= optimize .*(default)$"
'

test_expect_success 'user file beats the default' '
  mkdir -p "$HOME/.config/maxcode" &&
  echo "MAXCODE_LOG = verbose" >"$HOME/.config/maxcode/maxcode.conf" &&
  setting MAXCODE_LOG | grep -q "= verbose .*(.*/.config/maxcode/maxcode.conf:1)$"
'

test_expect_success './maxcode.conf beats the user file' '
  printf "# project\nlog = quiet\n" >maxcode.conf &&
  setting MAXCODE_LOG | grep -q "= quiet .*(maxcode.conf:2)$"
'

test_expect_success 'the environment beats ./maxcode.conf' '
  MAXCODE_LOG=normal "$MAXCODE_BIN" config | grep "^MAXCODE_LOG " |
    grep -q "= normal .*(environment)$"
'

test_expect_success 'a bad config line fails with file:line' '
  printf "MAXCODE_MODE = cache\nwhat is this\n" >maxcode.conf &&
  expect_exit 1 "$MAXCODE_BIN" config 2>err &&
  contains err "maxcode: maxcode.conf:2: expected '\''KEY = VALUE'\''"
'

test_expect_success 'the API key is never printed' '
  rm -f maxcode.conf &&
  MAXCODE_API_KEY=sk-secret-value "$MAXCODE_BIN" config >out &&
  MAXCODE_API_KEY=sk-secret-value "$MAXCODE_BIN" config --json >>out &&
  ! grep -q sk-secret-value out &&
  contains out "(set, hidden)"
'

test_expect_success 'config --json gives value, origin and where' '
  MAXCODE_MODE=cache "$MAXCODE_BIN" config --json >out &&
  python3 -c "import json,sys; d=json.load(open(\"out\")); m=d[\"MAXCODE_MODE\"]; sys.exit(0 if (m[\"value\"],m[\"origin\"])==(\"cache\",\"environment\") else 1)"
'

test_expect_success 'in make: a makefile variable beats the environment' '
  cat >Makefile <<-EOF &&
	load $PLUGIN
	MAXCODE_MODE := off
	\$(info mode=\$(maxcode-setting MAXCODE_MODE))
	all: ;@:
	EOF
  MAXCODE_MODE=cache run_make >out &&
  echo mode=off >expect && test_cmp expect out
'

test_expect_success 'in make: the environment is used when make sets nothing' '
  printf "load %s\n\$(info mode=\$(maxcode-setting mode))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_MODE=cache run_make >out &&
  echo mode=cache >expect && test_cmp expect out
'

test_expect_success 'in make: a command-line variable beats the makefile' '
  printf "load %s\nMAXCODE_MODE = off\n\$(info mode=\$(maxcode-setting mode))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  run_make MAXCODE_MODE=refresh >out &&
  echo mode=refresh >expect && test_cmp expect out
'

test_expect_success 'in make: a bad setting stops make at Makefile:LINE' '
  printf "load %s\n\n\$(info \$(maxcode-setting colour))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  expect_exit 2 run_make 2>err &&
  contains err "Makefile:3: *** maxcode: \$(maxcode-setting colour): unknown setting '\''colour'\''"
'

test_expect_success 'in make: a bad value stops make with what is expected' '
  printf "load %s\nMAXCODE_MODE = fast\nx := \$(maxcode-setting mode)\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  expect_exit 2 run_make 2>err &&
  contains err "Makefile:3: *** maxcode: make variable MAXCODE_MODE: MAXCODE_MODE=fast: expected one of: optimize cache verify refresh off"
'

test_done

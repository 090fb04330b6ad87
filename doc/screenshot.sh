#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# doc/screenshot.sh: regenerate doc/report.png, the screenshot of
# `maxcode report` (doc/report.md). In a scratch directory it builds two
# small targets with this build's maxcode and the built-in proposer
# (examples/blur, and a matrix product whose loop nest walks a column),
# so that a fresh cache holds two searches; writes their report; and
# renders it in headless Chromium (Debian's `chromium` package).
#
#   doc/screenshot.sh [BUILDDIR]     BUILDDIR: where `maxcode` was built
#                                    (default: the source tree)
#
# The searches time real runs, so the figures differ from one machine
# and one run to the next; the page's layout does not.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src}" && pwd)
maxcode=$build/maxcode
out=$src/doc/report.png
make=${MAKE:-make}

command -v chromium >/dev/null ||
  { echo "screenshot.sh: needs chromium (apt-get install chromium)" >&2; exit 1; }
test -x "$maxcode" ||
  { echo "screenshot.sh: no maxcode in $build (run make first)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/maxcode-shot.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A cache of its own and no model: the built-in proposer searches.
for v in $(env | sed -n 's/^\(MAXCODE_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
unset MAKEFLAGS MFLAGS MAKELEVEL OPENAI_API_KEY ANTHROPIC_API_KEY
export MAXCODE_CACHE_DIR="$work/cache"

cp -R "$src/examples/blur" "$work/blur"
rm -rf "$work/blur/.maxcode" "$work/blur/blur"

mkdir -p "$work/matmul/in"
cat >"$work/matmul/mm.c" <<'EOF'
/* c += a * b, with the innermost loop walking a column of b. */
void
mm(int n, double (*c)[n], double (*a)[n], double (*b)[n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                c[i][j] += a[i][k] * b[k][j];
}
EOF
cat >"$work/matmul/main.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
void mm(int n, double (*c)[n], double (*a)[n], double (*b)[n]);
int main(void)
{
    int n;
    if (scanf("%d", &n) != 1) return 1;
    double (*a)[n] = malloc(sizeof(double) * n * n);
    double (*b)[n] = malloc(sizeof(double) * n * n);
    double (*c)[n] = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i][j] = (i * 7 + j) % 13 - 6.5, b[i][j] = (i + 3 * j) % 11 * 0.25;
    mm(n, c, a, b);
    double s = 0;
    for (int i = 0; i < n; i++) s += c[i][(i * 5) % n] * (i + 1);
    printf("%.17g\n", s);
    return 0;
}
EOF
echo 360 >"$work/matmul/in/a.in"
echo 300 >"$work/matmul/in/b.in"
printf 'load $(shell %s --plugin-path)\nCFLAGS = -O2\nmm: $(maxcode mm.c, link=main.c, inputs=in/*.in, budget=8) main.c\n\t$(CC) $(CFLAGS) -o $@ $^\n' \
  "$maxcode" >"$work/matmul/Makefile"

(cd "$work/blur" && "$make" -s MAXCODE="$maxcode" blur)
(cd "$work/matmul" && "$make" -s)
(cd "$work" && "$maxcode" report -o report.html)

chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --screenshot="$out" --window-size=1200,1400 "file://$work/report.html" \
  2>"$work/chromium.log" ||
  { cat "$work/chromium.log" >&2; exit 1; }
echo "screenshot.sh: wrote $out ($(wc -c <"$out") bytes)"

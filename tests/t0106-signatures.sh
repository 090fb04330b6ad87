#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0106-signatures: signed cache entries (issue 25, finding 7). Anyone
# who could PUT to a remote, or sat on its http:// connection, could
# serve a forged entry with a valid checksum, and the next build
# compiled its code in. Now a machine with MAXCODE_SIGNING_KEY signs
# what it stores and pushes, and a machine with MAXCODE_TRUSTED_KEYS
# stores an entry from outside only when a trusted key signed it. Two
# key pairs (k1 trusted, k2 not) and an nginx remote: k1's entries are
# hits on a second machine; an entry signed by k2, an unsigned one and
# a forged one (its variant rewritten, its checksum made right) are
# refused and counted (remote_untrusted), said once per build, and the
# build uses the original (mode cache) or searches (mode optimize). An
# archive import follows the same rule. Without trusted keys, entries
# are taken as they come, as before (the forged one included).
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing asserted here depends on how many
# (lib.sh's default is 2).
export MAXCODE_BUDGET=1

nginx_start

# project DIR: two marked units hot1.c and hot2.c, each summing its
# input over, and a main that prints both sums.
project () {
  mkdir -p "$1/t" && printf '1 2 3\n' >"$1/t/a.in" &&
  for _i in 1 2; do
    from_data hot-n.c "I=$_i" >"$1/hot$_i.c"
  done &&
  cat >"$1/main.c" <<-'EOF' &&
	#include <stdio.h>
	long hot1(long); long hot2(long);
	int main(void) { long n = 0, x;
	  while (scanf("%ld", &x) == 1) n += x * 20000;
	  printf("%ld %ld\n", hot1(n), hot2(n)); return 0; }
	EOF
  printf '%s\n' "load $PLUGIN" \
    'prog: $(maxcode hot1.c, link=main.c hot2.c, inputs=t/a.in) $(maxcode hot2.c, link=main.c hot1.c, inputs=t/a.in) main.c' \
    '>$(CC) -O2 -o $@ $^' | tabify >"$1/Makefile"
}


# checkout NAME: a fresh copy of the project, entered.
checkout () { rm -rf "$TRASH/$1" && cp -R "$TRASH/src" "$TRASH/$1" &&
  cd "$TRASH/$1"; }

# objects: the entry files on the remote.
objects () { find "$NGINX_DIR/store/cache" -type f | sort; }

# A tiny C tool, as an attacker could write one from the format in
# doc/internals/cache.md (the checksum is no secret, nor is the format):
#   fixsum FILE...       makes each entry file's XXH3-128 trailer right
#   fixsum -s SEED FILE  also signs FILE, an unsigned entry, with the
#                        Ed25519 key whose secret key file is SEED
cat >fixsum.c <<'EOF'
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sodium.h>
#include <xxhash.h>
static unsigned char b[1 << 24];
int main(int argc, char **argv) {
  unsigned char seed[32], pk[32], sk[64], sig[64];
  int i = 1;
  if (argc > 3 && !strcmp(argv[1], "-s")) {
    char line[200] = "";
    size_t got = 0, n;
    uint64_t len;
    FILE *k = fopen(argv[2], "r"), *f = fopen(argv[3], "rb");
    if (!k || !fgets(line, sizeof(line), k) || !f || sodium_init() < 0 ||
        sodium_base642bin(seed, 32, line + 23, 44, NULL, &got, NULL,
                          sodium_base64_VARIANT_ORIGINAL) || got != 32)
      return 1;
    n = fread(b, 1, sizeof(b) - 200, f);
    fclose(f);
    crypto_sign_seed_keypair(pk, sk, seed);
    crypto_sign_detached(sig, NULL, b, n, sk);
    n -= 16;                                   /* the trailer goes */
    memcpy(&len, b + 32, 8), len += 108, memcpy(b + 32, &len, 8);
    memcpy(b + n, "SIGN", 4), len = 96, memcpy(b + n + 4, &len, 8);
    memcpy(b + n + 12, pk, 32), memcpy(b + n + 44, sig, 64);
    f = fopen(argv[3], "wb");
    if (!f || fwrite(b, 1, n + 108 + 16, f) != n + 124 || fclose(f))
      return 1;
    i = 3;
  }
  for (; i < argc; i++) {
    FILE *f = fopen(argv[i], "r+b");
    size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
    XXH128_canonical_t c;
    if (n < 56) return 1;
    XXH128_canonicalFromHash(&c, XXH3_128bits(b, n - 16));
    fseek(f, (long)(n - 16), SEEK_SET);
    if (fwrite(c.digest, 1, 16, f) != 16 || fclose(f)) return 1;
  }
  return 0;
}
EOF
${CC:-cc} -O2 -o fixsum fixsum.c -lsodium -lxxhash || {
  echo "Bail out! cannot build the entry tool (libsodium-dev, libxxhash-dev)"
  exit 1; }

# rewrite HOW FILE...: edit entry files as an attacker would, then fix
# their checksum. HOW "unsign" drops the SIGN section (what a writer
# without a key writes); "forge" puts new code in VARI (the sums become
# 4242), keeping the signature; "resign" drops the signature and signs
# again with k2.
rewrite () {
  _how=$1; shift
  if [ "$_how" = resign ]; then
    rewrite unsign "$@" &&
    for _f in "$@"; do "$TRASH/fixsum" -s "$TRASH/k2" "$_f" || return 1; done
    return
  fi
  python3 -S - "$_how" "$@" <<'EOF' && "$TRASH/fixsum" "$@"
import struct, sys
how = sys.argv[1]
for path in sys.argv[2:]:
    b = open(path, "rb").read()
    head, body = bytearray(b[:40]), b[40:-16]
    out, at = b"", 0
    while at < len(body):
        tag = body[at:at + 4]
        n, = struct.unpack("<Q", body[at + 4:at + 12])
        data = body[at + 12:at + 12 + n]
        at += 12 + n
        if tag == b"SIGN" and how == "unsign":
            continue
        if tag == b"VARI" and how == "forge":
            name = b"hot1" if b"hot1(" in data else b"hot2"
            data = b"long " + name + b"(long n) { (void)n; return 4242; }\n"
        out += tag + struct.pack("<Q", len(data)) + data
    head[32:40] = struct.pack("<Q", len(out))
    open(path, "wb").write(bytes(head) + out + b"\0" * 16)
EOF
}

# want_original DIR: prog in DIR prints the original's sums.
want_original () {
  (cd "$1" && ./prog <t/a.in) >got && test_cmp "$TRASH/want" got
}

test_expect_success 'key generate: a 0600 secret file and a public line' '
  "$MAXCODE_BIN" key generate -o k1 --comment "ci main" >out &&
  "$MAXCODE_BIN" key generate -o k2 >/dev/null &&
  test "$(stat -c %a k1)" = 600 &&
  grep -Eq "^maxcode-ed25519-secret [A-Za-z0-9+/]{43}=\$" k1 &&
  grep -Eq "^maxcode-ed25519 [A-Za-z0-9+/]{43}= ci main\$" k1.pub &&
  test "$(cat k1.pub)" = "$(tail -n 1 out)" &&
  seed=$(cut -d" " -f2 k1) && ! grep -F "$seed" out &&
  expect_exit 1 "$MAXCODE_BIN" key generate -o k1 2>err &&
  contains err "exists already" &&
  { echo "# the keys whose entries we take"; cat k1.pub; } >trusted.keys &&
  MAXCODE_SIGNING_KEY=$TRASH/k1 MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys \
    "$MAXCODE_BIN" config >cfg &&
  ! grep -F "$seed" cfg && contains cfg "$(cut -d" " -f2 k1.pub)" &&
  grep -q "^MAXCODE_SIGNING_KEY *= $TRASH/k1 " cfg &&
  contains cfg "trusted.keys" && contains cfg "(1 key)" &&
  "$MAXCODE_BIN" config >cfg0 &&
  contains cfg0 "MAXCODE_TRUSTED_KEYS is not set: entries from a remote" &&
  contains cfg0 "trusted as they come"
'

test_expect_success 'machine A (k1) signs what it stores and pushes' '
  project src && (cd src && ${CC:-cc} -O2 -o prog main.c hot1.c hot2.c &&
   ./prog <t/a.in) >want && rm src/prog && checkout a &&
  MAXCODE_SIGNING_KEY=$TRASH/k1 MAXCODE_REMOTE=$NGINX_URL \
    on_machine A run_make >out 2>err &&
  test "$(stat_on A remote_stores)" = 2 &&
  test "$(objects | wc -l)" = 2 &&
  mkdir "$TRASH/signed" && cp $(objects) "$TRASH/signed/" &&
  for o in $(objects); do grep -q SIGN "$o" || exit 1; done
'

test_expect_success 'machine B, trusting k1, gets both from the remote' '
  checkout b &&
  MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys MAXCODE_REMOTE=$NGINX_URL \
    MAXCODE_MODE=cache on_machine B run_make >out 2>err &&
  on_machine B expect_stats remote_hits 2 remote_untrusted 0 searches 0 &&
  ! grep -q refused err &&
  on_machine B "$MAXCODE_BIN" cache list >list && test "$(wc -l <list)" = 2 &&
  for o in $(objects); do
    k=$(basename "$o") &&
    cmp "$o" "$TRASH/cache-B/$(echo $k | cut -c1-2)/$(echo $k | cut -c3-4)/$k.mce" ||
    exit 1
  done && want_original .
'

test_expect_success 'entries signed by k2 are refused: the original (cache)' '
  rm -f $(objects) && checkout u &&
  MAXCODE_SIGNING_KEY=$TRASH/k2 MAXCODE_REMOTE=$NGINX_URL \
    on_machine U run_make >out 2>err &&
  test "$(objects | wc -l)" = 2 &&
  checkout c &&
  MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys MAXCODE_REMOTE=$NGINX_URL \
    MAXCODE_MODE=cache on_machine C run_make >out 2>err &&
  on_machine C expect_stats remote_untrusted 2 remote_hits 0 searches 0 &&
  test "$(grep -c "is refused" err)" = 1 &&
  contains err "signed by a key not trusted here (maxcode-ed25519 $(cut -d" " -f2 "$TRASH/k2.pub"))" &&
  contains err "using the original" &&
  test "$(on_machine C "$MAXCODE_BIN" cache list | wc -l)" = 0 &&
  want_original .
'

test_expect_success 'entries signed by k2 are refused: a search (optimize)' '
  checkout c2 &&
  MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys MAXCODE_REMOTE=$NGINX_URL \
    on_machine C2 run_make >out 2>err &&
  on_machine C2 expect_stats remote_untrusted 2 searches 2 &&
  contains err "searching" &&
  test "$(grep -c "is refused" err)" = 1 && want_original .
'

# put_back: the remote holds machine A's signed entries again.
put_back () {
  rm -f $(objects) &&
  for _f in "$TRASH"/signed/*; do
    _k=$(basename "$_f") &&
    mkdir -p "$NGINX_DIR/store/cache/$(echo $_k | cut -c1-2)" &&
    cp "$_f" "$NGINX_DIR/store/cache/$(echo $_k | cut -c1-2)/$_k" || return 1
  done
}

test_expect_success 'k1 entries re-signed by k2 are refused and counted' '
  put_back && rewrite resign $(objects) && grep -q SIGN $(objects) &&
  checkout r &&
  MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys MAXCODE_REMOTE=$NGINX_URL \
    MAXCODE_MODE=cache on_machine R run_make >out 2>err &&
  want_original . &&
  on_machine R expect_stats remote_untrusted 2 remote_corrupt 0 &&
  contains err "signed by a key not trusted here (maxcode-ed25519 $(cut -d" " -f2 "$TRASH/k2.pub"))" &&
  checkout r3 &&
  MAXCODE_TRUSTED_KEYS=$TRASH/k2.pub MAXCODE_REMOTE=$NGINX_URL \
    MAXCODE_MODE=cache on_machine R3 run_make >out 2>err &&
  on_machine R3 expect_stats remote_hits 2 remote_untrusted 0
'

test_expect_success 'unsigned entries are refused and counted' '
  put_back && rewrite unsign $(objects) && ! grep -q SIGN $(objects) &&
  checkout d &&
  MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys MAXCODE_REMOTE=$NGINX_URL \
    MAXCODE_MODE=cache on_machine D run_make >out 2>err &&
  on_machine D expect_stats remote_untrusted 2 remote_corrupt 0 \
    remote_hits 0 &&
  contains err "is refused, it is not signed" && want_original .
'

test_expect_success 'forged entries with a valid checksum are refused' '
  put_back && rewrite forge $(objects) && grep -q 4242 $(objects) &&
  checkout e &&
  MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys MAXCODE_REMOTE=$NGINX_URL \
    MAXCODE_MODE=cache on_machine E run_make >out 2>err &&
  want_original . && ! grep -rq 4242 .maxcode &&
  on_machine E expect_stats remote_untrusted 2 remote_corrupt 0 \
    remote_hits 0 &&
  contains err "its signature does not verify"
'

test_expect_success 'without trusted keys the forged entries are taken' '
  checkout z &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_MODE=cache on_machine Z run_make \
    >out 2>err &&
  on_machine Z expect_stats remote_hits 2 remote_untrusted 0 &&
  test "$(./prog <t/a.in)" = "4242 4242"
'

test_expect_success 'an archive import follows the same rule' '
  MAXCODE_SIGNING_KEY=$TRASH/k1 \
    on_machine A "$MAXCODE_BIN" cache export signed.mca >/dev/null &&
  MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys \
    on_machine I1 "$MAXCODE_BIN" cache import signed.mca >out 2>err &&
  contains out "imported 2 entries, 0 skipped" &&
  test "$(stat_on I1 remote_untrusted)" = 0 &&
  MAXCODE_SIGNING_KEY=$TRASH/k2 \
    on_machine U "$MAXCODE_BIN" cache export other.mca >/dev/null &&
  on_machine Z "$MAXCODE_BIN" cache export forged.mca >/dev/null &&
  for a in other forged; do
    expect_exit 1 env MAXCODE_TRUSTED_KEYS=$TRASH/trusted.keys \
      MAXCODE_CACHE_DIR="$TRASH/cache-I2" \
      "$MAXCODE_BIN" cache import $a.mca >out.$a 2>err.$a || exit 1
    contains out.$a "imported 0 entries, 2 skipped" || exit 1
  done &&
  test "$(grep -c "refused, signed by a key not trusted here" err.other)" = 2 &&
  test "$(grep -c "refused, its signature does not verify" err.forged)" = 2 &&
  test "$(stat_on I2 remote_untrusted)" = 4 &&
  test "$(on_machine I2 "$MAXCODE_BIN" cache list | wc -l)" = 0 &&
  on_machine I3 "$MAXCODE_BIN" cache import forged.mca >out 2>err &&
  contains out "imported 2 entries, 0 skipped"
'

test_expect_success 'a key file that cannot be used is said, never ignored' '
  echo "ssh-ed25519 AAAA me@host" >bad.keys &&
  expect_exit 1 env MAXCODE_TRUSTED_KEYS=$TRASH/bad.keys \
    "$MAXCODE_BIN" config >/dev/null 2>err &&
  contains err "bad.keys:1: expected" &&
  checkout f &&
  MAXCODE_TRUSTED_KEYS=$TRASH/bad.keys MAXCODE_REMOTE=$NGINX_URL \
    MAXCODE_MODE=cache on_machine F run_make >out 2>err &&
  test "$(grep -c "going on without the remote cache" err)" = 1 &&
  test "$(stat_on F remote_hits)" = 0 && want_original . &&
  cp "$TRASH/k1" "$TRASH/k1-open" && chmod 644 "$TRASH/k1-open" &&
  expect_exit 1 env MAXCODE_SIGNING_KEY=$TRASH/k1-open \
    "$MAXCODE_BIN" config >/dev/null 2>err &&
  contains err "may be read by others" && ! grep -F "$(cut -d" " -f2 "$TRASH/k1")" err
'

test_done

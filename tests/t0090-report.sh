#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0090-report: `maxcode report`, read back through a real HTML parser
# (Python's html.parser). Two built-in searches give a page with one
# summary row and one plot per target, one point per candidate of each
# trajectory (as `maxcode rollouts export` counts them) and the diffs; a
# scripted model search whose critique and variant hold <script> gives a
# page where they are text, and the report's own script is the only
# one; -o, the default file, named keys, bad arguments and an empty
# cache.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# report_check REPORT ROLLOUTS EXPR...: each Python EXPR holds over r,
# what the parser saw in REPORT, and want, the candidates per key in
# ROLLOUTS (a `maxcode rollouts export` file; - for none):
#   r["rows"]     rows of the summary table's body
#   r["heads"]    its header cells; r["status"] the status of each row
#   r["svgs"]     <svg> elements; r["sections"] the targets' keys
#   r["points"], r["bad"], r["kept"]: per key, the plot's point elements
#                 (class pt), those of class pt-bad, pt-best (the kept
#                 answer)
#   r["diffs"]    per key, the <pre class="diff"> blocks; r["diff_text"]
#                 the text of each
#   r["scripts"]  the text of each <script>; r["text"] all other text
#   r["raw"]      the file as bytes were written
report_check () {
  python3 - "$@" <<-\EOP
	import collections, json, sys
	from html.parser import HTMLParser

	class Report(HTMLParser):
	    def __init__(self):
	        super().__init__(convert_charrefs=True)
	        self.r = {"rows": 0, "heads": 0, "svgs": 0, "sections": [],
	                  "points": collections.Counter(),
	                  "bad": collections.Counter(),
	                  "kept": collections.Counter(),
	                  "diffs": collections.Counter(), "diff_text": [],
	                  "scripts": [], "text": "", "status": []}
	        self.key = None
	        self.where = []     # "summary", "tbody", "script", "diff"
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        cls = (a.get("class") or "").split()
	        r = self.r
	        if tag == "table" and a.get("id") == "summary":
	            self.where.append("summary")
	        elif tag == "tbody" and "summary" in self.where:
	            self.where.append("tbody")
	        elif tag == "tr" and "tbody" in self.where:
	            r["rows"] += 1
	        elif tag == "span" and "tbody" in self.where and \
	                cls[:1] in (["ok"], ["orig"]):
	            self.where.append("status")
	        elif tag == "th" and "summary" in self.where:
	            r["heads"] += 1
	        elif tag == "section" and "target" in cls:
	            self.key = a["id"][2:]
	            r["sections"].append(self.key)
	        elif tag == "svg":
	            r["svgs"] += 1
	        elif tag == "g" and "pt" in cls:
	            r["points"][self.key] += 1
	            r["bad"][self.key] += "pt-bad" in cls
	            r["kept"][self.key] += "pt-best" in cls
	        elif tag == "pre" and "diff" in cls:
	            r["diffs"][self.key] += 1
	            r["diff_text"].append("")
	            self.where.append("diff")
	        elif tag == "script":
	            r["scripts"].append("")
	            self.where.append("script")
	    def handle_endtag(self, tag):
	        ends = {"table": "summary", "tbody": "tbody", "pre": "diff",
	                "script": "script", "span": "status"}
	        if tag in ends and self.where and self.where[-1] == ends[tag]:
	            self.where.pop()
	    def handle_data(self, data):
	        if "script" in self.where:
	            self.r["scripts"][-1] += data
	            return
	        if self.where[-1:] == ["status"]:
	            self.r["status"].append(data)
	        if "diff" in self.where:
	            self.r["diff_text"][-1] += data
	        self.r["text"] += data

	p = Report()
	raw = open(sys.argv[1], encoding="utf-8").read()
	p.feed(raw)
	p.close()
	r = p.r
	r["raw"] = raw
	want = collections.Counter()
	if sys.argv[2] != "-":
	    for line in open(sys.argv[2]):
	        want[json.loads(line)["problem"]] += 1
	for e in sys.argv[3:]:
	    if not eval(e):
	        shown = dict(r, raw=None, text=r["text"][:2000],
	                     diff_text=r["diff_text"][:3])
	        print("# failed: %s\n# want: %s\n# parsed: %s" %
	              (e, dict(want), json.dumps(shown, indent=1)[:4000]))
	        sys.exit(1)
	EOP
}

# What a search decides is read back from the page, never asserted: the
# searches run on llm_small's inputs.
test_expect_success 'two built-in searches: table, plots, points, diffs' '
  llm_project one "proposer=builtin, budget=3" && llm_small one &&
  llm_project two "proposer=builtin, budget=2" && llm_small two &&
  (cd one && run_make >out 2>err) && (cd two && run_make >out 2>err) &&
  "$MAXCODE_BIN" rollouts export -o ro.jsonl 2>/dev/null &&
  "$MAXCODE_BIN" report -o r.html 2>err &&
  contains err "report of 2 targets written to r.html" &&
  report_check r.html ro.jsonl \
    "len(want) == 2 and sum(want.values()) == 5" \
    "r[\"rows\"] == 2 and r[\"heads\"] == 7" \
    "(len(r[\"status\"]) == 2 and
      sum(r[\"kept\"].values()) == r[\"status\"].count(\"optimized\"))" \
    "r[\"svgs\"] == 2 and sorted(r[\"sections\"]) == sorted(want)" \
    "all(r[\"points\"][k] == n for k, n in want.items())" \
    "all(r[\"diffs\"][k] >= n for k, n in want.items())" \
    "all(d.startswith(\"--- original\") or d.startswith(\"--- #\")
         for d in r[\"diff_text\"])" \
    "any(\"+#pragma GCC\" in d for d in r[\"diff_text\"])" \
    "len(r[\"scripts\"]) == 1" \
    "\"Build summary\" in r[\"text\"] and \"Knob set\" in r[\"text\"]"
'

# xss.c: fast.c with markup in a comment, as a model might write it.
test_expect_success 'markup in a critique and in a variant is text' '
  export MAXCODE_CACHE_DIR="$TRASH/xss-cache" &&
  llm_project xss "budget=2" && llm_small xss && cd xss &&
  sed "1a /* <script>alert(1)</script> & \"q\" '"'"'a'"'"' */" v/fast.c \
    >v/xss.c &&
  llm_script s.json "<script>alert(2)</script> \"q\" '"'"'a'"'"' &" -- \
    v/xss.c v/wrong.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  "$MAXCODE_BIN" rollouts export -o ro.jsonl 2>/dev/null &&
  "$MAXCODE_BIN" report -o x.html 2>/dev/null &&
  report_check x.html ro.jsonl \
    "r[\"rows\"] == 1 and r[\"svgs\"] == 1" \
    "all(r[\"points\"][k] == n == 2 for k, n in want.items())" \
    "r[\"kept\"][list(want)[0]] == (r[\"status\"] == [\"optimized\"])" \
    "all(r[\"bad\"][k] == 1 for k in want)" \
    "(len(r[\"scripts\"]) == 1 and
      \"getElementById\" in r[\"scripts\"][0])" \
    "\"<script>alert(2)</script> \\\"q\\\" \x27a\x27 &\" in r[\"text\"]" \
    "any(\"+/* <script>alert(1)</script> & \\\"q\\\" \x27a\x27 */\" in d
         for d in r[\"diff_text\"])" \
    "\"<script>alert\" not in r[\"raw\"]" \
    "(\"&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;a&#39;\"
      in r[\"raw\"])"
'

test_expect_success 'stdout, the default file, named keys, an unwritable -o' '
  mkdir d && (cd d && "$MAXCODE_BIN" report 2>err) &&
  contains d/err "written to maxcode-report.html" &&
  report_check d/maxcode-report.html - "r[\"rows\"] == 2" &&
  "$MAXCODE_BIN" report -o - >s.html 2>err && test ! -s err &&
  report_check s.html - "r[\"rows\"] == 2 and r[\"svgs\"] == 2" &&
  key=$(head -n 1 ro.jsonl | python3 -c "import json, sys;
print(json.loads(sys.stdin.readline())[\"problem\"])") &&
  "$MAXCODE_BIN" report -o k.html "$key" 2>/dev/null &&
  report_check k.html - "r[\"rows\"] == 1 and r[\"sections\"] == [\"$key\"]" &&
  expect_exit 1 "$MAXCODE_BIN" report -o "$TRASH/no/such/dir/r.html" 2>e &&
  contains e "no/such/dir"
'

test_expect_success 'bad arguments are usage errors; a missing key fails' '
  expect_exit 2 "$MAXCODE_BIN" report --bogus 2>e &&
  contains e "unknown option" && contains e "usage:" &&
  expect_exit 2 "$MAXCODE_BIN" report -o 2>e && contains e "-o needs" &&
  expect_exit 2 "$MAXCODE_BIN" report hot.c 2>e && contains e "not a key" &&
  expect_exit 1 "$MAXCODE_BIN" report -o m.html \
    0123456789abcdef0123456789abcdef 2>e &&
  contains e "no entry" && test ! -e m.html
'

test_expect_success 'an empty cache gives a valid report that says so' '
  MAXCODE_CACHE_DIR=$TRASH/empty "$MAXCODE_BIN" report -o e.html 2>err &&
  contains err "report of 0 targets" &&
  report_check e.html - "r[\"rows\"] == 0 and r[\"svgs\"] == 0" \
    "\"holds no entries\" in r[\"text\"]" "len(r[\"scripts\"]) == 1" \
    "r[\"raw\"].rstrip().endswith(\"</html>\")"
'

test_done

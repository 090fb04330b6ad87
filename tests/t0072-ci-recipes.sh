#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0072-ci-recipes: the CI recipes in examples/ci parse as YAML and do
# what their README says: MAXCODE_CACHE_DIR is set and kept by the CI's
# cache, keyed by the marked sources and the Makefile; the main branch
# builds with MAXCODE_MODE=optimize, pull (merge) requests with
# MAXCODE_MODE=cache; main exports the cache as an artifact. The files
# are read as structures (python3-yaml), not grepped.
. "$MC_SRCDIR/tests/lib.sh"

CI=$MC_SRCDIR/examples/ci

# check FILE: run the Python on stdin over the YAML of FILE, loaded as y
# (with helpers); each failed assertion is a TAP comment.
check () {
  python3 - "$1" <<EOP
import sys, yaml
y = yaml.safe_load(open(sys.argv[1]))
def need(cond, what):
    if not cond:
        print("# %s: %s" % (sys.argv[1], what))
        sys.exit(1)
$(cat)
EOP
}

if ! python3 -c 'import yaml' 2>/dev/null; then
  for t in 'the GitHub Actions workflow' 'the GitLab CI recipe' \
           'the README agrees with both'; do
    test_skip "$t" 'python3-yaml is not installed'
  done
  test_done
  exit $?
fi

test_expect_success 'the GitHub Actions workflow: optimize on main, cache on pull requests' '
  check "$CI/github-actions.yml" <<\EOF
# YAML 1.1 reads the key "on" as true.
on = y.get("on", y.get(True))
need(on["push"]["branches"] == ["main"], "push runs on main only")
need("pull_request" in on, "pull requests run")
(job,) = y["jobs"].values()
env = dict(y.get("env") or {}, **(job.get("env") or {}))
need(env.get("MAXCODE_CACHE_DIR", "").endswith("/.maxcode-cache"),
     "MAXCODE_CACHE_DIR is .maxcode-cache in the workspace")
steps = job["steps"]
def uses(prefix):
    return [s for s in steps if s.get("uses", "").startswith(prefix)]
MAIN = "github.event_name == '"'"'push'"'"' && github.ref == '"'"'refs/heads/main'"'"'"
PR = "github.event_name == '"'"'pull_request'"'"'"
modes = {}
for s in steps:
    m = (s.get("env") or {}).get("MAXCODE_MODE")
    if m:
        need(m not in modes, "one build step for mode %s" % m)
        modes[m] = s
need(set(modes) == {"optimize", "cache"}, "builds in modes optimize and "
     "cache: %s" % sorted(modes))
need(modes["optimize"].get("if") == MAIN, "optimize only on main")
need(modes["cache"].get("if") == PR, "cache only on pull requests")
need(all("make" in s["run"] for s in modes.values()), "both run make")
(restore,) = uses("actions/cache/restore@")
need(restore["with"]["path"] == "${{ env.MAXCODE_CACHE_DIR }}",
     "the cache kept is MAXCODE_CACHE_DIR")
key = restore["with"]["key"]
need("hashFiles(" in key and "Makefile" in key.split("hashFiles(")[1],
     "the key hashes the marked sources and the Makefile")
need(restore["with"].get("restore-keys"), "restores a near key")
need(steps.index(restore) < steps.index(modes["optimize"]) and
     steps.index(restore) < steps.index(modes["cache"]),
     "restored before the builds")
(save,) = uses("actions/cache/save@")
need(save.get("if") == MAIN, "saved on main only")
need(save["with"]["path"] == restore["with"]["path"], "the same path")
export = [s for s in steps if "maxcode cache export" in s.get("run", "")]
need(export and export[0].get("if") == MAIN, "main exports the cache")
(up,) = uses("actions/upload-artifact@")
need(up.get("if") == MAIN and up["with"]["path"] in export[0]["run"],
     "main uploads the archive it exported")
EOF
'

test_expect_success 'the GitLab CI recipe: optimize on the default branch, cache on merge requests' '
  check "$CI/gitlab-ci.yml" <<\EOF
def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and \
            isinstance(out.get(k), dict) else v
    return out
def job(name):
    j = y[name]
    base = j.get("extends")
    if base:
        for b in [base] if isinstance(base, str) else base:
            j = merge(job(b), {k: v for k, v in j.items() if k != "extends"})
    return j
glob = y.get("variables") or {}
need(glob.get("MAXCODE_CACHE_DIR") == "$CI_PROJECT_DIR/.maxcode-cache",
     "MAXCODE_CACHE_DIR is .maxcode-cache in the project directory")
KEYWORDS = {"variables", "stages", "default", "workflow", "include",
            "image", "services", "cache", "before_script", "after_script"}
jobs = {n: job(n) for n in y if n not in KEYWORDS and not n.startswith(".")}
modes = {}
for n, j in jobs.items():
    m = dict(glob, **(j.get("variables") or {})).get("MAXCODE_MODE")
    need(m in ("optimize", "cache"), "job %s sets MAXCODE_MODE" % n)
    need(m not in modes, "one job for mode %s" % m)
    modes[m] = j
need(set(modes) == {"optimize", "cache"}, "jobs in modes optimize and cache")
MAIN = "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"
MR = "$CI_PIPELINE_SOURCE == \"merge_request_event\""
need([r["if"] for r in modes["optimize"]["rules"]] == [MAIN],
     "optimize only on the default branch")
need([r["if"] for r in modes["cache"]["rules"]] == [MR],
     "cache only on merge requests")
for m, j in modes.items():
    c = j["cache"]
    need(c["paths"] == [".maxcode-cache/"], "%s keeps the cache dir" % m)
    need("Makefile" in c["key"]["files"] and len(c["key"]["files"]) <= 2,
         "%s: the key hashes a marked source and the Makefile" % m)
    need("make" in j["script"], "%s runs make" % m)
need(modes["optimize"]["cache"]["policy"] == "pull-push", "main pushes")
need(modes["cache"]["cache"]["policy"] == "pull", "merge requests only pull")
export = [l for l in modes["optimize"]["script"]
          if l.startswith("maxcode cache export ")]
need(export and export[0].split()[-1] in
     modes["optimize"]["artifacts"]["paths"], "main exports an artifact")
need(any("maxcode cache import" in l and "job=maxcode-main" in l
         for l in modes["cache"]["script"]),
     "merge requests import the archive of the main job")
need([n for n, j in jobs.items() if j is modes["optimize"]] ==
     ["maxcode-main"], "the main job is maxcode-main")
EOF
'

test_expect_success 'the README agrees with both' '
  for s in MAXCODE_MODE=optimize MAXCODE_MODE=cache \
           "MAXCODE_CACHE_DIR=\$GITHUB_WORKSPACE/.maxcode-cache" \
           "MAXCODE_CACHE_DIR=\$CI_PROJECT_DIR/.maxcode-cache" \
           github-actions.yml gitlab-ci.yml "maxcode cache export" \
           "maxcode cache import" maxcode-main maxcode-mr; do
    contains "$CI/README.md" "$s" || exit 1
  done
'

test_done

"""Judges a run of the MCP conformance suite against an expected-failures file.

    python3 tests/conformance/check.py RESULTS EXPECTED REQUIREMENTS
    python3 tests/conformance/check.py --client RESULTS EXPECTED REQUIREMENTS

RESULTS is the suite's output directory, EXPECTED our expected-failures
file, REQUIREMENTS the suite's own requirement set
(`requirements/<revision>.yaml` in its npm package: 2025-11-25 or
2026-07-28), which names the scenarios the run must have: the scored ones
and those it runs unscored (`not_scored`, each with a `reason`).

Server leg (the default; tests/conformance/run, once per requirement set):
RESULTS holds one `server-<scenario>-<timestamp>/checks.json` per scenario
(`conformance server --requirements <revision> -o RESULTS`), EXPECTED is
expected-failures.yml (2025-11-25) or expected-failures-2026-07-28.yml,
each with a `server:` list.

Client leg (`--client`; tests/conformance/client): RESULTS holds one
`<scenario>-<timestamp>/checks.json` per scenario (`conformance client
--scenario S -o RESULTS`; an `auth/...` scenario is a directory deeper),
plus `exit-status.tsv`, one `scenario<TAB>status` line per run of the
suite: its exit status is its verdict on the whole run, which also counts
a client that exited with an error or timed out. EXPECTED is
client-expected-failures.yml with a `client:` list.

A scenario fails when any of its checks is FAILURE or WARNING, or when it
left no results (it crashed), or (client leg) when the suite exited non-zero
for it; this is how the suite itself counts. Exits 1, saying why, if a
scenario fails without being listed, if a listed scenario passes (the file
may only shrink: remove it), or if an entry names no scenario of the run.
Entries are `scenario` (the whole scenario may fail) or
`scenario:check-id` (only that check may), as the suite's own
`--expected-failures` reads them.

The suite's `--expected-failures` judges the scored scenarios in the same
way; this script also judges the scenarios the suite runs without scoring
(json-schema-2020-12, server-sse-polling, server-session-lifecycle on the
2025-11-25 server leg; json-schema-2020-12, http-header-validation,
http-custom-header-server-validation on the 2026-07-28 one;
json-schema-2020-12-preservation and the auth extensions on the client
leg), refuses entries that name nothing (a typo would otherwise hide a
failure for good), and prints one table of every scenario.

Every scenario is judged, the unscored extension scenarios too (the
io.modelcontextprotocol/tasks scenarios, tasks-*, of 2026-07-28: optional
in the suite, implemented here). Python 3.11 standard library only.
"""

import json
import re
import sys
from pathlib import Path

FAILED = {"FAILURE", "WARNING"}
TIMESTAMP = r"-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$"
# The pseudo check id of a client-leg run the suite judged failed for a
# reason its checks do not show (the client exited with an error, or was
# killed at the timeout).
RUN = "(run)"


class Problem(Exception):
    """A file this script reads is not what it expects; the message says which and why."""


def yaml_lines(path):
    """(indent, text) of each line of a plain YAML file, comments removed."""
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        text = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if text.strip():
            yield len(text) - len(text.lstrip()), text.strip()


def read_requirements(path, leg):
    """The scenarios of a requirement set for `leg` ("server" or
    "client"): (scored, not scored, not scored by reason)."""
    scored, unscored = [], []
    section, item = None, None
    for indent, text in yaml_lines(path):
        if indent == 0:
            section = text.rstrip(":")
            continue
        if section == leg and text.startswith("- "):
            scored.append(text[2:].strip())
        elif section == "not_scored":
            if text.startswith("- "):
                item = {}
                unscored.append(item)
                text = text[2:]
            key, _, value = text.partition(":")
            if item is not None:
                item[key.strip()] = value.strip()
    unscored = [i for i in unscored if i.get("leg") == leg]
    if not scored:
        raise Problem(f"{path} lists no {leg} scenarios: has its format changed?")
    return scored, [i["scenario"] for i in unscored], {i["scenario"]: i.get("reason", "") for i in unscored}


def read_expected(path, leg):
    """The `leg` entries of an expected-failures file: scenario -> None (the
    whole scenario) or a set of check ids."""
    expected = {}
    section = None
    for indent, text in yaml_lines(path):
        if indent == 0:
            section = text.rstrip(":")
            if text == f"{leg}: []":
                # Nothing is expected to fail.
                section = None
                continue
            if text != f"{leg}:":
                raise Problem(f"{path}: only a `{leg}:` list is expected here, not `{text}`")
            continue
        if section != leg or not text.startswith("- "):
            raise Problem(f"{path}: `{text}` is not a `- scenario` entry of the `{leg}:` list")
        entry = text[2:].strip().strip("'\"")
        scenario, _, check = entry.partition(":")
        if check.startswith(" ") or not scenario:
            raise Problem(f"{path}: `{entry}` is not `scenario` or `scenario:check-id`")
        if check:
            checks = expected.setdefault(scenario, set())
            if checks is None:
                raise Problem(f"{path}: `{entry}` is redundant: the whole of {scenario} is listed")
            checks.add(check)
        else:
            if expected.get(scenario):
                raise Problem(f"{path}: {scenario} is listed whole and by check")
            expected[scenario] = None
    return expected


def read_results(path, leg):
    """scenario -> its list of checks, from the suite's output directory."""
    result_dir = re.compile(("^server-" if leg == "server" else "^") + r"(?P<scenario>.+)" + TIMESTAMP)
    results = {}
    # Sorted by timestamp within a scenario: a later run of it wins.
    for checks in sorted(Path(path).rglob("checks.json")) if Path(path).is_dir() else []:
        match = result_dir.match(checks.parent.relative_to(path).as_posix())
        if match:
            results[match["scenario"]] = json.loads(checks.read_text(encoding="utf-8"))
    return results


def read_statuses(path):
    """scenario -> the suite's exit status for its run (client leg)."""
    statuses = {}
    file = Path(path) / "exit-status.tsv"
    for line in file.read_text(encoding="utf-8").splitlines() if file.is_file() else []:
        scenario, _, status = line.partition("\t")
        if not status.strip().lstrip("-").isdigit():
            raise Problem(f"{file}: `{line}` is not `scenario<TAB>exit status`")
        statuses[scenario] = int(status)
    return statuses


def failing_and_passing(scenario, checks, status):
    """The failing check ids of a scenario (with their messages) and the
    ones that passed; a scenario without results fails as a whole, and one
    the suite's exit status says failed (client leg) fails as a run."""
    if checks is None:
        return {scenario: "left no results: the scenario crashed or never ran"}, set()
    failing, passing = {}, set()
    for check in checks:
        check_status, check_id = check.get("status"), check.get("id", "?")
        if check_status in FAILED:
            message = check.get("errorMessage") or check.get("description", "")
            failing.setdefault(check_id, f"{check_status}: {message}")
        elif check_status == "SUCCESS":
            passing.add(check_id)
    if status not in (None, 0) and not failing:
        failing[RUN] = (
            f"the suite exited {status} for it although no check failed: the client exited "
            "with an error or was stopped at the timeout (see its log)"
        )
    return failing, passing - failing.keys()


def judge(scenario, checks, expected, status=None, name="expected-failures.yml"):
    """(result, problems) of one scenario, against the expected failures
    (the file `name`)."""
    failing, passing = failing_and_passing(scenario, checks, status)
    if scenario in expected and expected[scenario] is None:
        if failing:
            return "FAIL (expected)", []
        return "pass", [f"{scenario} passes but is listed in {name}: remove it from the file"]
    allowed = expected.get(scenario) or set()
    problems = [
        f"{scenario} fails, and is not an expected failure: {check_id}: {message}"
        for check_id, message in failing.items()
        if check_id not in allowed
    ]
    problems += [
        f"{scenario}:{check_id} passes but is listed in {name}: remove it from the file"
        for check_id in sorted(allowed & passing)
    ]
    if not failing:
        return "pass", problems
    return ("FAIL (expected)" if failing.keys() <= allowed else "FAIL"), problems


STATUS_LETTERS = (("SUCCESS", "s"), ("FAILURE", "f"), ("WARNING", "w"), ("SKIPPED", "k"))


def main(results_dir, expected_path, requirements_path, leg="server"):
    scored, unscored, _ = read_requirements(requirements_path, leg)
    expected = read_expected(expected_path, leg)
    results = read_results(results_dir, leg)
    statuses = read_statuses(results_dir) if leg == "client" else {}
    name = Path(expected_path).name
    problems = [
        f"{name} lists {scenario}, which is no {leg} scenario of "
        f"{Path(requirements_path).name}: fix or remove the entry"
        for scenario in expected
        if scenario not in scored and scenario not in unscored
    ]
    rows = []
    for scenario in scored + unscored:
        checks = results.get(scenario)
        result, found = judge(scenario, checks, expected, statuses.get(scenario), name)
        problems += found
        counts = "-"
        if checks is not None:
            counts = " ".join(f"{sum(c.get('status') == s for c in checks)}{letter}" for s, letter in STATUS_LETTERS)
        rows.append((scenario, "scored" if scenario in scored else "not scored", counts, result))
    width = max(len(row[0]) for row in rows)
    print(f"{'scenario':<{width}}  {'':<10}  {'checks':<15}  result")
    for scenario, kind, counts, result in rows:
        print(f"{scenario:<{width}}  {kind:<10}  {counts:<15}  {result}")
    print("(checks: s success, f failure, w warning, k skipped)")
    passed = sum(row[3] == "pass" for row in rows)
    print(f"\n{passed} of {len(rows)} scenarios pass, {len(rows) - passed} fail.")
    if problems:
        print("\nConformance problems:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"Every failure is an expected one (tests/conformance/{name}).")
    return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    leg = "server"
    if arguments[:1] == ["--client"]:
        leg, arguments = "client", arguments[1:]
    if len(arguments) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    try:
        sys.exit(main(*arguments, leg=leg))
    except Problem as problem:
        sys.exit(f"error: {problem}")

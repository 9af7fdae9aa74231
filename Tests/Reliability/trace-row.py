#!/usr/bin/env python3
"""The life of one Get Bananas row in a traced nine-writer run (docs/reliability.md, "Tracing a
lost operation"): the run's operations on it, then every absorb and flush of every bananas
process in which it was there, with the verdict, the file's write mark, and whether the row was
shown, hidden (and by which delete) or absent in the file read and in the result.

    python3 Tests/Reliability/trace-row.py RUN_FOLDER ['node2 1']

RUN_FOLDER holds `log` (the test's output), `concurrency-ops.jsonl` and `trace.log`; without
an item, the one the test reported lost is followed."""
import json
import re
import sys

folder = sys.argv[1]
if len(sys.argv) > 2:
    item = sys.argv[2]
else:
    found = re.search(r'verdict\.lost → \["[^ ]+ [^ ]+ ([^"]+)"', open(folder + "/log").read())
    if not found:
        sys.exit("no lost operation in the log; name the item")
    item = found.group(1)
ops = [json.loads(line) for line in open(folder + "/concurrency-ops.jsonl")]
start = min(op["start"] for op in ops)
for op in ops:
    if op.get("item") == item:
        print("op %8.3f-%8.3f %s %s %s" % (op["start"] - start, op["end"] - start, op["writer"], op["op"], op["outcome"]))

name = item.replace(" ", "_")
row = re.compile(r'(?:^|\s)(-?)' + re.escape(name) + r'(\(del@[^)]*\))?\{([^}]*)\}')

def state(line, part):
    listed = re.search(part + r'=\[([^\]]*)\]', line)
    if not listed:
        return None
    found = row.search(" " + listed.group(1))
    if not found:
        return "absent"
    return ("hidden" if found.group(1) else "shown") + (found.group(2) or "") + " {" + found.group(3) + "}"

shown_before = {}
for line in open(folder + "/trace.log"):
    pid, time, kind, rest = line.split(" ", 3)
    states = (state(line, "file"), state(line, "result")) if kind == "absorb" else (state(line, "written"),)
    present = any(s not in ("absent", None) for s in states)
    if present or shown_before.get(pid):
        head = re.sub(r' (file|result|written)=\[.*', "", rest.strip()).replace("BananasSync.WriteOrigin.Against.", "")
        print("%6s %8.3f %-6s %s | %s" % (pid, float(time) - start, kind, head, " → ".join(s for s in states if s)))
    shown_before[pid] = present

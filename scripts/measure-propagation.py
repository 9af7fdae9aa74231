#!/usr/bin/env python3
"""Propagation between two running instances: `add` in one `bananas-test session` (the editor's
store driven by stdin, a test-only executable), until the other reports the change merged.
Prints p50/p99 of that and of the acknowledgement (journal fsync).

    swift build -c release --product bananas-test
    scripts/measure-propagation.py .build/release/bananas-test [EDITS]

A measurement, not a test: numbers go to docs/sync.md (and, later, the benchmark).
"""
import json, os, subprocess, sys, tempfile, time

binary = sys.argv[1]
edits = int(sys.argv[2]) if len(sys.argv) > 2 else 200
folder = tempfile.mkdtemp(prefix="bananas-propagation-")
env = dict(os.environ, BANANAS_FILE=folder + "/BananaList.json", XDG_STATE_HOME=folder + "/state")


def start():
    process = subprocess.Popen([binary, "session"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0)
    process.stdout.readline()  # ready
    return process


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


a, b = start(), start()
total, acks = [], []
for n in range(edits):
    start_time = time.perf_counter()
    a.stdin.write(f"add\tItem {n}\n".encode())
    while "ack" not in json.loads(a.stdout.readline()):
        pass
    acked = time.perf_counter()
    while json.loads(b.stdout.readline()).get("event") != "merged":
        pass
    total.append((time.perf_counter() - start_time) * 1000)
    acks.append((acked - start_time) * 1000)
for process in (a, b):
    process.stdin.write(b"quit\n")
    process.wait()
print(f"edits={edits} propagation p50={percentile(total, .5):.1f} ms p99={percentile(total, .99):.1f} ms "
      f"max={max(total):.1f} ms; acknowledged p50={percentile(acks, .5):.1f} ms p99={percentile(acks, .99):.1f} ms")

#!/usr/bin/env python3
"""Reproduced a bug, now fixed (docs/reliability.md, "Fixed: stampless removes under load"): a row
the Get Bananas server adds and then removes could come back while bananas instances were busy. Kept as a check.

    python3 Tests/Reliability/stampless-removes.py BANANAS_BINARY [BUSY_SESSIONS] [ROWS] [PAUSE] [--check]

Starts BUSY_SESSIONS (2) `bananas-test session`s (the test tool beside BANANAS_BINARY) adding an item every 20 ms, and the Get Bananas
protocol writer (getbananas-writer.js), which adds ROWS (20) rows one by one, optionally checks
each (--check), and removes it PAUSE (0.3) seconds later. After everyone has stopped and written
what is pending, prints how many acknowledged removes were undone. Exit status 1 if any was.
"""
import json, os, subprocess, sys, tempfile, threading, time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
binary = args[0]
test_tool = os.path.join(os.path.dirname(os.path.abspath(binary)), "bananas-test")
busy_count = int(args[1]) if len(args) > 1 else 2
rows = int(args[2]) if len(args) > 2 else 20
pause = float(args[3]) if len(args) > 3 else 0.3
check = "--check" in sys.argv
writer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "getbananas-writer.js")

folder = tempfile.mkdtemp(prefix="bananas-removes-")
env = dict(os.environ, BANANAS_FILE=folder + "/BananaList.json", HOME=folder + ".home")
env.pop("XDG_STATE_HOME", None)
subprocess.run([binary, "add", "Seed"], env=env, check=True, stdout=subprocess.DEVNULL)

def session():
    p = subprocess.Popen([test_tool, "session"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    p.stdout.readline()  # ready
    return p

stop = False
def churn(p, tag):
    n = 0
    while not stop:
        p.stdin.write(f"add\t{tag}{n}\n")
        n += 1
        while "event" in json.loads(p.stdout.readline()):
            pass
        time.sleep(0.02)

busy = [session() for _ in range(busy_count)]
threads = [threading.Thread(target=churn, args=(p, f"busy{i}-")) for i, p in enumerate(busy)]
for t in threads:
    t.start()
node = subprocess.Popen(["node", writer, env["BANANAS_FILE"]], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
node.stdout.readline()  # ready

def call(command):
    node.stdin.write(json.dumps(command) + "\n")
    return json.loads(node.stdout.readline())

removed = []
for k in range(rows):
    name = f"X{k}"
    if not call({"op": "add", "name": name})["ok"]:
        continue
    time.sleep(pause)
    if check:
        call({"op": "update", "name": name, "checked": True})
        time.sleep(pause)
    if call({"op": "remove", "name": name})["ok"]:
        removed.append(name)

time.sleep(3)
stop = True
for t in threads:
    t.join()
for p in busy:
    p.stdin.write("wait\nquit\n")
    p.stdin.close()
    p.stdout.read()
    p.wait(timeout=60)
node.stdin.close()
node.wait()
names = {item["name"] for item in json.load(open(env["BANANAS_FILE"]))["items"]}
back = [name for name in removed if name in names]
print(f"acknowledged removes: {len(removed)}, came back: {len(back)} {back}")
sys.exit(1 if back else 0)

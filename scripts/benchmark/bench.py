#!/usr/bin/env python3
"""The bananas benchmark. Run it through `scripts/benchmark/run`, which builds in release mode
and installs the peers; this script measures, prints each number as it goes, and writes
docs/performance.md with its plots (docs/performance/*.png) and raw figures
(docs/performance/results.json, saved after every part: a run cut short keeps its figures, and
`python3 scripts/benchmark/report.py` rewrites the page from them).

Every figure is many runs after warm-up runs, reported as median and spread (median absolute
deviation), and p99 where a tail matters. Whole processes are timed by hyperfine.
"""
import argparse
import asyncio
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from terminal import Pane  # noqa: E402
import report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def stats(millis):
    ordered = sorted(millis)
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    deviations = sorted(abs(v - median) for v in ordered)
    mad = deviations[n // 2]
    return {"median": median, "p99": ordered[min(n - 1, int(n * 0.99))], "min": ordered[0], "max": ordered[-1],
            "mad": mad, "runs": n}


def say(text):
    print(text, flush=True)


class Bench:
    def __init__(self, args):
        self.args = args
        self.bin = os.path.abspath(os.path.join(args.build, "bananas"))
        self.test_tool = os.path.abspath(os.path.join(args.build, "bananas-test"))
        self.bench_bin = os.path.abspath(os.path.join(args.build, "bananas-bench"))
        self.work = tempfile.mkdtemp(prefix="bananas-benchmark-")
        self.results = {"sizes": args.sizes}
        self.quick = args.quick

    def runs(self, normal, big, size):
        """Fewer runs where one takes long, and in --quick mode."""
        count = big if size >= 100_000 else normal
        return max(3, count // 4) if self.quick else count

    # Lists and environments --------------------------------------------------------------

    def env(self, folder):
        return {"PATH": os.environ["PATH"], "HOME": folder + "/home", "LANG": "C.UTF-8",
                "TERM": "xterm-256color", "BANANAS_FILE": folder + "/BananaList.json",
                "XDG_STATE_HOME": folder + "/state", "XDG_CONFIG_HOME": folder + "/config",
                "XDG_DATA_HOME": folder + "/data", "BANANAS_LOG_LEVEL": "error"}

    def seeded(self, size, name):
        """A fresh folder holding a list of `size` items, last written by `bananas` (so its base
        is saved, as on a machine where bananas has been used)."""
        folder = os.path.join(self.work, f"{name}-{size}")
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.makedirs(folder + "/home")
        subprocess.run([self.bench_bin, "seed", str(size), folder + "/BananaList.json"], check=True)
        subprocess.run([self.bin, "add", "Seed item"], env=self.env(folder), check=True, stdout=subprocess.DEVNULL)
        return folder

    # In process ----------------------------------------------------------------------------

    def in_process(self):
        path = os.path.join(self.work, "inprocess.json")
        say("== in process (bananas-bench): key press to frame, flush, merge, codec")
        subprocess.run([self.bench_bin, "--sizes", ",".join(map(str, self.args.sizes)), "--json", path], check=True)
        with open(path) as f:
            self.results["inProcess"] = {str(r["items"]): r for r in json.load(f)}

    # Editor: cold start, memory, idle, propagation -------------------------------------------

    def editor_cold_start(self):
        say("== editor: cold start to the first painted frame")
        out = {}
        for size in self.args.sizes:
            folder = self.seeded(size, "cold")
            millis = []
            runs = self.runs(20, 6, size)
            for k in range(runs + 2):
                pane = Pane([self.bin], self.env(folder))
                arrived = pane.wait_for(b"help", timeout=120)
                pane.close()
                if arrived is None:
                    raise SystemExit(f"the editor showed no frame at {size} items:\n{bytes(pane.output)[-2000:]!r}")
                if k >= 2:
                    millis.append((arrived - pane.started) * 1000)
            out[str(size)] = stats(millis)
            say(f"{size:>7} items  editor first frame  median {out[str(size)]['median']:8.1f} ms")
        self.results["editorColdStart"] = out

    def editor_resources(self):
        """Peak memory after opening and moving around, and CPU time over an idle stretch,
        for every size at once (idle editors do not compete for the CPU)."""
        idle = self.args.idle_seconds
        say(f"== editor: peak memory, and CPU and writes over {idle} s idle")
        panes = {}
        for size in self.args.sizes:
            folder = self.seeded(size, "idle")
            pane = Pane([self.bin], self.env(folder))
            if pane.wait_for(b"help", timeout=120) is None:
                raise SystemExit(f"the editor showed no frame at {size} items")
            # Move around, filter, hide checked, and check and uncheck an item (two writes).
            for key in [b"j"] * 20 + [b"G", b"g", b"\x04", b"/", b"b", b"a", b"n", b"\x1b", b"h", b"h", b"]", b"g", b" ", b" "]:
                pane.send(key)
                time.sleep(0.02)
            panes[size] = (pane, folder)
        # Let what those keys started finish (two flushes of the whole file: seconds at
        # 100,000 items): wait until the editors together used under 20 ms of CPU in a second
        # (at most 60 s).
        deadline = time.time() + 60
        last = {size: pane.cpu_seconds() for size, (pane, _) in panes.items()}
        while time.time() < deadline:
            time.sleep(1)
            now = {size: pane.cpu_seconds() for size, (pane, _) in panes.items()}
            if sum(now.values()) - sum(last.values()) < 0.02:
                break
            last = now
        before = {}
        for size, (pane, folder) in panes.items():
            st = os.stat(folder + "/BananaList.json")
            before[size] = (pane.cpu_times(), (st.st_ino, st.st_mtime_ns, st.st_size))
        time.sleep(idle)
        memory, cpu = {}, {}
        for size, (pane, folder) in panes.items():
            st = os.stat(folder + "/BananaList.json")
            used = Pane.cpu_used(before[size][0], pane.cpu_times())
            peak, resident = pane.memory_kib()
            writes = 0 if (st.st_ino, st.st_mtime_ns, st.st_size) == before[size][1] else 1
            cpu[str(size)] = {"cpuSeconds": used, "seconds": idle, "percent": used / idle * 100, "fileChanged": writes}
            memory[str(size)] = {"peakKiB": peak, "residentKiB": resident}
            pane.close()
            say(f"{size:>7} items  peak {peak / 1024:6.1f} MiB  resident {resident / 1024:6.1f} MiB  "
                f"idle CPU {used * 1000:6.1f} ms over {idle} s ({used / idle * 100:.3f}%)  file changed: {bool(writes)}")
        self.results["editorMemory"] = memory
        self.results["editorIdle"] = cpu

    def propagation(self):
        """An edit committed in one process (a long-running `bananas-test session`: the editor's store
        without a screen) until a running editor on the same file has painted it."""
        say("== propagation: edit in one process → painted by another running editor")
        out = {}
        first_id = "B0000000-0000-4000-8000-000000000000"  # the first row on the screen
        for size in self.args.sizes:
            folder = self.seeded(size, "propagation")
            env = self.env(folder)
            pane = Pane([self.bin], env)
            if pane.wait_for(b"help", timeout=120) is None:
                raise SystemExit(f"the editor showed no frame at {size} items")
            session = subprocess.Popen([self.test_tool, "session"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0)
            session.stdout.readline()  # ready
            edits = self.runs(200, 40, size)
            total, acked = [], []
            try:
                for k in range(edits + 5):
                    # Every letter differs from the last name's at the same place, so curses
                    # repaints the whole name and the token arrives in one piece.
                    # (Nothing else may follow, or curses skips the characters that match.)
                    shift = k % 25 + 1
                    token = "".join(chr(ord("a") + (ord(c) - ord("a") + shift) % 26) for c in "bananaspropagation")
                    mark = pane.mark()
                    start = time.perf_counter()
                    session.stdin.write(f"set\t{first_id}\tname\t{token}\n".encode())
                    while True:
                        line = json.loads(session.stdout.readline())
                        if "ack" in line or "error" in line:
                            break
                    ack = time.perf_counter()
                    painted = pane.wait_for(token.encode(), since=mark, timeout=30)
                    if painted is None:
                        raise SystemExit(f"edit {k} at {size} items never reached the other editor")
                    if k >= 5:
                        total.append((painted - start) * 1000)
                        acked.append((ack - start) * 1000)
                    time.sleep(0.01)
            finally:
                session.stdin.write(b"quit\n")
                session.wait(timeout=30)
                pane.close()
            out[str(size)] = {"painted": stats(total), "acknowledged": stats(acked)}
            p = out[str(size)]["painted"]
            say(f"{size:>7} items  propagation p50 {p['median']:7.1f} ms  p99 {p['p99']:7.1f} ms  "
                f"(journaled in {out[str(size)]['acknowledged']['median']:.1f} ms)")
        self.results["propagation"] = out

    # Whole processes against the peers -------------------------------------------------------

    def peers(self):
        say("== whole processes: bananas vs taskwarrior vs todo.txt (hyperfine)")
        tools = {"bananas": self.setup_bananas, "taskwarrior": self.setup_taskwarrior, "todo.txt": self.setup_todotxt}
        out = {}
        for size in self.args.sizes:
            row = {}
            for tool, setup in tools.items():
                row[tool] = self.race(tool, setup(size), size)
            out[str(size)] = row
        self.results["peers"] = out
        # A command that only starts and exits: with the in-process atomic write of the file,
        # the least a bananas command that writes the list can take (the floor table).
        self.results["processStart"] = self.hyperfine(f"{self.bin} --version", "true", self.env(self.work), self.runs(30, 30, 0))
        say(f"process start (bananas --version) median {self.results['processStart']['median']:8.1f} ms")

    def race(self, tool, setup, size, label=""):
        """Each of the tool's commands, timed by hyperfine with the folder put back before each run."""
        snapshot, live, env, commands = setup
        restore = os.path.join(self.work, f"restore-{tool}-{size}{label}.sh")
        with open(restore, "w") as f:
            # `sync`: the copy's dirty pages are written out before the timed run, not
            # inside it (where they landed on whichever tool fsyncs, bananas).
            f.write(f"#!/bin/sh\nrm -rf '{live}' && cp -a '{snapshot}' '{live}' && sync\n")
        os.chmod(restore, 0o755)
        out = {}
        for op, command in commands.items():
            out[op] = self.hyperfine(command, restore, env, self.runs(30, 10, size))
            say(f"{size:>7} items {label:<11} {tool:<12} {op:<6} median {out[op]['median']:8.1f} ms")
        return out

    # Real shapes of list (issue 40) -------------------------------------------------------

    def shapes(self):
        """The peer lead on two shapes of list people have: `heavy`, 300 visible items after a
        year of weekly use with 1,000 remembered names; `getbananas`, 10,000 items in 8 sections
        named "item N", every row taken in from a Get Bananas save (so fully stamped)."""
        say("== whole processes on real shapes: a heavy list, a list Get Bananas shaped")
        out = {}
        for shape, size, setup in (("heavy", 300, self.setup_heavy), ("getbananas", 10_000, self.setup_getbananas)):
            row = {"items": size}
            for tool, make in (("bananas", setup), ("taskwarrior", self.setup_taskwarrior), ("todo.txt", self.setup_todotxt)):
                row[tool] = self.race(tool, make(size), size, shape)
            out[shape] = row
        self.results["shapes"] = out

    def setup_heavy(self, size):
        """A year of weekly shopping ending a week ago (the injected clock), 1,000 names bought
        before it, then `size` items on the list this week. Its last write is made now, as the
        user's last use: a command after weeks away first folds the published history (its
        old states expire), once, and that is not what the race times."""
        import random
        live = os.path.join(self.work, "heavy-live")
        shutil.rmtree(live, ignore_errors=True)
        os.makedirs(live + "/home")
        day = 86_400_000
        rng = random.Random(300)
        products = [f"{w} {k}" if k else w for k in range(10) for w in self.YEAR_WORDS][:400]
        sections = ["Produce", "Dairy", "Bakery", "Pantry", "Frozen", "Household"]

        def cli(weeks_ago, *args):
            subprocess.run([self.test_tool, "cli", f"--clock-offset={-weeks_ago * 7 * day}", "--", *args], env=self.env(live),
                           capture_output=True, check=True)

        def shop(weeks_ago, names):
            for name in names:
                cli(weeks_ago, "add", name, "--section", sections[products.index(name) % 6 if name in products else len(name) % 6])
            cli(weeks_ago, "check", *names)
            cli(weeks_ago, "clear-checked")

        shop(54, [f"Remembered {n}" for n in range(1_000)])
        for week in range(53, 1, -1):
            shop(week, rng.sample(products, 40))
        for n in range(size):
            cli(1, "add", f"Item {n}", "--section", sections[n % 6])
        cli(0, "check", *[f"Item {n}" for n in range(0, size, 5)])
        return self.bananas_race(live, "'Item 1'")

    def setup_getbananas(self, size):
        """The Get Bananas app's file of `size` items (version 1, no stamps), taken in by a
        bananas write: every row stamped as the app's edit."""
        live = os.path.join(self.work, "getbananas-live")
        shutil.rmtree(live, ignore_errors=True)
        os.makedirs(live + "/home")
        sections = [f"Section {k}" for k in range(8)]
        items = [{"id": f"B0000000-0000-4000-8000-{n:012X}", "name": f"item {n}", "amount": "", "section": sections[n % 8],
                  "optional": False, "checked": n % 5 == 0} for n in range(size)]
        with open(live + "/BananaList.json", "w") as f:
            json.dump({"sections": sections, "items": items}, f)
        subprocess.run([self.bin, "add", "Seed item"], env=self.env(live), check=True, stdout=subprocess.DEVNULL)
        return self.bananas_race(live, "B0000000-0000-4000-8000-000000000001")

    # Hostile sizes (issue 55) ---------------------------------------------------------------

    HOSTILE_PARTS = ["sections", "section-entries", "unlisted-sections", "items", "deletes", "deleted-rows", "deleted-items",
                     "memory", "conflicts"]

    def hostile(self):
        """Every part of the file at 100,000 entries (`bananas-test hostile-file`: what a damaged
        file, a buggy writer or a hostile peer can make), each read by `bananas list --json` from a
        fresh state folder: the time, the peak memory, and, under callgrind, the instructions at
        1,000 and 4,000 entries (their ratio is 4 where reading is linear). Then 1,000,000
        conflict records on one field read by `bananas status`."""
        say("== hostile sizes: 100,000 entries of each part of the file, read by `bananas list --json`")
        folder = os.path.join(self.work, "hostile")
        os.makedirs(folder + "/home", exist_ok=True)
        valgrind = shutil.which("valgrind")
        stripped = os.path.join(self.work, "bananas-stripped")
        if valgrind:
            subprocess.run(["strip", "--strip-debug", "-o", stripped, self.bin], check=True)
        out = {"parts": {}}
        for part in self.HOSTILE_PARTS:
            row = self.hostile_read(folder, part, 100_000, ["list", "--json"], self.runs(7, 7, 0))
            if valgrind:
                counts = {n: self.hostile_instructions(valgrind, stripped, folder, part, n) for n in (1, 1_000, 4_000)}
                row["instructions"] = {str(n): c for n, c in counts.items()}
                row["instructionRatio"] = (counts[4_000] - counts[1]) / (counts[1_000] - counts[1])
            out["parts"][part] = row
            say(f"{part:>17}: 100,000 entries ({row['bytes'] / 1e6:5.1f} MB) read in median {row['time']['median']:7.1f} ms "
                f"(max {row['time']['max']:7.1f}; CPU {row['cpu']['median']:7.1f}), peak {row['peakMiB']:6.1f} MiB"
                + (f", instructions 4,000 / 1,000 entries: {row['instructionRatio']:.2f}" if valgrind else ""))
        row = self.hostile_read(folder, "conflicts", 1_000_000, ["status"], self.runs(5, 5, 0))
        out["millionConflicts"] = row
        say(f"1,000,000 conflict records ({row['bytes'] / 1e6:5.1f} MB) read by `bananas status` in median "
            f"{row['time']['median']:7.1f} ms (max {row['time']['max']:7.1f}; CPU {row['cpu']['median']:7.1f}), peak {row['peakMiB']:6.1f} MiB")
        self.results["hostile"] = out

    def hostile_file(self, folder, part, count):
        path = os.path.join(folder, f"{part}-{count}.json")
        if not os.path.exists(path):
            subprocess.run([self.test_tool, "hostile-file", part, str(count), path], check=True)
        return path

    def hostile_env(self, folder, path):
        env = self.env(folder)
        env["BANANAS_FILE"] = path
        shutil.rmtree(folder + "/state", ignore_errors=True)  # a fresh state folder: every run the same work
        return env

    def hostile_read(self, folder, part, count, command, runs):
        """`bananas COMMAND` on `count` entries of `part`: wall time and peak resident memory
        of each run (after one warm-up run), from a fresh state folder each time."""
        path = self.hostile_file(folder, part, count)
        millis, cpu, peaks = [], [], []
        for k in range(runs + 1):
            env = self.hostile_env(folder, path)
            started = time.perf_counter()
            process = subprocess.Popen([self.bin, *command], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(process.pid, 0)
            elapsed = (time.perf_counter() - started) * 1000
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"bananas {' '.join(command)} failed on {count} {part}: {process.stderr.read().decode()[-2000:]}")
            process.stderr.close()
            if k:
                millis.append(elapsed)
                cpu.append((usage.ru_utime + usage.ru_stime) * 1000)
                peaks.append(usage.ru_maxrss / 1024)
        return {"entries": count, "bytes": os.path.getsize(path), "time": stats(millis), "cpu": stats(cpu), "peakMiB": max(peaks),
                "loadAverage": os.getloadavg()[0]}

    def hostile_instructions(self, valgrind, stripped, folder, part, count):
        path = self.hostile_file(folder, part, count)
        run = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", stripped, "list", "--json"],
                             env=self.hostile_env(folder, path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
        return int(re.search(r"Collected : (\d+)", run.stderr).group(1))

    # A year of use ------------------------------------------------------------------------

    YEAR_WORDS = ["apple", "banana", "milk", "bread", "eggs", "cheese", "yogurt", "butter", "rice", "pasta", "tomato",
                  "onion", "garlic", "potato", "carrot", "lettuce", "spinach", "chicken", "beef", "fish", "tofu", "beans",
                  "lentils", "oats", "flour", "sugar", "salt", "pepper", "coffee", "tea", "juice", "water", "soap",
                  "shampoo", "tissue", "foil", "cereal", "honey", "jam", "nuts"]

    def year(self):
        """52 weeks of a weekly shop (issue 40): 40 items drawn from 400 product names in six
        sections, added one command each, checked, cleared; the clock injected (`bananas-test
        cli --clock-offset`), a week on each week. The file's size every week, and `list`,
        `add` and `check` on it every quarter, side by side with a fresh list of the same
        visible items (none), on the same injected clock."""
        say("== a year of use: 52 weeks of 40 items added, checked and cleared")
        import random
        rng = random.Random(52)
        products = [f"{w} {k}" if k else w for k in range(10) for w in self.YEAR_WORDS][:400]
        sections = ["Produce", "Dairy", "Bakery", "Pantry", "Frozen", "Household"]
        folder = os.path.join(self.work, "year")
        fresh = os.path.join(self.work, "year-fresh")
        for f in (folder, fresh):
            os.makedirs(f + "/home", exist_ok=True)
        day = 86_400_000
        weeks, checkpoints = [], {}

        def cli(where, offset, *args):
            return subprocess.run([self.test_tool, "cli", f"--clock-offset={offset}", "--", *args], env=self.env(where),
                                  capture_output=True, text=True)

        def timed(where, offset, args, restore):
            """Median ms of `args` over runs, the folder put back before each (untimed)."""
            snapshot = where + ".snapshot"
            shutil.rmtree(snapshot, ignore_errors=True)
            shutil.copytree(where, snapshot, symlinks=True)
            millis = []
            for k in range(self.runs(15, 15, 0) + 2):
                if restore:
                    shutil.rmtree(where)
                    shutil.copytree(snapshot, where, symlinks=True)
                start = time.perf_counter()
                cli(where, offset, *args)
                if k >= 2:
                    millis.append((time.perf_counter() - start) * 1000)
            shutil.rmtree(where)
            shutil.copytree(snapshot, where, symlinks=True)
            return stats(millis)

        for week in range(1, 53):
            offset = week * 7 * day
            for name in rng.sample(products, 40):
                cli(folder, offset, "add", name, "--section", sections[products.index(name) % 6])
            items = json.loads(cli(folder, offset, "list", "--json").stdout)["items"]
            cli(folder, offset, "check", *[i["id"] for i in items])
            cli(folder, offset, "clear-checked")
            size = os.path.getsize(folder + "/BananaList.json")
            weeks.append({"week": week, "bytes": size})
            if week in (1, 13, 26, 39, 52):
                row = {"bytes": size}
                # The fresh list: the same visible items (none), written by bananas once.
                shutil.rmtree(fresh)
                os.makedirs(fresh + "/home")
                cli(fresh, offset, "add", "Seed")
                cli(fresh, offset, "remove", "Seed")
                row["freshBytes"] = os.path.getsize(fresh + "/BananaList.json")
                for where, key in ((folder, "year"), (fresh, "fresh")):
                    cli(where, offset, "add", "Oat milk")
                    row[key] = {"list": timed(where, offset, ["list"], False),
                                "add": timed(where, offset, ["add", "Bananas"], True),
                                "check": timed(where, offset, ["check", "Oat milk"], True)}
                    cli(where, offset, "remove", "Oat milk")
                checkpoints[str(week)] = row
                say(f"week {week:>2}: {size / 1024:7.1f} KB   list {row['year']['list']['median']:.1f} ms "
                    f"(fresh {row['fresh']['list']['median']:.1f})   add {row['year']['add']['median']:.1f} "
                    f"(fresh {row['fresh']['add']['median']:.1f})   check {row['year']['check']['median']:.1f} "
                    f"(fresh {row['fresh']['check']['median']:.1f})")
        with open(folder + "/BananaList.json") as f:
            parts = {key: len(json.dumps(value)) for key, value in json.load(f).get("sync", {}).items()}
        self.results["year"] = {"weeks": weeks, "checkpoints": checkpoints, "syncBytes": parts}

    def hyperfine(self, command, prepare, env, runs):
        export = os.path.join(self.work, "hyperfine.json")
        subprocess.run(["hyperfine", "-N", "--style", "none", "--warmup", "3", "--runs", str(runs),
                        "--prepare", prepare, "--export-json", export, command],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        with open(export) as f:
            times = json.load(f)["results"][0]["times"]
        return stats([t * 1000 for t in times])

    # Each peer's data is set up at the path it is used from, then copied aside; hyperfine's
    # prepare step copies it back before every run, so every run starts from the same data.

    def setup_bananas(self, size):
        live = self.seeded(size, "peer-bananas-live")  # the state folder is keyed by the list's path
        return self.bananas_race(live, "B0000000-0000-4000-8000-000000000001")  # unchecked (every fifth is checked)

    def bananas_race(self, live, unchecked):
        """What `race` needs for bananas on the list in `live`: a snapshot to put back before
        each run, and the three commands (`unchecked` names an unchecked item)."""
        snapshot = live.replace("live", "snapshot")
        shutil.rmtree(snapshot, ignore_errors=True)
        shutil.copytree(live, snapshot, symlinks=True)
        return snapshot, live, self.env(live), {
            "add": f"{self.bin} add 'Peer item' --section Pantry",
            "list": f"{self.bin} list",
            "check": f"{self.bin} check {unchecked}",
        }

    def setup_taskwarrior(self, size):
        live = os.path.join(self.work, f"peer-task-live-{size}")
        snapshot = live.replace("live", "snapshot")
        for path in (snapshot, live):
            shutil.rmtree(path, ignore_errors=True)
        os.makedirs(live + "/data")
        with open(live + "/taskrc", "w") as f:
            # Only what a script needs: no confirmation prompts, no news nag.
            f.write(f"data.location={live}/data\nconfirmation=off\nnews.version=2.6.2\n")
        tasks = []
        for n in range(size):
            task = {"uuid": f"b0000000-0000-4000-8000-{n:012x}", "description": f"Item {n}",
                    "project": f"Section{n % max(1, size // 50)}", "entry": "20260921T120000Z",
                    "status": "completed" if n % 5 == 0 else "pending"}
            if n % 5 == 0:
                task["end"] = "20260921T130000Z"
            tasks.append(task)
        imports = os.path.join(self.work, f"task-import-{size}.json")
        with open(imports, "w") as f:
            json.dump(tasks, f)
        env = {"PATH": os.environ["PATH"], "HOME": live, "TASKRC": live + "/taskrc", "LANG": "C.UTF-8"}
        subprocess.run(["task", "import", imports], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.remove(imports)
        shutil.copytree(live, snapshot)
        return snapshot, live, env, {
            "add": "task add 'Peer item' project:Pantry",
            "list": "task list",
            "check": "task 1 done",
        }

    def setup_todotxt(self, size):
        snapshot = os.path.join(self.work, f"peer-todo-snapshot-{size}")
        live = snapshot.replace("snapshot", "live")
        for path in (snapshot, live):
            shutil.rmtree(path, ignore_errors=True)
        os.makedirs(snapshot)
        with open(snapshot + "/todo.cfg", "w") as f:
            f.write(f"export TODO_DIR='{live}'\nexport TODO_FILE=\"$TODO_DIR/todo.txt\"\n"
                    "export DONE_FILE=\"$TODO_DIR/done.txt\"\nexport REPORT_FILE=\"$TODO_DIR/report.txt\"\n")
        with open(snapshot + "/todo.txt", "w") as f:
            for n in range(size):
                done = "x 2026-09-21 " if n % 5 == 0 else ""
                f.write(f"{done}Item {n} +Section{n % max(1, size // 50)}\n")
        open(snapshot + "/done.txt", "w").close()
        env = {"PATH": os.environ["PATH"], "HOME": live, "LANG": "C.UTF-8"}
        cfg = live + "/todo.cfg"
        return snapshot, live, env, {
            "add": f"todo-txt -d {cfg} add 'Peer item +Pantry'",
            "list": f"todo-txt -d {cfg} ls",
            "check": f"todo-txt -d {cfg} do 2",
        }

    # MCP ---------------------------------------------------------------------------------------

    def mcp(self):
        say("== MCP: get_shopping_list and a 100-item add_items, from the Python client")
        # `bananas mcp` execs the server binary installed next to it.
        if not os.path.exists(os.path.join(os.path.dirname(self.bin), "bananas-mcp")):
            sys.exit(f"bananas-mcp is missing next to {self.bin} (scripts/benchmark/run builds it)")
        out = {}
        for size in self.args.sizes:
            folder = self.seeded(size, "mcp")
            out[str(size)] = asyncio.run(self.mcp_round_trips(folder, size))
            r = out[str(size)]
            say(f"{size:>7} items  get_shopping_list median {r['get_shopping_list']['median']:8.1f} ms   "
                f"(one page, server {r['page_server']['median']:.0f} ms; default answer ~{r['default_answer_tokens']:.0f} tokens)   "
                f"add_items(100) median {r['add_items_100']['median']:8.1f} ms")
        self.results["mcp"] = out

    async def mcp_round_trips(self, folder, size):
        from mcp import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client
        # The server logs each call's own time (`ms=`, at info): the page's server time, without
        # the client's checking of the answer against the output schema.
        server = StdioServerParameters(command=self.bin, args=["mcp"], env={**self.env(folder), "BANANAS_LOG_LEVEL": "info"})
        get, add = [], []
        log = tempfile.TemporaryFile(mode="w+")
        async with stdio_client(server, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                # At 100,000 items one call takes tens of seconds (docs/decisions.md, MCP): few runs.
                for k in range(self.runs(30, 4, size) + 2):
                    start = time.perf_counter()
                    result = await session.call_tool("get_shopping_list", {})
                    if k >= 2:
                        get.append((time.perf_counter() - start) * 1000)
                    assert not result.is_error, result
                # The default answer (the first page) as the client holds it, at about 4
                # characters a token (a common estimate for English and JSON; no tokenizer here).
                tokens = len(result.model_dump_json(by_alias=True, exclude_none=True)) / 4
                for k in range(self.runs(20, 4, size) + 2):
                    items = [{"name": f"Batch {k} item {n}", "section": "Pantry"} for n in range(100)]
                    start = time.perf_counter()
                    result = await session.call_tool("add_items", {"items": items})
                    if k >= 2:
                        add.append((time.perf_counter() - start) * 1000)
                    assert not result.is_error, result
                    # Take them away again (untimed), so every run starts from the same list.
                    ids = [r["id"] for r in result.structured_content["results"]]
                    await session.call_tool("remove_items", {"items": [{"item": i} for i in ids]})
        log.seek(0)
        served = [float(m.group(1)) for line in log if "tool get_shopping_list:" in line
                  for m in [re.search(r"\bms=(\d+)", line)] if m][2:]
        return {"get_shopping_list": stats(get), "add_items_100": stats(add), "page_server": stats(served),
                "default_answer_tokens": tokens}

    # The web page (bananas serve) ---------------------------------------------------------------

    def serve(self):
        """The phone's page (scripts/benchmark/serve.py): its weight, the server's latency and
        memory at 100, 500 and 1,000 items, a change's way to the event stream, and in headless
        Chromium the first render (CPU 4x slower) and the scrolling of 500 items."""
        say("== the web page (bananas serve): weight, server latency and memory, first render, scrolling")
        if not os.path.exists(os.path.join(os.path.dirname(self.bin), "bananas-serve")):
            sys.exit(f"bananas-serve is missing next to {self.bin} (scripts/benchmark/run builds it)")
        import serve
        self.results["serve"] = serve.run(os.path.dirname(self.bin), runs=self.runs(200, 200, 0), say=say)

    # Machine -----------------------------------------------------------------------------------

    def machine(self):
        cpu = "unknown"
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            memory = int(f.readline().split()[1]) // 1024 // 1024
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
        versions = {}
        for tool, argv in {"hyperfine": ["hyperfine", "--version"], "taskwarrior": ["task", "--version"],
                           "todo.txt": ["todo-txt", "-V"]}.items():
            try:
                text = subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()
                versions[tool] = next((l for l in text if any(ch.isdigit() for ch in l)), "?").strip()
            except OSError:
                versions[tool] = "not installed"
        fs = subprocess.run(["stat", "-f", "-c", "%T", self.work], capture_output=True, text=True).stdout.strip()
        self.results["machine"] = {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": cpu, "cores": os.cpu_count(), "memoryGiB": memory, "kernel": platform.release(),
            "os": platform.freedesktop_os_release().get("PRETTY_NAME", "?") if hasattr(platform, "freedesktop_os_release") else "?",
            "swift": swift[0] if swift else "?", "commit": commit + ("+changes" if dirty else ""),
            "filesystem": fs, "peers": versions, "quick": self.quick,
        }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, ".build", "release"), help="folder with the release binaries")
    parser.add_argument("--sizes", default="100,1000,10000,100000", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--quick", action="store_true", help="a quarter of the runs (a smoke run; not for the docs)")
    parser.add_argument("--idle-seconds", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated parts: inprocess,cold,resources,propagation,peers,shapes,mcp,year,serve,hostile")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"), help="where performance.md and performance/ go")
    parser.add_argument("--no-report", action="store_true", help="print only; do not write docs/")
    args = parser.parse_args()
    bench = Bench(args)
    parts = {"inprocess": bench.in_process, "cold": bench.editor_cold_start, "resources": bench.editor_resources,
             "propagation": bench.propagation, "peers": bench.peers, "shapes": bench.shapes, "mcp": bench.mcp, "year": bench.year,
             "serve": bench.serve, "hostile": bench.hostile}
    chosen = [p for p in args.only.split(",") if p] or list(parts)
    raw = os.path.join(args.out, "performance", "results.json")
    previous = {}
    if not args.no_report and set(chosen) != set(parts) and os.path.exists(raw):
        # A partial run updates its parts and keeps the others' last figures.
        with open(raw) as f:
            previous = json.load(f)

    def save():
        # After every part, so a run killed half-way keeps what it measured.
        if args.no_report:
            return
        os.makedirs(os.path.dirname(raw), exist_ok=True)
        with open(raw + ".tmp", "w") as f:
            json.dump({**previous, **bench.results}, f, indent=1, sort_keys=True)
        os.replace(raw + ".tmp", raw)

    bench.machine()
    started = time.time()
    try:
        for part in chosen:
            parts[part]()
            bench.results["benchmarkSeconds"] = round(time.time() - started)
            # Which run measured each part (a partial run keeps the others' figures).
            runs = {**previous.get("parts", {}), **bench.results.get("parts", {})}
            runs[part] = {"date": bench.results["machine"]["date"], "commit": bench.results["machine"]["commit"]}
            bench.results["parts"] = runs
            save()
    finally:
        shutil.rmtree(bench.work, ignore_errors=True)
    if not args.no_report:
        report.write({**previous, **bench.results}, args.out)
        say(f"wrote {args.out}/performance.md")
    else:
        print(json.dumps(bench.results, indent=1))

if __name__ == "__main__":
    main()

"""Writes docs/performance.md and its plots from the benchmark's results. The hand-written
parts (what was optimised, what the profiles showed) come from scripts/benchmark/notes.md."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(ms):
    if ms is None:
        return "–"
    if ms >= 100:
        return f"{ms:,.0f} ms"
    if ms >= 10:
        return f"{ms:.1f} ms"
    return f"{ms:.2f} ms"


def items(n):
    return f"{int(n):,}"


def get(results, *path):
    value = results
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def targets(r):
    """(target, where, measured, met) for every target of issue 9."""
    rows = []
    sizes = [str(s) for s in r["sizes"]]

    def add(name, where, value, text, met):
        if value is not None:
            rows.append((name, where, text, "yes" if met else "**no**"))

    for size in sizes:
        if int(size) > 10_000:
            continue
        p = get(r, "propagation", size, "painted")
        if p:
            add("Propagation p50 < 20 ms, p99 < 60 ms", f"{items(size)} items", p,
                f"p50 {fmt(p['median'])}, p99 {fmt(p['p99'])}", p["median"] < 20 and p["p99"] < 60)
    k = get(r, "inProcess", "10000", "keyPress", "median")
    add("Key press to frame < 2 ms", "10,000 items", k, fmt(k), k is not None and k < 2)
    q = get(r, "inProcess", "10000", "suggestQuery", "p99")
    add("Suggestion as you type < 2 ms (1,000 remembered names)", "10,000 items", q, f"p99 {fmt(q)}", q is not None and q < 2)
    c = get(r, "editorColdStart", "10000", "median")
    add("Cold start to first frame < 100 ms", "10,000 items", c, fmt(c), c is not None and c < 100)
    f = get(r, "inProcess", "10000", "flush", "median")
    add("Flush of one change < 10 ms", "10,000 items", f, fmt(f), f is not None and f < 10)
    per_item = [(int(s), get(r, "inProcess", s, "merge", "median") / int(s) * 1000) for s in sizes
                if get(r, "inProcess", s, "merge", "median") is not None and int(s) >= 1000]
    if per_item:
        spread = max(v for _, v in per_item) / min(v for _, v in per_item)
        add("Merge cost grows linearly", "1,000–100,000 items", spread,
            "per 1,000 items: " + ", ".join(f"{fmt(v)} at {items(s)}" for s, v in per_item), spread < 2.5)
    for size in sizes:
        idle = get(r, "editorIdle", size)
        if idle:
            add("Idle editor: no writes, < 0.1% CPU", f"{items(size)} items", idle,
                f"{idle['percent']:.3f}% CPU, file {'changed' if idle['fileChanged'] else 'unchanged'}",
                idle["percent"] < 0.1 and not idle["fileChanged"])
    m = get(r, "editorMemory", "10000", "peakKiB")
    add("Editor under 40 MB resident", "10,000 items", m, f"peak {m / 1024:.1f} MiB" if m else "", m is not None and m < 40 * 1024)
    peers = r.get("peers") or {}
    for size in sizes:
        row = peers.get(size)
        if not row or int(size) > 10_000:  # 100,000 items: "under a second" below
            continue
        slower = [f"{op} vs {tool}" for tool in ("taskwarrior", "todo.txt") for op in ("add", "list", "check")
                  if get(row, "bananas", op, "median") is not None and get(row, tool, op, "median") is not None
                  and row["bananas"][op]["median"] >= row[tool][op]["median"]]
        add("Faster than taskwarrior and todo.txt", f"{items(size)} items", row,
            "faster at add, list, check" if not slower else "slower: " + ", ".join(slower), not slower)
    shapes = r.get("shapes") or {}
    for shape, label in (("heavy", "300 items, a year of history, 1,000 names"), ("getbananas", "10,000 items Get Bananas shaped")):
        row = shapes.get(shape)
        if not row:
            continue
        slower = [f"{op} vs {tool}" for tool in ("taskwarrior", "todo.txt") for op in ("add", "list", "check")
                  if get(row, "bananas", op, "median") is not None and get(row, tool, op, "median") is not None
                  and row["bananas"][op]["median"] >= row[tool][op]["median"]]
        add("Faster than taskwarrior and todo.txt", label, row,
            "faster at add, list, check" if not slower else "slower: " + ", ".join(slower), not slower)
    # The write-floor target at 100,000 items is retired (issue 40: no shopping list has
    # 100,000 items); there commands must stay under a second (and linear: the peers table).
    big = "100000"
    ops = {op: get(r, "peers", big, "bananas", op, "median") for op in ("add", "list", "check")}
    if None not in ops.values():
        add("Under a second", "100,000 items", ops, ", ".join(f"{op} {fmt(ops[op])}" for op in ops),
            max(ops.values()) < 1000)
    year = r.get("year")
    if year:
        last = year["checkpoints"].get("52")
        if last:
            add("A year of weekly use: the empty list's file ≤ 64 KB", "52 weeks", last["bytes"],
                f"{last['bytes'] / 1024:.0f} KB", last["bytes"] <= 64 * 1024)
            ratios = {op: last["year"][op]["median"] / last["fresh"][op]["median"] for op in ("list", "add", "check")}
            add("…and `list`, `add`, `check` within 1.3x of a fresh list", "52 weeks", ratios,
                ", ".join(f"{op} {v:.2f}x" for op, v in ratios.items()), max(ratios.values()) <= 1.3)
    hostile = r.get("hostile")
    if hostile:
        # Judged on the median's CPU time (user + system): the wall time is shown beside it, and
        # on a machine shared with other work it is the CPU's share, not bananas, that it measures.
        slowest = max(hostile["parts"].items(), key=lambda kv: kv[1]["cpu"]["median"])
        add("Every part of the file at 100,000 entries read in < 2 s", "`bananas list --json`", slowest,
            f"slowest: {slowest[0]}, {fmt(slowest[1]['cpu']['median'])} CPU ({fmt(slowest[1]['time']['median'])} wall)",
            slowest[1]["cpu"]["median"] < 2000)
        ratios = {part: row["instructionRatio"] for part, row in hostile["parts"].items() if "instructionRatio" in row}
        if ratios:
            worst = max(ratios.items(), key=lambda kv: kv[1])
            add("…and read in linear work (instructions at 4,000 entries ≤ 5x those at 1,000)", "every part", worst,
                f"largest: {worst[0]}, {worst[1]:.2f}x", worst[1] <= 5)
        million = hostile.get("millionConflicts")
        if million:
            add("1,000,000 conflict records read in < 5 s", "`bananas status`", million,
                f"{fmt(million['cpu']['median'])} CPU ({fmt(million['time']['median'])} wall), peak {million['peakMiB']:.0f} MiB",
                million["cpu"]["median"] < 5000)
    serve = r.get("serve")
    if serve:
        page = serve.get("page")
        if page:
            sent = page.get("wireBytes", page["bytes"])
            add("The web page ≤ 50 KB compressed (as sent to a browser)", "all its files", sent,
                f"{sent / 1024:.1f} KB ({page['bytes'] / 1024:.1f} KB uncompressed)", sent <= 50 * 1024)
        browser = serve.get("browser")
        if browser:
            f = browser["firstRender"]["median"]
            add("Web page: first render < 1 s with the CPU 4x slower", "500 items", f, fmt(f), f < 1000)
            add("Web page: scrolling drops no frame (none over 25 ms)", "500 items", browser["slowFrames"],
                f"{browser['slowFrames']} of {browser['scrollFrames']} frames over 25 ms", browser["slowFrames"] == 0)
        for size in ("100", "1000"):
            s = get(serve, "sizes", size)
            if not s:
                continue
            live = s.get("live")
            if live:
                add("Web page: a change made elsewhere reaches it < 100 ms", f"{items(size)} items", live,
                    f"p50 {fmt(live['median'])}, p99 {fmt(live['p99'])}", live["p99"] < 100)
            worst = max(s["list"]["p99"], s["listGzip"]["p99"], s["edit"]["p99"])
            add("Web server: every request p99 < 50 ms", f"{items(size)} items", worst,
                f"list {fmt(s['listGzip']['p99'])} (gzip), check {fmt(s['edit']['p99'])}", worst < 50)
            add("Web server under 64 MB resident", f"{items(size)} items", s["peakMiB"], f"peak {s['peakMiB']:.1f} MiB",
                s["peakMiB"] < 64)
    return rows


def plot_year(results, out):
    """File size and command times week by week over the year of use."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    year = results.get("year")
    if not year:
        return None
    fig, (size, times) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=100)
    size.plot([w["week"] for w in year["weeks"]], [w["bytes"] / 1024 for w in year["weeks"]], marker=".")
    size.axhline(64, color="grey", linestyle="--", linewidth=1, label="target 64 KB")
    size.set_xlabel("week")
    size.set_ylabel("KB")
    size.set_title("The empty list's file")
    size.legend(fontsize="small")
    size.grid(True, alpha=0.3)
    weeks = sorted(int(w) for w in year["checkpoints"])
    for op in ("list", "add", "check"):
        times.plot(weeks, [year["checkpoints"][str(w)]["year"][op]["median"] for w in weeks], marker="o", label=op)
        times.plot(weeks, [year["checkpoints"][str(w)]["fresh"][op]["median"] for w in weeks], linestyle=":", label=f"{op}, fresh list")
    times.set_xlabel("week")
    times.set_ylabel("ms")
    times.set_title("Commands on it, and on a fresh list")
    times.legend(fontsize="x-small")
    times.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "performance", "year.png"))
    plt.close(fig)
    return "performance/year.png"


def plot(results, out):
    """One picture per measurement against list size (log–log), in docs/performance/."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [str(s) for s in results["sizes"]]
    xs = [int(s) for s in sizes]
    charts = {
        "key-press": ("Key press to frame (in memory)", {"median": [get(results, "inProcess", s, "keyPress", "median") for s in sizes]}, 2),
        "cold-start": ("Cold start", {"editor, first frame": [get(results, "editorColdStart", s, "median") for s in sizes],
                                      "bananas list": [get(results, "peers", s, "bananas", "list", "median") for s in sizes]}, 100),
        "propagation": ("Propagation to another editor's screen", {
            "p50": [get(results, "propagation", s, "painted", "median") for s in sizes],
            "p99": [get(results, "propagation", s, "painted", "p99") for s in sizes]}, 20),
        "flush-merge": ("Flush of one change, merge of two copies", {
            "flush": [get(results, "inProcess", s, "flush", "median") for s in sizes],
            "merge": [get(results, "inProcess", s, "merge", "median") for s in sizes]}, 10),
        "mcp": ("MCP round trips (Python client)", {
            "get_shopping_list": [get(results, "mcp", s, "get_shopping_list", "median") for s in sizes],
            "add_items (100)": [get(results, "mcp", s, "add_items_100", "median") for s in sizes]}, None),
        "memory": ("Editor peak resident memory (MiB)", {
            "peak": [(get(results, "editorMemory", s, "peakKiB") or 0) / 1024 or None for s in sizes]}, 40),
    }
    for op in ("add", "list", "check"):
        charts[f"peers-{op}"] = (f"Whole process: {op}", {
            tool: [get(results, "peers", s, tool, op, "median") for s in sizes]
            for tool in ("bananas", "taskwarrior", "todo.txt")}, None)
    made = {}
    for name, (title, series, target) in charts.items():
        if not any(v is not None for values in series.values() for v in values):
            continue
        fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
        for label, values in series.items():
            points = [(x, v) for x, v in zip(xs, values) if v is not None]
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        if target:
            ax.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"target {target}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("items in the list")
        ax.set_ylabel("MiB" if name == "memory" else "ms")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
        fig.tight_layout()
        path = os.path.join(out, "performance", f"{name}.png")
        fig.savefig(path)
        plt.close(fig)
        made[name] = f"performance/{name}.png"
    return made


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def spread(s):
    return f"{fmt(s['median'])} ± {fmt(s['mad'])}" if s else "–"


def provenance(r):
    """Which run measured which part, when a partial run kept earlier figures."""
    parts = r.get("parts", {})
    if len(set((p["commit"], p["date"]) for p in parts.values())) <= 1:
        return []
    by_run = {}
    for part, run in parts.items():
        by_run.setdefault((run["date"], run["commit"]), []).append(part)
    lines = [f"- {', '.join(sorted(names))}: {date}, commit `{commit}`" for (date, commit), names in sorted(by_run.items())]
    return ["The figures come from more than one run:", ""] + lines + [""]


def write(r, out):
    pictures = plot(r, out)
    sizes = [str(s) for s in r["sizes"]]
    m = r.get("machine", {})
    md = ["# Performance", "",
          "<!-- Generated by scripts/benchmark/run (scripts/benchmark/report.py); the prose after",
          "     \"What was optimised\" comes from scripts/benchmark/notes.md. Do not edit by hand. -->", "",
          f"Latest run: {m.get('date', '?')}, commit `{m.get('commit', '?')}`"
          + (" (**quick run: a quarter of the runs**)" if m.get("quick") else "") + f", {r.get('benchmarkSeconds', '?')} s.", "",
          *provenance(r),
          "Run it with `scripts/benchmark/run` (builds in release mode, installs hyperfine, taskwarrior,",
          "todo.txt-cli and matplotlib if missing, measures at 100, 1,000, 10,000 and 100,000 items, and",
          "rewrites this page). `scripts/benchmark/run --only propagation,peers` re-measures some parts and",
          "keeps the other figures.", "",
          "## Targets", "", table(["target", "where", "measured", "met"], targets(r)), "",
          "## Machine", "",
          table(["", ""], [["CPU", f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores"], ["memory", f"{m.get('memoryGiB', '?')} GiB"],
                           ["system", f"{m.get('os', '?')}, Linux {m.get('kernel', '?')}"], ["file system", m.get("filesystem", "?")],
                           ["Swift", m.get("swift", "?")],
                           ["peers", ", ".join(f"{k} {v}" for k, v in (m.get("peers") or {}).items())]]), "",
          "## Method", "",
          "- **Lists**: N items in N/50 sections, names and amounts like a real list's, every fifth checked,",
          "  every field stamped (`bananas-bench seed`), then one `bananas add`, so the base is saved as on",
          "  a machine where bananas has been used. Files: " + ", ".join(
              f"{items(s)} items = {get(r, 'inProcess', s, 'fileBytes') / 1e6:.2f} MB" for s in sizes if get(r, "inProcess", s, "fileBytes")) + ".",
          "- **In process** (`bananas-bench`, Sources/bananas-bench): warm-up runs, then many timed runs;",
          "  median ± median absolute deviation.",
          "- **Editor** runs in a real pseudo-terminal (100x40, xterm-256color) driven by",
          "  scripts/benchmark/terminal.py: a thread reads the editor's output and stamps each chunk with",
          "  its arrival time, so \"on the screen\" means \"the terminal has received those bytes\".",
          "- **Whole processes**: hyperfine (`-N`, 3 warm-up runs), each run starting from the same data",
          "  (a prepare step copies it back and runs `sync`, so no tool pays for writing out the copy),",
          "  the same list sizes for every tool.",
          "- **MCP**: the official Python client (`mcp`) over stdio, timing `call_tool` to its result.", ""]

    def section(title, picture, header, rows, text=""):
        md.append(f"## {title}")
        md.append("")
        if text:
            md.append(text)
            md.append("")
        md.append(table(header, rows))
        md.append("")
        if picture in pictures:
            md.append(f"![{title}]({pictures[picture]})")
            md.append("")

    year = r.get("year")
    if year:
        picture = plot_year(r, out)
        md.append("## A year of use")
        md.append("")
        md.append("52 weeks of a weekly shop (`scripts/benchmark/run --only year`): 40 items drawn from 400 product "
                  "names in six sections, each added by its own `bananas add`, all checked, then `bananas clear-checked`; "
                  "the clock injected (`bananas-test cli --clock-offset`), a week on each week. The list is empty after "
                  "each week. Every quarter, `list`, `add` and `check` on it and on a fresh list with the same visible "
                  "items (none), side by side, on the same clock (medians of 15 runs, the folder put back before each).")
        md.append("")
        rows = []
        for w in sorted(int(k) for k in year["checkpoints"]):
            c = year["checkpoints"][str(w)]
            rows.append([str(w), f"{c['bytes'] / 1024:.1f} KB"] + [
                f"{fmt(c['year'][op]['median'])} ({fmt(c['fresh'][op]['median'])}, {c['year'][op]['median'] / c['fresh'][op]['median']:.2f}x)"
                for op in ("list", "add", "check")])
        md.append(table(["week", "file", "list (fresh, ratio)", "add (fresh, ratio)", "check (fresh, ratio)"], rows))
        md.append("")
        md.append("What the file holds after the year, by key of `sync` (bytes of compact JSON): " + ", ".join(
            f"`{k}` {v:,}" for k, v in sorted(year.get("syncBytes", {}).items(), key=lambda kv: -kv[1])) + ".")
        md.append("")
        if picture:
            md.append(f"![A year of use]({picture})")
            md.append("")

    ip = lambda s, k: get(r, "inProcess", s, k)  # noqa: E731
    section("Key press to frame", "key-press", ["items", "median ± spread", "p99", "max"],
            [[items(s), spread(ip(s, "keyPress")), fmt(get(ip(s, "keyPress"), "p99")), fmt(get(ip(s, "keyPress"), "max"))]
             for s in sizes if ip(s, "keyPress")],
            "One `j`/↓ handled by `EditorState.handle` and the visible window rendered into a 100x40 grid, "
            "the list in memory (painting changed cells to the terminal is not included; it is part of every "
            "editor figure below).")
    section("Remembered items", "suggestions", ["items", "names", "suggestions built", "query median", "query p99"],
            [[items(s), str(ip(s, "rememberedNames") or ""), spread(ip(s, "suggestBuild")), fmt(get(ip(s, "suggestQuery"), "median")),
              fmt(get(ip(s, "suggestQuery"), "p99"))] for s in sizes if ip(s, "suggestQuery")],
            "The list plus 1,000 names bought before (docs/memory.md). The suggestions are built once per change "
            "of the list (`rememberedItems` then `Suggestions`); each key typed in the add prompt is one query "
            "(a prefix, a typo, letters in order, no match), at most 1,000 names.")
    section("Cold start", "cold-start", ["items", "editor to first frame", "p99", "`bananas list`", "`bananas list` p99"],
            [[items(s), spread(get(r, "editorColdStart", s)), fmt(get(r, "editorColdStart", s, "p99")),
              spread(get(r, "peers", s, "bananas", "list")), fmt(get(r, "peers", s, "bananas", "list", "p99"))] for s in sizes],
            "From starting the process until the terminal has received the first full frame (its last "
            "word, the status bar's `help`); `bananas list` until it exits, output to /dev/null.")
    section("Propagation", "propagation", ["items", "p50", "p99", "max", "edits", "journaled (ack) p50"],
            [[items(s), fmt(get(r, "propagation", s, "painted", "median")), fmt(get(r, "propagation", s, "painted", "p99")),
              fmt(get(r, "propagation", s, "painted", "max")), get(r, "propagation", s, "painted", "runs") or "–",
              fmt(get(r, "propagation", s, "acknowledged", "median"))] for s in sizes],
            "A running `bananas-test session` (the editor's store without a screen) renames the first item; "
            "the time until another running editor on the same file has painted the new name. It "
            "includes the journal fsync, the flush (lock, read, merge, write with fsyncs), the "
            "inotify event, the other side's read and merge, and the repaint.")
    section("Flush and merge", "flush-merge", ["items", "flush of one change", "flush p99", "merge of two copies", "merge per 1,000 items",
                                                "decode", "encode"],
            [[items(s), spread(ip(s, "flush")), fmt(get(ip(s, "flush"), "p99")), spread(ip(s, "merge")),
              fmt(get(ip(s, "merge"), "median") / int(s) * 1000) if ip(s, "merge") else "–",
              fmt(get(ip(s, "decode"), "median")), fmt(get(ip(s, "encode"), "median"))] for s in sizes if ip(s, "flush")],
            "Flush: lock, read, absorb against the base, merge the local list (one item checked or "
            "unchecked), encode, write (temp file, fsync, read back and verify, rename, fsync of the "
            "folder), save the base, unlock. Merge: two full copies, each with its own edits to 10% of "
            "the items. Decode and encode of the whole file are shown for reference.")
    def race_rows(part, key, label):
        """One row per command: bananas, the peers, and their ratios to bananas."""
        rows = []
        for op in ("add", "list", "check"):
            b = get(r, part, key, "bananas", op, "median")
            t = get(r, part, key, "taskwarrior", op, "median")
            d = get(r, part, key, "todo.txt", op, "median")
            if b is not None:
                rows.append([label, op, spread(get(r, part, key, "bananas", op)), fmt(t), fmt(d),
                             f"{t / b:.1f}x" if t else "–", f"{d / b:.1f}x" if d else "–"])
        return rows

    peer_rows = [row for s in sizes for row in race_rows("peers", s, items(s))]
    section("Whole processes against the peers", "peers-add",
            ["items", "command", "bananas", "taskwarrior", "todo.txt", "taskwarrior / bananas", "todo.txt / bananas"], peer_rows,
            "`bananas add 'Peer item' --section Pantry` / `bananas list` / `bananas check ID` against "
            "`task add 'Peer item' project:Pantry` / `task list` / `task 1 done` and "
            "`todo-txt add 'Peer item +Pantry'` / `todo-txt ls` / `todo-txt do 2`, same items (every "
            "fifth done). Ratios above 1 mean bananas is faster.")
    shape_rows = [row for shape, label in (("heavy", "heavy: 300 items, a year, 1,000 names"),
                                          ("getbananas", "Get Bananas shaped: 10,000 items"))
                  for row in race_rows("shapes", shape, label)]
    if shape_rows:
        md.append("**Real shapes of list.** The heavy list: 52 weeks of 40 items added, checked and "
                  "cleared, 1,000 names bought before, then 300 items on the list (every fifth "
                  "checked). The Get Bananas list: the app's file of 10,000 items named \"item N\" in 8 "
                  "sections, taken in by a bananas write (every row stamped). The peers hold the same "
                  "number of items.")
        md.append("")
        md.append(table(["list", "command", "bananas", "taskwarrior", "todo.txt", "taskwarrior / bananas", "todo.txt / bananas"], shape_rows))
        md.append("")
    for op in ("list", "check"):
        if f"peers-{op}" in pictures:
            md.append(f"![Whole process: {op}]({pictures[f'peers-{op}']})")
            md.append("")
    start = get(r, "processStart", "median")
    floor_rows = []
    for s in sizes:
        write = get(ip(s, "atomicWrite"), "median")
        if write is None or start is None:
            continue
        read = get(ip(s, "fileRead"), "median")
        floor_rows.append([items(s), f"{get(r, 'inProcess', s, 'fileBytes') / 1e6:.2f} MB", fmt(write), fmt(start), fmt(write + start),
                           fmt(read), fmt(write + start + read) if read is not None else "–",
                           fmt(get(r, "peers", s, "bananas", "add", "median")), fmt(get(r, "peers", s, "bananas", "check", "median")),
                           fmt(get(r, "peers", s, "todo.txt", "add", "median")), fmt(get(r, "peers", s, "todo.txt", "check", "median")),
                           fmt(get(r, "peers", s, "taskwarrior", "add", "median"))])
    if floor_rows:
        md += ["### The write protocol's floor", "",
               "What any bananas command that changes the list pays before it does anything of its own: the process "
               "start (`bananas --version`, hyperfine) and the write protocol on the file (temp file, write, fsync, "
               "read back and compare, rename, fsync of the folder; `bananas-bench`, in process). todo.txt appends a "
               "line and fsyncs nothing; where its time is under this floor, no bananas that keeps DESIGN's write "
               "protocol can be faster. A command that changes the list must also read it first (under the lock): "
               "\"read\" is that read into memory the process has not touched yet (`read(2)`; the kernel clears "
               "each fresh page), and the last floor adds it.", "",
               "| " + " | ".join(["items", "file", "atomic write", "process start", "floor", "read", "floor + read",
                                  "bananas add", "bananas check", "todo.txt add", "todo.txt do", "taskwarrior add"]) + " |",
               "|---" + "|---:" * 11 + "|"]
        md += ["| " + " | ".join(row) + " |" for row in floor_rows]
        md.append("")
    section("MCP round trips", "mcp", ["items", "get_shopping_list (one page)", "p99", "server time", "default answer",
                                        "add_items (100 items)", "p99"],
            [[items(s), spread(get(r, "mcp", s, "get_shopping_list")), fmt(get(r, "mcp", s, "get_shopping_list", "p99")),
              spread(get(r, "mcp", s, "page_server")) if get(r, "mcp", s, "page_server") else "–",
              f"~{get(r, 'mcp', s, 'default_answer_tokens'):,.0f} tokens" if get(r, "mcp", s, "default_answer_tokens") else "–",
              spread(get(r, "mcp", s, "add_items_100")), fmt(get(r, "mcp", s, "add_items_100", "p99"))] for s in sizes if get(r, "mcp", s)],
            "get_shopping_list without arguments answers its first page (150 items at most, about 20,000 tokens at "
            "most). Server time is the server's own log of the call (`ms=`, whole milliseconds); the default "
            "answer's size is its JSON as the client holds it, at about 4 characters a token (an estimate: no "
            "tokenizer is run).")
    section("Editor memory and idle CPU", "memory", ["items", "peak resident", "resident", "idle CPU", "idle file writes"],
            [[items(s), f"{get(r, 'editorMemory', s, 'peakKiB') / 1024:.1f} MiB" if get(r, "editorMemory", s) else "–",
              f"{get(r, 'editorMemory', s, 'residentKiB') / 1024:.1f} MiB" if get(r, "editorMemory", s) else "–",
              f"{get(r, 'editorIdle', s, 'percent'):.3f}% ({get(r, 'editorIdle', s, 'cpuSeconds') * 1000:.0f} ms in {get(r, 'editorIdle', s, 'seconds')} s)"
              if get(r, "editorIdle", s) else "–",
              ("none" if not get(r, "editorIdle", s, "fileChanged") else "**changed**") if get(r, "editorIdle", s) else "–"] for s in sizes],
            "Peak (VmHWM) after opening, moving through the list and opening the search and sort prompts; "
            "CPU time of all threads over the idle stretch (/proc/PID/stat ticks or per-thread schedstat, the larger), the file's inode, size and mtime "
            "compared before and after.")
    serve = r.get("serve")
    if serve:
        md += ["## The web page (bananas serve)", "",
               "`scripts/benchmark/run --only serve` (scripts/benchmark/serve.py): the release `bananas serve` on "
               "127.0.0.1 with lists of 100, 500 and 1,000 items (8 sections, every fifth checked), a client on the "
               "same machine. Per size: 200 reads of the list as is and 200 asking for gzip (as browsers do), 200 "
               "checks (each journaled and fsynced before its answer), then a `bananas add` in another process, "
               "timed from its start until the page's event stream (`GET /api/events`, read as a browser asks for "
               "it) has brought the list holding it (20 adds), and the server's memory (VmRSS, VmHWM) after all "
               "that. In Debian's headless Chromium (Selenium, 390 × 844): the time from navigation to 500 rows "
               "drawn with the CPU throttled 4x (DevTools `Emulation.setCPUThrottlingRate`, 5 loads), then "
               "scrolling the 500 rows 40 px a frame for up to 3 s, counting frames over 25 ms (1.5 frames at "
               "60 Hz). docs/serve.md has what the page is.", ""]
        rows = []
        for size in sorted(serve.get("sizes", {}), key=int):
            s = serve["sizes"][size]
            rows.append([items(size), f"{s['listBytes']:,} ({s['listWireBytes']:,} sent gzipped)"
                         if s.get("listWireBytes", s["listBytes"]) != s["listBytes"] else f"{s['listBytes']:,}",
                         f"{spread(s['list'])} (p99 {fmt(s['list']['p99'])})", f"{spread(s['listGzip'])} (p99 {fmt(s['listGzip']['p99'])})",
                         f"{spread(s['edit'])} (p99 {fmt(s['edit']['p99'])})",
                         f"{fmt(s['live']['median'])} (p99 {fmt(s['live']['p99'])})" if s.get("live") else "–",
                         f"{s['rssMiB']:.1f} MiB, peak {s['peakMiB']:.1f} MiB"])
        md.append(table(["items", "GET /api/list (bytes)", "GET /api/list", "… with gzip", "POST /api/edits (check)",
                         "a change elsewhere to the event stream", "server memory"], rows))
        md.append("")
        page, browser = serve.get("page"), serve.get("browser")
        if page and browser:
            md.append(f"The page (HTML, script, style sheet, service worker, manifest, icon): {page['bytes']:,} bytes, "
                      f"{page.get('wireBytes', page['bytes']):,} as sent to a browser that accepts gzip "
                      f"({page['gzipBytes']:,} gzipped at level 9). 500 items with the CPU 4x slower: drawn "
                      f"{spread(browser['firstRender'])} after navigation (slowest of 5 loads {fmt(browser['firstRender']['max'])}); "
                      f"scrolling them, {browser['slowFrames']} of {browser['scrollFrames']} frames over 25 ms"
                      + (f" (the slowest {fmt(browser['slowestFrame'])})." if browser.get("slowestFrame") is not None else "."))
            md.append("")
    hostile = r.get("hostile")
    if hostile:
        md += ["## Hostile sizes", "",
               "`scripts/benchmark/run --only hostile` (issue 55): a file holding 100,000 entries of one part "
               "(`bananas-test hostile-file PART N PATH`: the top-level `sections` of a Get Bananas file; "
               "`sync.sections`; items each in a section the list does not list; items in one section; "
               "`sync.deleted`; `sync.deletedRows` and `sync.deletedItems`, each hidden by one delete; "
               "`sync.memory.remembered`; `sync.conflicts` on one field), read by the release "
               "`bananas list --json` from a fresh state folder (the runs after a warm-up: wall time, median ± "
               "spread and slowest; CPU time, user and system, median; the load average of the machine; peak "
               "resident memory). Instructions: the whole process under valgrind's callgrind (the same "
               "count on every run) at 1,000 and 4,000 entries, less the same part at one entry; linear "
               "reading does 4 times the work for 4 times the entries (`HostileSizesTests` checks the same at "
               "a few hundred entries in the debug build).", ""]
        rows = []
        for part, row in hostile["parts"].items():
            rows.append([part, f"{row['bytes'] / 1e6:.1f} MB", spread(row["time"]), fmt(row["time"]["max"]), fmt(row["cpu"]["median"]),
                         f"{row['loadAverage']:.1f}", f"{row['peakMiB']:.0f} MiB",
                         f"{row['instructionRatio']:.2f}x" if "instructionRatio" in row else "–"])
        million = hostile.get("millionConflicts")
        if million:
            rows.append(["1,000,000 conflict records (`bananas status`)", f"{million['bytes'] / 1e6:.1f} MB", spread(million["time"]),
                         fmt(million["time"]["max"]), fmt(million["cpu"]["median"]), f"{million['loadAverage']:.1f}",
                         f"{million['peakMiB']:.0f} MiB", "–"])
        md.append(table(["part (100,000 entries)", "file", "read, wall (median ± spread)", "slowest", "CPU (median)", "load average",
                         "peak memory", "instructions, 4,000 / 1,000 entries"], rows))
        md.append("")
    with open(os.path.join(HERE, "notes.md")) as f:
        md.append(f.read().rstrip())
    with open(os.path.join(out, "performance.md"), "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    # Rewrites docs/performance.md from the saved figures (after a run was cut short, or after
    # an edit to notes.md): python3 scripts/benchmark/report.py [docs]
    import json
    import sys
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "docs")
    with open(os.path.join(out, "performance", "results.json")) as f:
        write(json.load(f), out)

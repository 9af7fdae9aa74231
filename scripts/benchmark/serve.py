#!/usr/bin/env python3
"""The web page's figures (docs/serve.md, "Performance"): the page's weight, the server's
latency per request and its memory at 100 and 1,000 items, and in headless Chromium (Debian's,
through Selenium) the time to first render with 4x CPU throttling and the frames dropped while
scrolling 500 items.

    scripts/benchmark/serve.py [--build .build/release] [--runs 200]

--build is the folder holding bananas, bananas-serve (scripts/install puts them side by side;
`swift build -c release --product bananas-serve` and `--product bananas` make them). Prints a
Markdown table. The machine is shared: figures are for orders of magnitude, not for asserting.
"""
import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request


def seed(path, size):
    sections = ["Produce", "Dairy", "Bakery", "Drinks", "Frozen", "Pantry", "Household", "Other"]
    items = [{"id": "%08X-0000-4000-8000-%012X" % (size, i), "name": f"Item {i:04d}", "amount": str(i % 7 + 1),
              "section": sections[i % len(sections)], "checked": i % 5 == 0, "optional": False, "sortOrder": i}
             for i in range(size)]
    with open(path, "w") as f:
        json.dump({"sections": sections, "items": items}, f)


def call(url, token, method="GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(build, size, runs, folder):
    bananas = os.path.join(build, "bananas")
    env = dict(os.environ, BANANAS_FILE=os.path.join(folder, f"list-{size}.json"),
               XDG_STATE_HOME=os.path.join(folder, f"state-{size}"), NO_COLOR="1")
    seed(env["BANANAS_FILE"], size)
    server = subprocess.Popen([bananas, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, text=True)
    try:
        url = None
        for line in server.stdout:
            match = re.search(r"open (http://\S+)/pair#(\S+)", line)
            if match:
                url, code = match.group(1), match.group(2)
            if line.startswith("Stop with"):
                break
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        request = urllib.request.Request(url + "/api/pair", data=json.dumps({"code": code, "name": "bench"}).encode(), method="POST")
        with urllib.request.urlopen(request) as response:
            token = re.search(r"bananas_device=([0-9a-f]+)", response.headers["Set-Cookie"]).group(1)
        listing, edits = [], []
        body = call(url + "/api/list", token)
        items = json.loads(body)["items"]
        for _ in range(runs):
            started = time.perf_counter()
            call(url + "/api/list", token)
            listing.append((time.perf_counter() - started) * 1000)
        for index in range(runs):
            item = items[index % len(items)]
            started = time.perf_counter()
            call(url + "/api/edits", token, "POST", {"key": f"bench-{size}-{index:06d}", "op": "check", "id": item["id"],
                                                     "checked": index % 2 == 0})
            edits.append((time.perf_counter() - started) * 1000)
        with open(f"/proc/{server.pid}/status") as f:
            rss = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) / 1024
        with open(f"/proc/{server.pid}/status") as f:
            peak = int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) / 1024
        return {"list_bytes": len(body), "list_ms": (statistics.median(listing), percentile(listing, 95)),
                "edit_ms": (statistics.median(edits), percentile(edits, 95)), "rss_mb": rss, "peak_mb": peak,
                "url": url, "token": token, "server": server, "env": env}
    except BaseException:
        server.terminate()
        raise


def page_weight(url):
    total, compressed = 0, 0
    for path in ["/pair", "/app.js", "/style.css", "/sw.js", "/manifest.webmanifest", "/icon.svg"]:
        with urllib.request.urlopen(url + path) as response:
            body = response.read()
        total += len(body)
        compressed += len(gzip.compress(body, 9))
    return total, compressed


def browser_figures(url, token):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    try:
        host = url.split("//")[1].split(":")[0]
        driver.get(url + "/pair")
        driver.add_cookie({"name": "bananas_device", "value": token, "path": "/", "domain": host})
        driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 4})
        renders = []
        for _ in range(5):
            driver.get(url + "/")
            renders.append(driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const check = () => document.querySelectorAll('li.item').length >= 500
                  ? done(performance.now()) : requestAnimationFrame(check);
                check();"""))
        driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
        scroll = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const frames = []; let last = performance.now(); const end = last + 3000;
            const step = (now) => {
              frames.push(now - last); last = now;
              window.scrollBy(0, 40);
              if (now < end && window.scrollY + window.innerHeight < document.documentElement.scrollHeight) requestAnimationFrame(step);
              else done(frames);
            };
            requestAnimationFrame(step);""")
        dropped = sum(1 for f in scroll[1:] if f > 1000 / 60 * 1.5)
        return statistics.median(renders), len(scroll) - 1, dropped
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=".build/release")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bananas-serve-bench-")
    rows = []
    try:
        for size in [100, 500, 1000]:
            result = measure(args.build, size, args.runs, folder)
            try:
                extra = ""
                if size == 500:
                    weight = page_weight(result["url"])
                    render, frames, dropped = browser_figures(result["url"], result["token"])
                    extra = (f"page: {weight[0]:,} bytes, {weight[1]:,} gzipped; first render of 500 items with 4x CPU "
                             f"throttling: {render:.0f} ms after navigation (median of 5); scrolling 500 items: "
                             f"{dropped} of {frames} frames over 25 ms")
                rows.append((size, result, extra))
            finally:
                result["server"].terminate()
                result["server"].wait(timeout=30)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("| items | GET /api/list (bytes) | GET /api/list median / p95 | POST /api/edits (check) median / p95 | server memory (RSS, peak) |")
    print("|---|---|---|---|---|")
    for size, r, _ in rows:
        print(f"| {size:,} | {r['list_bytes']:,} | {r['list_ms'][0]:.2f} / {r['list_ms'][1]:.2f} ms | "
              f"{r['edit_ms'][0]:.2f} / {r['edit_ms'][1]:.2f} ms | {r['rss_mb']:.1f} MB, {r['peak_mb']:.1f} MB |")
    for size, _, extra in rows:
        if extra:
            print()
            print(extra)


if __name__ == "__main__":
    main()

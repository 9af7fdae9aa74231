#!/usr/bin/env python3
"""The web page's figures (docs/serve.md, "Performance"): the page's weight, the server's
latency per request and its memory at 100, 500 and 1,000 items, how long a change made by
another process takes to reach the page's event stream, and in headless Chromium (Debian's,
through Selenium) the time to first render with 4x CPU throttling and the frames dropped while
scrolling 500 items.

It is the `serve` part of the benchmark (`scripts/benchmark/run --only serve`, which puts the
figures in docs/performance.md); alone it prints them:

    scripts/benchmark/serve.py [--build .build-bench/bin] [--runs 200]

--build is the folder holding bananas and bananas-serve (scripts/install puts them side by side).
The machine is shared: figures are for orders of magnitude, not for asserting.
"""
import argparse
import gzip
import http.client
import json
import os
import queue
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
import zlib

PAGE_FILES = ["/pair", "/app.js", "/style.css", "/sw.js", "/manifest.webmanifest", "/icon.svg"]


def stats(millis):
    """Median, spread (median absolute deviation), p95, p99 of a list of milliseconds."""
    ordered = sorted(millis)
    median = statistics.median(ordered)
    return {"median": median, "mad": statistics.median(abs(v - median) for v in ordered),
            "p95": percentile(ordered, 95), "p99": percentile(ordered, 99), "min": ordered[0], "max": ordered[-1],
            "runs": len(ordered)}


def seed(path, size):
    sections = ["Produce", "Dairy", "Bakery", "Drinks", "Frozen", "Pantry", "Household", "Other"]
    items = [{"id": "%08X-0000-4000-8000-%012X" % (size, i), "name": f"Item {i:04d}", "amount": str(i % 7 + 1),
              "section": sections[i % len(sections)], "checked": i % 5 == 0, "optional": False, "sortOrder": i}
             for i in range(size)]
    with open(path, "w") as f:
        json.dump({"sections": sections, "items": items}, f)


def call(url, token, method="GET", body=None, gzipped=False):
    """The answer's body as sent (compressed when the server compressed it)."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + token}
    if gzipped:
        headers["Accept-Encoding"] = "gzip"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class EventReader:
    """The page's event stream (GET /api/events, as a browser asks for it: gzip accepted),
    read in a thread; every event with the time it arrived."""

    def __init__(self, url, token):
        host, port = url.split("//")[1].split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=120)
        self.connection.request("GET", "/api/events", headers={"Authorization": "Bearer " + token,
                                                                "Accept-Encoding": "gzip, deflate"})
        self.response = self.connection.getresponse()
        self.compressed = self.response.getheader("Content-Encoding") == "gzip"
        self.events = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if self.compressed else None
        text = ""
        try:
            while True:
                chunk = self.response.read1(1 << 16)
                if not chunk:
                    return
                arrived = time.perf_counter()
                text += (inflate.decompress(chunk) if inflate else chunk).decode()
                while "\n\n" in text:
                    event, text = text.split("\n\n", 1)
                    self.events.put((arrived, event))
        except Exception:  # the connection closed under the reader (close())
            return

    def wait_for(self, needle, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                arrived, event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if needle in event:
                return arrived
        raise SystemExit(f"the event stream did not bring {needle!r} within {timeout} s")

    def close(self):
        self.connection.close()


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
        listing, listing_gzip, edits, live = [], [], [], []
        body = call(url + "/api/list", token)
        wire = call(url + "/api/list", token, gzipped=True)
        items = json.loads(body)["items"]
        for _ in range(runs):
            started = time.perf_counter()
            call(url + "/api/list", token)
            listing.append((time.perf_counter() - started) * 1000)
        for _ in range(runs):
            started = time.perf_counter()
            call(url + "/api/list", token, gzipped=True)
            listing_gzip.append((time.perf_counter() - started) * 1000)
        for index in range(runs):
            item = items[index % len(items)]
            started = time.perf_counter()
            call(url + "/api/edits", token, "POST", {"key": f"bench-{size}-{index:06d}", "op": "check", "id": item["id"],
                                                     "checked": index % 2 == 0})
            edits.append((time.perf_counter() - started) * 1000)
        # A change made by another process (`bananas add`, from its start) until the event
        # stream has brought the list holding it: what the page waits for.
        events = EventReader(url, token)
        try:
            events.wait_for("event: list")
            for index in range(max(5, runs // 10) + 2):
                name = f"Live {size} {index:04d}"
                started = time.perf_counter()
                subprocess.run([bananas, "add", name], env=env, check=True, stdout=subprocess.DEVNULL)
                arrived = events.wait_for(name)
                if index >= 2:
                    live.append((arrived - started) * 1000)
        finally:
            events.close()
        with open(f"/proc/{server.pid}/status") as f:
            status = f.read()
        rss = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024
        peak = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024
        return {"listBytes": len(body), "listWireBytes": len(wire), "list": stats(listing), "listGzip": stats(listing_gzip),
                "edit": stats(edits), "live": stats(live), "rssMiB": rss, "peakMiB": peak, "eventsCompressed": events.compressed,
                "url": url, "token": token, "server": server}
    except BaseException:
        server.terminate()
        raise


def page_weight(url):
    """The page's files as sent to a browser (which accepts gzip), and each gzipped at level 9
    here (what they would weigh compressed, whatever the server does)."""
    total, wire, compressed = 0, 0, 0
    for path in PAGE_FILES:
        with urllib.request.urlopen(url + path) as response:
            body = response.read()
        request = urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            wire += len(response.read())
        total += len(body)
        compressed += len(gzip.compress(body, 9))
    return {"bytes": total, "wireBytes": wire, "gzipBytes": compressed}


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
        slow = sum(1 for f in scroll[1:] if f > 1000 / 60 * 1.5)
        return {"firstRender": stats(renders), "scrollFrames": len(scroll) - 1, "slowFrames": slow,
                "slowestFrame": max(scroll[1:]) if len(scroll) > 1 else None}
    finally:
        driver.quit()


def run(build, runs=200, say=print):
    """Every figure, as the benchmark keeps them (docs/performance/results.json, "serve")."""
    folder = tempfile.mkdtemp(prefix="bananas-serve-bench-")
    out = {"sizes": {}}
    try:
        for size in [100, 500, 1000]:
            result = measure(build, size, runs, folder)
            try:
                if size == 500:
                    out["page"] = page_weight(result["url"])
                    out["browser"] = browser_figures(result["url"], result["token"])
                    say(f"  page: {out['page']['bytes']:,} bytes, {out['page']['wireBytes']:,} as sent to a browser; first render of "
                        f"500 items (CPU 4x slower) {out['browser']['firstRender']['median']:.0f} ms; scrolling: "
                        f"{out['browser']['slowFrames']} of {out['browser']['scrollFrames']} frames over 25 ms")
            finally:
                result["server"].terminate()
                result["server"].wait(timeout=30)
            for key in ("url", "token", "server"):
                result.pop(key)
            out["sizes"][str(size)] = result
            say(f"{size:>7} items  GET /api/list {result['list']['median']:.2f} ms (p99 {result['list']['p99']:.2f}), "
                f"gzip {result['listGzip']['median']:.2f} ms, {result['listBytes']:,} bytes ({result['listWireBytes']:,} sent)  "
                f"check {result['edit']['median']:.2f} ms (p99 {result['edit']['p99']:.2f})  "
                f"live {result['live']['median']:.1f} ms  RSS {result['rssMiB']:.1f} MiB")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=".build-bench/bin")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    import sys
    print(json.dumps(run(args.build, args.runs, say=lambda text: print(text, file=sys.stderr)), indent=1))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The phone at the store, in a real browser: Debian's headless Chromium driven by Selenium
(Debian's chromedriver), against the real `bananas serve`.

A phone pairs from the URL the terminal shows, checks and adds items, sees a CLI edit appear
live, loses its connection (Chrome's network emulation, over the DevTools protocol), keeps
editing, reloads with no connection, comes back, and every edit is in the list file and in a
running bananas instance, once. A hostile list renders as text with no script run. Requests
without a token, with a revoked token, a foreign Origin or a foreign Host are refused.

Each step prints one JSON line {"step", "ok", ...}; the exit status is 0 when every step passed.
First the looks: a list at 320, 360, 390 and 430 px in light and dark, checked by the layout
rules (no word split across lines, nothing cut or overflowing, 44 px targets) and screenshotted,
each screenshot compared with its reference in docs/serve/ (a difference writes NAME.new.png
beside it, to be looked at; BANANAS_SCREENSHOTS=update rewrites the references).

Usage: phone_at_the_store.py --bananas PATH --test-tool PATH [--only looks|store]
"""
import argparse
import gzip
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

WAIT = 60  # seconds: generous, for a loaded 2-core machine; every wait ends as soon as its condition holds


def report(step, ok, **fields):
    print(json.dumps({"step": step, "ok": ok, **fields}), flush=True)
    if not ok:
        raise SystemExit(1)


def wait_for(what, condition, timeout=WAIT):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = condition()
            if last:
                return last
        except Exception as error:  # a page mid-render, a file mid-write
            last = error
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class World:
    def __init__(self, bananas, test_tool):
        self.bananas = bananas
        self.test_tool = test_tool
        self.folder = tempfile.mkdtemp(prefix="bananas-browser-")
        self.list_path = os.path.join(self.folder, "BananaList.json")
        self.env = dict(os.environ, BANANAS_FILE=self.list_path, XDG_STATE_HOME=os.path.join(self.folder, "state"),
                        XDG_CONFIG_HOME=os.path.join(self.folder, "config"), NO_COLOR="1")
        self.processes = []

    def cli(self, *arguments):
        run = subprocess.run([self.bananas, *arguments], env=self.env, capture_output=True, text=True, timeout=WAIT)
        if run.returncode != 0:
            raise AssertionError(f"bananas {' '.join(arguments)} failed ({run.returncode}): {run.stderr}")
        return run.stdout

    def items(self):
        return json.loads(self.cli("list", "--json"))["items"]

    def item(self, name):
        return next((i for i in self.items() if i["name"] == name), None)

    def serve(self, *options):
        server = subprocess.Popen([self.bananas, "serve", "--port", "0", *options], env=self.env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.processes.append(server)
        lines = []
        url = None
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line:
                break
            lines.append(line)
            match = re.search(r"open (https?://\S+/pair#\S+)", line)
            if match:
                url = match.group(1)
            if line.startswith("Stop with"):
                break
        if not url:
            raise AssertionError("bananas serve showed no pairing URL: " + "".join(lines) + server.stderr.read())
        # Keep draining its output and its messages so it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        self.server = server
        self.pair_url = url
        self.base = url.split("/pair#")[0]
        return "".join(lines)

    def session(self):
        """A running bananas instance (the editor's store and sync engine, without a screen)."""
        session = subprocess.Popen([self.test_tool, "session", "--file", self.list_path], env=self.env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.processes.append(session)
        self.session_process = session
        wait_for("the session to start", lambda: "ready" in session.stdout.readline())

    def session_items(self):
        self.session_process.stdin.write("list\n")
        self.session_process.stdin.flush()
        while True:
            line = self.session_process.stdout.readline()
            if not line:
                raise AssertionError("the session ended")
            answer = json.loads(line)
            if "items" in answer:
                return answer["items"]

    def editor(self):
        """The real full-screen editor (`bananas`, ncurses) running in a private tmux server, as
        on the laptop while the phone is at the store: its screen is read with capture-pane."""
        self.tmux = ["tmux", "-L", "bananas-browser-" + os.urandom(4).hex()]
        # The server inherits this environment (the list, the state folder), none of our pipes.
        env = {k: v for k, v in self.env.items() if k not in ("TMUX", "TMUX_PANE")}
        subprocess.run(self.tmux + ["-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "100", "-y", "45", self.bananas],
                       env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=WAIT)
        subprocess.run(self.tmux + ["set-option", "-g", "status", "off"], capture_output=True, timeout=WAIT)
        wait_for("the editor's first screen", lambda: "Milk" in self.editor_screen())

    def editor_screen(self):
        return subprocess.run(self.tmux + ["capture-pane", "-p", "-t", "main"], capture_output=True, text=True, timeout=WAIT).stdout

    def editor_lines(self):
        return [line.strip() for line in self.editor_screen().splitlines()]

    def close(self):
        if getattr(self, "tmux", None):
            subprocess.run(self.tmux + ["kill-server"], capture_output=True, timeout=WAIT)
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def request(url, method="GET", headers=None, body=None, with_headers=False):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as response:
            answer = (response.status, response.read())
            return answer + (response.headers,) if with_headers else answer
    except urllib.error.HTTPError as error:
        answer = (error.code, error.read())
        return answer + (error.headers,) if with_headers else answer


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--no-first-run", "--disable-extensions",
                     "--host-resolver-rules=MAP lan.test 127.0.0.1"]:
        options.add_argument(argument)
    # A phone: its viewport, its pixel ratio, touch.
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0, "touch": True},
        "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Mobile Safari/537.36",
    })
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


def on_page(what, action):
    """Does `action` on elements found afresh each try: the page draws the list again at every
    change, so an element found a moment ago may be gone (Selenium's stale element)."""
    def attempt():
        action()
        return True
    return wait_for(what, attempt)


def status_text(driver):
    return driver.find_element(By.ID, "status").text


def status_starting(driver, start):
    """The state's words once they start with `start` (a timeout names the last words seen)."""
    text = status_text(driver)
    if not text.startswith(start):
        raise AssertionError("the state says " + repr(text) + ", because " + json.dumps(driver.execute_script("return window.bananas && window.bananas.why()")))
    return text


def row(driver, name):
    for li in driver.find_elements(By.CSS_SELECTOR, "li.item"):
        if li.find_element(By.CSS_SELECTOR, ".name").text == name:
            return li
    return None


def set_offline(driver, offline):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def swipe(driver, find, dx, dy):
    """A finger on the row's name, dragged by (dx, dy) in steps, then lifted: W3C touch actions,
    which Chrome turns into touch and pointer events (pointerType "touch")."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    def attempt():
        target = find().find_element(By.CSS_SELECTOR, ".name")
        actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
        actions.pointer_action.move_to(target).pointer_down()
        for _ in range(8):
            actions.pointer_action.move_by(dx // 8, dy // 8)
        actions.pointer_action.pointer_up()
        actions.perform()
    on_page("a swipe", attempt)


def accessibility_tree(driver):
    """Chrome's accessibility tree (what a screen reader is given: DevTools
    `Accessibility.getFullAXTree`), its nodes in reading order (depth first), ignored ones left
    out, each as {role, name, properties}."""
    nodes = driver.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    by_id = {node["nodeId"]: node for node in nodes}
    children = {child for node in nodes for child in node.get("childIds", [])}
    ordered = []

    def walk(node):
        if not node.get("ignored"):
            ordered.append({"role": node.get("role", {}).get("value", ""), "name": (node.get("name") or {}).get("value", ""),
                            "properties": {p["name"]: p.get("value", {}).get("value") for p in node.get("properties", [])}})
        for child in node.get("childIds", []):
            if child in by_id:
                walk(by_id[child])
    for root in (node for node in nodes if node["nodeId"] not in children):
        walk(root)
    return ordered


# ---- The looks: the page at four phone widths, light and dark, checked by the rules a shopper
# would check with their eyes, and kept as reference images (docs/serve/) that a change must be
# looked at to update.

WIDTHS = [(320, 640), (360, 740), (390, 844), (430, 932)]
THEMES = ["light", "dark"]
REFERENCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "serve"))

# The layout rules, checked in the page. A word (letters between spaces or hyphens) of a name
# or an amount is on one line, unless it alone is wider than its box (then a break is the only
# way); no text is wider than its box, nothing is wider than the screen; every control a finger
# taps is at least 44 x 44 px (a checkbox in a label: the label).
LAYOUT_RULES = r"""
const problems = [];
const vw = window.innerWidth;
const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
if (document.documentElement.scrollWidth > vw) problems.push('the page is wider than the screen: ' + document.documentElement.scrollWidth);
for (const e of document.querySelectorAll('.name, .amount, #sheet-title')) {
  if (!shown(e)) continue;
  const box = e.getBoundingClientRect();
  const text = e.firstChild;
  if (!text || text.nodeType !== 3) continue;
  for (const m of text.data.matchAll(/[^\s-]+/g)) {
    const range = document.createRange();
    range.setStart(text, m.index);
    range.setEnd(text, m.index + m[0].length);
    const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0.5);
    const lines = new Set(rects.map((r) => Math.round(r.bottom)));
    const width = rects.reduce((sum, r) => sum + r.width, 0);
    if (lines.size > 1 && width <= box.width + 1) problems.push('"' + m[0] + '" of "' + text.data + '" is split across ' + lines.size + ' lines');
  }
  if (e.scrollWidth > e.clientWidth + 1) problems.push('"' + text.data + '" is cut: ' + e.scrollWidth + ' px in ' + e.clientWidth);
  if (box.left < -0.5 || box.right > vw + 0.5) problems.push('"' + text.data + '" is outside the screen');
}
for (const e of document.querySelectorAll('#app *')) {
  if (!shown(e) || e.closest('.visually-hidden')) continue;
  const r = e.getBoundingClientRect();
  if (r.left < -0.5 || r.right > vw + 0.5) problems.push(e.tagName + '.' + e.className + ' is outside the screen: ' + Math.round(r.left) + '..' + Math.round(r.right));
  const style = getComputedStyle(e);
  // A text field scrolls what is typed in it, by design.
  if (e.tagName !== 'INPUT' && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 && style.overflowX !== 'auto' && style.overflowX !== 'scroll')
    problems.push(e.tagName + '.' + e.className + ' overflows: ' + e.scrollWidth + ' px in ' + e.clientWidth);
}
for (const e of document.querySelectorAll('#app button, #app input, #app select, #app summary, #app [role=checkbox]')) {
  if (!shown(e)) continue;
  const target = e.closest('label') || e;
  const r = target.getBoundingClientRect();
  if (r.width < 44 || r.height < 44) problems.push((e.id || e.className || e.tagName) + ' is ' + Math.round(r.width) + ' x ' + Math.round(r.height) + ' px');
}
return problems;
"""

# Compares two PNGs (as data URLs) in a blank tab's canvas: the share of pixels where a channel
# differs by more than 32 of 255, or 1 when their sizes differ.
COMPARE = r"""
const [a, b, done] = arguments;
const load = (src) => new Promise((ok, fail) => { const i = new Image(); i.onload = () => ok(i); i.onerror = fail; i.src = src; });
Promise.all([load(a), load(b)]).then(([x, y]) => {
  if (x.width !== y.width || x.height !== y.height) return done(1);
  const pixels = (img) => { const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0); return g.getImageData(0, 0, img.width, img.height).data; };
  const p = pixels(x), q = pixels(y);
  let differ = 0;
  for (let i = 0; i < p.length; i += 4)
    if (Math.abs(p[i] - q[i]) > 32 || Math.abs(p[i + 1] - q[i + 1]) > 32 || Math.abs(p[i + 2] - q[i + 2]) > 32) differ++;
  done(differ / (p.length / 4));
}, () => done(1));
"""
TOLERANCE = 0.002  # of the pixels: antialiasing may differ a little; a moved row or a new colour does not pass


def screenshot(driver, width, height, scale):
    """The whole page, as a phone of `width` would scroll through it: the viewport is made as
    tall as the page, so every row is drawn (rows off screen are skipped by content-visibility)."""
    full = driver.execute_script("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": max(height, full), "deviceScaleFactor": scale, "mobile": True})
    wait_for("the tall viewport", lambda: driver.execute_script("return window.innerWidth") == width)
    time.sleep(0.2)  # two frames for the resize to be painted
    import base64
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": True})
    return base64.b64decode(shot)


def compare_to_reference(driver, name, png):
    """Compares with docs/serve/NAME.png; on a difference writes NAME.new.png beside it (look at
    both; copy the new one over the reference to accept it). BANANAS_SCREENSHOTS=update writes
    the references themselves."""
    import base64
    path = os.path.join(REFERENCE, name + ".png")
    fresh = os.path.join(REFERENCE, name + ".new.png")
    if os.environ.get("BANANAS_SCREENSHOTS") == "update" or not os.path.exists(path):
        os.makedirs(REFERENCE, exist_ok=True)
        with open(path, "wb") as f:
            f.write(png)
        return {"written": path}
    with open(path, "rb") as f:
        reference = f.read()
    url = lambda data: "data:image/png;base64," + base64.b64encode(data).decode()
    page = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        differ = driver.execute_async_script(COMPARE, url(reference), url(png))
    finally:
        driver.close()
        driver.switch_to.window(page)
    if differ > TOLERANCE:
        with open(fresh, "wb") as f:
            f.write(png)
        return {"differ": round(differ, 4), "new": fresh}
    if os.path.exists(fresh):
        os.remove(fresh)
    return None


def looks(bananas, test_tool):
    """A list of the kind a supermarket sees, at 320, 360, 390 and 430 px in light and dark."""
    world = World(bananas, test_tool)
    driver = None
    try:
        for name, section, amount in [
            ("Lemons", "Fruit & veg", "6"), ("Bananas", "Fruit & veg", "1 bunch"), ("Sweet potatoes", "Fruit & veg", "1 kg"),
            ("Spring onions", "Fruit & veg", ""), ("Cheddar", "Dairy", "500 g"), ("Butter", "Dairy", "250 g"),
            ("Greek yoghurt, the big tub with honey", "Dairy", "1 kg"), ("Milk", "Dairy", "2 l"), ("Eggs", "Dairy", "12"),
            ("Sourdough", "Bakery", "1 loaf"), ("Wholemeal sourdough bread, sliced thick", "Bakery", ""),
            ("Washing-up liquid", "Household", "2 \u00d7 500 ml"), ("Extra-strong kitchen roll, recycled", "Household", "4 rolls"),
        ]:
            world.cli("add", name, "--section", section, *(["--amount", amount] if amount else []))
        world.cli("edit", "Spring onions", "--optional")
        world.cli("check", "Milk")
        world.cli("check", "Eggs")
        world.serve()
        driver = browser(390, 844)
        driver.get(world.pair_url)
        wait_for("the pairing form", lambda: driver.find_element(By.ID, "pair-code").get_attribute("value"))
        driver.find_element(By.ID, "pair-button").click()
        wait_for("the list", lambda: driver.execute_script("return location.pathname") == "/" and row(driver, "Lemons"))
        wait_for("synced", lambda: status_starting(driver, "synced"))
        problems, changed, written = {}, {}, []
        for theme in THEMES:
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": theme}]})
            for width, height in WIDTHS:
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
                wait_for(f"{width} px", lambda: driver.execute_script("return window.innerWidth") == width)
                driver.execute_script("window.scrollTo(0, 0)")
                png = screenshot(driver, width, height, 1)  # 1 px a CSS pixel: light references
                found = driver.execute_script(LAYOUT_RULES)
                # The sheet of the item with the longest name, as a thumb opens it.
                on_page("open the sheet", lambda: row(driver, "Wholemeal sourdough bread, sliced thick").find_element(By.CSS_SELECTOR, "button.open").click())
                wait_for("the sheet", lambda: driver.execute_script("return document.getElementById('sheet').open"))
                found += ["with the sheet open: " + p for p in driver.execute_script(LAYOUT_RULES)]
                sheet = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"] if width == 320 else None
                driver.find_element(By.ID, "sheet-cancel").click()
                wait_for("the sheet closed", lambda: not driver.execute_script("return document.getElementById('sheet').open"))
                if found:
                    problems[f"{width} {theme}"] = found[:8]
                for name, image in [(f"list-{width}-{theme}", png)] + ([(f"sheet-{width}-{theme}", __import__("base64").b64decode(sheet))] if sheet else []):
                    result = compare_to_reference(driver, name, image)
                    if result and "written" in result:
                        written.append(name)
                    elif result:
                        changed[name] = result
        report("at 320, 360, 390 and 430 px, light and dark: no word split, nothing cut or overflowing, 44 px targets",
               problems == {}, problems=problems)
        report("the screenshots match the reference images in docs/serve/ (or were written there to be looked at)",
               changed == {}, changed=changed, written=written)
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        world.close()


def open_sheet(driver, name):
    """Taps the item's name: its sheet opens. Returns the sheet's title."""
    on_page("open " + name + "'s sheet", lambda: row(driver, name).find_element(By.CSS_SELECTOR, "button.open").click())
    wait_for("the sheet", lambda: driver.execute_script("return document.getElementById('sheet').open"))
    return driver.find_element(By.ID, "sheet-title").text


def type_into(driver, field_id, text):
    field = driver.find_element(By.ID, field_id)
    field.clear()
    field.send_keys(text)


def add_on_page(driver, name):
    driver.execute_script("window.scrollTo(0, 0)")  # the add field is at the top, as a shopper scrolls back to it
    field = driver.find_element(By.ID, "add-name")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "#add button[type=submit]").click()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bananas", required=True)
    parser.add_argument("--test-tool", required=True)
    parser.add_argument("--only", choices=["looks", "store"], help="run one part: the looks (screenshots) or the store")
    args = parser.parse_args()
    if args.only != "store":
        looks(args.bananas, args.test_tool)
    if args.only == "looks":
        return 0
    world = World(args.bananas, args.test_tool)
    driver = None
    try:
        world.cli("add", "Milk", "--section", "Dairy")
        world.cli("add", "Bread", "--section", "Bakery")
        # `lan.test` stands for the computer's name on a network: Chrome maps it to 127.0.0.1,
        # but unlike 127.0.0.1 it is not a secure context, as http://192.168.1.20 is not.
        output = world.serve("--host", "lan.test")
        report("bananas serve shows a pairing URL and a QR code", "/pair#" in world.pair_url and ("▀" in output or "▄" in output),
               url=world.base)
        world.session()
        world.editor()

        # Page weight: everything the page loads, as the server sends it to a browser that
        # accepts gzip (and the same text once decompressed).
        sizes, same = {}, True
        for path in ["/pair", "/app.js", "/style.css", "/sw.js", "/manifest.webmanifest", "/icon.svg"]:
            status, body = request(world.base + path)
            status, sent, headers = request(world.base + path, headers={"Accept-Encoding": "gzip"}, with_headers=True)
            same = same and headers.get("Content-Encoding") == "gzip" and gzip.decompress(sent) == body
            sizes[path] = (len(body), len(sent))
        compressed = sum(c for _, c in sizes.values())
        report("the page weighs at most 50 KB compressed", compressed <= 50 * 1024 and same,
               bytes=sum(b for b, _ in sizes.values()), sent_gzipped=compressed, decompressed_equal=same)

        # Pair from the narrowest phone: everything that follows is done at 320 px.
        driver = browser(320, 640)
        started = time.monotonic()
        driver.get(world.pair_url)
        wait_for("the pairing form", lambda: driver.find_element(By.ID, "pair-code").get_attribute("value"))
        driver.find_element(By.ID, "pair-button").click()
        wait_for("the list after pairing", lambda: driver.execute_script("return location.pathname") == "/" and row(driver, "Milk"))
        wait_for("synced", lambda: status_starting(driver, "synced"))
        devices = world.cli("devices")
        report("a phone pairs with the code from the terminal", "Android phone" in devices,
               seconds=round(time.monotonic() - started, 2), devices=devices.strip())
        code = world.pair_url.split("#")[1]
        status, body = request(world.base + "/api/pair", "POST", {"Content-Type": "application/json"}, {"code": code, "name": "thief"})
        report("the code works once", status == 403, status=status)

        # A screen reader's view: every control has a name; checkboxes say whether they are checked.
        unnamed = driver.execute_script("""
            return Array.from(document.querySelectorAll('#app button, #app input, #app select'))
              .filter(e => !((e.getAttribute('aria-label') || '').trim() || e.textContent.trim() || (e.labels && e.labels.length)))
              .map(e => e.outerHTML.slice(0, 80))""")
        boxes = driver.execute_script("""
            return Array.from(document.querySelectorAll('[role=checkbox]')).every(e => ['true', 'false'].includes(e.getAttribute('aria-checked')))""")
        report("every control has a name for screen readers, and checkboxes their state", unnamed == [] and boxes, unnamed=unnamed)
        # The shopper's phone is the narrowest: 320 px, at the scale the page asks (no zoom).
        problems = driver.execute_script(LAYOUT_RULES)
        zoom = driver.execute_script("return [window.innerWidth, window.visualViewport ? window.visualViewport.scale : 1]")
        report("at 320 px nothing overflows, no zoom, and every control is at least 44 x 44 px", problems == [] and zoom == [320, 1],
               problems=problems, width_and_zoom=zoom)

        # Check and add from the phone: in the file, and in the running instance.
        on_page("check Milk", lambda: row(driver, "Milk").find_element(By.CSS_SELECTOR, "button.check").click())
        on_page("add Eggs", lambda: add_on_page(driver, "Eggs"))
        wait_for("Milk checked in the file", lambda: world.item("Milk")["checked"])
        wait_for("Eggs in the file", lambda: world.item("Eggs"))
        wait_for("both in the running instance", lambda: any(i["name"] == "Eggs" for i in world.session_items())
                 and any(i["name"] == "Milk" and i["checked"] for i in world.session_items()))
        report("the phone checks and adds items: in the file and in a running instance", True)
        screen = wait_for("the editor showing both", lambda: (lambda lines: any(l.startswith("[x] Milk") for l in lines)
                                                              and any(l.startswith("[ ] Eggs") for l in lines) and lines)(world.editor_lines()))
        report("the running editor (ncurses, in tmux) shows the phone's check and add", True,
               lines=[l for l in screen if "Milk" in l or "Eggs" in l])

        # A CLI edit appears on the page, live.
        started = time.monotonic()
        world.cli("add", "Coffee", "--section", "Drinks")
        wait_for("Coffee on the page", lambda: row(driver, "Coffee"))
        live = time.monotonic() - started
        report("a CLI edit appears on the page without a reload", True, seconds=round(live, 3))

        # Make sure the page can open with no connection later (service worker in control).
        wait_for("the service worker", lambda: driver.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)"))
        installability = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}).get("installabilityErrors")
        manifest = driver.execute_cdp_cmd("Page.getAppManifest", {}).get("errors")
        report("the page is installable (manifest, service worker)", installability == [] and manifest == [],
               installability=installability, manifest=manifest)

        # The store has no signal.
        set_offline(driver, True)
        wait_for("offline", lambda: status_text(driver).startswith("offline"))
        on_page("check Bread", lambda: row(driver, "Bread").find_element(By.CSS_SELECTOR, "button.check").click())
        on_page("add Bananas", lambda: add_on_page(driver, "Bananas"))
        wait_for("two edits waiting", lambda: status_text(driver) == "offline \u2014 2 edits waiting")
        wait_for("Bananas shown", lambda: row(driver, "Bananas"))
        report("offline, the page keeps taking edits and says so", world.item("Bananas") is None and not world.item("Bread")["checked"],
               status=status_text(driver))
        # Meanwhile on the laptop.
        world.cli("add", "Tea", "--section", "Drinks")

        # Reloaded with no connection: the service worker's copy of the page, the list and the
        # edits from IndexedDB.
        driver.refresh()
        wait_for("the page again, offline", lambda: row(driver, "Bananas") and row(driver, "Milk"))
        wait_for("still waiting", lambda: status_text(driver) == "offline \u2014 2 edits waiting")
        from_worker = driver.execute_script("return !!navigator.serviceWorker.controller")
        report("reloaded with no connection, the page opens with the list and the waiting edits", from_worker,
               service_worker=from_worker)
        on_page("add Apples", lambda: add_on_page(driver, "Apples"))
        wait_for("three edits waiting", lambda: status_text(driver) == "offline \u2014 3 edits waiting")

        # Back in signal: sent in order, once.
        set_offline(driver, False)
        wait_for("synced again", lambda: status_starting(driver, "synced"))
        items = world.items()
        names = [i["name"] for i in items]
        bread = next(i for i in items if i["name"] == "Bread")
        ok = names.count("Bananas") == 1 and names.count("Apples") == 1 and bread["checked"] and "Tea" in names
        report("back online, every edit is in the file exactly once", ok, names=names)
        wait_for("the running instance has them", lambda: {"Bananas", "Apples"} <= {i["name"] for i in world.session_items()})
        wait_for("Tea on the page", lambda: row(driver, "Tea"))
        report("and in the running instance; the laptop's edit made meanwhile is on the page", True)
        def offline_edits_on_screen():
            lines = world.editor_lines()
            names = [l[4:].split("  ")[0] for l in lines if l.startswith("[")]
            ok = names.count("Bananas") == 1 and names.count("Apples") == 1 and any(l.startswith("[x] Bread") for l in lines)
            return names if ok else None
        names = wait_for("the editor showing the offline edits", offline_edits_on_screen)
        report("the running editor shows the edits made offline, once", True, names=names)

        # Move within a section: Tea (added after Coffee) up, with its sheet's Move up.
        def drinks_on_page():
            return [li.find_element(By.CSS_SELECTOR, ".name").text
                    for li in driver.find_elements(By.CSS_SELECTOR, "section.group[aria-label=Drinks] li.item")]
        def drinks_in_file():
            return [i["name"] for i in world.items() if i["section"] == "Drinks"]
        before = drinks_in_file()
        title = open_sheet(driver, "Tea")
        driver.find_element(By.ID, "sheet-up").click()
        wait_for("Tea first in the file", lambda: drinks_in_file() == ["Tea", "Coffee"])
        wait_for("Tea first on the page", lambda: drinks_on_page() == ["Tea", "Coffee"])
        wait_for("and in the running instance", lambda: [i["name"] for i in world.session_items() if i["section"] == "Drinks"] == ["Tea", "Coffee"])
        wait_for("and in the running editor", lambda: [l[4:].split("  ")[0] for l in world.editor_lines()
                                                        if l.startswith("[ ] Tea") or l.startswith("[ ] Coffee")] == ["Tea", "Coffee"])
        report("an item moves up within its section: on the page, in the file, the running instance and the editor",
               before == ["Coffee", "Tea"] and title == "Tea", before=before, sheet=title)

        # The sheet edits the name, the amount and the optional flag, and moves the item to a
        # section typed in it: one edit with the values the sheet showed.
        open_sheet(driver, "Apples")
        type_into(driver, "sheet-name", "Green apples")
        type_into(driver, "sheet-amount", "1 kg")
        driver.find_element(By.ID, "sheet-optional").click()
        Select(driver.find_element(By.ID, "sheet-section")).select_by_visible_text("New section\u2026")
        type_into(driver, "sheet-new-section", "Fruit & veg")
        driver.find_element(By.ID, "sheet-save").click()
        apples = wait_for("the sheet's edit in the file", lambda: (lambda i: i if i and i["section"] == "Fruit & veg" else None)(world.item("Green apples")))
        wait_for("on the page, under its new section", lambda: driver.find_elements(By.CSS_SELECTOR, "section.group[aria-label='Fruit & veg'] li.item"))
        shown = row(driver, "Green apples").find_element(By.CSS_SELECTOR, "button.open").text
        # Back to a section of the list, chosen from the menu, from the keyboard: Escape closes
        # the sheet and changes nothing.
        open_sheet(driver, "Green apples")
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        escaped = wait_for("the sheet closed by Escape", lambda: not driver.execute_script("return document.getElementById('sheet').open"))
        open_sheet(driver, "Green apples")
        Select(driver.find_element(By.ID, "sheet-section")).select_by_visible_text("Drinks")
        driver.find_element(By.ID, "sheet-save").click()
        wait_for("moved to Drinks in the file", lambda: world.item("Green apples")["section"] == "Drinks")
        report("the sheet renames, sets the amount and optional, and moves to a new or an existing section",
               apples["amount"] == "1 kg" and apples["optional"] is True and "Green apples" in shown and "1 kg" in shown and escaped,
               item=apples, row=shown)

        # Delete from the sheet with undo; clear the cart with undo; recently deleted.
        open_sheet(driver, "Eggs")
        driver.find_element(By.ID, "sheet-delete").click()
        wait_for("Eggs deleted in the file", lambda: world.item("Eggs") is None)
        on_page("undo", lambda: driver.find_element(By.CSS_SELECTOR, "#toast button").click())
        wait_for("Eggs back", lambda: world.item("Eggs"))
        wait_for("Eggs back on the page", lambda: row(driver, "Eggs"))
        # The checked items are in the cart, after every item still to get.
        order = driver.execute_script("return Array.from(document.querySelectorAll('li.item')).map(li => li.classList.contains('checked'))")
        in_cart = [li.find_element(By.CSS_SELECTOR, ".name").text for li in driver.find_elements(By.CSS_SELECTOR, "#cart-list li.item")]
        on_page("clear the cart", lambda: driver.find_element(By.ID, "clear").click())
        wait_for("the cart cleared", lambda: world.item("Milk") is None and world.item("Bread") is None)
        toast_text = driver.find_element(By.ID, "toast").text
        on_page("undo the clear", lambda: driver.find_element(By.CSS_SELECTOR, "#toast button").click())
        wait_for("the cart back", lambda: world.item("Milk") and world.item("Bread"))
        wait_for("the cart back on the page", lambda: row(driver, "Milk") and row(driver, "Bread"))
        on_page("clear the cart again", lambda: driver.find_element(By.ID, "clear").click())
        wait_for("the cart cleared again", lambda: world.item("Milk") is None and world.item("Bread") is None)
        deleted = world.cli("deleted")
        report("delete (sheet) and clear the cart work, each with undo, and the cleared items are in recently deleted",
               "Milk" in deleted and "Bread" in deleted and sorted(in_cart) == ["Bread", "Milk"] and order == sorted(order)
               and "Cleared 2 items" in toast_text, in_cart=in_cart, toast=toast_text)

        # The cart folds, and stays folded on this phone after a reload.
        world.cli("check", "Coffee")
        wait_for("Coffee in the cart", lambda: driver.find_elements(By.CSS_SELECTOR, "#cart-list li.item"))
        on_page("fold the cart", lambda: driver.find_element(By.ID, "cart-toggle").click())
        folded = wait_for("folded", lambda: driver.find_element(By.ID, "cart-toggle").get_attribute("aria-expanded") == "false")
        driver.refresh()
        wait_for("the page again", lambda: row(driver, "Tea") and driver.find_element(By.ID, "cart").is_displayed())
        kept_folded = (driver.find_element(By.ID, "cart-toggle").get_attribute("aria-expanded") == "false"
                       and not driver.find_element(By.ID, "cart-list").is_displayed())
        on_page("open the cart", lambda: driver.find_element(By.ID, "cart-toggle").click())
        wait_for("open", lambda: driver.find_element(By.ID, "cart-list").is_displayed())
        world.cli("uncheck", "Coffee")
        wait_for("Coffee back to get", lambda: not driver.find_element(By.ID, "cart").is_displayed())
        report("the cart folds, and stays folded on this phone after a reload", folded and kept_folded)

        # What a screen reader is given (Chrome's accessibility tree): every control has a role
        # and a name, checkboxes their state, the state is a polite live region, each section a
        # heading before its items, and the items are read in the order the laptop's editor shows
        # them.
        def read_aloud():
            tree = accessibility_tree(driver)
            controls = [n for n in tree if n["properties"].get("focusable") and n["role"] != "RootWebArea"]
            boxes = [n for n in tree if n["role"] == "checkbox"]
            order = [n["name"] if n["role"] == "heading" else "\u00b7" + n["name"] for n in tree if n["role"] in ("heading", "checkbox")]
            at = order.index("Drinks") if "Drinks" in order else -1
            return {
                "controls": len(controls),
                "roles": sorted({n["role"] for n in controls}),
                "unnamed": [(n["role"], n["name"]) for n in controls
                            if not n["name"].strip() or n["role"] in ("generic", "none", "GenericContainer", "")][:10],
                "stateless": [n["name"] for n in boxes if n["properties"].get("checked") not in ("true", "false")],
                "live_regions": len([n for n in tree if n["role"] == "status" and n["properties"].get("live") == "polite"]),
                "read": [n["name"] for n in boxes],
                # The page reads what is still to get first, then the cart (checked items).
                "editor": [l[4:].split("  ")[0] for l in world.editor_lines() if l.startswith("[ ]")]
                          + [l[4:].split("  ")[0] for l in world.editor_lines() if l.startswith("[x]")],
                "drinks": order[at:at + 3] if at >= 0 else [],
                "headings": [n["name"] for n in tree if n["role"] == "heading"],
            }
        deadline = time.monotonic() + WAIT
        heard = read_aloud()
        while heard["read"] != heard["editor"] and time.monotonic() < deadline:  # the editor catching up
            time.sleep(0.1)
            heard = read_aloud()
        report("the accessibility tree: every control has a role and a name, checkboxes their state, items read in the editor's order",
               heard["controls"] > 10 and heard["unnamed"] == [] and heard["stateless"] == [] and heard["live_regions"] == 1
               and heard["read"] == heard["editor"] and heard["drinks"] == ["Drinks", "\u00b7Tea", "\u00b7Coffee"], **heard)

        # Swipe to delete: a finger drags Tea's row to the right (touch pointer events, as a phone
        # sends them); then the same Undo. A short drag, or an up-and-down one, deletes nothing.
        swipe(driver, lambda: row(driver, "Tea"), 40, 0)
        swipe(driver, lambda: row(driver, "Tea"), 30, 150)
        time.sleep(0.5)  # what a wrong delete would need to reach the server (nothing should)
        kept = world.item("Tea") is not None and row(driver, "Tea") is not None
        swipe(driver, lambda: row(driver, "Tea"), 200, 0)  # past a third of a 320 px row
        wait_for("Tea deleted in the file", lambda: world.item("Tea") is None)
        wait_for("Tea gone from the page", lambda: row(driver, "Tea") is None)
        toast_text = driver.find_element(By.ID, "toast").text
        on_page("undo", lambda: driver.find_element(By.CSS_SELECTOR, "#toast button").click())
        wait_for("Tea back", lambda: world.item("Tea"))
        wait_for("Tea back on the page", lambda: row(driver, "Tea"))
        report("swiping a row sideways deletes it, with Undo; a short or vertical drag does not",
               kept and "Deleted Tea" in toast_text, kept=kept, toast=toast_text)

        # A value that lost is in the conflict review on the page.
        eggs = world.item("Eggs")
        # The page edits the amount it showed; the laptop changed it meanwhile (the page's
        # network is slow enough that the CLI lands first: done by going offline).
        set_offline(driver, True)
        wait_for("offline", lambda: status_text(driver).startswith("offline"))
        open_sheet(driver, "Eggs")
        type_into(driver, "sheet-amount", "6\n")  # Enter saves the sheet
        wait_for("the amount shown", lambda: row(driver, "Eggs").find_element(By.CSS_SELECTOR, ".amount").text == "6")
        world.cli("edit", "Eggs", "--amount", "12")
        set_offline(driver, False)
        wait_for("the conflict state", lambda: status_text(driver) == "conflict")
        wait_for("the review on the page", lambda: driver.find_element(By.ID, "conflicts").is_displayed())
        conflicts = world.cli("conflicts")
        report("a value that lost is in the conflict review on the page and the CLI", "12" in conflicts,
               page=driver.find_element(By.ID, "conflict-list").text)
        on_page("restore the lost value", lambda: driver.find_element(By.CSS_SELECTOR, "#conflict-list button").click())
        wait_for("the lost value restored", lambda: world.item("Eggs")["amount"] == "12")
        wait_for("synced", lambda: status_starting(driver, "synced"))

        # The server out of reach while the phone is online (Chrome blocks the API's requests):
        # told apart from the phone being offline; the edit waits and lands once.
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/*"]})
        on_page("add Rice", lambda: add_on_page(driver, "Rice"))
        unreachable = wait_for("server unreachable", lambda: status_starting(driver, "server unreachable"))
        online = driver.execute_script("return navigator.onLine")
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        wait_for("synced", lambda: status_starting(driver, "synced"))
        report("the server out of reach while the phone is online says so, not offline, and the edit lands",
               unreachable == "server unreachable \u2014 1 edit waiting" and online is True
               and [i["name"] for i in world.items()].count("Rice") == 1, status=unreachable)

        # Issue 59: the queue is kept until the server takes each edit or refuses it for good.
        # Offline, three adds; meanwhile the list file turns unreadable; back online, the server
        # answers 409 `paused`: the page keeps all three and says why; once the file is
        # repaired, all three land, once each.
        set_offline(driver, True)
        wait_for("offline", lambda: status_text(driver).startswith("offline"))
        for name in ["Flour", "Sugar", "Salt"]:
            on_page("add " + name, lambda: add_on_page(driver, name))
        wait_for("three waiting", lambda: status_text(driver) == "offline \u2014 3 edits waiting")
        with open(world.list_path, "rb") as f:
            good = f.read()
        with open(world.list_path + ".hand", "wb") as f:
            f.write(b'{"items": [ this is not a list')
        os.rename(world.list_path + ".hand", world.list_path)
        token = next(c["value"] for c in driver.get_cookies() if c["name"] == "bananas_device")
        wait_for("the server to see the damage", lambda: json.loads(request(world.base + "/api/list", headers={"Authorization": "Bearer " + token})[1])
                 ["state"]["state"] == "paused")
        set_offline(driver, False)
        held = wait_for("held", lambda: status_starting(driver, "3 edits waiting: "))
        waiting = driver.execute_script("return window.bananas.waiting()")
        with open(world.list_path + ".hand", "wb") as f:
            f.write(good)
        os.rename(world.list_path + ".hand", world.list_path)
        wait_for("synced", lambda: status_starting(driver, "synced"))
        names = [i["name"] for i in world.items()]
        report("a paused list keeps the page's queue (409 paused), and every edit lands once when it is repaired",
               waiting == 3 and all(names.count(n) == 1 for n in ["Flour", "Sugar", "Salt"]), status=held, names=names)

        # A 503 (the server could not make the edit durable; stood in for by the page's fetch)
        # keeps the edit, sent again with the same key; a refusal for good (a name another item
        # has) is dropped, and the page says why.
        driver.execute_script("""
            window.__stub = { keys: [], off: false };
            const real = window.fetch;
            window.fetch = function (url, init) {
              if (!window.__stub.off && String(url).endsWith('/api/edits')) {
                window.__stub.keys.push(JSON.parse(init.body).key);
                return Promise.resolve(new Response(JSON.stringify({ ok: false, error: 'not_saved', message: 'not saved: the journal cannot be written' }),
                  { status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' } }));
              }
              return real.apply(this, arguments);
            };""")
        on_page("add Oats", lambda: add_on_page(driver, "Oats"))
        said = wait_for("why it waits", lambda: status_starting(driver, "1 edit waiting: not saved: the journal cannot be written"))
        wait_for("sent again", lambda: len(driver.execute_script("return window.__stub.keys")) >= 2)
        driver.execute_script("window.__stub.off = true")
        wait_for("synced", lambda: status_starting(driver, "synced"))
        keys = driver.execute_script("return window.__stub.keys")
        open_sheet(driver, "Tea")
        type_into(driver, "sheet-name", "Coffee\n")
        refused = wait_for("the refusal", lambda: (lambda t: t if "not renamed" in t else None)(driver.find_element(By.ID, "toast").text))
        wait_for("synced", lambda: status_starting(driver, "synced"))
        names = [i["name"] for i in world.items()]
        report("a 503 keeps the edit, sent again with the same key; a refusal for good is dropped and said",
               len(set(keys)) == 1 and names.count("Oats") == 1 and "Tea" in names and driver.execute_script("return window.bananas.waiting()") == 0,
               status=said, tries=len(keys), toast=refused)

        # A hostile list: written by hand, as a foreign writer would.
        hostile = [
            "<script>window.__pwned = 1</script>",
            "<img src=x onerror=\"window.__pwned = 2\">",
            "Evil\u202etxt.exe",
            "bell\u0007escape\u001b[31mred",
            "x" * 1_000_000,
        ]
        with open(world.list_path) as f:
            data = json.load(f)
        for index, name in enumerate(hostile):
            data["items"].append({"id": f"00000000-0000-4000-8000-00000000000{index}", "name": name, "amount": "<b>1</b>",
                                  "section": "<i>Hostile</i>", "checked": False, "optional": False})
        temp = world.list_path + ".hand"
        with open(temp, "w") as f:
            json.dump(data, f)
        os.rename(temp, world.list_path)
        wait_for("the hostile rows on the page", lambda: row(driver, hostile[0]))
        pwned = driver.execute_script("return window.__pwned")
        scripts = driver.execute_script("return document.scripts.length")
        images = driver.execute_script("return document.querySelectorAll('#list img, #list b, #list i').length")
        shown = driver.execute_script("return Array.from(document.querySelectorAll('.name')).map(e => e.textContent)")
        escaped = any("\\u{202E}" in s for s in shown) and any("\\e" in s or "\\u{1B}" in s for s in shown)
        long_row = driver.execute_script("""
            const e = Array.from(document.querySelectorAll('.item')).find(li => li.textContent.length > 100000);
            return e ? e.getBoundingClientRect().height : -1""")
        # Nothing was even tried: a blocked inline script or handler would be a CSP report here.
        violations = [entry["message"][:200] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
        report("a hostile list renders as text and runs no script",
               pwned is None and scripts == 1 and images == 0 and escaped and 0 < long_row < 400 and violations == [],
               pwned=pwned, scripts=scripts, elements=images, long_row_height=long_row, csp_violations=violations)

        # Refusals over real sockets.
        token = next(c["value"] for c in driver.get_cookies() if c["name"] == "bananas_device")
        cookie = next(c for c in driver.get_cookies() if c["name"] == "bananas_device")
        auth = {"Authorization": "Bearer " + token}
        port = world.base.rsplit(":", 1)[1]
        checks = {
            "no token": request(world.base + "/api/list")[0] == 401,
            "no token, an edit": request(world.base + "/api/edits", "POST", {"Content-Type": "application/json"},
                                         {"key": "k-123456789", "op": "add", "name": "Nope"})[0] == 401,
            "a foreign Origin": request(world.base + "/api/edits", "POST", {**auth, "Origin": "http://evil.example"},
                                        {"key": "k-223456789", "op": "add", "name": "Nope"})[0] == 403,
            "a foreign Host": request(world.base + "/api/list", headers={**auth, "Host": f"evil.example:{port}"})[0] == 421,
            "the token": request(world.base + "/api/list", headers=auth)[0] == 200,
            "cookie flags": cookie.get("httpOnly") is True and cookie.get("sameSite") == "Strict",
        }
        world.cli("devices", "revoke", "Android phone")
        checks["a revoked token"] = request(world.base + "/api/list", headers=auth)[0] == 401
        wait_for("the page told", lambda: driver.find_element(By.ID, "not-paired").is_displayed())
        report("requests without a token, with a revoked token, a foreign Origin or Host are refused",
               all(checks.values()), checks=checks, nope=world.item("Nope") is None)
        report("nothing was added by a refused request", world.item("Nope") is None)

        # Plain HTTP on a network: no service worker, and the page says what that costs; the
        # queue works while the page is open.
        driver.quit()
        driver = browser(360, 740)
        code = re.search(r"/pair#(\S+)", world.cli("pair")).group(1)
        lan = "http://lan.test:" + world.base.rsplit(":", 1)[1]
        driver.get(lan + "/pair#" + code)
        on_page("pair over the network", lambda: driver.find_element(By.ID, "pair-button").click())
        wait_for("the list over the network", lambda: row(driver, "Coffee"))
        secure = driver.execute_script("return window.isSecureContext")
        worker = driver.execute_script("return 'serviceWorker' in navigator")
        note = wait_for("the note", lambda: driver.find_element(By.ID, "insecure").is_displayed())
        set_offline(driver, True)
        wait_for("offline", lambda: status_text(driver).startswith("offline"))
        on_page("add Pears", lambda: add_on_page(driver, "Pears"))
        wait_for("one edit waiting", lambda: status_text(driver) == "offline \u2014 1 edit waiting")
        set_offline(driver, False)
        try:
            wait_for("synced", lambda: status_starting(driver, "synced"))
        except AssertionError as error:
            raise AssertionError(f"{error}; bananas status: {subprocess.run([world.bananas, 'status'], env=world.env, capture_output=True, text=True).stdout[:1500]}")
        report("over plain HTTP on a network the page says it cannot open offline, and its queue still works",
               secure is False and worker is False and note and world.item("Pears") is not None,
               secure_context=secure, service_worker=worker)

        # HTTPS: a certificate of the user's (self-signed here), the cookie Secure.
        cert, key = os.path.join(world.folder, "cert.pem"), os.path.join(world.folder, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                       check=True, capture_output=True, timeout=WAIT)
        world.server.send_signal(signal.SIGTERM)
        stopped = world.server.wait(timeout=WAIT)
        report("SIGTERM stops the server with its edits written (exit 0)", stopped == 0 and world.item("Coffee") is not None,
               status=stopped)
        world.serve("--tls-cert", cert, "--tls-key", key)
        context = ssl.create_default_context(cafile=cert)
        code = world.pair_url.split("#")[1]
        pair = urllib.request.Request(world.base + "/api/pair", data=json.dumps({"code": code, "name": "tls"}).encode(), method="POST",
                                      headers={"Content-Type": "application/json", "Origin": world.base})
        with urllib.request.urlopen(pair, context=context, timeout=WAIT) as response:
            set_cookie = response.headers["Set-Cookie"]
        token = re.search(r"bananas_device=([0-9a-f]+)", set_cookie).group(1)
        listed = urllib.request.Request(world.base + "/api/list", headers={"Authorization": "Bearer " + token})
        with urllib.request.urlopen(listed, context=context, timeout=WAIT) as response:
            names = [i["name"] for i in json.loads(response.read())["items"]]
        report("over HTTPS (--tls-cert, --tls-key) the page pairs and the cookie is Secure",
               world.base.startswith("https://") and "Secure" in set_cookie and "HttpOnly" in set_cookie and "Coffee" in names,
               cookie=set_cookie.split(";", 1)[1].strip())
        return 0
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        world.close()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException as error:
        import traceback
        print(json.dumps({"step": "failed", "ok": False, "error": f"{type(error).__name__}: {error}",
                          "trace": traceback.format_exc()[-3000:]}), flush=True)
        sys.exit(1)

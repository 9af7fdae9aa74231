#!/usr/bin/env python3
"""The phone at the store, in a real browser: Debian's headless Chromium driven by Selenium
(Debian's chromedriver), against the real `bananas serve`.

A phone pairs from the URL the terminal shows, checks and adds items, sees a CLI edit appear
live, loses its connection (Chrome's network emulation, over the DevTools protocol), keeps
editing, reloads with no connection, comes back, and every edit is in the list file and in a
running bananas instance, once. A hostile list renders as text with no script run. Requests
without a token, with a revoked token, a foreign Origin or a foreign Host are refused.

Each step prints one JSON line {"step", "ok", ...}; the exit status is 0 when every step passed.
Usage: phone_at_the_store.py --bananas PATH --test-tool PATH
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
        # Keep draining its output so it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
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


def add_on_page(driver, name):
    field = driver.find_element(By.ID, "add-name")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "#add button[type=submit]").click()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bananas", required=True)
    parser.add_argument("--test-tool", required=True)
    args = parser.parse_args()
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

        # Pair from a phone-sized viewport.
        driver = browser(360, 740)
        started = time.monotonic()
        driver.get(world.pair_url)
        wait_for("the pairing form", lambda: driver.find_element(By.ID, "pair-code").get_attribute("value"))
        driver.find_element(By.ID, "pair-button").click()
        wait_for("the list after pairing", lambda: driver.execute_script("return location.pathname") == "/" and row(driver, "Milk"))
        wait_for("synced", lambda: status_text(driver) == "synced")
        devices = world.cli("devices")
        report("a phone pairs with the code from the terminal", "Android phone" in devices,
               seconds=round(time.monotonic() - started, 2), devices=devices.strip())
        code = world.pair_url.split("#")[1]
        status, body = request(world.base + "/api/pair", "POST", {"Content-Type": "application/json"}, {"code": code, "name": "thief"})
        report("the code works once", status == 403, status=status)

        # The phone's layout: nothing wider than the screen, big tap targets.
        overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        small = driver.execute_script("""
            return Array.from(document.querySelectorAll('#app button, #app input, #app select, #app summary'))
              .filter(e => e.offsetParent !== null)
              .map(e => e.getBoundingClientRect()).filter(r => r.height < 44).length""")
        # A screen reader's view: every control has a name; checkboxes say whether they are checked.
        unnamed = driver.execute_script("""
            return Array.from(document.querySelectorAll('#app button, #app input, #app select'))
              .filter(e => !((e.getAttribute('aria-label') || '').trim() || e.textContent.trim() || (e.labels && e.labels.length)))
              .map(e => e.outerHTML.slice(0, 80))""")
        boxes = driver.execute_script("""
            return Array.from(document.querySelectorAll('[role=checkbox]')).every(e => ['true', 'false'].includes(e.getAttribute('aria-checked')))""")
        report("every control has a name for screen readers, and checkboxes their state", unnamed == [] and boxes, unnamed=unnamed)
        # The narrowest phones: 320 px.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 320, "height": 640, "deviceScaleFactor": 2, "mobile": True})
        narrow = wait_for("the 320 px layout", lambda: driver.execute_script(
            "return window.innerWidth === 320 ? [document.documentElement.scrollWidth - window.innerWidth] : null"))[0]
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 740, "deviceScaleFactor": 3, "mobile": True})
        report("at 360 px nothing overflows and every control is at least 44 px high", overflow <= 0 and small == 0 and narrow <= 0,
               overflow=overflow, small=small, overflow_at_320=narrow)

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
        wait_for("synced again", lambda: status_text(driver) == "synced")
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

        # Move within a section: Tea (added after Coffee) up, with the row's Move menu.
        def drinks_on_page():
            return [li.find_element(By.CSS_SELECTOR, ".name").text
                    for li in driver.find_elements(By.CSS_SELECTOR, "section.group[aria-label=Drinks] li.item")]
        def drinks_in_file():
            return [i["name"] for i in world.items() if i["section"] == "Drinks"]
        before = drinks_in_file()
        on_page("move Tea up", lambda: Select(row(driver, "Tea").find_element(By.CSS_SELECTOR, "select.move"))
                .select_by_visible_text("\u2191 Move up"))
        wait_for("Tea first in the file", lambda: drinks_in_file() == ["Tea", "Coffee"])
        wait_for("Tea first on the page", lambda: drinks_on_page() == ["Tea", "Coffee"])
        wait_for("and in the running instance", lambda: [i["name"] for i in world.session_items() if i["section"] == "Drinks"] == ["Tea", "Coffee"])
        wait_for("and in the running editor", lambda: [l[4:].split("  ")[0] for l in world.editor_lines()
                                                        if l.startswith("[ ] Tea") or l.startswith("[ ] Coffee")] == ["Tea", "Coffee"])
        label = row(driver, "Tea").find_element(By.CSS_SELECTOR, "select.move").get_attribute("aria-label")
        report("an item moves up within its section: on the page, in the file, the running instance and the editor",
               before == ["Coffee", "Tea"] and label == "Move Tea, in Drinks", before=before, label=label)

        # Delete with undo, clear checked, recently deleted.
        on_page("delete Eggs", lambda: row(driver, "Eggs").find_element(By.CSS_SELECTOR, "button.delete").click())
        wait_for("Eggs deleted in the file", lambda: world.item("Eggs") is None)
        on_page("undo", lambda: driver.find_element(By.CSS_SELECTOR, "#toast button").click())
        wait_for("Eggs back", lambda: world.item("Eggs"))
        wait_for("Eggs back on the page", lambda: row(driver, "Eggs"))
        on_page("clear checked", lambda: driver.find_element(By.ID, "clear").click())
        wait_for("checked items cleared", lambda: world.item("Milk") is None and world.item("Bread") is None)
        deleted = world.cli("deleted")
        report("delete with undo and clear checked work, and the cleared items are in recently deleted",
               "Milk" in deleted and "Bread" in deleted)

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
                "editor": [l[4:].split("  ")[0] for l in world.editor_lines() if l.startswith("[")],
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
        swipe(driver, lambda: row(driver, "Tea"), 240, 0)
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
        on_page("edit the amount", lambda: row(driver, "Eggs").find_element(By.CSS_SELECTOR, "button.amount").click())
        def type_amount():
            field = row(driver, "Eggs").find_element(By.CSS_SELECTOR, "input.amount-input")
            field.clear()  # a retry types into the field again
            field.send_keys("6\n")
        on_page("type the amount", type_amount)
        wait_for("the amount shown", lambda: row(driver, "Eggs").find_element(By.CSS_SELECTOR, "button.amount").text == "6")
        world.cli("edit", "Eggs", "--amount", "12")
        set_offline(driver, False)
        wait_for("the conflict state", lambda: status_text(driver) == "conflict")
        wait_for("the review on the page", lambda: driver.find_element(By.ID, "conflicts").is_displayed())
        conflicts = world.cli("conflicts")
        report("a value that lost is in the conflict review on the page and the CLI", "12" in conflicts,
               page=driver.find_element(By.ID, "conflict-list").text)
        on_page("restore the lost value", lambda: driver.find_element(By.CSS_SELECTOR, "#conflict-list button").click())
        wait_for("the lost value restored", lambda: world.item("Eggs")["amount"] == "12")
        wait_for("synced", lambda: status_text(driver) == "synced")

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
        wait_for("synced", lambda: status_text(driver) == "synced")
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

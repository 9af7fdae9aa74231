#!/usr/bin/env python3
"""bananas on devices that Syncthing keeps in sync: the sync checklist, for real.

Each "device" is a Syncthing instance (Debian's `syncthing`) with its own home, GUI/REST
port and API key on loopback, global and local discovery, relays and NAT off, and a folder
holding BananaList.json. On each folder runs a long-lived `bananas-test session` (the editor's
store and sync engine, driven by lines on stdin) with its own HOME, so each device has its
own state folder (base, journal, conflict log, merged copies). Results are also checked with
the CLI (`bananas list --json`) on each device.

The checklist is adapted from a blog post on local-first apps with SwiftData and CloudKit
(its "sync test" checklist run before every release; a copy of the source was given to the
project as reference/004). Its items, verbatim:

  - Create a record on device A, verify it appears on device B within 30 seconds
  - Edit the same record on both devices while one is in airplane mode, then reconnect
  - Delete a record on device A, verify it disappears on device B
  - Uninstall and reinstall on device B, verify all data syncs back
  - Sign out of iCloud on device B, sign back in, verify data reappears

and as run here, with files and Syncthing:

  1. create on A, it appears on B;
  2. edit the same item on both while the link is down (B's folder paused), reconnect: both
     edits' fields survive, and the conflict copy Syncthing made is merged away; then the same
     field on both, and an item added on A: the loser is a conflict listed on both devices;
  3. delete on A, it disappears on B;
  4. a new device C with an empty folder receives the whole list;
  5. B offline (its Syncthing stopped) then back again catches up (and its own offline edit
     reaches A).

Every wait is bounded; every process started is stopped at the end, whatever happens.
Prints one JSON line per step ({"step": ..., "ok": true, "seconds": ...}) and exits 0 only
if all passed.

    python3 Tests/Syncthing/two_devices.py --bananas .build/debug/bananas [--keep]
"""
import argparse
import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

FOLDER_ID = "bananas"
LIST = "BananaList.json"
WAIT = 60.0  # seconds: the bound on any one wait


class Failure(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def until(what, condition, timeout=WAIT, interval=0.1):
    """Waits for condition() to be truthy; raises Failure naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as error:  # a REST call or a session answer not ready yet
            last_error = error
        time.sleep(interval)
    raise Failure(f"timed out after {timeout:.0f} s waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))


class Syncthing:
    """One device's Syncthing, configured through its config file and REST API."""

    def __init__(self, root, name):
        self.name = name
        self.home = os.path.join(root, name, "syncthing")
        self.folder = os.path.join(root, name, "Sync")
        self.log_path = os.path.join(root, name, "syncthing.log")
        self.api_key = secrets.token_hex(16)
        self.gui_port = free_port()
        self.listen_port = free_port()
        self.process = None
        os.makedirs(self.folder)
        subprocess.run(["syncthing", "generate", "--home", self.home, "--no-default-folder", "--skip-port-probing"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        self._configure()

    def _configure(self):
        """Loopback only, nothing announced or relayed, fast reconnects."""
        path = os.path.join(self.home, "config.xml")
        tree = ET.parse(path)
        root = tree.getroot()
        gui = root.find("gui")
        gui.find("address").text = f"127.0.0.1:{self.gui_port}"
        key = gui.find("apikey")
        if key is None:
            key = ET.SubElement(gui, "apikey")
        key.text = self.api_key
        options = root.find("options")

        def set_option(tag, value):
            for old in options.findall(tag):
                options.remove(old)
            element = ET.SubElement(options, tag)
            element.text = value

        set_option("listenAddress", f"tcp://127.0.0.1:{self.listen_port}")
        for tag, value in [
            ("globalAnnounceEnabled", "false"), ("localAnnounceEnabled", "false"), ("relaysEnabled", "false"),
            ("natEnabled", "false"), ("urAccepted", "-1"), ("autoUpgradeIntervalH", "0"), ("startBrowser", "false"),
            ("crashReportingEnabled", "false"), ("reconnectionIntervalS", "1"), ("progressUpdateIntervalS", "1"),
        ]:
            set_option(tag, value)
        tree.write(path)

    def start(self):
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            ["syncthing", "serve", "--home", self.home, "--no-browser", "--no-restart", "--no-upgrade", "--no-default-folder"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            env=dict(os.environ, STNOUPGRADE="1", STNORESTART="1"))
        log.close()
        until(f"{self.name}'s Syncthing to answer", lambda: self.api("GET", "/rest/system/ping").get("ping") == "pong", timeout=WAIT)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    def api(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui_port}{path}", data=data, method=method,
                                         headers={"X-API-Key": self.api_key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return json.loads(text) if text.strip() else {}

    @property
    def device_id(self):
        if not hasattr(self, "_device_id"):
            self._device_id = self.api("GET", "/rest/system/status")["myID"]
        return self._device_id

    def add_device(self, other):
        self.api("POST", "/rest/config/devices", {
            "deviceID": other.device_id, "name": other.name,
            "addresses": [f"tcp://127.0.0.1:{other.listen_port}"], "autoAcceptFolders": False})

    def share(self, devices):
        """The bananas folder, shared with `devices` (and itself)."""
        folder = {
            "id": FOLDER_ID, "label": "bananas", "path": self.folder, "type": "sendreceive",
            "devices": [{"deviceID": d.device_id} for d in [self] + devices],
            "fsWatcherEnabled": True, "fsWatcherDelayS": 1, "rescanIntervalS": 3600,
        }
        existing = [f["id"] for f in self.api("GET", "/rest/config/folders")]
        if FOLDER_ID in existing:
            self.api("PATCH", f"/rest/config/folders/{FOLDER_ID}", {"devices": folder["devices"]})
        else:
            self.api("POST", "/rest/config/folders", folder)
        # Never sync the list's lock file or bananas's temp files (docs/multi-device.md).
        self.api("POST", f"/rest/db/ignores?folder={FOLDER_ID}", {"ignore": [f"{LIST}.lock", f"{LIST}.tmp.*"]})

    def pause(self, paused):
        self.api("PATCH", f"/rest/config/folders/{FOLDER_ID}", {"paused": paused})

    def connected(self, other):
        connections = self.api("GET", "/rest/system/connections")["connections"]
        return connections.get(other.device_id, {}).get("connected", False)

    def in_sync_with(self, other):
        """This device believes `other` has everything of the folder, and needs nothing itself."""
        completion = self.api("GET", f"/rest/db/completion?folder={FOLDER_ID}&device={other.device_id}")
        status = self.api("GET", f"/rest/db/status?folder={FOLDER_ID}")
        return completion.get("completion") == 100 and status.get("needTotalItems", 1) == 0 and status.get("state") == "idle"


class Session:
    """A long-running `bananas-test session` on one device's list."""

    def __init__(self, binary, device):
        self.device = device
        self.lines = []
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            [binary, "session"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=device.env, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        self._wait(lambda line: line.get("event") == "ready", "ready")

    def _read(self):
        for raw in self.process.stdout:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            with self.lock:
                self.lines.append(line)

    def _wait(self, match, what, after=0, timeout=15):
        def hit():
            with self.lock:
                return next((line for line in self.lines[after:] if match(line)), None)
        return until(f"{self.device.name}'s session: {what}", hit, timeout=timeout, interval=0.005)

    def send(self, *parts):
        with self.lock:
            mark = len(self.lines)
        self.process.stdin.write(("\t".join(parts) + "\n").encode())
        self.process.stdin.flush()
        answer = self._wait(lambda line: "event" not in line, parts[0], after=mark)
        if "error" in answer:
            raise Failure(f"{self.device.name}: {parts} -> {answer['error']}")
        return answer

    def items(self):
        return {item["name"]: item for item in self.send("list")["items"]}

    def stop(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write(b"quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=10)
            except Exception:
                self.process.kill()
                self.process.wait(timeout=10)


class Device:
    def __init__(self, root, name, binary):
        self.name = name
        self.binary = binary
        self.syncthing = Syncthing(root, name)
        self.home = os.path.join(root, name, "home")
        os.makedirs(self.home)
        self.list_path = os.path.join(self.syncthing.folder, LIST)
        self.env = {k: v for k, v in os.environ.items() if k not in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
        self.env.update(BANANAS_FILE=self.list_path, HOME=self.home)
        self.session = None

    def cli_items(self):
        """The list as `bananas list --json` on this device reports it."""
        result = subprocess.run([self.binary, "list", "--json"], env=self.env, capture_output=True, timeout=30)
        if result.returncode != 0:
            raise Failure(f"{self.name}: bananas list failed: {result.stderr.decode()}")
        return {item["name"]: item for item in json.loads(result.stdout)["items"]}

    def copies(self):
        """Sync-conflict copies in the folder now."""
        return sorted(name for name in os.listdir(self.syncthing.folder) if ".sync-conflict-" in name and not name.startswith("."))

    def merged_copies(self):
        """Conflict copies bananas merged on this device (kept in its state folder)."""
        return glob.glob(os.path.join(self.home, ".local/state/bananas/files/*/merged-copies/*"))

    def stop(self):
        if self.session:
            self.session.stop()
        self.syncthing.stop()


def pair(a, b):
    a.syncthing.add_device(b.syncthing)
    b.syncthing.add_device(a.syncthing)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bananas", required=True, help="the bananas binary")
    parser.add_argument("--test-tool", help="bananas-test, for the sessions (default: beside --bananas)")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (logs) afterwards")
    args = parser.parse_args()
    binary = os.path.abspath(args.bananas)
    test_tool = os.path.abspath(args.test_tool or os.path.join(os.path.dirname(binary), "bananas-test"))
    if shutil.which("syncthing") is None:
        print(json.dumps({"error": "syncthing is not installed (apt-get install syncthing; scripts/test does)"}), flush=True)
        return 2

    # A SIGTERM from the test runner's time limit still cleans up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
    root = tempfile.mkdtemp(prefix="bananas-syncthing-")
    devices = []
    started = time.monotonic()
    failed = None
    try:
        a = Device(root, "A", binary)
        b = Device(root, "B", binary)
        devices += [a, b]
        for device in (a, b):
            device.syncthing.start()
        pair(a, b)
        a.syncthing.share([b.syncthing])
        b.syncthing.share([a.syncthing])
        until("A and B to connect", lambda: a.syncthing.connected(b.syncthing))
        a.session = Session(test_tool, a)
        b.session = Session(test_tool, b)

        def step(name, body):
            begin = time.monotonic()
            body()
            print(json.dumps({"step": name, "ok": True, "seconds": round(time.monotonic() - begin, 2)}), flush=True)

        def same_everywhere(*devices_):
            lists = [d.cli_items() for d in devices_]
            names = [sorted(items) for items in lists]
            return all(n == names[0] for n in names) and lists

        # 1. Create on A; it appears on B.
        def create():
            a.session.send("add", "Milk", "Dairy")
            a.session.send("add", "Bread", "Bakery")
            # "within 30 seconds", as the checklist says.
            until("Milk and Bread on B's session", lambda: {"Milk", "Bread"} <= set(b.session.items()), timeout=30)
            until("Milk and Bread in B's file (CLI)", lambda: {"Milk", "Bread"} <= set(b.cli_items()))
        step("create on A appears on B", create)

        # 2. The same item edited on both while the link is down.
        def concurrent_edit():
            until("A and B in sync before the link goes down", lambda: a.syncthing.in_sync_with(b.syncthing) and b.syncthing.in_sync_with(a.syncthing))
            b.syncthing.pause(True)
            until("B's folder to pause", lambda: b.syncthing.api("GET", f"/rest/db/status?folder={FOLDER_ID}").get("state") in ("paused", None, ""), timeout=15)
            a.session.send("set", "Milk", "amount", "2 L")
            b.session.send("check", "Milk")
            a.session.send("wait")
            b.session.send("wait")
            b.syncthing.pause(False)

            def converged():
                for device in (a, b):
                    milk = device.session.items().get("Milk")
                    if not milk or milk["amount"] != "2 L" or milk["checked"] is not True or device.copies():
                        return False
                lists = same_everywhere(a, b)
                return lists and all(items["Milk"]["amount"] == "2 L" and items["Milk"]["checked"] for items in lists)
            until("both edits on both devices, and no conflict copy left", converged)
            merged = a.merged_copies() + b.merged_copies()
            if not merged:
                raise Failure("Syncthing made no conflict copy: the test did not test the merge")
            print(json.dumps({"note": "conflict copies merged", "copies": [os.path.basename(p) for p in merged]}), flush=True)
        step("edit the same item on both while the link is down, reconnect: both edits survive, the copy is merged away", concurrent_edit)

        # 2b. The same field on both while the link is down, and an item added on A: the newer
        # amount wins everywhere, the other is a conflict record that both devices list
        # (`bananas conflicts`), and the item added meanwhile survives B's older version.
        def same_field():
            until("A and B in sync before the link goes down", lambda: a.syncthing.in_sync_with(b.syncthing) and b.syncthing.in_sync_with(a.syncthing))
            b.syncthing.pause(True)
            until("B's folder to pause", lambda: b.syncthing.api("GET", f"/rest/db/status?folder={FOLDER_ID}").get("state") in ("paused", None, ""), timeout=15)
            a.session.send("set", "Milk", "amount", "1 L")
            a.session.send("add", "Tea", "Pantry")
            time.sleep(0.05)
            b.session.send("set", "Milk", "amount", "5 L")
            a.session.send("wait")
            b.session.send("wait")
            b.syncthing.pause(False)

            def converged():
                lists = same_everywhere(a, b)
                return bool(lists) and not any(d.copies() for d in (a, b)) and all(
                    "Tea" in items and items["Milk"]["amount"] == "5 L" for items in lists)
            until("one amount and Tea on both devices, and no conflict copy left", converged)

            def lists_lost(device):
                result = subprocess.run([device.binary, "conflicts", "--json"], env=device.env, capture_output=True, timeout=30)
                entries = json.loads(result.stdout) if result.returncode == 0 else []
                return any(e.get("name") == "Milk" and e.get("field") == "amount" and e.get("lost") == "1 L" for e in entries)
            for device in (a, b):
                until(f"{device.name} to list the amount that lost in bananas conflicts", lambda device=device: lists_lost(device))
            def dismissed():
                result = subprocess.run([a.binary, "conflicts", "dismiss", "--all"], env=a.env, capture_output=True, timeout=30)
                # Exit 7: the list stayed locked for the command's whole wait (once, on a
                # machine running the whole suite at once). It wrote nothing; running it
                # again is what a script does. Any other failure is reported.
                if result.returncode == 7:
                    return False
                if result.returncode != 0:
                    raise Failure(f"bananas conflicts dismiss --all: exit {result.returncode}: {result.stderr.decode()}")
                # A listed the lost value, perhaps from a sync engine's conflict copy shown
                # merged but not yet in A's file: the command merges the copies under the lock
                # its edit is made under, so it dismisses what was listed (it once dismissed
                # nothing when the lock was busy as it started).
                if result.stdout.decode().startswith("Dismissed 0 "):
                    raise Failure("bananas conflicts dismiss --all dismissed nothing, though A listed a conflict")
                return True
            until("A to dismiss the conflicts", dismissed)
            until("the dismissal to reach B", lambda: not lists_lost(b))
            a.session.send("remove", "Tea")  # the later steps expect the list as it was
            until("Tea gone from B", lambda: "Tea" not in b.cli_items())
        step("the same field on both while the link is down: the loser is a conflict on both devices, nothing added is lost", same_field)

        # 3. Delete on A; it disappears on B.
        def delete():
            a.session.send("remove", "Bread")
            until("Bread gone from B's session", lambda: "Bread" not in b.session.items())
            until("Bread gone from B's file (CLI)", lambda: "Bread" not in b.cli_items())
        step("delete on A disappears on B", delete)

        # 3b. Issue 38, failure 1: the phone (Get Bananas, a version-1 writer that keeps no
        # stamps) checks an item in A's folder, then clears the checked items. The item stays
        # gone on both devices, and both list it as recently deleted.
        def phone_checks_then_clears():
            a.session.send("add", "Yogurt", "Dairy")
            until("Yogurt on B", lambda: "Yogurt" in b.cli_items())

            def phone_save(change):
                with open(a.list_path) as f:
                    data = json.load(f)
                keys = ("id", "name", "amount", "section", "checked", "optional")
                items = change([{k: item[k] for k in keys if k in item} for item in data["items"]])
                temp = os.path.join(root, "phone-save.tmp")  # same file system, outside the synced folder
                with open(temp, "w") as f:
                    json.dump({"sections": data["sections"], "items": items}, f)
                os.rename(temp, a.list_path)

            phone_save(lambda items: [dict(item, checked=True) if item["name"] == "Yogurt" else item for item in items])
            until("the phone's check on A", lambda: a.session.items().get("Yogurt", {}).get("checked") is True)
            until("the phone's check on B", lambda: b.cli_items().get("Yogurt", {}).get("checked") is True)
            # Clear checked (Milk, checked in step 2, stays: the later steps count on it).
            phone_save(lambda items: [item for item in items if not (item["checked"] and item["name"] == "Yogurt")])
            until("Yogurt gone from A's session", lambda: "Yogurt" not in a.session.items())
            until("Yogurt gone from B (CLI)", lambda: "Yogurt" not in b.cli_items())
            until("A and B in sync", lambda: a.syncthing.in_sync_with(b.syncthing) and b.syncthing.in_sync_with(a.syncthing))
            time.sleep(1)
            for device in (a, b):
                if "Yogurt" in device.cli_items() or "Yogurt" in device.session.items():
                    raise Failure(f"{device.name}: the cleared item came back")
                deleted = subprocess.run([device.binary, "deleted", "--json"], env=device.env, capture_output=True, timeout=30)
                if "Yogurt" not in deleted.stdout.decode():
                    raise Failure(f"{device.name}: bananas deleted does not list the cleared item: {deleted.stdout.decode()}")
        step("the phone checks an item, then clears checked: it stays gone on both devices, in recently deleted", phone_checks_then_clears)

        # 4. A new device with an empty folder receives the whole list.
        def new_device():
            c = Device(root, "C", binary)
            devices.append(c)
            c.syncthing.start()
            c.session = Session(test_tool, c)  # on an empty folder: an empty list, nothing written
            if c.session.items() or os.path.exists(c.list_path):
                raise Failure("C's folder was not empty")
            pair(a, c)
            a.syncthing.share([b.syncthing, c.syncthing])
            c.syncthing.share([a.syncthing])
            until("C's session to hold A's whole list", lambda: set(c.session.items()) == set(a.session.items()) == {"Milk"})
            until("C's file (CLI) to equal A's", lambda: c.cli_items() == a.cli_items())
        step("a new device with an empty folder receives the whole list", new_device)

        # 5. B offline, then back: it catches up (and its own offline edit reaches A).
        def offline():
            b.syncthing.stop()
            a.session.send("add", "Eggs", "Dairy")
            a.session.send("set", "Milk", "amount", "3 L")
            b.session.send("add", "Jam", "Pantry")
            a.session.send("wait")
            b.session.send("wait")
            b.syncthing.start()
            until("B's session to catch up", lambda: (lambda items: "Eggs" in items and items["Milk"]["amount"] == "3 L")(b.session.items()))
            until("B's offline edit on A", lambda: "Jam" in a.session.items())
            until("A, B and C to agree, with no conflict copy left",
                  lambda: same_everywhere(a, b, c_device()) and not any(d.copies() for d in devices))
        c_device = lambda: devices[2]
        step("B offline then back again catches up", offline)

        for device in devices:
            status = device.session.send("status")
            if status["state"] != "synced":
                raise Failure(f"{device.name} ends {status['state']}: {status.get('summary')}")
    except Exception as error:
        failed = error
    finally:
        for device in devices:
            try:
                device.stop()
            except Exception as error:
                print(json.dumps({"cleanup": device.name, "error": str(error)}), flush=True)
        if failed and args.keep:
            print(json.dumps({"kept": root}), flush=True)
        elif not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    total = round(time.monotonic() - started, 1)
    if failed:
        logs = {d.name: d.syncthing.log_path for d in devices}
        print(json.dumps({"ok": False, "error": f"{type(failed).__name__}: {failed}", "seconds": total,
                          "logs": logs if args.keep else "rerun with --keep"}), flush=True)
        return 1
    print(json.dumps({"ok": True, "seconds": total}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

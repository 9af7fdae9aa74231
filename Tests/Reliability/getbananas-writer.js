#!/usr/bin/env node
// A writer that follows the Get Bananas Node MCP server's file protocol exactly, for the
// reliability harness (docs/reliability.md). Written from the server's code as quoted in
// "Two Agent Ecosystems, One Shopping List" (/work/shared/reference/001_a2582efb61a4e23e.txt):
//   - lock: BananaList.json.lock created with flag 'wx', holding the PID;
//   - a lock older than 5 s (by mtime) is stale: unlinked, then tried again;
//   - a held lock is retried every 50 ms, for at most 5 s, then the call fails;
//   - write: temp file BananaList.json.tmp.<pid>, JSON.parse check of the temp file, rename;
//   - every tool reads the file under the lock, changes it (JSON.parse, edit,
//     JSON.stringify: keys it does not know, stamps included, are carried along untouched)
//     and writes it back. No fsync, no stamps: it is a stampless writer.
// Node built-ins only.
//
// Usage: node getbananas-writer.js FILE
// Commands on stdin, one JSON object a line; one JSON answer a line on stdout:
//   {"op":"add","name":"Milk","section":"Dairy"}      -> {"ok":true,"id":"..."}
//   {"op":"update","name":"Milk","checked":true,"amount":"2 L"}
//   {"op":"remove","name":"Milk"}
//   {"op":"get"}                                       -> {"ok":true,"list":{...}}
// A failure answers {"ok":false,"error":"..."}; the file is then as it was.
"use strict";
const fs = require("fs");
const crypto = require("crypto");
const readline = require("readline");

const FILE_PATH = process.argv[2];
if (!FILE_PATH) {
  process.stderr.write("usage: getbananas-writer.js FILE\n");
  process.exit(64);
}
const LOCK_FILE_PATH = FILE_PATH + ".lock";
const LOCK_TIMEOUT_MS = 5000;

async function acquireLock() {
  const startTime = Date.now();
  while (Date.now() - startTime < LOCK_TIMEOUT_MS) {
    try {
      fs.writeFileSync(LOCK_FILE_PATH, String(process.pid), { flag: "wx" });
      return true;
    } catch (err) {
      if (err.code === "EEXIST") {
        let stat;
        try {
          stat = fs.statSync(LOCK_FILE_PATH);
        } catch (e) {
          if (e.code === "ENOENT") continue; // released between our create and our stat
          throw e;
        }
        if (Date.now() - stat.mtimeMs > LOCK_TIMEOUT_MS) {
          try { fs.unlinkSync(LOCK_FILE_PATH); } catch (e) { if (e.code !== "ENOENT") throw e; }
          continue; // stale lock recovery
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      } else {
        throw err;
      }
    }
  }
  throw new Error("Could not acquire file lock; please try again.");
}

function releaseLock() {
  try { fs.unlinkSync(LOCK_FILE_PATH); } catch (e) { /* already gone */ }
}

function readShoppingList() {
  let text;
  try {
    text = fs.readFileSync(FILE_PATH, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return { sections: [], items: [] };
    throw err;
  }
  const list = JSON.parse(text);
  if (!Array.isArray(list.items)) list.items = [];
  if (!Array.isArray(list.sections)) list.sections = [];
  return list;
}

function writeShoppingList(list) {
  const jsonString = JSON.stringify(list, null, 2);
  const tempPath = FILE_PATH + ".tmp." + process.pid;
  fs.writeFileSync(tempPath, jsonString, "utf8");
  // Verify the temp file is valid JSON before renaming
  JSON.parse(fs.readFileSync(tempPath, "utf8"));
  // Atomic rename - either the new file or the old file, never partial
  fs.renameSync(tempPath, FILE_PATH);
}

// Read, change and write under the lock, as every writing tool of the server does.
async function withList(change) {
  await acquireLock();
  try {
    const list = readShoppingList();
    const answer = change(list);
    writeShoppingList(list);
    return answer;
  } finally {
    releaseLock();
  }
}

function findItem(list, name) {
  const wanted = String(name).toLowerCase();
  const item = list.items.find((i) => typeof i.name === "string" && i.name.toLowerCase() === wanted);
  if (!item) throw new Error("Item not found: " + name);
  return item;
}

async function handle(command) {
  switch (command.op) {
    case "add":
      return withList((list) => {
        const section = command.section || "Other";
        if (!list.sections.includes(section)) list.sections.push(section);
        const sortOrder = list.items.reduce((max, i) => Math.max(max, Number(i.sortOrder) || 0), 0) + 1;
        const item = {
          id: crypto.randomUUID().toUpperCase(), name: command.name, amount: command.amount || "",
          section, optional: false, checked: false, sortOrder,
        };
        list.items.push(item);
        return { id: item.id };
      });
    case "update":
      return withList((list) => {
        const item = findItem(list, command.name);
        if (command.checked !== undefined) item.checked = command.checked;
        if (command.amount !== undefined) item.amount = command.amount;
        item.lastModified = new Date().toISOString();
        return { id: item.id };
      });
    case "remove":
      return withList((list) => {
        const item = findItem(list, command.name);
        list.items = list.items.filter((i) => i !== item);
        return { id: item.id };
      });
    case "get":
      return { list: readShoppingList() };
    default:
      throw new Error("unknown op " + command.op);
  }
}

// One command at a time, in order, as a client's tool calls arrive.
const lines = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on("line", (line) => {
  if (!line.trim()) return;
  queue = queue.then(async () => {
    let answer;
    try {
      answer = { ok: true, ...(await handle(JSON.parse(line))) };
    } catch (err) {
      answer = { ok: false, error: String(err && err.message ? err.message : err) };
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  });
});
lines.on("close", () => { queue.then(() => process.exit(0)); });
process.stdout.write(JSON.stringify({ event: "ready", pid: process.pid }) + "\n");

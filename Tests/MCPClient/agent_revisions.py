#!/usr/bin/env python3
"""An agent on a 10,000-item list, through the official Python MCP client pinned to one
protocol revision (argv[1]): 2025-11-25 (the initialize handshake) or 2026-07-28 (stateless:
the version in every request's _meta, server/discover, resultType, subscriptions/listen).

It pages through the whole list with every answer within 25,000 tokens (estimated at 4
characters a token), is refused on a stale expected_revision after a CLI write every time,
cannot store invisible or control text, and finds the instructions and prompts. Run by
MCPProtocolTests with BANANAS_BIN and BANANAS_FILE set; prints OK or raises.

    BANANAS_BIN=.build/debug/bananas BANANAS_FILE=/tmp/list.json python3 Tests/MCPClient/agent_revisions.py 2026-07-28
"""
import asyncio
import json
import os
import subprocess
import sys
import time
import warnings

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

try:
    from mcp.shared.exceptions import MCPDeprecationWarning
except ImportError:
    MCPDeprecationWarning = DeprecationWarning

REVISION = sys.argv[1]
STATELESS = REVISION == "2026-07-28"
CHARS_PER_TOKEN = 4
TOKEN_CAP = 25_000
ITEMS = 10_000
SECTIONS = ["Produce", "Dairy", "Pantry"]


def write_list(path):
    """A Get Bananas (version 1) file of ITEMS items, as the phone app would leave it."""
    items = [{"id": f"00000000-0000-4000-8000-{n:012d}", "name": f"Item {n}", "amount": "",
              "section": SECTIONS[n % 3], "checked": n % 7 == 0, "optional": False} for n in range(ITEMS)]
    with open(path, "w") as f:
        json.dump({"sections": SECTIONS, "items": items}, f)


def cli(*args):
    subprocess.run([os.environ["BANANAS_BIN"], *args], check=True, capture_output=True)


def text(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def tokens(result):
    return len(result.model_dump_json(by_alias=True, exclude_none=True)) / CHARS_PER_TOKEN


async def main():
    write_list(os.environ["BANANAS_FILE"])
    server = StdioServerParameters(command=os.environ["BANANAS_BIN"], args=["mcp"],
                                   env={**os.environ, "BANANAS_LOG_LEVEL": "warning"})
    updates = []

    async def on_message(message):
        inner = getattr(message, "root", message)
        if getattr(inner, "method", None) == "notifications/resources/updated":
            updates.append(time.monotonic())

    mode = REVISION if STATELESS else "legacy"
    async with Client(server, mode=mode, cache=None, message_handler=on_message) as client:
        assert client.protocol_version == REVISION, client.protocol_version
        if STATELESS:
            discovered = await client.session.send_discover(REVISION)
            assert REVISION in discovered["supportedVersions"], discovered
            assert discovered["resultType"] == "complete", discovered
            instructions = discovered.get("instructions") or ""
        else:
            instructions = client.instructions or ""
        assert "isError only when every entry failed" in instructions and "next_cursor" in instructions, instructions

        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in ("update_items", "update_sections", "remove_items"):
            assert tools[name].annotations.destructive_hint is True, name

        # The whole list, a page at a time, each answer within the context budget.
        ids, cursor, pages, largest = [], None, 0, 0
        while True:
            page = await client.call_tool("get_shopping_list", {} if cursor is None else {"cursor": cursor})
            assert not page.is_error, text(page)
            largest = max(largest, tokens(page))
            content = page.structured_content
            assert content["total_items"] == ITEMS, content["total_items"]
            ids += [item["id"] for item in content["items"]]
            pages += 1
            if not content["has_more"]:
                break
            cursor = content["next_cursor"]
        assert len(ids) == ITEMS and len(set(ids)) == ITEMS, (len(ids), len(set(ids)))
        assert largest <= TOKEN_CAP, largest
        summary = await client.call_tool("get_shopping_list", {"mode": "summary"})
        counts = {c["section"]: c["items"] for c in summary.structured_content["section_counts"]}
        assert counts == {"Produce": 3334, "Dairy": 3333, "Pantry": 3333}, counts
        diary = await client.call_tool("get_shopping_list", {"section": "Diary"})
        assert diary.is_error and "Dairy" in text(diary), text(diary)

        # A stale revision after a CLI write that has exited: refused every time, nothing changed.
        refused = 0
        for n in range(10):
            revision = (await client.call_tool("get_shopping_list", {"mode": "summary"})).structured_content["revision"]
            cli("edit", f"Item {3 * n + 1}", "--amount", str(n + 2))
            stale = await client.call_tool("remove_items", {"items": [{"item": f"Item {3 * n + 2}"}],
                                                            "expected_revision": revision})
            if stale.is_error and stale.structured_content and stale.structured_content.get("stale"):
                refused += 1
                assert stale.structured_content["revision"] != revision
                assert f'"Item {3 * n + 1}" amount "{n + 2}"' in text(stale), text(stale)
        assert refused == 10, f"refused {refused} of 10"
        still = await client.call_tool("get_shopping_list", {"text": "Item 2", "limit": 1})
        assert still.structured_content["items"][0]["name"] == "Item 2", still.structured_content
        fresh = (await client.call_tool("get_shopping_list", {"mode": "summary"})).structured_content["revision"]
        removed = await client.call_tool("remove_items", {"items": [{"item": "Item 2"}], "expected_revision": fresh})
        assert [r["status"] for r in removed.structured_content["results"]] == ["removed"], removed

        # Invisible and control text is refused, whichever way it comes.
        for bad in ("Tea\u202e", "Tea\u2066x", "Tea\u0007"):
            refusal = await client.call_tool("add_items", {"items": [{"name": bad}]})
            assert refusal.is_error, bad
            assert bad not in text(refusal), text(refusal)

        # Protocol details: an unknown tool is a JSON-RPC error (-32602) listing the tools; a
        # revision that is no revision is refused as such; a page's text ends with its cursor.
        try:
            await client.call_tool("remove_everything", {})
            raise AssertionError("an unknown tool was answered as a result")
        except MCPError as error:
            assert error.code == -32602 and "get_shopping_list" in error.message, (error.code, error.message)
        # Get Bananas's names are its tools here too, on the same list.
        eggs = await client.call_tool("add_item", {"name": "Eggs", "amount": "12"})
        assert not eggs.is_error and eggs.structured_content["item"]["section"] == "Dairy", eggs
        changed = await client.call_tool("update_item", {"name": "Eggs", "amount": "6"})
        assert changed.structured_content["item"]["amount"] == "6", changed
        removed_eggs = await client.call_tool("remove_item", {"id": eggs.structured_content["item"]["id"]})
        assert removed_eggs.structured_content["results"][0]["status"] == "removed", removed_eggs
        malformed = await client.call_tool("remove_items", {"items": [{"item": "Item 3"}], "expected_revision": "latest"})
        assert malformed.is_error and "is not a revision" in text(malformed), text(malformed)
        assert not (malformed.structured_content or {}).get("stale"), malformed.structured_content
        first = await client.call_tool("get_shopping_list", {"limit": 5})
        assert text(first).endswith("\n" + first.structured_content["next_cursor"]), text(first)[-200:]

        # A cursor goes on after the place its item had, even when another writer removes
        # that item and one before it between pages: nothing is skipped.
        page_a = (await client.call_tool("get_shopping_list", {"limit": 50})).structured_content
        following = (await client.call_tool("get_shopping_list", {"limit": 1, "cursor": page_a["next_cursor"]})).structured_content
        cli("remove", page_a["items"][-1]["id"], page_a["items"][0]["id"])
        page_b = (await client.call_tool("get_shopping_list", {"limit": 5, "cursor": page_a["next_cursor"]})).structured_content
        assert page_b["items"][0]["id"] == following["items"][0]["id"], (page_b["items"][0], following["items"][0])

        # Prompts a user can invoke.
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        assert prompts == ["plan_week_shop", "add_recipe", "tidy_list"], prompts
        recipe = await client.get_prompt("add_recipe", {"recipe": "pancakes"})
        assert "pancakes" in recipe.messages[0].content.text

        # Changes by other writers, as this revision delivers them.
        if STATELESS:
            async with client.listen(resource_subscriptions=["bananas://list"]) as listening:
                assert listening.honored.resource_subscriptions == ["bananas://list"], listening.honored
                cli("add", "Bread")
                event = await asyncio.wait_for(listening.__anext__(), 5)
                assert event.uri == "bananas://list", event
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.subscribe_resource("bananas://list")
            updates.clear()
            cli("add", "Bread")
            started = time.monotonic()
            while not updates and time.monotonic() - started < 5:
                await asyncio.sleep(0.005)
            assert updates, "no notifications/resources/updated after a CLI edit"
    print(f"{REVISION}: {pages} pages, largest answer about {largest:.0f} tokens")
    print("OK")


asyncio.run(main())

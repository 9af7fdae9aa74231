#!/usr/bin/env python3
"""An agent's session against `bananas mcp`, through the official Python MCP client (2.x), which
checks each successful tool result's structuredContent against the tool's outputSchema. It uses
every tool, batches, the error cases, and the resource subscription. Run by MCPTests with
BANANAS_BIN and BANANAS_FILE set; prints OK or raises.

    BANANAS_BIN=.build/debug/bananas BANANAS_FILE=/tmp/list.json python3 Tests/MCPClient/agent_session.py
"""
import asyncio
import json
import os
import subprocess
import time
import warnings

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

try:
    from mcp.shared.exceptions import MCPDeprecationWarning
except ImportError:  # older clients do not warn
    MCPDeprecationWarning = DeprecationWarning

TOOLS = {"get_shopping_list", "suggest_items", "add_items", "update_items", "remove_items", "clear_checked",
         "add_sections", "update_sections", "remove_sections", "undo",
         "add_item", "remove_item", "update_item", "update_shopping_list"}


def statuses(result):
    return [r["status"] for r in result.structured_content["results"]]


def text(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    server = StdioServerParameters(command=os.environ["BANANAS_BIN"], args=["mcp"],
                                   env={**os.environ, "BANANAS_LOG_LEVEL": "warning"})
    updates = []

    async def on_message(message):
        inner = getattr(message, "root", message)
        if getattr(inner, "method", None) == "notifications/resources/updated":
            updates.append(time.monotonic())

    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == TOOLS, set(tools)
            assert tools["get_shopping_list"].annotations.read_only_hint is True
            for name in ("remove_items", "clear_checked", "remove_sections"):
                assert tools[name].annotations.destructive_hint is True, name
            assert tools["add_items"].annotations.destructive_hint is False
            assert all(t.annotations.open_world_hint is False for t in tools.values())
            assert all(t.output_schema for t in tools.values())

            # Undo: a removed item comes back, its fields in `previous` of the remove's answer.
            await session.call_tool("add_items", {"items": [{"name": "Undo me", "amount": "3"}]})
            gone = await session.call_tool("remove_items", {"items": [{"item": "Undo me"}]})
            assert gone.structured_content["results"][0]["previous"]["amount"] == "3", gone
            back = await session.call_tool("undo", {})
            assert back.structured_content["undone"] == ["remove"], back
            again = await session.call_tool("undo", {})
            assert again.structured_content["undone"] == ["add"], again
            assert (await session.call_tool("get_shopping_list", {})).structured_content["total_items"] == 0

            # Items: a batch, each entry answered on its own.
            added = await session.call_tool("add_items", {"items": [
                {"name": "Bananas", "section": "Produce", "amount": "6"},
                {"name": "Oat milk", "amount": "2 L", "section": "Dairy"},
                {"name": "bananas"},
                {"name": "   "},
            ]})
            assert not added.is_error and statuses(added) == ["added", "added", "already_on_list", "error"], added
            assert added.structured_content["written"] is True
            listed = await session.call_tool("get_shopping_list", {})
            names = [item["name"] for item in listed.structured_content["items"]]
            assert names == ["Bananas", "Oat milk"], names
            assert listed.structured_content["sync"]["state"] == "synced", listed.structured_content
            revision = listed.structured_content["revision"]
            dairy = await session.call_tool("get_shopping_list", {"section": "dairy", "unchecked_only": True})
            assert [i["name"] for i in dairy.structured_content["items"]] == ["Oat milk"], dairy

            checked = await session.call_tool("update_items", {"items": [
                {"item": "oat milk", "checked": True}, {"item": "Banana", "amount": "7"}],
                "expected_revision": revision})
            assert statuses(checked) == ["updated", "error"] and not checked.is_error, checked
            close = checked.structured_content["results"][1]["close_matches"]
            assert close and close[0]["name"] == "Bananas" and close[0]["id"], close
            stale = await session.call_tool("remove_items", {"items": [{"item": "Bananas"}], "expected_revision": revision})
            assert stale.is_error and "get_shopping_list again" in text(stale), stale

            # An ambiguous name lists the candidates with their ids; retrying with an id works.
            twice = await session.call_tool("add_items", {"items": [{"name": "Tea", "section": "Pantry"}, {"name": "Tea"}],
                                                          "allow_duplicates": True})
            assert statuses(twice) == ["added", "added"], twice
            # Beside the first Tea, where it was put (never bought: not "as last time").
            assert "under Pantry (where Tea went before)" in twice.structured_content["results"][1]["note"], twice
            ids = [r["id"] for r in twice.structured_content["results"]]
            ambiguous = await session.call_tool("update_items", {"items": [{"item": "tea", "checked": True}]})
            assert ambiguous.is_error and all(i in text(ambiguous) for i in ids), text(ambiguous)
            retried = await session.call_tool("update_items", {"items": [{"item": ids[1], "checked": True, "position": 1}]})
            assert statuses(retried) == ["updated"], retried

            # Invalid text, schema violations: refused with the path of the problem.
            bad_text = await session.call_tool("add_items", {"items": [{"name": "Jam\u0007"}]})
            assert bad_text.is_error and "control character" in text(bad_text), bad_text
            too_long = await session.call_tool("add_items", {"items": [{"name": "x" * 501}]})
            assert too_long.is_error and "items[0].name: at most 500 characters" in text(too_long), too_long
            unknown_key = await session.call_tool("update_items", {"items": [{"item": "Tea", "colour": "red"}]})
            assert unknown_key.is_error and "unknown key colour" in text(unknown_key), unknown_key

            cleared = await session.call_tool("clear_checked", {})
            assert sorted(r["item"] for r in cleared.structured_content["results"]) == ["Oat milk", "Tea"], cleared
            # Bought (checked, then cleared): remembered, and suggested with its section; the
            # other Tea is still on the list, so Tea is not suggested.
            usual = await session.call_tool("suggest_items", {})
            assert not usual.is_error, usual
            assert [(s["name"], s["section"], s["times_bought"]) for s in usual.structured_content["suggestions"]] == [
                ("Oat milk", "Dairy", 1)], usual
            typo = await session.call_tool("suggest_items", {"text": "oat mlik"})
            assert [s["name"] for s in typo.structured_content["suggestions"]][:1] == ["Oat milk"], typo
            missing = await session.call_tool("remove_items", {"items": [{"item": "Caviar"}]})
            assert missing.is_error, missing
            removed = await session.call_tool("remove_items", {"items": [{"item": ids[0]}]})
            assert statuses(removed) == ["removed"], removed

            # Sections, as in the editor: add, rename, reorder, move items, remove.
            sections = await session.call_tool("add_sections", {"sections": [{"name": "Bakery", "position": 1}, {"name": "produce"}]})
            assert statuses(sections) == ["added", "already_exists"], sections
            renamed = await session.call_tool("update_sections", {"sections": [
                {"section": "produce", "name": "Fruit & veg"}, {"section": "Dairy", "position": 1}, {"section": "Frozen", "name": "Ice"}]})
            assert statuses(renamed) == ["updated", "updated", "error"], renamed
            moved = await session.call_tool("update_items", {"items": [{"item": "Bananas", "section": "bakery"}]})
            assert statuses(moved) == ["updated"], moved
            refused = await session.call_tool("remove_sections", {"sections": [{"section": "Bakery"}]})
            assert refused.is_error and "move_items_to" in text(refused), refused
            gone = await session.call_tool("remove_sections", {"sections": [
                {"section": "Bakery", "move_items_to": "Fruit & veg"}, {"section": "Dairy"}, {"section": "Pantry"}]})
            assert statuses(gone) == ["removed"] * 3, gone
            now = (await session.call_tool("get_shopping_list", {})).structured_content
            assert now["sections"] == ["Fruit & veg"], now
            assert [(i["name"], i["section"]) for i in now["items"]] == [("Bananas", "Fruit & veg")], now

            # The list as a resource, and a subscription that hears every writer. Python mcp 2.3
            # warns that resources/subscribe goes away in the 2026-07-28 protocol revision; the
            # server speaks the revision negotiated here, which has it.
            resources = (await session.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["bananas://list"], resources
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await session.subscribe_resource("bananas://list")
            updates.clear()
            started = time.monotonic()
            subprocess.run([os.environ["BANANAS_BIN"], "add", "Bread"], check=True, capture_output=True)
            while not updates and time.monotonic() - started < 5:
                await asyncio.sleep(0.005)
            assert updates, "no notifications/resources/updated after a CLI edit"
            content = json.loads((await session.read_resource("bananas://list")).contents[0].text)
            assert [i["name"] for i in content["items"]] == ["Bananas", "Bread"], content
            print(f"update notified {1000 * (updates[0] - started):.0f} ms after the CLI started")

            # Get Bananas's own tools, called as its agents and saved prompts call them, on the
            # same list: each answer says where an item went and why.
            # Limes go to the list's own section for produce, whatever it is called.
            limes = await session.call_tool("add_item", {"name": "Limes", "amount": "4"})
            assert limes.structured_content["item"]["section"] == "Fruit & veg", limes
            tortillas = await session.call_tool("add_item", {"name": "Tortillas", "amount": "8"})
            assert not tortillas.is_error and tortillas.structured_content["item"]["section"] == "Bakery", tortillas
            assert "under Bakery (usual for tortillas)" in text(tortillas), text(tortillas)
            bought = await session.call_tool("update_item", {"name": "tortillas", "checked": True})
            assert bought.structured_content["item"]["checked"] is True, bought
            tortilla_id = tortillas.structured_content["item"]["id"]
            renamed = await session.call_tool("update_item", {"id": tortilla_id, "name": "Corn tortillas", "amount": "10"})
            assert (renamed.structured_content["item"]["name"], renamed.structured_content["item"]["amount"]) == ("Corn tortillas", "10"), renamed
            # The whole-list save is taken in as a Get Bananas save: Limes, which the agent
            # read and left out, is removed; Eggs, added by another writer after the read,
            # stays; an item given by name alone is the list's item of that name.
            read = (await session.call_tool("get_shopping_list", {})).structured_content["items"]
            subprocess.run([os.environ["BANANAS_BIN"], "add", "Eggs"], check=True, capture_output=True)
            keep = [{k: i[k] for k in ("id", "name", "amount", "section", "checked", "optional")} for i in read if i["name"] != "Limes"]
            keep = [dict(i, amount="7") if i["name"] == "Bananas" else i for i in keep] + [{"name": "Salsa"}, {"name": "Bread"}]
            keep = [i for i in keep if not (i["name"] == "Bread" and "id" in i)]
            saved = await session.call_tool("update_shopping_list", {"items": keep})
            assert not saved.is_error and saved.structured_content["written"] is True, saved
            now = {i["name"]: i for i in (await session.call_tool("get_shopping_list", {})).structured_content["items"]}
            assert sorted(now) == ["Bananas", "Bread", "Corn tortillas", "Eggs", "Salsa"], sorted(now)
            assert now["Bananas"]["amount"] == "7" and now["Salsa"]["section"] == "Condiments", now
            gone = await session.call_tool("remove_item", {"name": "Corn tortillas"})
            assert statuses(gone) == ["removed"] and gone.structured_content["item"]["amount"] == "10", gone
    print("OK")


asyncio.run(main())

#!/usr/bin/env python3
"""An agent's session against `bananas mcp`, through the official Python MCP client (which
checks each tool's structuredContent against its outputSchema). Run by MCPTests with
BANANAS_BIN and BANANAS_FILE set; prints OK or raises.

    python3 Tests/MCPClient/agent_session.py
"""
import asyncio
import os
import subprocess
import time

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def results(result):
    return [r["status"] for r in result.structured_content["results"]]


async def main():
    server = StdioServerParameters(command=os.environ["BANANAS_BIN"], args=["mcp"], env=dict(os.environ))
    updates = []

    async def on_message(message):
        inner = getattr(message, "root", message)
        if getattr(inner, "method", None) == "notifications/resources/updated":
            updates.append(time.monotonic())

    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == {"get_shopping_list", "add_items", "update_items", "remove_items", "clear_checked"}, set(tools)
            assert tools["get_shopping_list"].annotations.read_only_hint is True
            assert tools["remove_items"].annotations.destructive_hint is True
            assert all(t.annotations.open_world_hint is False for t in tools.values())

            added = await session.call_tool("add_items", {"items": [{"name": "Bananas", "section": "Produce"}, {"name": "Oat milk", "amount": "2 L", "section": "Dairy"}]})
            assert not added.is_error and results(added) == ["added", "added"], added
            listed = await session.call_tool("get_shopping_list", {})
            names = [item["name"] for item in listed.structured_content["items"]]
            assert names == ["Bananas", "Oat milk"], names
            revision = listed.structured_content["revision"]

            checked = await session.call_tool("update_items", {"items": [{"item": "oat milk", "checked": True}], "expected_revision": revision})
            assert results(checked) == ["updated"], checked
            stale = await session.call_tool("remove_items", {"items": [{"item": "Bananas"}], "expected_revision": revision})
            assert stale.is_error, stale
            cleared = await session.call_tool("clear_checked", {})
            assert results(cleared) == ["removed"], cleared
            missing = await session.call_tool("remove_items", {"items": [{"item": "Caviar"}]})
            assert missing.is_error, missing

            # The list as a resource, and a subscription that hears every writer.
            resources = (await session.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["bananas://list"], resources
            await session.subscribe_resource("bananas://list")
            updates.clear()
            started = time.monotonic()
            subprocess.run([os.environ["BANANAS_BIN"], "add", "Bread"], check=True, capture_output=True)
            while not updates and time.monotonic() - started < 5:
                await asyncio.sleep(0.005)
            assert updates, "no notifications/resources/updated after a CLI edit"
            content = (await session.read_resource("bananas://list")).contents[0].text
            assert '"Bread"' in content, content
            print(f"update notified {1000 * (updates[0] - started):.0f} ms after the CLI started")
    print("OK")


asyncio.run(main())

#!/usr/bin/env python3
"""An agent's session against `bananas mcp`, through the official Python MCP client (which
checks each tool's structuredContent against its outputSchema). Run by MCPTests with
BANANAS_BIN and BANANAS_FILE set; prints OK or raises.

    python3 Tests/MCPClient/agent_session.py
"""
import asyncio
import os

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def results(result):
    return [r["status"] for r in result.structured_content["results"]]


async def main():
    server = StdioServerParameters(command=os.environ["BANANAS_BIN"], args=["mcp"], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
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
    print("OK")


asyncio.run(main())

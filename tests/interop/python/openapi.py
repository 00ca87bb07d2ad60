"""The openapi example through the Python SDK client, for tests/openapi_prism.rs and tests/openapi_github.rs.

    python openapi.py petstore SERVER DOCUMENT BASE_URL
    python openapi.py github SERVER DOCUMENT [BASE_URL]

SERVER is the openapi example's executable, run over stdio. The SDK client
checks each successful call's structuredContent against the tool's
outputSchema (and raises if it does not match), so every good call below is
also a check of the output schemas the import made.

`petstore`: DOCUMENT is tests/openapi/petstore.json or its 3.0.3 twin, served
by Prism at BASE_URL (Prism validates each request against the document and
answers 422 with the reasons when one is wrong, 401 without credentials).
The server gets the bearer token from OPENAPI_TOKEN and the API key from
OPENAPI_KEY (--bearer-env, --api-key-env), and leaves out the two operations
it cannot serve (--exclude). It lists the tools and calls each one with
good arguments: each must succeed (so a wrong request shape, which Prism
answers with 422, fails the check), with the structured content checked.
Then: a header that is not a uuid (our schema keeps `format` as an
annotation, Prism checks it) gives an error result with Prism's 422 and its
validation text; a server without credentials gets 401 error results; a
base URL where Prism has no such path gets a 404 error result.

`github`: DOCUMENT is GitHub's api.github.com.json; the server serves it with
--skip-unsupported. Lists every tool and runs jsonschema's check_schema on
every input and output schema. With BASE_URL (a Prism serving the same
document; the server then runs with --no-output-schemas), also makes a few
calls. Never calls GitHub.

Prints one line per check (`ok ...` or `FAIL ...`); the `github` mode also
prints a JSON summary as its last line (the number of tools, and of
those with an output schema). Exits 1 if any check failed; every
step has a timeout.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import anyio
from jsonschema.validators import validator_for
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

STEP_SECONDS = 30
# Reading and converting GitHub's 13 MB document in a debug build, and
# listing its 1,000-odd tools.
GITHUB_SECONDS = 180

UUID = "123e4567-e89b-12d3-a456-426614174000"
# What the petstore server leaves out: a multipart-only body and a cookie
# array, which the import refuses (tests/openapi.rs checks the sentences).
UNSERVABLE = ["uploadPhoto", "getSession"]


class Checks:
    """Runs checks, one line each; a failed one does not stop the next."""

    def __init__(self) -> None:
        self.failed = 0

    def ok(self, what: str) -> None:
        print(f"ok   {what}", flush=True)

    def fail(self, what: str, why: str) -> None:
        self.failed += 1
        print(f"FAIL {what}: {why}", flush=True)

    def check(self, what: str, condition: bool, why: str) -> None:
        if condition:
            self.ok(what)
        else:
            self.fail(what, why)


def server(binary: str, *args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(command=binary, args=list(args), env=env)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def unwrap(structured: Any) -> Any:
    """A non-object output as sent: bare (2026-07-28) or under `result` (earlier versions)."""
    if isinstance(structured, dict) and set(structured) == {"result"}:
        return structured["result"]
    return structured


async def list_all(session: ClientSession) -> list[Any]:
    from mcp.types import PaginatedRequestParams

    tools: list[Any] = []
    cursor = None
    while True:
        params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools


async def call(checks: Checks, session: ClientSession, name: str, arguments: dict[str, Any]) -> Any:
    """Calls a tool; None (and a failed check) if the SDK raised."""
    try:
        with anyio.fail_after(STEP_SECONDS):
            return await session.call_tool(name, arguments)
    except Exception as error:  # noqa: BLE001 - the SDK's output check raises RuntimeError
        checks.fail(f"{name} {json.dumps(arguments)}", f"{type(error).__name__}: {error}")
        return None


async def good(
    checks: Checks,
    session: ClientSession,
    name: str,
    arguments: dict[str, Any],
    expect: Callable[[Any, str], str | None],
) -> None:
    """A call that must succeed; `expect(structured, text)` says what is wrong, or None."""
    result = await call(checks, session, name, arguments)
    if result is None:
        return
    what = f"{name} {json.dumps(arguments)}"
    if result.is_error:
        checks.fail(what, f"an error result (a 422 means a wrong request shape): {text_of(result)}")
        return
    why = expect(result.structured_content, text_of(result))
    checks.check(what, why is None, why or "")


async def bad(
    checks: Checks, session: ClientSession, name: str, arguments: dict[str, Any], wanted: list[str]
) -> None:
    """A call that must give an error result whose text has each of `wanted`."""
    result = await call(checks, session, name, arguments)
    if result is None:
        return
    text = text_of(result)
    missing = [part for part in wanted if part not in text]
    checks.check(
        f"{name} {json.dumps(arguments)} is an error result with {wanted}",
        result.is_error is True and not missing,
        f"is_error={result.is_error}, missing {missing} in: {text}",
    )


def is_pet(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), int)
        and isinstance(value.get("name"), str)
        and (value.get("tag") is None or isinstance(value["tag"], str))
    )


def pets(structured: Any, _text: str) -> str | None:
    value = unwrap(structured)
    if isinstance(value, list) and value and all(is_pet(pet) for pet in value):
        return None
    return f"not a list of pets: {structured!r}"


def no_content(structured: Any, text: str) -> str | None:
    if structured is None and "204 No Content" in text:
        return None
    return f"not the 204 text: structured={structured!r}, text={text!r}"


async def petstore(checks: Checks, binary: str, document: str, base_url: str) -> None:
    env = {"OPENAPI_TOKEN": os.environ["OPENAPI_TOKEN"], "OPENAPI_KEY": os.environ["OPENAPI_KEY"]}
    excluded = [arg for operation in UNSERVABLE for arg in ("--exclude", operation)]
    served = server(
        binary,
        document,
        "--base-url",
        base_url,
        "--bearer-env",
        "OPENAPI_TOKEN",
        "--api-key-env",
        "OPENAPI_KEY",
        *excluded,
        env=env,
    )
    async with stdio_client(served) as (read, write), ClientSession(read, write) as session:
        with anyio.fail_after(STEP_SECONDS):
            await session.initialize()
            tools = {tool.name: tool for tool in await list_all(session)}
        wanted = {
            "addNote",
            "createPet",
            "deletePet",
            "getPet",
            "getTree",
            "get_store_inventory",
            "listPets",
            "searchPets",
        }
        checks.check("the tools listed", set(tools) == wanted, f"{sorted(tools)}, wanted {sorted(wanted)}")
        with_output = {name for name, tool in tools.items() if tool.output_schema is not None}
        checks.check(
            "the tools with an output schema: those with a 2xx JSON response",
            with_output == wanted - {"addNote", "deletePet"},
            f"{sorted(with_output)}",
        )

        await good(checks, session, "listPets", {"limit": 2, "status": ["available", "sold"]}, pets)
        await good(
            checks,
            session,
            "searchPets",
            {"ids": [1, 2, 3], "tags": ["a", "b"], "filter": {"name": "Rex", "status": "sold"}},
            pets,
        )
        await good(
            checks,
            session,
            "createPet",
            {"X-Request-Id": UUID, "name": "Rex", "tag": None, "status": "available"},
            lambda structured, _text: None if is_pet(structured) else f"not a pet: {structured!r}",
        )
        await good(
            checks,
            session,
            "getPet",
            {"petId": 7},
            lambda structured, _text: None
            if structured == {"id": 7, "name": "Rex", "tag": "dog", "status": "available"}
            else f"not the document's example: {structured!r}",
        )
        await good(checks, session, "deletePet", {"petId": 7}, no_content)
        await good(checks, session, "addNote", {"petId": 7, "text": "hi", "urgent": True}, no_content)
        await good(
            checks,
            session,
            "get_store_inventory",
            {},
            lambda structured, _text: None
            if isinstance(structured, dict) and structured and all(type(v) is int for v in structured.values())
            else f"not counts by status: {structured!r}",
        )
        await good(
            checks,
            session,
            "getTree",
            {},
            lambda structured, _text: None
            if structured == {"name": "Rex", "children": [{"name": "Fido", "children": []}, {"name": "Bella"}]}
            else f"not the document's example: {structured!r}",
        )

        # Our schema keeps `format: uuid` as an annotation; Prism checks it.
        await bad(
            checks,
            session,
            "createPet",
            {"X-Request-Id": "not-a-uuid", "name": "Rex"},
            ["422", "UNPROCESSABLE_ENTITY", 'must match format \\"uuid\\"', "x-request-id"],
        )

    # No credentials: Prism answers 401 to the operations that need them.
    anonymous = server(binary, document, "--base-url", base_url, *excluded)
    async with stdio_client(anonymous) as (read, write), ClientSession(read, write) as session:
        with anyio.fail_after(STEP_SECONDS):
            await session.initialize()
        await bad(checks, session, "listPets", {"limit": 2}, ["401", "/pets?limit=2"])
        await bad(checks, session, "getPet", {"petId": 7}, ["401 Unauthorized", "UNAUTHORIZED"])
        await bad(checks, session, "get_store_inventory", {}, ["401", "/store/inventory"])

    # A base URL under which Prism has no such path: 404.
    elsewhere = f"{base_url}/nowhere"
    lost = server(binary, document, "--base-url", elsewhere, "--bearer-env", "OPENAPI_TOKEN", *excluded, env=env)
    async with stdio_client(lost) as (read, write), ClientSession(read, write) as session:
        with anyio.fail_after(STEP_SECONDS):
            await session.initialize()
        await bad(
            checks,
            session,
            "getPet",
            {"petId": 7},
            [f"The API answered 404 Not Found to GET {elsewhere}/pets/7", "NO_PATH_MATCHED_ERROR"],
        )


async def github(checks: Checks, binary: str, document: str, base_url: str | None) -> None:
    args = [document, "--skip-unsupported"]
    if base_url is not None:
        args += ["--base-url", base_url, "--no-output-schemas"]
    summary: dict[str, Any] = {}
    async with stdio_client(server(binary, *args)) as (read, write), ClientSession(read, write) as session:
        with anyio.fail_after(GITHUB_SECONDS):
            await session.initialize()
            tools = await list_all(session)
        summary["tools"] = len(tools)
        summary["output_schemas"] = sum(tool.output_schema is not None for tool in tools)
        invalid = []
        # Many operations share a schema (GitHub's repository, its issue):
        # each distinct one is checked once, which halves the time.
        checked: dict[str, str | None] = {}
        for tool in tools:
            for kind, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
                if schema is None:
                    continue
                key = json.dumps(schema, sort_keys=True)
                if key not in checked:
                    try:
                        validator_for(schema).check_schema(schema)
                        checked[key] = None
                    except Exception as error:  # noqa: BLE001 - jsonschema's SchemaError, and any other
                        checked[key] = str(error)
                if checked[key] is not None:
                    invalid.append(f"{tool.name} ({kind}): {checked[key]}")
        checks.check(
            f"jsonschema's check_schema accepts the input and output schemas of all {len(tools)} tools",
            not invalid,
            "\n".join(invalid[:10]),
        )
        if base_url is not None:
            await github_calls(checks, session)
    print(json.dumps(summary))


async def github_calls(checks: Checks, session: ClientSession) -> None:
    """A few calls through Prism serving GitHub's document: Prism checks each request."""

    def an_object(*keys: str) -> Callable[[Any, str], str | None]:
        def expect(structured: Any, _text: str) -> str | None:
            if isinstance(structured, dict) and all(key in structured for key in keys):
                return None
            return f"no {keys} in {str(structured)[:300]}"

        return expect

    def a_list(structured: Any, _text: str) -> str | None:
        value = unwrap(structured)
        return None if isinstance(value, list) else f"not a list: {str(structured)[:300]}"

    await good(checks, session, "meta_root", {}, an_object("current_user_url"))
    await good(checks, session, "repos_get", {"owner": "octocat", "repo": "hello-world"}, an_object("full_name"))
    await good(
        checks,
        session,
        "issues_list-for-repo",
        {"owner": "octocat", "repo": "hello-world", "state": "open", "labels": "bug", "per_page": 5},
        a_list,
    )
    await good(
        checks,
        session,
        "issues_create",
        {"owner": "octocat", "repo": "hello-world", "title": "Found a bug", "labels": ["bug"]},
        an_object("number"),
    )


def main() -> None:
    mode, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    checks = Checks()
    try:
        if mode == "petstore" and len(rest) == 3:
            anyio.run(petstore, checks, *rest)
        elif mode == "github" and len(rest) in (2, 3):
            anyio.run(github, checks, rest[0], rest[1], rest[2] if len(rest) == 3 else None)
        else:
            sys.exit(f"usage: {sys.argv[0]} petstore SERVER DOCUMENT BASE_URL | github SERVER DOCUMENT [BASE_URL]")
    except BaseException as error:  # noqa: BLE001 - the reason, for the test's message
        # The whole story, task groups' sub-exceptions included.
        sys.stderr.write("".join(traceback.format_exception(error)))
        sys.exit(f"openapi.py: {type(error).__name__}: {error}")
    if checks.failed:
        sys.exit(f"openapi.py: {checks.failed} check(s) failed")


if __name__ == "__main__":
    main()

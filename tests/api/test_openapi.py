"""The OpenAPI document: it validates (``openapi-spec-validator``), it describes every error
answer as ``Error``, it is served without a token while FastAPI's CDN pages are off, and
every (path, method) it lists is called by the table below, which records the route each
request was routed to and compares the set with the document's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from openapi_spec_validator import validate

from tests.api.support import World, bot_zip, make_cup, upload, wait_for_submission

Call = tuple[str, str, Callable[[Any], Any]]


class RouteRecorder:
    """An ASGI wrapper that notes ``(method, path)`` of every request the application
    routed to one of its routes (``scope["route"]`` set by the router)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.routed: set[tuple[str, str]] = set()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
        if scope["type"] == "http" and scope.get("route") is not None:
            self.routed.add((scope["method"].lower(), scope["path"]))

    def templates(self, operations: set[tuple[str, str]]) -> set[tuple[str, str]]:
        """The document's (method, path template) each routed request matches."""
        hits = set()
        for method, path in self.routed:
            for operation, template in operations:
                pattern = re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template))
                if method == operation and re.fullmatch(pattern, path):
                    hits.add((method, template))
        return hits


def _operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (method, path)
        for path, item in document["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }


def test_the_document_validates_and_describes_errors(sqlite_world: World) -> None:
    with sqlite_world.client() as client:
        answer = client.get("/api/v1/openapi.json")
        assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
    assert answer.status_code == 200
    document = answer.json()
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert "Error" in document["components"]["schemas"]
    assert "HTTPValidationError" not in document["components"]["schemas"]  # ours, not FastAPI's
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, (path, method, status)
            assert "429" in operation["responses"], (path, method)
    security = document["components"]["securitySchemes"]["token"]
    assert security == {**security, "type": "http", "scheme": "bearer"}
    upload_body = document["paths"]["/api/v1/bots"]["post"]["requestBody"]
    assert "multipart/form-data" in upload_body["content"]


def test_every_route_in_the_document_is_called(sqlite_world: World) -> None:
    world = sqlite_world
    cup = make_cup(world)
    alice = world.auth("alice")
    recorder: list[RouteRecorder] = []

    def wrap(app: Any) -> RouteRecorder:
        recorder.append(RouteRecorder(app))
        return recorder[0]

    made: dict[str, Any] = {}

    def submitted(client: Any) -> Any:
        answer = upload(client, alice, bot_zip("alice_table_bot"))
        made["submission"] = answer.json()["submission_id"]
        wait_for_submission(client, alice, made["submission"])
        return answer

    def test_match(client: Any) -> Any:
        body = {"bot": "alice_bot", "opponents": ["builtin:greedy"]}
        answer = client.post("/api/v1/test-matches", headers=alice, json=body)
        made["test_match"] = answer.json()["id"]
        return answer

    table: list[tuple[int, Callable[[Any], Any]]] = [
        (200, lambda c: c.get("/api/v1/health")),
        (200, lambda c: c.get("/api/v1/me", headers=alice)),
        (202, submitted),
        (200, lambda c: c.get(f"/api/v1/submissions/{made['submission']}", headers=alice)),
        (200, lambda c: c.get("/api/v1/bots", headers=alice)),
        (200, lambda c: c.get("/api/v1/bots/alice_table_bot", headers=alice)),
        (200, lambda c: c.get("/api/v1/bots/alice_bot/games", headers=alice)),
        (200, lambda c: c.get(f"/api/v1/games/{cup.game_ids[0]}", headers=alice)),
        (202, test_match),
        (200, lambda c: c.get(f"/api/v1/test-matches/{made['test_match']}", headers=alice)),
        (200, lambda c: c.get("/api/v1/tournaments/cup/standings")),
    ]
    with world.client(wrap=wrap) as client:
        for status, call in table:
            answer = call(client)
            assert answer.status_code == status, (answer.request.url, answer.text)
        document = client.get("/api/v1/openapi.json").json()
        # Control: a request routed nowhere counts for no route.
        assert client.delete("/api/v1/bots/alice_bot", headers=alice).status_code == 405
        assert client.get("/api/v1/bots/alice_bot/nothing", headers=alice).status_code == 404
    (routes,) = recorder
    operations = _operations(document)
    assert len(operations) == len(table) == 11
    assert routes.templates(operations) == operations

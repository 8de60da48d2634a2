"""A foreign AG-UI agent for tests/proxy.rs, written with the official Python SDK (ag-ui-protocol).

It plays the part of a LangGraph / CrewAI / Pydantic AI server: `POST /{behaviour}` (or `POST /`,
where the first word of the last user message picks the behaviour) answers a RunAgentInput with
an SSE stream made by `ag_ui.encoder.EventEncoder`. Some behaviours break the protocol on purpose.
`GET /seen/{run_id}` tells the test what the agent saw of a run (started, client disconnected,
completed), so cancellation can be checked from the outside.

Usage: python agent.py  -- binds 127.0.0.1 on a port the OS picks and prints `PORT <n>` first.
"""

import asyncio
import json
import socket
import sys

import uvicorn
from ag_ui.core import (
    PROTOCOL_VERSION,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

# What the agent saw of each run, by run id (for `GET /seen/{run_id}`).
SEEN: dict[str, dict] = {}


def last_user_text(inp: RunAgentInput) -> str:
    for m in reversed(inp.messages):
        if m.role == "user":
            c = m.content
            if isinstance(c, str):
                return c
            return " ".join(getattr(p, "text", "") for p in c)
    return ""


def started(inp: RunAgentInput, thread_id=None, run_id=None):
    return RunStartedEvent(
        thread_id=thread_id or inp.thread_id,
        run_id=run_id or inp.run_id,
        protocol_version=PROTOCOL_VERSION,
    )


def finished(inp: RunAgentInput, **kw):
    return RunFinishedEvent(thread_id=inp.thread_id, run_id=inp.run_id, **kw)


def say(message_id: str, *pieces: str):
    yield TextMessageStartEvent(message_id=message_id, role="assistant")
    for p in pieces:
        yield TextMessageContentEvent(message_id=message_id, delta=p)
    yield TextMessageEndEvent(message_id=message_id)


# --- behaviours: generators of SDK events, dicts (sent as JSON) or raw SSE text -----------------


async def text(inp, request):
    yield started(inp)
    for e in say("py-text", "Hello from Python! ", "You said: ", last_user_text(inp)):
        yield e
    yield finished(inp)


async def echo(inp, request):
    """Tells what arrived: the headers the proxy sent and the shape of the input."""
    seen = {
        "x-test-token": request.headers.get("x-test-token"),
        "x-team": request.headers.get("x-team"),
        "accept": request.headers.get("accept"),
        "content-type": request.headers.get("content-type"),
        "threadId": inp.thread_id,
        "runId": inp.run_id,
        "protocolVersion": inp.protocol_version,
        "messages": len(inp.messages),
        "state": inp.state,
        "forwardedProps": inp.forwarded_props,
        "tools": [t.name for t in inp.tools or []],
    }
    yield started(inp)
    for e in say("py-echo", json.dumps(seen, sort_keys=True)):
        yield e
    yield finished(inp)


async def tools(inp, request):
    yield started(inp)
    for e in say("py-tools-1", "Let me look that up."):
        yield e
    yield ToolCallStartEvent(
        tool_call_id="py-call-1", tool_call_name="get_weather", parent_message_id="py-tools-1"
    )
    yield ToolCallArgsEvent(tool_call_id="py-call-1", delta='{"city": ')
    yield ToolCallArgsEvent(tool_call_id="py-call-1", delta='"Paris"}')
    yield ToolCallEndEvent(tool_call_id="py-call-1")
    yield ToolCallResultEvent(
        message_id="py-result-1", tool_call_id="py-call-1", content='{"temp": 21}', role="tool"
    )
    for e in say("py-tools-2", "It is 21 °C in Paris."):
        yield e
    yield finished(inp)


async def state(inp, request):
    yield started(inp)
    yield StateSnapshotEvent(snapshot={"counter": 1, "items": ["a"]})
    yield StateDeltaEvent(
        delta=[
            {"op": "replace", "path": "/counter", "value": 2},
            {"op": "add", "path": "/items/-", "value": "b"},
        ]
    )
    for e in say("py-state", "State updated."):
        yield e
    yield finished(inp)


async def reasoning(inp, request):
    yield started(inp)
    yield ReasoningStartEvent(message_id="py-think")
    yield ReasoningMessageStartEvent(message_id="py-think", role="reasoning")
    yield ReasoningMessageContentEvent(message_id="py-think", delta="Weighing the options…")
    yield ReasoningMessageEndEvent(message_id="py-think")
    yield ReasoningEndEvent(message_id="py-think")
    for e in say("py-answer", "Option B."):
        yield e
    yield finished(inp)


async def pending(inp, request):
    """A frontend tool call the application must answer; the run finishes without a result."""
    name = (inp.tools[0].name if inp.tools else None) or "confirm_booking"
    yield started(inp)
    for e in say("py-ask", "Please confirm the booking."):
        yield e
    yield ToolCallStartEvent(tool_call_id="py-front-1", tool_call_name=name, parent_message_id="py-ask")
    yield ToolCallArgsEvent(tool_call_id="py-front-1", delta='{"seats": 2}')
    yield ToolCallEndEvent(tool_call_id="py-front-1")
    yield finished(inp)


async def result(inp, request):
    yield started(inp)
    for e in say("py-result", "The answer is 42."):
        yield e
    yield finished(
        inp,
        result={"answer": 42},
        usage=[TokenUsage(provider="python", model="fake-1", input_tokens=5, output_tokens=7, total_tokens=12)],
    )


async def chunks(inp, request):
    yield started(inp)
    yield TextMessageChunkEvent(message_id="py-chunk", role="assistant", delta="Chunked ")
    yield TextMessageChunkEvent(message_id="py-chunk", delta="text.")
    yield finished(inp)


async def legacy(inp, request):
    """Retired 0.0.x THINKING_* events (the SDK no longer has them): the proxy translates them."""
    yield started(inp)
    yield {"type": "THINKING_START", "title": "Working"}
    yield {"type": "THINKING_TEXT_MESSAGE_START"}
    yield {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "Old-style thought."}
    yield {"type": "THINKING_TEXT_MESSAGE_END"}
    yield {"type": "THINKING_END"}
    for e in say("py-legacy", "Done."):
        yield e
    yield finished(inp)


async def other_ids(inp, request):
    """Answers under a run id of its own (in the thread it was asked about)."""
    yield started(inp, run_id="py-run")
    for e in say("py-other", "Mine."):
        yield e
    yield RunFinishedEvent(thread_id=inp.thread_id, run_id="py-run")


async def other_thread(inp, request):
    """Breaks a consumer MUST: its run is in another thread than the input's."""
    yield started(inp, thread_id="py-thread")
    for e in say("py-other", "Elsewhere."):
        yield e
    yield RunFinishedEvent(thread_id="py-thread", run_id=inp.run_id)


async def switch_thread(inp, request):
    """Breaks a consumer MUST: the run ends in another thread than it started in."""
    yield started(inp)
    for e in say("py-switch", "Here."):
        yield e
    yield RunFinishedEvent(thread_id="py-thread", run_id=inp.run_id)


async def mismatched_run(inp, request):
    """Breaks a consumer MUST: the run ends under another run id than it started with."""
    yield started(inp)
    for e in say("py-mismatch", "Done."):
        yield e
    yield RunFinishedEvent(thread_id=inp.thread_id, run_id="py-other-run")


async def duplicate_interrupts(inp, request):
    """Breaks a consumer MUST: two interrupts of one run under the same id."""
    yield started(inp)
    ask = {"id": "py-int", "reason": "confirmation", "message": "Sure?"}
    yield {
        "type": "RUN_FINISHED", "threadId": inp.thread_id, "runId": inp.run_id,
        "outcome": {"type": "interrupt", "interrupts": [ask, ask]},
    }


async def cut_terminal(inp, request):
    """The connection breaks inside the terminal event's JSON."""
    yield started(inp)
    for e in say("py-cut", "Almost done."):
        yield e
    yield 'data: {"type": "RUN_FINISHED", "threadId": "%s", "ru' % inp.thread_id


async def error(inp, request):
    yield started(inp)
    yield TextMessageStartEvent(message_id="py-err", role="assistant")
    yield TextMessageContentEvent(message_id="py-err", delta="Starting…")
    yield RunErrorEvent(message="the python agent failed: quota exceeded", code="PY_QUOTA")


async def error_nocode(inp, request):
    yield started(inp)
    yield RunErrorEvent(message="something went wrong")


async def late_error(inp, request):
    yield started(inp)
    for e in say("py-late", "All good so far."):
        yield e
    yield finished(inp)
    yield RunErrorEvent(message="the answer could not be saved", code="PY_LATE")


async def broken(inp, request):
    yield started(inp)
    yield TextMessageContentEvent(message_id="py-ghost", delta="boo")
    yield finished(inp)


async def malformed(inp, request):
    yield started(inp)
    yield "data: {not json\n\n"


async def after_terminal(inp, request):
    yield started(inp)
    yield finished(inp)
    for e in say("py-zombie", "still here"):
        yield e


async def second_run(inp, request):
    yield started(inp)
    yield finished(inp)
    yield started(inp, run_id=inp.run_id + "-again")
    yield RunFinishedEvent(thread_id=inp.thread_id, run_id=inp.run_id + "-again")


async def truncated(inp, request):
    yield started(inp)
    yield TextMessageStartEvent(message_id="py-cut", role="assistant")
    yield TextMessageContentEvent(message_id="py-cut", delta="and then")


async def empty(inp, request):
    return
    yield


async def linger(inp, request):
    """Finishes, then keeps the connection open with keep-alive comments."""
    yield started(inp)
    for e in say("py-linger", "Done, but not hanging up."):
        yield e
    yield finished(inp)
    for _ in range(100):
        await asyncio.sleep(0.1)
        yield ": ping\n\n"


async def slow(inp, request):
    """Streams a word every 50 ms for up to 20 s; the test drops its client meanwhile."""
    yield started(inp)
    yield TextMessageStartEvent(message_id="py-slow", role="assistant")
    for i in range(400):
        await asyncio.sleep(0.05)
        yield TextMessageContentEvent(message_id="py-slow", delta=f"word{i} ")
    yield TextMessageEndEvent(message_id="py-slow")
    yield finished(inp)


async def quiet(inp, request):
    """Says one word, then nothing at all for 20 s (a model thinking)."""
    yield started(inp)
    yield TextMessageStartEvent(message_id="py-quiet", role="assistant")
    yield TextMessageContentEvent(message_id="py-quiet", delta="Thinking…")
    await asyncio.sleep(20)
    yield TextMessageEndEvent(message_id="py-quiet")
    yield finished(inp)


async def big(inp, request):
    """`big N`: N text deltas of one message, one event per write (the capacity benchmark's load,
    like the demo agent's `long N`)."""
    words = last_user_text(inp).split()
    n = next((int(w) for w in words if w.isdigit()), 1000)
    n = min(n, 10_000_000)
    yield started(inp)
    yield TextMessageStartEvent(message_id="py-big", role="assistant")
    for i in range(n):
        yield TextMessageContentEvent(message_id="py-big", delta=f"{i} ")
    yield TextMessageEndEvent(message_id="py-big")
    yield finished(inp)


BEHAVIOURS = {
    f.__name__: f
    for f in [
        text, echo, tools, state, reasoning, pending, result, chunks, legacy, other_ids, error,
        other_thread, switch_thread, mismatched_run, duplicate_interrupts, cut_terminal,
        error_nocode, late_error, broken, malformed, after_terminal, second_run, truncated, empty,
        linger, slow, quiet, big,
    ]
}


async def stream(behaviour, inp: RunAgentInput, request: Request):
    record = SEEN.setdefault(inp.run_id, {"started": False, "disconnected": False, "completed": False})
    record["started"] = True
    encoder = EventEncoder(accept=request.headers.get("accept"))
    try:
        async for item in behaviour(inp, request):
            if isinstance(item, str):
                yield item
            elif isinstance(item, dict):
                yield f"data: {json.dumps(item)}\n\n"
            else:
                yield encoder.encode(item)
        record["completed"] = True
    finally:
        # Cancelled mid-stream: Starlette saw the client (the proxy) go away.
        if not record["completed"]:
            record["disconnected"] = True


async def run(request: Request) -> Response:
    name = request.path_params.get("behaviour")
    if name == "http_error":
        return PlainTextResponse("database unavailable:\n  connection pool exhausted", status_code=503)
    if name == "not_sse":
        return JSONResponse({"messages": [], "note": "this is not a stream"})
    inp = RunAgentInput.model_validate(await request.json())
    if name is None:
        words = last_user_text(inp).split()
        name = words[0] if words else "text"
    behaviour = BEHAVIOURS.get(name)
    if behaviour is None:
        return PlainTextResponse(f"unknown behaviour {name!r}", status_code=404)
    return StreamingResponse(
        stream(behaviour, inp, request),
        media_type=EventEncoder().get_content_type(),
        headers={"Cache-Control": "no-cache"},
    )


async def seen(request: Request) -> Response:
    return JSONResponse(SEEN.get(request.path_params["run_id"], {}))


app = Starlette(
    routes=[
        Route("/", run, methods=["POST"]),
        Route("/seen/{run_id}", seen, methods=["GET"]),
        Route("/{behaviour}", run, methods=["POST"]),
    ]
)


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is announced: connections queue until uvicorn accepts them, so
    # the test may connect the moment it reads the port.
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())

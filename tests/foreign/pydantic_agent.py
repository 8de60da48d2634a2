"""A Pydantic AI agent served by its AG-UI adapter (`pydantic_ai.ui.ag_ui.AGUIAdapter`), for the
framework tests.

No network and no API key: the model is Pydantic AI's `FunctionModel`, whose stream function
answers from the conversation, so every run is deterministic:

- `weather ...` -> a streamed call of the backend tool `get_weather` (run by Pydantic AI), then
  text that uses the tool's result;
- `book ...`    -> a call of the client's own tool `confirm_booking` (sent in the input's
  `tools`): Pydantic AI defers it, and the run ends with the call pending for the client;
- `think ...`   -> a thinking part, then text;
- `slow N ...`  -> N short text pieces, 50 ms apart (for cutting a stream mid-run);
- anything else -> text echoing the user.

Usage: python pydantic_agent.py  -- binds 127.0.0.1 on a port the OS picks and prints `PORT <n>`
first; the agent answers `POST /agent`.
"""

import asyncio
import json
import socket
import sys

import uvicorn
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def last_user_text(messages: list[ModelMessage]) -> str:
    for m in reversed(messages):
        if isinstance(m, ModelRequest):
            for p in reversed(m.parts):
                if isinstance(p, UserPromptPart):
                    c = p.content
                    return c if isinstance(c, str) else " ".join(x for x in c if isinstance(x, str))
    return ""


def last_tool_return(messages: list[ModelMessage]):
    """The tool result the model is answering now, if the last request carries one."""
    if messages and isinstance(messages[-1], ModelRequest):
        for p in messages[-1].parts:
            if isinstance(p, ToolReturnPart):
                return p
    return None


async def stream(messages: list[ModelMessage], info: AgentInfo):
    ret = last_tool_return(messages)
    if ret is not None:
        yield f"The {ret.tool_name} tool says: "
        yield ret.model_response_str()
        return
    words = last_user_text(messages).split()
    first = words[0] if words else ""
    if first == "weather":
        city = words[1] if len(words) > 1 else "Paris"
        yield {0: DeltaToolCall(name="get_weather", tool_call_id="pyd-weather-1")}
        yield {0: DeltaToolCall(json_args='{"city": ')}
        yield {0: DeltaToolCall(json_args=json.dumps(city) + "}")}
    elif first == "book" and any(t.name == "confirm_booking" for t in info.function_tools):
        yield {0: DeltaToolCall(name="confirm_booking", tool_call_id="pyd-book-1")}
        yield {0: DeltaToolCall(json_args='{"flight": "AF123"}')}
    elif first == "think":
        yield {0: DeltaThinkingPart(content="Weighing ")}
        yield {0: DeltaThinkingPart(content="the options…")}
        yield "Option B."
    elif first == "slow":
        n = int(words[1]) if len(words) > 1 and words[1].isdigit() else 20
        for i in range(max(1, min(n, 200))):
            await asyncio.sleep(0.05)
            yield f"piece-{i} "
    else:
        yield "Hello from Pydantic AI! "
        yield "You said: "
        yield " ".join(words)


agent = Agent(FunctionModel(stream_function=stream))


@agent.tool_plain
def get_weather(city: str) -> str:
    """The weather in a city."""
    return json.dumps({"temp": 21, "city": city})


async def run(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent)


app = Starlette(routes=[Route("/agent", run, methods=["POST"])])


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())

"""A LangGraph agent served by the official `ag-ui-langgraph` adapter, for the framework tests.

No network and no API key: the graph's model is langchain_core's `GenericFakeChatModel`, given
one scripted `AIMessage` per call. What it answers depends on the conversation, so every run is
deterministic:

- `weather ...`  -> an AIMessage calling the backend tool `get_weather` (LangGraph's ToolNode runs
  it), then text that uses the tool's result;
- `confirm ...`  -> the graph pauses on `interrupt(...)` (LangGraph human-in-the-loop); a run
  that resumes it (`RunAgentInput.resume`) gets text naming the answer;
- `slow N ...`   -> N short text pieces, 50 ms apart (for cutting a stream mid-run);
- anything else  -> text echoing the user.

Threads live in the graph's in-memory checkpointer, as LangGraph keeps them.

Usage: python langgraph_agent.py  -- binds 127.0.0.1 on a port the OS picks and prints
`PORT <n>` first; the agent answers `POST /agent`.
"""

import asyncio
import socket
import sys

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.language_models.fake_chat_models import (
    FakeMessagesListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return '{"temp": 21, "city": "%s"}' % city


def last_human(messages) -> str:
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            c = m.content
            return c if isinstance(c, str) else " ".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def script(messages) -> AIMessage:
    """The model's next message for this conversation."""
    last = messages[-1] if messages else None
    if isinstance(last, ToolMessage):
        return AIMessage(content=f"The {last.name} tool says: {last.content}")
    words = last_human(messages).split()
    first = words[0] if words else ""
    if first == "weather":
        city = words[1] if len(words) > 1 else "Paris"
        calls = sum(1 for m in messages if isinstance(m, ToolMessage))
        return AIMessage(
            content="",
            tool_calls=[{"name": "get_weather", "args": {"city": city}, "id": f"call-weather-{calls + 1}"}],
        )
    return AIMessage(content=f"Hello from LangGraph! You said: {' '.join(words)}")


async def model(state: MessagesState):
    messages = state["messages"]
    words = last_human(messages).split()
    if words[:1] == ["slow"] and not isinstance(messages[-1], ToolMessage):
        n = int(words[1]) if len(words) > 1 and words[1].isdigit() else 20
        n = max(1, min(n, 200))
        reply = AIMessage(content=" ".join(f"piece-{i}" for i in range(n)))
        # GenericFakeChatModel streams word by word; slow the stream down between words.
        llm = GenericFakeChatModel(messages=iter([reply]))
        chunks = []
        async for chunk in llm.astream(messages):
            chunks.append(chunk)
            await asyncio.sleep(0.05)
        full = chunks[0]
        for c in chunks[1:]:
            full = full + c
        return {"messages": [AIMessage(content=full.content, id=full.id)]}
    reply = script(messages)
    if reply.tool_calls:
        # GenericFakeChatModel streams content only (a bare tool call makes "No generations found
        # in stream"); FakeMessagesListChatModel answers with the whole message at once.
        llm = FakeMessagesListChatModel(responses=[reply])
    else:
        llm = GenericFakeChatModel(messages=iter([reply]))
    return {"messages": [await llm.ainvoke(messages)]}


async def approval(state: MessagesState):
    answer = interrupt({"question": "Book the flight to Paris?", "options": ["yes", "no"]})
    return {"messages": [AIMessage(content=f"Booking answered: {answer}")]}


def route_start(state: MessagesState):
    words = last_human(state["messages"]).split()
    return "approval" if words[:1] == ["confirm"] else "model"


def route_model(state: MessagesState):
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else END


def build_graph():
    g = StateGraph(MessagesState)
    g.add_node("model", model)
    g.add_node("tools", ToolNode([get_weather]))
    g.add_node("approval", approval)
    g.add_conditional_edges(START, route_start, ["approval", "model"])
    g.add_conditional_edges("model", route_model, ["tools", END])
    g.add_edge("tools", "model")
    g.add_edge("approval", END)
    return g.compile(checkpointer=InMemorySaver())


app = FastAPI()
add_langgraph_fastapi_endpoint(
    app,
    LangGraphAgent(name="lg", graph=build_graph(), emit_interrupt_outcome=True),
    "/agent",
)


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

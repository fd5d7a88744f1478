"""Run steps against the Agent Zero tree this file sits in; one JSON line out per step.

``python driver.py '{"profile": "", "project": "", "steps": [...]}'`` from the
tree's root, with the Python that plays Agent Zero's framework runtime.  Steps:

* ``{"op": "plugins"}``: the plugins found and the ones enabled for the agent;
* ``{"op": "hook", "hook": "install"}``: a hook of the tmux_tool plugin, as the plugin installer calls it;
* ``{"op": "toggle", "enabled": false}``: the plugin list's on/off switch;
* ``{"op": "delete"}``: the plugin list's delete (uninstall hook, then the folder);
* ``{"op": "prompt"}``: the tool list of the system prompt;
* ``{"op": "skills"}``: the skills the agent sees;
* ``{"op": "call", "reply": {...}, "intervene_after": 1.5}``: one reply of the model through ``process_tools``.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sys
import traceback
from typing import Any

import agent as a0  # the tree's own agent.py: Python puts the script's folder first on sys.path


async def call(agent: a0.Agent, step: dict[str, Any]) -> dict[str, Any]:
    if step.get("intervene_after"):
        asyncio.get_running_loop().call_later(float(step["intervene_after"]), setattr, agent, "intervention",
                                              "the human: stop and tell me what you see")
    before = len(agent.context.log.items)
    try:
        response = await agent.process_tools(json.dumps(step["reply"]))
        out: dict[str, Any] = {"message": response.message, "break_loop": response.break_loop}
    except a0.InterventionException as exc:
        out = {"intervened": str(exc)}
    except Exception as exc:  # noqa: BLE001 - the step's answer is what it raised
        return {"error": f"{type(exc).__name__}: {exc}"}
    tool = agent.last_tool
    items = agent.context.log.items[before:]
    out.update({"class": type(tool).__name__, "module": type(tool).__module__,
                "response_class": type(response).__module__ + "." + type(response).__name__
                if "message" in out else None,
                "log": [{"heading": i.heading, "content": i.content, "updates": i.updates} for i in items],
                "history": agent.history[-3:]})
    return out


async def run(spec: dict[str, Any]) -> None:
    agent = a0.Agent(profile=spec.get("profile", ""), project=spec.get("project", ""))
    answers = sys.stdout
    for step in spec["steps"]:
        op = step["op"]
        printed = io.StringIO()  # what the framework's code prints goes to Agent Zero's console
        try:
            with contextlib.redirect_stdout(printed):
                out = await step_answer(agent, step, op)
        except Exception as exc:  # noqa: BLE001 - the step's answer is what it raised
            out = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=3)}
        print(json.dumps({"op": op, **out, "printed": printed.getvalue()}), file=answers, flush=True)


async def step_answer(agent: a0.Agent, step: dict[str, Any], op: str) -> dict[str, Any]:
    if op == "plugins":
        return {"plugins": a0.plugins_list(), "enabled": a0.enabled_plugins(agent)}
    if op == "hook":
        try:
            return {"returned": repr(a0.call_plugin_hook("tmux_tool", step["hook"]))}
        except Exception as exc:  # noqa: BLE001 - what a hook raises is its answer
            return {"error": f"{type(exc).__name__}: {exc}"}
    if op == "toggle":
        a0.toggle_plugin("tmux_tool", bool(step["enabled"]))
        return {"enabled": a0.enabled_plugins(agent)}
    if op == "delete":
        a0.delete_plugin("tmux_tool")
        return {"plugins": a0.plugins_list()}
    if op == "prompt":
        return {"tools": agent.tools_prompt()}
    if op == "skills":
        return {"skills": [vars(s) for s in a0.list_skills(agent)]}
    if op == "call":
        return await call(agent, step)
    return {"error": f"unknown op {op}"}


if __name__ == "__main__":
    asyncio.run(run(json.loads(sys.argv[1])))

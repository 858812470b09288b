"""The course runtime as it stands after lesson 4.

Lessons 1-3 built the tool loop: a model asks for a tool call, the runtime
checks the call, asks permission and runs the tool. Lesson 4 adds hooks:
code of your own that runs before and after every tool call.
A tool call is a dict {"id": str, "name": str, "params": dict}.
"""
import copy

# Lesson 1: the tools and what each needs.
TOOLS = {
    "read_file": ("path",),
    "run_main": ("program",),
    "write_file": ("path", "text"),
}


def validate_call(call):
    """Return None when the call is well formed, else a message saying what is wrong."""
    if not isinstance(call, dict):
        return "a tool call must be a dict"
    if not isinstance(call.get("id"), str) or not call["id"]:
        return "a tool call needs a non-empty string id"
    if call.get("name") not in TOOLS:
        return f"unknown tool: {call.get('name')!r}"
    params = call.get("params")
    if not isinstance(params, dict):
        return "params must be a dict"
    missing = [name for name in TOOLS[call["name"]] if name not in params]
    if missing:
        return f"{call['name']} is missing: {', '.join(missing)}"
    return None


def tool_result(call_id, content, is_error=False):
    return {"type": "tool_result", "id": call_id, "is_error": is_error, "content": content}


# Lesson 2: running a tool. `env` holds the stand-ins for the outside world.
def execute_tool(call, env):
    params = call["params"]
    if call["name"] == "read_file":
        try:
            return tool_result(call["id"], env["files"].read(params["path"]))
        except OSError as error:
            return tool_result(call["id"], f"cannot read {params['path']}: {error}", True)
    if call["name"] == "run_main":
        done = env["process"].run(params["program"])
        failed = done["exit_code"] != 0
        return tool_result(call["id"], f"exit code {done['exit_code']}\n{done['output']}", failed)
    return tool_result(call["id"], f"{call['name']} has no runner here", True)


# Lesson 3: permission. Reading is allowed, running asks a person, the rest is denied.
def permission_for(name):
    if name == "read_file":
        return "allow"
    if name == "run_main":
        return "ask"
    return "deny"


def authorize_call(call, ask):
    """True only when policy allows, or policy asks and the answer is exactly True."""
    rule = permission_for(call["name"])
    if rule == "allow":
        return True
    if rule == "ask":
        return ask(call) is True
    return False


def execute_guarded(call, env, ask):
    problem = validate_call(call)
    if problem is not None:
        return tool_result(call.get("id", "?"), f"invalid call: {problem}", True)
    if not authorize_call(call, ask):
        return tool_result(call["id"], f"permission denied for {call['name']}", True)
    return execute_tool(call, env)


# Lesson 4: hooks.
def run_hooks(hooks, event, payload):
    """Run the callbacks registered for `event` and report {blocked, warnings}.

    before: a callback returns None to let the call go on, or a non-empty
    string: the reason it blocks. Anything else, or an exception, also blocks.
    after: observers must return None; a bad return or an exception is a
    warning, and the next observer still runs.
    """
    if event not in ("before", "after"):
        raise ValueError(f"unknown hook event: {event!r}")
    blocked = None
    warnings = []
    for callback in tuple(hooks.get(event, ())):
        view = copy.deepcopy(payload)
        try:
            answer = callback(view)
        except Exception as error:
            problem = f"{callback.__name__} raised {type(error).__name__}: {error}"
            if event == "before":
                blocked = f"pre-check exception: {problem}"
                break
            warnings.append(problem)
            continue
        if event == "before":
            if answer is None:
                continue
            if isinstance(answer, str) and answer:
                blocked = answer
            else:
                blocked = f"protocol error: {callback.__name__} returned {answer!r}"
            break
        if answer is not None:
            warnings.append(f"protocol error: {callback.__name__} returned {answer!r}")
    return {"blocked": blocked, "warnings": warnings}


def execute_hooked(call, hooks, env, ask):
    """Run before hooks, the guarded tool, then after hooks. Nothing is retried."""
    call = copy.deepcopy(call)
    before = run_hooks(hooks, "before", call)
    if before["blocked"] is not None:
        result = tool_result(call.get("id", "?"), f"not executed: {before['blocked']}", True)
    else:
        result = execute_guarded(call, env, ask)
    after = run_hooks(hooks, "after", {"call": call, "result": result})
    return {"result": result, "warnings": after["warnings"]}


def audit_event(event, payload, entries):
    """Append one audit entry: before sees the call, after sees {call, result}."""
    if event == "before":
        call, result = payload, None
    elif event == "after":
        call, result = payload["call"], payload["result"]
    else:
        raise ValueError(f"unknown audit event: {event!r}")
    entry = {"event": event, "id": call.get("id"), "tool": call.get("name")}
    if result is not None:
        entry["is_error"] = result["is_error"]
        entry["content"] = result["content"]
    entries.append(entry)
    return None


def build_hooks(entries, maintenance=False):
    """The hooks this course ships: audit every call; pause run_main for maintenance."""

    def audit_before(call):
        audit_event("before", call, entries)

    def maintenance_check(call):
        if maintenance and call["name"] == "run_main":
            return "maintenance window: run_main is paused"
        return None

    def audit_after(payload):
        audit_event("after", payload, entries)

    return {"before": [audit_before, maintenance_check], "after": [audit_after]}

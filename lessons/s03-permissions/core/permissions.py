"""The course runtime as it stands after lesson 3: checked calls, permission, guarded execution.

A tool call is a dict {"id": str, "name": str, "params": dict}.
"""

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


def execute_tool(call, env):
    params = call["params"]
    if call["name"] == "read_file":
        try:
            return tool_result(call["id"], env["files"].read(params["path"]))
        except OSError as error:
            return tool_result(call["id"], f"cannot read {params['path']}: {error}", True)
    if call["name"] == "run_main":
        done = env["process"].run(params["program"])
        return tool_result(call["id"], f"exit code {done['exit_code']}\n{done['output']}", done["exit_code"] != 0)
    return tool_result(call["id"], f"{call['name']} has no runner here", True)


def permission_for(name):
    """Reading is allowed, running asks a person, everything else is denied."""
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
        answer = ask(call)
        return answer is True
    return False


def execute_guarded(call, env, ask):
    """Check the call, ask permission, and only then run the tool."""
    problem = validate_call(call)
    if problem is not None:
        return tool_result(call.get("id", "?"), f"invalid call: {problem}", True)
    if not authorize_call(call, ask):
        return tool_result(call["id"], f"permission denied for {call['name']}", True)
    return execute_tool(call, env)

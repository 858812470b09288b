# Teaching setup for audit_event: one event, one fresh list of entries.
from core.runtime import audit_event

entries = []
payload = call if event == "before" else {"call": call, "result": result}

# The call entry: the function shown above runs here.
audit_event(event, payload, entries)
outcome = entries

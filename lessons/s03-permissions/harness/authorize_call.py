# Teaching setup for authorize_call: a scripted person answers the permission question.
from core.permissions import authorize_call
from core.standins import ScriptedHost

host = ScriptedHost(answer)

# The call entry: the function shown above runs here.
allowed = authorize_call(call, host.ask)
outcome = {"allowed": allowed, "host_was_asked": host.questions}

"""Control flow and exceptions, written for the differential corpus."""
import contextlib


def finally_reraises():
    try:
        1 / 0
    finally:
        cleanup = True


def except_does_not_match():
    try:
        {}["missing"]
    except ValueError:
        return "not reached"


def raise_in_handler():
    try:
        int("x")
    except ValueError as error:
        raise RuntimeError("wrapped") from error


def bare_reraise():
    try:
        [].pop()
    except IndexError:
        note = "seen"
        raise


def try_else_finally(n):
    log = []
    try:
        value = 10 // n
    except ZeroDivisionError:
        log.append("zero")
        value = None
    else:
        log.append("ok")
    finally:
        log.append("done")
    return value, log


def return_in_finally():
    try:
        raise KeyError("lost")
    finally:
        return "finally wins"


def with_exit_reraises(path):
    with open(path, "w") as handle:
        handle.write("x")
        raise OSError("after writing")


@contextlib.contextmanager
def tag(log, name):
    log.append("<" + name + ">")
    try:
        yield name
    finally:
        log.append("</" + name + ">")


def with_suppresses(log):
    with contextlib.suppress(ZeroDivisionError):
        with tag(log, "b"):
            1 / 0
    return log


def loop_else(items, wanted):
    for item in items:
        if item == wanted:
            found = item
            break
    else:
        found = None
    return found


def while_continue(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        if i % 2:
            continue
        total += i
    return total


def match_shapes(shape):
    match shape:
        case {"kind": "circle", "r": r}:
            return 3 * r * r
        case {"kind": "rect", "w": w, "h": h} if w == h:
            return ("square", w * h)
        case [x, y]:
            return x + y
        case _:
            return None


def nested_exceptions(depth):
    if depth == 0:
        raise LookupError("bottom")
    try:
        nested_exceptions(depth - 1)
    except LookupError as error:
        if depth % 2:
            raise ValueError("level %d" % depth) from error
        raise


def exception_group():
    try:
        raise ExceptionGroup("many", [ValueError(1), TypeError(2)])
    except* ValueError as group:
        caught = group
    except* TypeError:
        other = True
    return "handled"


def assert_fails(x):
    assert x > 0, "x must be positive"
    return x


def locals_come_and_go(skip):
    if not skip:
        early = "bound first"
    late = [skip]
    early = late
    del early, late
    kept = "still here"
    del skip
    return kept

"""Generators and coroutines, written for the differential corpus."""


def countdown(n):
    while n > 0:
        yield n
        n -= 1
    return "liftoff"


def accumulator():
    total = 0
    while True:
        received = yield total
        if received is None:
            break
        total += received
    return total


def guarded_stream(items):
    try:
        for item in items:
            yield item * 2
    except ValueError as error:
        yield "recovered from %s" % error
    finally:
        closed = True


def delegating(n):
    result = yield from countdown(n)
    yield result


async def double_later(x):
    await Ready()
    return x * 2


class Ready:
    def __await__(self):
        yield "tick"
        return None


def pipeline(lines):
    stripped = (line.strip() for line in lines)
    return [line.upper() for line in stripped if line]

"""Lesson code that uses tracing itself, written for the differential corpus."""
import sys


def traced_by_lesson(n):
    total = 0
    for i in range(n):
        total += i
    return total


def own_tracer():
    seen = []

    def mine(frame, event, arg):
        seen.append(event)
        return None

    previous = sys.gettrace()
    sys.settrace(mine)
    traced_by_lesson(2)
    sys.settrace(previous)
    return seen


def stops_tracing():
    sys.settrace(None)
    after = traced_by_lesson(3)
    return after

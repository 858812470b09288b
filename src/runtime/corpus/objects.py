"""Classes, decorators and descriptors, written for the differential corpus."""
import dataclasses
import functools


def logged(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        wrapper.calls += 1
        return function(*args, **kwargs)

    wrapper.calls = 0
    return wrapper


@logged
def decorated_area(w, h):
    area = w * h
    return area


@functools.lru_cache(maxsize=None)
def cached_fib(n):
    if n < 2:
        return n
    return cached_fib(n - 1) + cached_fib(n - 2)


class Account:
    rate = 0.05

    def __init__(self, owner, balance=0):
        self.owner = owner
        self._balance = balance

    @property
    def balance(self):
        shown = round(self._balance, 2)
        return shown

    @balance.setter
    def balance(self, value):
        if value < 0:
            raise ValueError("negative balance")
        self._balance = value

    @staticmethod
    def parse(text):
        owner, amount = text.split(":")
        return Account(owner, float(amount))

    @classmethod
    def empty(cls, owner):
        made = cls(owner)
        return made

    def deposit(self, amount):
        self.balance = self.balance + amount
        return self


@dataclasses.dataclass
class Point:
    x: int
    y: int

    def moved(self, dx, dy):
        other = dataclasses.replace(self, x=self.x + dx, y=self.y + dy)
        return other


class Slotted:
    __slots__ = ("a", "__hidden", "unset")

    def __init__(self, a):
        self.a = a
        self.__hidden = a * 2

    def total(self):
        combined = self.a + self.__hidden
        return combined


def make_counter():
    count = 0

    def increment(step=1):
        nonlocal count
        count += step
        return count

    return increment


TOTAL = 0


def add_to_total(n):
    global TOTAL
    TOTAL += n
    return TOTAL


def varargs(first, *rest, sep="-", **options):
    parts = [str(first), *map(str, rest)]
    joined = sep.join(parts)
    return joined, sorted(options)


def shared_and_copied(data):
    import copy

    same = data
    deep = copy.deepcopy(data)
    deep["k"].append(3)
    same["k"].append(4)
    return data, deep


def cycles():
    loop = []
    loop.append(loop)
    ring = {"self": None}
    ring["self"] = ring
    return len(loop)


class Evil:
    @property
    def __dict__(self):
        raise RuntimeError("no peeking")


class Unprintable:
    def __str__(self):
        raise RuntimeError("no str")


def recorder_must_not_interfere():
    a = 1
    e = Evil()
    b = 2
    return a + b


def raise_unprintable():
    raise ValueError(Unprintable())


def binary_values():
    raw = bytearray(b"abc")
    raw.append(0)
    view = memoryview(raw)
    head = bytes(view[:2])
    return len(raw)

"""Values changed in place while a local keeps naming the same object.

The recorder re-encodes a local only when what its last encoding read has changed (by identity);
every change below must still reach the trace exactly as a full re-encoding would show it.
"""
import types


class Crate:
    def __init__(self, label):
        self.label = label

    def open(self):
        return self.label


class Tin:
    pass


class Pair:
    __slots__ = ("left", "right")


class Tagged(dict):
    pass


class Row(list):
    pass


def nested_changes():
    deep = [[[[["floor"]]]]]
    deep[0][0][0][0].append("cut")  # below the depth limit: only a length shows
    deep[0][0][0].append(1)
    deep[0][0].insert(0, "mid")
    tree = {"a": {"b": {"c": [1]}}}
    tree["a"]["b"]["c"][0] = 2
    tree["a"]["b"]["d"] = None
    alias = tree["a"]
    alias["b"] = "replaced"
    del tree["a"]
    return deep, tree, alias


def past_the_shown_items():
    long = list(range(60))
    long[55] = "hidden"
    long[3] = "shown"
    long.append(60)
    long.pop()
    long[3] = 3
    table = {n: n for n in range(55)}
    table[54] = "hidden"
    table[0] = "shown"
    return len(long), len(table)


def same_members_new_order():
    keys = {"x": 1, "y": 2}
    keys["x"] = keys.pop("x")
    big = 10**6
    again = [big]
    again[0] = int("1000000")  # equal, another object
    bag = {"a", "b", "c"}
    bag.discard("a")
    bag.add("a")
    fixed = frozenset(bag)
    return keys, again, fixed


def objects_change():
    box = Crate("first")
    box.label = "second"
    box.extra = [1]
    box.extra.append(2)
    del box.extra
    box.__dict__ = {"label": "swapped"}
    box.__class__ = Tin
    Tin.__qualname__ = "Renamed"
    Tin.__qualname__ = "Tin"
    pair = Pair()
    pair.left = 1
    pair.right = [pair]
    del pair.left
    return box, pair


def classes_and_names():
    kind = Crate
    Crate.__qualname__ = "Box"
    Crate.__qualname__ = "Crate"
    method = Crate("m").open
    Crate.open.__qualname__ = "Crate.peek"
    Crate.open.__qualname__ = "Crate.open"
    helper = nested_changes
    nested_changes.__qualname__ = "renamed_helper"
    nested_changes.__qualname__ = "nested_changes"
    unit = types.ModuleType("unit")
    unit.__name__ = "moved"
    return kind, method, helper, unit


def subclasses_and_errors():
    tags = Tagged(a=1)
    tags["b"] = [2]
    tags["b"].append(3)
    Tagged.__qualname__ = "Labels"
    Tagged.__qualname__ = "Tagged"
    row = Row([1])
    row.append(row)
    row.extend([4, 5])
    error = ValueError("first")
    error.args = ("second", [1])
    error.args[1].append(2)
    raw = bytearray(b"ab")
    view = memoryview(raw)
    raw[0] = 0x7A
    view.release()
    loop = []
    loop.append(loop)
    loop.append(1)
    return len(tags), len(row), error.args[0]

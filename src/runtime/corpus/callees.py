"""A target and the helpers a reader may step into (each case lists the helpers it traces)."""


def parse_pair(text):
    left, _, right = text.partition("=")
    if not right:
        raise ValueError("no '=' in %r" % text)
    return left.strip(), right.strip()


def check_key(key, seen):
    if key in seen:
        return "duplicate " + key
    seen.add(key)
    return None


def depth_of(tree):
    if not isinstance(tree, list) or not tree:
        return 0
    return 1 + max(depth_of(child) for child in tree)


def numbered(items):
    for number, item in enumerate(items, 1):
        yield number, item


def through_untraced(callback, value):
    return callback(value)


def read_settings(lines):
    seen = set()
    settings = {}
    problems = []
    for number, line in numbered(lines):
        try:
            key, value = parse_pair(line)
        except ValueError as error:
            problems.append((number, str(error)))
            continue
        problem = through_untraced(lambda k: check_key(k, seen), key)
        if problem:
            problems.append((number, problem))
        settings[key] = value
    nesting = depth_of([[settings], [[problems]]])
    return settings, problems, nesting


def helper_alone():
    return parse_pair("a=1")
